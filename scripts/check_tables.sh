#!/usr/bin/env bash
# Fails when a committed table under results/tables/ differs from what the code at this commit
# writes: regenerates the tables of the experiments matching each NAME_PATTERN into a temporary
# directory (scripts/reproduce_results.sh, LIEBENCH_RESULTS_DIR) and compares them with the
# committed ones, timing columns (wall_seconds) and the index (README.md, timings.tsv) excluded;
# the scaling tables (timings only) are not checked. results/ is not touched.
#   bash scripts/check_tables.sh                       every experiment (about 2 minutes once built)
#   bash scripts/check_tables.sh 'P_fig5*' 'K_fig3_2*' some of them
#   LIEBENCH_BIN=build/liebench bash scripts/check_tables.sh ...   a given binary, no setup or build
# Exit status: 0 all equal, 1 a table differs or is missing (each named on stderr with its first
# differing line), 2 bad pattern (no experiment matches), other: the regeneration failed.
. "$(dirname "${BASH_SOURCE[0]}")/lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/liebench-tables.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
patterns=("$@")
((${#patterns[@]})) || patterns=('*')
for p in "${patterns[@]}"; do
  if ! compgen -G "$ROOT/experiments/$p.cfg" >/dev/null && ! compgen -G "$ROOT/experiments/benchmark/${p#benchmark_}.cfg" >/dev/null; then
    echo "check_tables: no experiment matches '$p' (experiments/*.cfg, benchmark_* for experiments/benchmark/*.cfg);" \
         "give a NAME_PATTERN such as 'P_fig5*'" >&2
    exit 2
  fi
done
for p in "${patterns[@]}"; do
  st=0
  LIEBENCH_RESULTS_DIR="$TMP" LIEBENCH_SKIP_FIGURES=1 LIEBENCH_SKIP_SCALING=1 \
    bash "$ROOT/scripts/reproduce_results.sh" "$p" 2>"$TMP/reproduce.log" || st=$?
  # 3: runs failed inside an experiment; its tables mark them 'failed' (compared like any other)
  if [ "$st" != 0 ] && [ "$st" != 3 ]; then
    cat "$TMP/reproduce.log" >&2
    echo "check_tables: regenerating '$p' failed (status $st)" >&2
    exit "$st"
  fi
done
exec /usr/bin/python3 "$ROOT/scripts/compare_tables.py" "$ROOT/results/tables" "$TMP/tables"
