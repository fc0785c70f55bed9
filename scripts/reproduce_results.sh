#!/usr/bin/env bash
# Regenerates results/ from experiments/: every experiment file of the source papers is run
# (2 MPI ranks; grid points side by side with ranks_per_run = 1), its HDF5 file written to
# results/<name>.h5, its tables to results/tables/<name>.{md,tex} and <name>.<table>.csv (one
# table per CSV file; `liebench report FILE --list-tables` names them) and its plots to
# results/plots/<name>_*.png. The tables and plots are regenerated from the HDF5 files alone.
# The benchmark decks of experiments/benchmark/ likewise (as benchmark_<name>). Then the scaling
# studies of experiments/scaling/ (one mpirun per layout, merged).
#   bash scripts/reproduce_results.sh [NAME_PATTERN]     e.g. 'P_fig*', 'benchmark_*'; default: all
#     (a pattern that matches no deck: one line on stderr, exit 2, nothing written)
#   LIEBENCH_NP=4 bash scripts/reproduce_results.sh
#   LIEBENCH_RESULTS_DIR=DIR   write into DIR instead of results/ (scripts/check_tables.sh)
#   LIEBENCH_SKIP_FIGURES=1    leave out the figures of the sources (results/figures/)
#   LIEBENCH_SKIP_SCALING=1    leave out the scaling studies (timings only)
#   LIEBENCH_BIN=PATH          run this liebench binary (no setup, no build)
#   LIEBENCH_QUICK=1           every deck with the overrides of its '# quick:' line (the benchmark's
#                              quick mode, scripts/benchmark.sh --quick; decks without one run as they are)
# Decks of study = timing (the benchmark's work-precision decks) run on 1 rank x 1 thread: their
# wall times are the cost axis, measured on an otherwise idle core; and without address-space
# randomisation (setarch -R, where the system allows it): with it, where the stack lands relative
# to the heap differs from job to job and so do some methods' times (measured with
# scripts/bench/wp_repeatability.sh, 3 jobs of wp_double_pendulum: runs whose minimum time differs
# by more than 20 % between jobs, 24 of 180 with randomisation, 5 of 180 without; with the
# repetitions interleaved over passes too (timing.interleave, the default since), 0 of 180:
# median 0.8 %, largest 6.2 %).
. "$(dirname "${BASH_SOURCE[0]}")/lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PATTERN="${1:-*}"
# A pattern that selects nothing is a typo, not an empty run: one line, exit 2, before anything
# is set up or written.
if [ $# -gt 1 ]; then
  echo "reproduce_results: one NAME_PATTERN, got $# arguments ($*); quote a pattern so that the shell leaves it alone: 'P_fig5*'" >&2
  exit 2
fi
# The decks of the sources (experiments/NAME.cfg -> NAME) and of the benchmark
# (experiments/benchmark/NAME.cfg -> benchmark_NAME; the pattern matches that name); the scaling
# studies (experiments/scaling/) with '*' or 'scaling*'.
decks=()
for cfg in "$ROOT"/experiments/$PATTERN.cfg; do [ -e "$cfg" ] && decks+=("$cfg"); done
for cfg in "$ROOT"/experiments/benchmark/*.cfg; do
  # shellcheck disable=SC2053  # PATTERN is a glob on purpose
  [[ "benchmark_$(basename "$cfg" .cfg)" == $PATTERN ]] && decks+=("$cfg")
done
scaling=0
if [ "$PATTERN" = "*" ] || [ "$PATTERN" = "scaling*" ]; then scaling=1; fi
if [ ${#decks[@]} -eq 0 ] && [ "$scaling" = 0 ]; then
  echo "reproduce_results: no experiment matches '$PATTERN' (experiments/*.cfg by name, benchmark_* for" \
       "experiments/benchmark/*.cfg, 'scaling*' for experiments/scaling/); give a NAME_PATTERN such as 'P_fig5*'" >&2
  exit 2
fi
if [ -n "${LIEBENCH_BIN:-}" ]; then LB="$LIEBENCH_BIN"   # a given binary: no setup, no build
else "$ROOT/scripts/setup.sh"; LB="${LIEBENCH_BUILD_DIR:-$ROOT/build}/liebench"; fi
NP="${LIEBENCH_NP:-2}"
RESULTS="${LIEBENCH_RESULTS_DIR:-$ROOT/results}"
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
MPIRUN=(mpirun -n "$NP")
if [ "$NP" -gt "$(nproc)" ]; then MPIRUN+=(--oversubscribe); fi
mkdir -p "$RESULTS/tables" "$RESULTS/plots" "$RESULTS/figures"
timings="$RESULTS/tables/timings.tsv"   # name <TAB> wall seconds of the last run
touch "$timings"
record_time() {  # NAME MILLISECONDS
  grep -v -P "^$1\t" "$timings" > "$timings.tmp" || true
  printf '%s\t%d.%01d\n' "$1" $(($2 / 1000)) $((($2 % 1000) / 100)) >> "$timings.tmp"
  sort "$timings.tmp" > "$timings"; rm -f "$timings.tmp"
}
failed_experiments=()
write_tables() {  # FILE.h5 NAME: md and tex of every table, one CSV per table
  rm -f "$RESULTS/tables/$2".*csv
  for fmt in md tex; do "$LB" report "$1" --format "$fmt" > "$RESULTS/tables/$2.$fmt"; done
  for t in $("$LB" report "$1" --list-tables); do
    "$LB" report "$1" --format csv --table "$t" > "$RESULTS/tables/$2.$t.csv"
  done
}
for cfg in ${decks[@]+"${decks[@]}"}; do
  name="$(basename "$cfg" .cfg)"
  case "$cfg" in */experiments/benchmark/*) name="benchmark_$name" ;; esac
  h5="$RESULTS/$name.h5"
  echo "== $name" >&2
  start=$(date +%s%N)
  quick=()
  # shellcheck disable=SC2207  # the '# quick:' line is a list of --key=value words
  [ "${LIEBENCH_QUICK:-0}" = 1 ] && quick=($(sed -n 's/^# quick://p' "$cfg" | head -1))
  # exit 3: some runs failed; the file and its tables mark them, the script goes on and exits 3
  st=0
  if grep -q '^study *= *timing' "$cfg"; then
    norand=(); setarch "$(uname -m)" -R true 2>/dev/null && norand=(setarch "$(uname -m)" -R)
    OMP_NUM_THREADS=1 ${norand[@]+"${norand[@]}"} "$LB" run "$cfg" ${quick[@]+"${quick[@]}"} --output "$h5" --force --quiet || st=$?
  else
    "${MPIRUN[@]}" "$LB" run "$cfg" ${quick[@]+"${quick[@]}"} --ranks_per_run=1 --output "$h5" --force --quiet || st=$?
  fi
  if [ "$st" = 3 ]; then failed_experiments+=("$name"); elif [ "$st" != 0 ]; then exit "$st"; fi
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  write_tables "$h5" "$name"
  /usr/bin/python3 "$ROOT/scripts/plots/plot_study.py" "$h5" --out "$RESULTS/plots" --tables "$RESULTS/tables" \
    --formats png >/dev/null
  # the suite beside the numbers the paper prints ('# paper:' lines of the experiment file):
  # NAME.paper.md and NAME.paper.csv
  /usr/bin/python3 "$ROOT/scripts/tables/paper_table.py" "$cfg" "$h5" "$RESULTS/tables"
  # [L] Fig. 7 (kinetic energy over the faces of the icosphere) from the saved states
  if grep -q '^model *= *sphere_md' "$cfg" && grep -q '^save_state *= *true' "$cfg"; then
    /usr/bin/python3 "$ROOT/scripts/plots/plot_sphere_md.py" "$h5" --out "$RESULTS/plots" >/dev/null
  fi
  record_time "$name" "$ms"
done
# Scaling studies (experiments/scaling/*.cfg): one mpirun per ranks x threads layout, merged.
if [ "${LIEBENCH_SKIP_SCALING:-0}" != 1 ] && [ "$scaling" = 1 ]; then
  flags=""
  if [ "$(nproc)" -lt 2 ]; then flags="--oversubscribe"; fi
  for cfg in "$ROOT"/experiments/scaling/*.cfg; do
    name="scaling_$(basename "$cfg" .cfg)"
    h5="$RESULTS/$name.h5"
    echo "== $name" >&2
    start=$(date +%s%N)
    MPIRUN_FLAGS="$flags" "$ROOT/scripts/run_layouts.sh" "$cfg" "$h5" >/dev/null
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    rm -rf "${h5%.h5}.parts"
    write_tables "$h5" "$name"
    /usr/bin/python3 "$ROOT/scripts/plots/plot_study.py" "$h5" --out "$RESULTS/plots" --formats png >/dev/null
    record_time "$name" "$ms"
  done
fi
# The figures of the sources, from every HDF5 file present (a figure whose files are missing,
# e.g. after a NAME_PATTERN run, is skipped with a line on stderr: status 1, not an error here).
st=0
[ "${LIEBENCH_SKIP_FIGURES:-0}" = 1 ] ||
/usr/bin/python3 "$ROOT/scripts/plots/source_figures.py" --results "$RESULTS" --out "$RESULTS/figures" \
  --formats png,pdf --readme "$RESULTS/figures/README.md" >/dev/null || st=$?
if [ "$st" != 0 ] && [ "$st" != 1 ]; then echo "reproduce_results: source_figures.py failed (status $st)" >&2; exit "$st"; fi
# The index of every table present (also those of earlier runs with another NAME_PATTERN).
index="$RESULTS/tables/README.md"
{
  echo "# Regenerated tables"
  echo
  echo "Written by \`scripts/reproduce_results.sh\` from \`experiments/*.cfg\` and \`experiments/scaling/*.cfg\`"
  echo "(one HDF5 file per experiment in \`results/\`, not committed; every table here is"
  echo "\`liebench report results/<name>.h5\`, except the work-precision CSVs of convergence and adaptive"
  echo "studies, written by \`scripts/plots/plot_study.py\`; figures: [../figures/](../figures/README.md))."
  echo "Wall times: this machine, 2 MPI ranks, the last run."
  echo
  echo "| experiment | title | tables | wall (s) |"
  echo "|---|---|---|---|"
  for md in "$ROOT"/results/tables/*.md; do
    name="$(basename "$md" .md)"
    [ "$name" = README ] && continue
    case "$name" in *.paper) continue ;; esac
    cfg="$ROOT/experiments/$name.cfg"
    [ -f "$cfg" ] || cfg="$ROOT/experiments/scaling/${name#scaling_}.cfg"
    [ -f "$cfg" ] || cfg="$ROOT/experiments/benchmark/${name#benchmark_}.cfg"
    title="$(sed -n 's/^title *= *//p' "$cfg" 2>/dev/null | head -1)"
    wall="$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$timings")"
    csv=""
    for c in "$ROOT"/results/tables/"$name".*.csv; do
      [ -f "$c" ] && c="$(basename "$c")" && t="${c#"$name".}" && csv+=" [${t%.csv} csv]($c)"
    done
    [ -f "$RESULTS/tables/$name.paper.md" ] && csv+=" [beside the paper]($name.paper.md)"
    printf '| `%s` | %s | [md](%s.md) [tex](%s.tex)%s | %s |\n' "$name" "$title" "$name" "$name" "$csv" "${wall:--}"
  done
} > "$index"
# The index of the decks (experiments/README.md) with the times just recorded
if [ "$RESULTS" = "$ROOT/results" ]; then
  /usr/bin/python3 "$ROOT/scripts/experiments_index.py" || echo "reproduce_results: experiments/README.md not rewritten" >&2
fi
echo "tables: $RESULTS/tables/, plots: $RESULTS/plots/, figures: $RESULTS/figures/" >&2
if ((${#failed_experiments[@]})); then
  echo "reproduce_results: runs failed in ${failed_experiments[*]} (marked 'failed' in their tables; reasons above)" >&2
  exit 3
fi
