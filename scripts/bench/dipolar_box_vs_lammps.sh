#!/usr/bin/env bash
# The cutoff path in a periodic box against LAMMPS on its own ground (issue 28): N = n^3 dipolar
# Lennard-Jones spheres (eps = sigma = 1 with the r^-6 term, |mu| = sqrt 2) on a simple cubic
# lattice at reduced density 0.8, rc = 2.5, skin 0.3, at rest, h = 0.002. LAMMPS (Debian `lmp`):
# `lj/cut/dipole/cut 2.5`, `neighbor 0.3 bin`, `neigh_modify every 1 delay 0 check yes`,
# `newton on` (each pair once, reactions sent back), `fix nve/sphere update dipole`, random unit
# dipoles scaled to sqrt 2. The suite: experiments/scaling/dipolar_box_N1M.cfg at n^3 (dlm, the
# spatial decomposition, each pair twice: once in each body's row; Morton-numbered lattice,
# Haar-random orientations). Both are one force evaluation per step with a symplectic rotation;
# the dipoles' orientations differ (each program draws its own), the pair work does not.
# Per step: LAMMPS's "Loop time" / steps; the suite's 'integrate' time per step (scaling study,
# warm-up step excluded). Pairs within rc per step: the suite's count from the lattice's g(r)
# is not known in advance, so the rate is steps per second and the ratio is LAMMPS time / suite
# time at equal N and equal ranks (> 1: the suite is faster). Alternated REPEATS times.
#   usage: scripts/bench/dipolar_box_vs_lammps.sh [BUILD_DIR] [REPEATS] [n] [STEPS]   (default: build 3 32 20)
# Output: '#' lines, then per rank count:
#   ranks=<P> N=<n^3> suite_step_s=<median> lammps_step_s=<median> ratio=<lammps/suite> lammps_pair_s=<median>
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
BUILD=${1:-build}
REPEATS=${2:-3}
SIDE=${3:-32}
STEPS=${4:-20}
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LB="$BUILD/liebench"
[[ -x "$LB" ]] || { echo "dipolar_box_vs_lammps: missing $LB; build the suite first (see --help)" >&2; exit 2; }
command -v lmp >/dev/null || { echo "dipolar_box_vs_lammps: LAMMPS ('lmp') not found; install it: apt-get install -y lammps" >&2; exit 2; }
for v in REPEATS SIDE STEPS; do positive_int dipolar_box_vs_lammps.sh "$v" "${!v}"; done
[[ "$SIDE" -ge 5 ]] || { echo "dipolar_box_vs_lammps: n = $SIDE is below 5: the box must be at least 2 rc wide" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
L=$(python3 -c "print(repr($SIDE / 0.8 ** (1 / 3)))")
N=$((SIDE * SIDE * SIDE))

cat > "$WORK/in.box" <<LMP
units lj
atom_style hybrid sphere dipole
boundary p p p
newton on
lattice sc 0.8
region box block 0 $SIDE 0 $SIDE 0 $SIDE
create_box 1 box
create_atoms 1 box
set type 1 diameter 1.0
set type 1 mass 1.0
set type 1 dipole/random 4 1.4142135623730951
pair_style lj/cut/dipole/cut 2.5
pair_coeff * * 1.0 1.0
neighbor 0.3 bin
neigh_modify every 1 delay 0 check yes
fix 1 all nve/sphere update dipole
timestep 0.002
thermo_style custom step pe ke
run 1
run $STEPS
LMP

suite() {  # ranks -> seconds per step
  local out="$WORK/s$1.h5"
  mpirun -n "$1" --bind-to core "$LB" run "$ROOT/experiments/scaling/dipolar_box_N1M.cfg" --output "$out" --force -q \
    --dipolar.lattice="$SIDE,$SIDE,$SIDE" --dipolar.box="$L,$L,$L" --steps="$STEPS" \
    --t_final="$(python3 -c "print(0.002 * $STEPS)")" --scaling.layouts="${1}x1" >/dev/null
  "$LB" report "$out" --format csv --table scaling | python3 -c "
import csv, sys
rows = list(csv.DictReader(sys.stdin))
print(rows[0]['per step [s]'] if 'per step [s]' in rows[0] else rows[0][[k for k in rows[0] if k.startswith('per step')][0]])"
}
lammps() {  # ranks -> "seconds_per_step pair_seconds_per_step"
  (cd "$WORK" && mpirun -n "$1" --bind-to core lmp -in in.box -log "$WORK/log.$1" -screen none)
  python3 - "$WORK/log.$1" "$STEPS" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
loops = re.findall(r"Loop time of ([0-9.eE+-]+) on (\d+) procs for (\d+) steps", text)
t, _, k = loops[-1]
pair = re.findall(r"^Pair\s*\|\s*[0-9.eE+-]+\s*\|\s*([0-9.eE+-]+)", text, re.M)
print(float(t) / int(k), float(pair[-1]) / int(k))
PY
}
median() { python3 -c "import statistics, sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc --all) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# N = $N, box $L^3, rc 2.5, skin 0.3, $STEPS steps of h = 0.002 (after one untimed step), medians of $REPEATS alternated runs"
for P in 1 2; do
  s=(); l=(); lp=()
  for ((r = 0; r < REPEATS; r++)); do
    s+=("$(suite "$P")")
    read -r a b <<<"$(lammps "$P")"
    l+=("$a"); lp+=("$b")
  done
  ms=$(median "${s[@]}"); ml=$(median "${l[@]}"); mp=$(median "${lp[@]}")
  echo "ranks=$P N=$N suite_step_s=$ms lammps_step_s=$ml ratio=$(python3 -c "print(f'{$ml / $ms:.3g}')") lammps_pair_s=$mp"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
