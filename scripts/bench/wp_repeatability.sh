#!/usr/bin/env bash
# Are the benchmark's wall times results? (issue 25) Runs one work-precision deck (study = timing:
# each run repeated until 0.2 s and 3 times, the minimum kept) N times in a row on 1 rank x 1
# thread and reports, per run of the grid, the spread of its minimum wall time over the N jobs
# (max/min - 1), and over all runs the median and largest spread and how many exceed 20 %.
# Run it on a quiet machine: the spread is the machine's noise as the timing rule sees it.
#   bash scripts/bench/wp_repeatability.sh [DECK] [N]     default: experiments/benchmark/wp_double_pendulum.cfg, 3
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LB="${LIEBENCH_BIN:-$ROOT/build/liebench}"
deck="${1:-$ROOT/experiments/benchmark/wp_double_pendulum.cfg}"
n="${2:-3}"
readable_file wp_repeatability.sh DECK "$deck"
positive_int wp_repeatability.sh N "$n"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for i in $(seq 1 "$n"); do
  OMP_NUM_THREADS=1 ${LIEBENCH_WRAP:-} "$LB" run "$deck" ${LIEBENCH_ARGS:-} -o "$dir/run$i.h5" --quiet
done
/usr/bin/python3 - "$dir" "$n" "$deck" <<'PY'
import sys, h5py, numpy as np
d, n, deck = sys.argv[1], int(sys.argv[2]), sys.argv[3]
walls, ok = [], None
for i in range(1, n + 1):
    s = h5py.File(f"{d}/run{i}.h5", "r")["summary"]
    walls.append(s["wall_min"][()])
    st = np.array([x.decode() != "nonfinite" and not x.decode().startswith("failed: method") for x in s["status"][()]])
    ok = st if ok is None else ok & st
    if i == 1:
        names = [f"{m.decode()} steps={k}" for m, k in zip(s["method"][()], s["steps"][()])]
w = np.array(walls)[:, ok]
spread = w.max(axis=0) / w.min(axis=0) - 1.0
names = [x for x, k in zip(names, ok) if k]
worst = np.argsort(spread)[::-1][:5]
print(f"{deck}: {n} jobs, {w.shape[1]} runs; minimum wall time per run, spread max/min - 1 over the jobs:")
print(f"  median {np.median(spread) * 100:.1f} %, largest {spread.max() * 100:.1f} %, "
      f"{int((spread > 0.2).sum())} of {len(spread)} runs above 20 %")
for j in worst:
    print(f"  {names[j]}: {', '.join(f'{x:.3e}' for x in w[:, j])} s ({spread[j] * 100:.1f} %)")
PY
