#!/usr/bin/env bash
# Pair interactions per second on one core: this suite's default (deterministic, each pair once
# in fixed tiles) force evaluation against LAMMPS `lj/cut/dipole/cut` (Debian `lammps`, all
# pairs: cutoff above the system's diagonal, `neighbor nsq`, `newton on`, neighbour list built
# once with room for N - 1 neighbours per atom, `fix nve/sphere update dipole`; setup as in
# /work/shared/notes/lammps-peer.md). Both programs see N bodies at number density 0.05 (LAMMPS: a random state with no two bodies
# closer than 0.9 sigma and random unit dipoles; the suite: its own [K] random state with the
# same extent). LAMMPS's pair count per step is checked to be N(N-1)/2 ("Total # of neighbors").
# The two programs alternate (suite, LAMMPS, suite, ...) REPEATS times per N; the median rate of
# each and their ratio are printed, with the load before and after.
#   usage: scripts/bench/dipolar_vs_lammps.sh [BUILD_DIR] [REPEATS] [N ...]   (default: build 3 1000 4000 16000)
# Output: '#' lines (machine, load), then one line per N:
#   N=<n> suite_pairs_per_second=<x> lammps_pairs_per_second=<y> ratio=<x/y> suite_gflops_per_second=<g>
# LAMMPS's rate is from its "Pair" time; the suite's from the whole evaluation (pair kernel,
# slot combine, vector field assembly). Pairs = unique pairs N(N-1)/2 per evaluation/step.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
BUILD=${1:-build}
REPEATS=${2:-3}
shift $(( $# >= 2 ? 2 : $# ))
NS=("$@")
[[ ${#NS[@]} -gt 0 ]] || NS=(1000 4000 16000)
BIN="$BUILD/tests/bench_dipolar_run"
[[ -x "$BIN" ]] || { echo "dipolar_vs_lammps: missing $BIN; build it: cmake --build $BUILD --target bench_dipolar_run" >&2; exit 2; }
command -v lmp >/dev/null || { echo "dipolar_vs_lammps: LAMMPS ('lmp') not found; install it: apt-get install -y lammps" >&2; exit 2; }
positive_int dipolar_vs_lammps.sh REPEATS "$REPEATS"
for n in "${NS[@]}"; do
  [[ "$n" =~ ^[1-9][0-9]*$ && "$n" -ge 2 ]] || { echo "dipolar_vs_lammps: N '$n' must be an integer >= 2" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cat > "$WORK/gen.py" <<'PY'
# N bodies uniformly in [0, L]^3, none closer than 0.9 (cell grid), random unit dipoles.
import math, random, sys
n, side, seed = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
grid, pts = {}, []
while len(pts) < n:
    p = (rng.uniform(0, side), rng.uniform(0, side), rng.uniform(0, side))
    k = tuple(int(c) for c in p)
    if all(sum((a - b) ** 2 for a, b in zip(p, q)) >= 0.81
           for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1)
           for q in grid.get((k[0] + dx, k[1] + dy, k[2] + dz), ())):
        pts.append(p)
        grid.setdefault(k, []).append(p)
print("dipolar spheres\n\n%d atoms\n1 atom types\n\n0 %r xlo xhi\n0 %r ylo yhi\n0 %r zlo zhi\n\nAtoms # hybrid\n" % (n, side, side, side))
for i, p in enumerate(pts):
    m = [rng.gauss(0, 1) for _ in range(3)]
    s = math.sqrt(sum(x * x for x in m))
    print(i + 1, 1, "%.12g %.12g %.12g" % p, 1.0, 1.0, 0.0, "%.12g %.12g %.12g" % tuple(x / s for x in m))
PY
cat > "$WORK/in.dipolar" <<'LMP'
units lj
atom_style hybrid sphere dipole
boundary s s s
newton on
read_data ${DATA}
pair_style lj/cut/dipole/cut ${RC}
pair_coeff * * 1.0 1.0
neighbor 1.0 nsq
neigh_modify once yes one ${ONE} page ${PAGE}
fix 1 all nve/sphere update dipole
timestep 0.0001
thermo_style custom step pe
thermo ${STEPS}
run ${STEPS}
LMP

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : 0.5 * (v[NR / 2] + v[NR / 2 + 1]) }'; }

echo "# dipolar pair interactions per second, one core: liebench (tiled, deterministic) vs LAMMPS lj/cut/dipole/cut"
echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(getconf _NPROCESSORS_ONLN) cores, flags: $(grep -m1 -o -w -E 'avx512f|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ')"
lmp_help=$(lmp -h 2>/dev/null || true)
echo "# lammps: $(sed -n 's/.*Simulator - //p' <<< "$lmp_help" | head -1)"
echo "# load before: $(uptime | sed 's/.*load average: //')"
for n in "${NS[@]}"; do
  side=$(awk -v n="$n" 'BEGIN { printf "%.6g", (n / 0.05) ^ (1 / 3) }')
  rc=$(awk -v s="$side" 'BEGIN { printf "%.6g", 2 * s + 2 }')   # > diagonal sqrt(3) L
  pairs=$(awk -v n="$n" 'BEGIN { printf "%.0f", n * (n - 1) / 2 }')
  steps=$(awk -v p="$pairs" 'BEGIN { s = int(5e7 / p + 0.999); print (s < 1) ? 1 : s }')
  # The suite evaluates 10 times as often as LAMMPS steps, so that both are timed over about the
  # same wall time (the suite is ~10x faster per pair): a window of 0.13 s read this VM's clock
  # ramp and noise (N = 1000, 101 evaluations: 0.26-0.37 G pairs/s in three runs in a row;
  # 1000 evaluations: 0.37-0.38).
  evals=$(awk -v s="$steps" 'BEGIN { e = 10 * s; print (e < 3) ? 3 : e }')
  python3 "$WORK/gen.py" "$n" "$side" 1 > "$WORK/d$n.data"
  suite=() lammps=() gflops=()
  for ((r = 0; r < REPEATS; ++r)); do
    line=$("$BIN" --mode force --n "$n" --evals "$evals" --spread "$(awk -v s="$side" 'BEGIN { print s / 2 }')")
    suite+=("$(sed -n 's/.*unique_pairs_per_second=\([^ ]*\).*/\1/p' <<< "$line")")
    gflops+=("$(sed -n 's/.*gflops_per_second=\([^ ]*\).*/\1/p' <<< "$line")")
    (cd "$WORK" && lmp -in in.dipolar -var DATA "d$n.data" -var RC "$rc" -var STEPS "$steps" -var ONE "$n" \
      -var PAGE "$(( 10 * n > 100000 ? 10 * n : 100000 ))" -log none -screen "out$n.txt") ||
      { echo "dipolar_vs_lammps: LAMMPS failed for N=$n: $(grep -m1 ERROR "$WORK/out$n.txt")" >&2; exit 1; }
    neigh=$(sed -n 's/^Total # of neighbors = \([0-9.e+]*\).*/\1/p' "$WORK/out$n.txt")  # 1.27992e+08 when large
    awk -v a="$neigh" -v b="$pairs" 'BEGIN { exit !(a != "" && a + 0 == b + 0) }' ||
      { echo "dipolar_vs_lammps: LAMMPS found '$neigh' pairs for N=$n, expected N(N-1)/2 = $pairs" >&2; exit 1; }
    pair_time=$(awk '/^Pair +\|/ { print $3 }' "$WORK/out$n.txt")
    lammps+=("$(awk -v p="$pairs" -v s="$steps" -v t="$pair_time" 'BEGIN { printf "%.4e", p * s / t }')")
  done
  s_med=$(printf "%s\n" "${suite[@]}" | median)
  l_med=$(printf "%s\n" "${lammps[@]}" | median)
  g_med=$(printf "%s\n" "${gflops[@]}" | median)
  echo "# N=$n runs: suite ${suite[*]}; lammps ${lammps[*]} ($steps steps, $evals evaluations)"
  awk -v n="$n" -v s="$s_med" -v l="$l_med" -v g="$g_med" \
    'BEGIN { printf "N=%d suite_pairs_per_second=%.4e lammps_pairs_per_second=%.4e ratio=%.2f suite_gflops_per_second=%.3g\n", n, s, l, s / l, g }'
done
echo "# load after: $(uptime | sed 's/.*load average: //')"
