#!/usr/bin/env bash
# The [K] 3.2.2 workload (N = 100 dipolar soft spheres, h = 0.01, STEPS steps; 10^5 = T 1000,
# experiments/K_thesis_workload_dipolar_N100_T1000.cfg) from ONE initial state in this suite
# (RKMK4, `liebench run`, initial = file) and in LAMMPS, on 1 and 2 ranks, alternating the programs:
# fix rigid/nve with [K]'s exact inertia (lammps_*, thesis_rigid.lmp) and fix nve/sphere update
# dipole with an isotropic inertia (lammps_sphere_*, thesis_sphere.lmp), both velocity Verlet.
# Checked once by hand: from this state at T = 10 (h = 0.01) the suite's potential energy is
# -0.0982025790 and LAMMPS rigid/nve's -0.0982025580 (Verlet's O(h^2)), the same dynamics. The state comes from
# scripts/bench/lammps/thesis_state.py; before anything is timed the initial energies of the
# suite, LAMMPS and an independent Python pair sum must agree to 1e-13 relative (exit 1 otherwise).
# The suite's symplectic splittings dlm and no_squish (issue 26) run the same state too.
# Prints one key=value line per rank count: process wall times (startup included, both programs),
# LAMMPS's own loop time, H0 of each program and each one's relative energy error at the end and
# at T/10 (keys *_T10; T = 100 of the full run).
#   scripts/bench/thesis_workload.sh BUILD_DIR [STEPS] [WORKDIR]
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD=$(realpath "${1:?usage: thesis_workload.sh BUILD_DIR [STEPS] [WORKDIR]}")
STEPS=${2:-100000}
WORK=${3:-$(mktemp -d)}
positive_int thesis_workload.sh STEPS "$STEPS"
LB="$BUILD/liebench"
[ -x "$LB" ] || { echo "thesis_workload.sh: missing $LB (cmake --build $BUILD)" >&2; exit 2; }
command -v lmp >/dev/null || { echo "thesis_workload.sh: no lmp (scripts/bench/install_peers.sh)" >&2; exit 2; }
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMP_NUM_THREADS=1
PY=/usr/bin/python3
mkdir -p "$WORK"
cd "$WORK"
python_H0=$("$PY" "$ROOT/scripts/bench/lammps/thesis_state.py" 100 1 . | sed -n 's/.*python_H0=\([^ ]*\).*/\1/p')
T=$(awk -v s="$STEPS" 'BEGIN { printf "%.10g", 0.01 * s }')
# samples at T/10 as well as at T (energy errors at T = 100 and T = 1000 for 10^5 steps)
EVERY=$STEPS
if (( STEPS % 10 == 0 )); then EVERY=$((STEPS / 10)); fi
# the suite's splittings (issue 26) beside [K]'s RKMK4: one force evaluation per step, as LAMMPS
SPLITTINGS=(dlm no_squish)
for m in rkmk4 "${SPLITTINGS[@]}"; do
  cfg=suite.cfg; [ "$m" = rkmk4 ] || cfg=suite_$m.cfg
  cat > "$cfg" <<EOF
# written by scripts/bench/thesis_workload.sh: [K] 3.2.2 from the state in state.h5
study = invariants
model = dipolar
methods = $m
dt = 0.01
t_final = $T
sample_every = $EVERY
[dipolar]
N = 100
initial = file
file = state.h5
dataset = /initial_state
EOF
done
now() { date +%s.%N; }
energies() {  # suite result file -> "H0 rel_error rel_error_at_T/10"
  "$PY" -c "
import h5py, sys
v = h5py.File(sys.argv[1])['runs/run_00000/observables/total_energy/value'][()]
print(repr(float(v[0])), (v[-1] - v[0]) / v[0], (v[min(1, len(v) - 1)] - v[0]) / v[0])" "$1"
}
lammps_energies() {  # LAMMPS log -> "H0 rel_error loop_seconds rel_error_at_T/10"
  awk '/^ *Step / {t = 1; next} /^Loop time of/ {loop = $4; t = 0}
       t && $1 ~ /^[0-9]+$/ {if (first == "") first = $NF; else if (second == "") second = $NF; last = $NF}
       END {if (second == "") second = last
            printf "%s %.6e %s %.6e\n", first, (last - first) / first, loop, (second - first) / first}' "$1"
}
for np in 1 2; do
  t0=$(now)
  mpirun -n $np --bind-to core "$LB" run suite.cfg -o "suite_np$np.h5" --force -q
  t1=$(now)
  mpirun -n $np --bind-to core lmp -in "$ROOT/scripts/bench/lammps/thesis_rigid.lmp" -var data rigid.data \
    -var inertia rigid.inertia -var steps "$STEPS" -var thermo_every "$EVERY" -log "lammps_rigid_np$np.log" -screen none
  t2=$(now)
  mpirun -n $np --bind-to core lmp -in "$ROOT/scripts/bench/lammps/thesis_sphere.lmp" -var data sphere.data \
    -var steps "$STEPS" -var thermo_every "$EVERY" -log "lammps_sphere_np$np.log" -screen none
  t3=$(now)
  split_keys=""
  for m in "${SPLITTINGS[@]}"; do
    ta=$(now)
    mpirun -n $np --bind-to core "$LB" run "suite_$m.cfg" -o "suite_${m}_np$np.h5" --force -q
    tb=$(now)
    read -r _ merr merr10 < <(energies "suite_${m}_np$np.h5")
    split_keys+=" suite_${m}_seconds=$(awk -v a="$ta" -v b="$tb" 'BEGIN{printf "%.3f", b-a}') suite_${m}_rel_energy_error=$merr suite_${m}_rel_energy_error_T10=$merr10"
  done
  for log in "lammps_rigid_np$np.log" "lammps_sphere_np$np.log"; do  # all pairs, each once
    grep -q "^Total # of neighbors = 4950$" "$log" || {
      echo "thesis_workload.sh: $WORK/$log: the neighbour list does not hold the 4950 pairs of 100 bodies" >&2; exit 1; }
  done
  read -r sH0 serr serr10 < <(energies "suite_np$np.h5")
  read -r lH0 lerr lloop lerr10 < <(lammps_energies "lammps_rigid_np$np.log")
  read -r lsH0 lserr lsloop lserr10 < <(lammps_energies "lammps_sphere_np$np.log")
  check=$(awk -v a="$sH0" -v b="$lH0" -v c="$python_H0" -v d="$lsH0" 'BEGIN {
    d1 = (a - b) / c; d2 = (a - c) / c; d3 = (a - d) / c; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2; if (d3 < 0) d3 = -d3
    if (d3 > d1) d1 = d3
    printf "%.3e %.3e %d", d1, d2, (d1 <= 1e-13 && d2 <= 1e-13) }')
  read -r d_sl d_sp agree <<< "$check"
  if [ "$agree" != 1 ]; then
    echo "thesis_workload.sh: initial energies differ: suite $sH0, LAMMPS $lH0 (rigid) $lsH0 (sphere), Python $python_H0 (> 1e-13 relative)" >&2
    exit 1
  fi
  echo "program=thesis ranks=$np steps=$STEPS h=0.01 suite_seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') \
lammps_seconds=$(awk -v a="$t1" -v b="$t2" 'BEGIN{printf "%.3f", b-a}') lammps_loop_seconds=$lloop suite_H0=$sH0 \
lammps_H0=$lH0 python_H0=$python_H0 H0_reldiff_suite_lammps=$d_sl H0_reldiff_suite_python=$d_sp \
lammps_sphere_seconds=$(awk -v a="$t2" -v b="$t3" 'BEGIN{printf "%.3f", b-a}') lammps_sphere_loop_seconds=$lsloop \
suite_rel_energy_error=$serr lammps_rel_energy_error=$lerr lammps_sphere_rel_energy_error=$lserr \
suite_rel_energy_error_T10=$serr10 lammps_rel_energy_error_T10=$lerr10 lammps_sphere_rel_energy_error_T10=$lserr10$split_keys"
done
