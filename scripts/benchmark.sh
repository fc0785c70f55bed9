#!/usr/bin/env bash
# The whole benchmark (issue 25) from a fresh build, in one command: every deck of
# experiments/benchmark/ (work precision wp_*, long-time energy longtime_*, tolerance sweeps
# tolerance_*; every applicable method on each problem) through scripts/reproduce_results.sh
# (HDF5 files, tables, plots), then the scoreboard (scripts/scoreboard.py: Markdown, LaTeX, CSV
# and a static HTML report). Prints its running time.
#   bash scripts/benchmark.sh                 full: results/benchmark_*.h5, results/tables/benchmark_*,
#                                             the scoreboard in results/benchmark/ (about 20 minutes on
#                                             2 cores; run it on a quiet machine: the wall times are results)
#   bash scripts/benchmark.sh --quick DIR     quick mode (the tests): each deck with the overrides of its
#                                             '# quick:' line, everything written into DIR (about 3.5 minutes on 2 cores)
# Environment as reproduce_results.sh (LIEBENCH_BIN, LIEBENCH_NP).
. "$(dirname "${BASH_SOURCE[0]}")/lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
results="$ROOT/results"
quick=0
case "${1:-}" in
  --quick)
    [ -n "${2:-}" ] || { echo "benchmark.sh: --quick needs an output directory (e.g. --quick /tmp/bench)" >&2; exit 2; }
    quick=1; results="$2"; mkdir -p "$results" ;;
  "") ;;
  *) echo "benchmark.sh: unknown argument '$1' (use --quick DIR, or no argument for the full benchmark)" >&2; exit 2 ;;
esac
start=$(date +%s)
st=0
LIEBENCH_QUICK=$quick LIEBENCH_RESULTS_DIR="$results" LIEBENCH_SKIP_FIGURES=1 LIEBENCH_SKIP_SCALING=1 \
  bash "$ROOT/scripts/reproduce_results.sh" 'benchmark_*' || st=$?
if [ "$st" != 0 ] && [ "$st" != 3 ]; then echo "benchmark.sh: the decks failed (status $st)" >&2; exit "$st"; fi
/usr/bin/python3 "$ROOT/scripts/scoreboard.py" --results "$results" --out "$results/benchmark" >/dev/null
secs=$(( $(date +%s) - start ))
echo "benchmark: $(ls "$ROOT"/experiments/benchmark/*.cfg | wc -l) decks in $((secs / 60)) min $((secs % 60)) s$([ $quick = 1 ] && echo ' (quick mode)'); scoreboard: $results/benchmark/index.html" >&2
exit "$st"
