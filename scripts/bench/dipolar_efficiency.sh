#!/usr/bin/env bash
# Parallel efficiency of the dipolar force evaluation (the N^2 pair work) on this machine:
#   1 rank x 1 thread, 2 ranks x 1 thread (mpirun --bind-to core), 1 rank x 2 threads
# (the tiled pair sums: each pair once, bitwise on every layout; deterministic = false takes the
# same path since issue 16).
# efficiency(layout) = t(1x1) / (2 t(layout)), with t the best of REPEATS runs (the machine is
# shared: the best run is the one least disturbed by other processes).
#   usage: scripts/bench/dipolar_efficiency.sh [BUILD_DIR] [N] [EVALS] [REPEATS]
# On a machine shared with other users, Linux autogroup scheduling (sched_autogroup_enabled = 1)
# gives every *session* an equal CPU share: two ranks of one session then get the share of one
# core (measured: two pinned busy loops each ran 1.9x slower side by side than alone), whatever
# their nice value. Measure in a session of its own with a raised autogroup priority:
#   setsid bash -c 'echo -20 > /proc/$$/autogroup; scripts/bench/<this script> ...'
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
BUILD=${1:-build}
N=${2:-4000}
EVALS=${3:-20}
REPEATS=${4:-3}
for v in N EVALS REPEATS; do positive_int dipolar_efficiency.sh "$v" "${!v}"; done
BIN="$BUILD/tests/bench_dipolar_run"
[[ -x "$BIN" ]] || { echo "missing $BIN (cmake --build $BUILD --target bench_dipolar_run)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

run() {  # ranks threads bind extra-args -> seconds per evaluation
  local np=$1 nt=$2 bind=$3; shift 3
  OMP_NUM_THREADS=$nt OMP_PROC_BIND=false mpirun -n "$np" --bind-to "$bind" "$BIN" --mode force --n "$N" \
    --evals "$EVALS" "$@" | sed -n 's/.*seconds_per_eval=\([^ ]*\).*comm_seconds_per_eval=\([^ ]*\).*/\1 \2/p'
}
best() {  # min over REPEATS of the first column, with its comm column
  sort -g | head -1
}

echo "# dipolar force evaluation, N=$N, $EVALS evaluations per run, best of $REPEATS"
echo "# autogroup $(cat /proc/self/autogroup 2>/dev/null || echo n/a)"
echo "# host $(hostname), $(nproc) cores; load before: $(uptime | sed 's/.*load average: //')"
printf "%-8s %-10s %14s %14s %10s\n" sums layout s_per_eval comm_s_per_eval efficiency
for sums in tiled; do
  extra=()
  declare -A T C
  for layout in 1x1 2x1 1x2; do
    results=""
    for ((r = 0; r < REPEATS; ++r)); do
      case $layout in
        1x1) line=$(run 1 1 core "${extra[@]}") ;;
        2x1) line=$(run 2 1 core "${extra[@]}") ;;
        1x2) line=$(run 1 2 none "${extra[@]}") ;;
      esac
      results+="$line"$'\n'
    done
    read -r t c < <(printf "%s" "$results" | best)
    T[$layout]=$t
    C[$layout]=$c
  done
  for layout in 1x1 2x1 1x2; do
    eff=$(awk -v a="${T[1x1]}" -v b="${T[$layout]}" -v l="$layout" 'BEGIN { p = (l == "1x1") ? 1 : 2; printf "%.1f%%", 100 * a / (p * b) }')
    printf "%-8s %-10s %14s %14s %10s\n" "$sums" "$layout" "${T[$layout]}" "${C[$layout]}" "$eff"
  done
  unset T C
done
echo "# load after: $(uptime | sed 's/.*load average: //')"
