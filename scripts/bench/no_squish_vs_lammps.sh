#!/usr/bin/env bash
# NO_SQUISH step for step against LAMMPS (issue 26): [K]'s N = 100 dipolar soft spheres from ONE
# initial state (scripts/bench/lammps/thesis_state.py, the state of thesis_workload.sh), STEPS
# steps of h = 0.01 by the suite's no_squish and dlm and by LAMMPS's fix rigid/nve
# (thesis_rigid.lmp: NO_SQUISH, Miller et al. 2002, with Kamberaj et al.'s torque kicks). Prints
# the largest difference of the bodies' positions and dipole vectors mu_i = Q_i mubar between the
# suite and LAMMPS, and between the suite's two methods, after STEPS steps, on one line.
#   scripts/bench/no_squish_vs_lammps.sh BUILD_DIR [STEPS] [WORKDIR]
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD=$(realpath "${1:?usage: no_squish_vs_lammps.sh BUILD_DIR [STEPS] [WORKDIR]}")
STEPS=${2:-100}
WORK=${3:-$(mktemp -d)}
positive_int no_squish_vs_lammps.sh STEPS "$STEPS"
LB="$BUILD/liebench"
[ -x "$LB" ] || { echo "no_squish_vs_lammps.sh: missing $LB (cmake --build $BUILD)" >&2; exit 2; }
command -v lmp >/dev/null || { echo "no_squish_vs_lammps.sh: no lmp (scripts/bench/install_peers.sh)" >&2; exit 2; }
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMP_NUM_THREADS=1
PY=/usr/bin/python3
mkdir -p "$WORK"
cd "$WORK"
"$PY" "$ROOT/scripts/bench/lammps/thesis_state.py" 100 1 . >/dev/null
T=$(awk -v s="$STEPS" 'BEGIN { printf "%.10g", 0.01 * s }')
for m in no_squish dlm; do
  cat > $m.cfg <<CFG
# written by scripts/bench/no_squish_vs_lammps.sh
study = simulate
model = dipolar
methods = $m
dt = 0.01
t_final = $T
save_state = true
state_every = $STEPS
[dipolar]
N = 100
initial = file
file = state.h5
dataset = /initial_state
CFG
  "$LB" run $m.cfg -o $m.h5 --force -q
done
lmp -in "$ROOT/scripts/bench/lammps/thesis_rigid.lmp" -var data rigid.data -var inertia rigid.inertia \
  -var steps "$STEPS" -var dump 1 -log lammps.log -screen none
"$PY" - "$STEPS" <<'PY'
import sys
import h5py, numpy as np
steps = int(sys.argv[1])
mubar = np.array([0.0, 1.0, 1.0])
def suite(name):
    with h5py.File(f"{name}.h5") as f:
        rows = f["runs/run_00000/final_state"][()]
    q = rows[:, 0:3]
    Q = rows[:, 6:15].reshape(-1, 3, 3)
    return q, np.einsum("nij,j->ni", Q, mubar)
lines = open("final.dump").read().splitlines()
i = max(k for k, l in enumerate(lines) if l.startswith("ITEM: ATOMS"))  # the last step
cols = lines[i].split()[2:]
data = np.array([[float(v) for v in l.split()] for l in lines[i + 1:]])
data = data[np.argsort(data[:, cols.index("id")])]
dip = data[data[:, cols.index("type")] == 1]
lq = dip[:, [cols.index(c) for c in ("x", "y", "z")]]
lmu = dip[:, [cols.index(c) for c in ("mux", "muy", "muz")]]
with h5py.File("state.h5") as f:
    rows0 = f["initial_state"][()]
q0 = rows0[:, 0:3]
mu0 = np.einsum("nij,j->ni", rows0[:, 6:15].reshape(-1, 3, 3), mubar)
nq, nmu = suite("no_squish")
dq, dmu = suite("dlm")
print(f"program=no_squish_vs_lammps steps={steps} h=0.01 "
      f"position_diff_lammps={np.abs(nq - lq).max():.3e} dipole_diff_lammps={np.abs(nmu - lmu).max():.3e} "
      f"position_diff_dlm={np.abs(nq - dq).max():.3e} dipole_diff_dlm={np.abs(nmu - dmu).max():.3e} "
      f"dlm_position_diff_lammps={np.abs(dq - lq).max():.3e} dlm_dipole_diff_lammps={np.abs(dmu - lmu).max():.3e} "
      f"position_moved={np.abs(nq - q0).max():.3e} dipole_moved={np.abs(nmu - mu0).max():.3e}")
PY
