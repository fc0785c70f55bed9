#!/usr/bin/env bash
# Parallel efficiency of the distributed N-fold pendulum (RKMK4 fixed steps) on this machine:
# 1 rank x 1 thread, 2 ranks x 1 thread (mpirun --bind-to core) and 1 rank x 2 threads
# (OMP_NUM_THREADS=2, --bind-to none), efficiency = t(1x1) / (2 t(PxT)).
# Each layout runs REPEAT times, alternating, and the fastest run counts (the machine is
# shared: the load average is printed before and after).
#   scripts/bench/chain_efficiency.sh [BUILD_DIR] [N] [STEPS]
# Environment: REPEAT (default 2), DT (default auto), INITIAL (default random).
# DT=auto is a step inside the explicit methods' stable range (bench_pendulum_chain.cpp,
# results/performance/notes.md): 1e-3 for the random state, whose stable step does not shrink
# with N (RKMK4: 0.02-0.035 within 40 steps, N = 10^2 ... 10^5), and about 1/N for the paper's
# straight chain, whose stable step is h_max = 2.0/N (RKMK4, RK4, CF4; N = 300 ... 10^5; tensions
# growing like N^2). A run whose energy error at the end is not finite or above 1e-3 reports no
# time (exit status 3): its layout's row says "failed".
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
BUILD=${1:-build}
N=${2:-1000000}
STEPS=${3:-10}
REPEAT=${REPEAT:-2}
DT=${DT:-auto}
INITIAL=${INITIAL:-random}
for v in N STEPS REPEAT; do positive_int chain_efficiency.sh "$v" "${!v}"; done
BIN="$BUILD/tests/bench_pendulum_chain"
[ -x "$BIN" ] || { echo "missing $BIN (cmake --build $BUILD --target bench_pendulum_chain)" >&2; exit 2; }
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
ARGS=(--N="$N" --steps="$STEPS" --dt="$DT" --initial="$INITIAL" --method=rkmk4)

run() {  # ranks threads bind; a run that failed its energy check (exit 3) prints its line
  local st=0
  OMP_NUM_THREADS=$2 OMP_PROC_BIND=${4:-false} mpirun -n "$1" --bind-to "$3" "$BIN" "${ARGS[@]}" || st=$?
  ((st == 0 || st == 3)) || exit "$st"
}
seconds() { sed -n 's/.* seconds=\([^ ]*\).*/\1/p'; }

echo "load before: $(uptime)"
best11=""; best21=""; best12=""
for ((k = 1; k <= REPEAT; ++k)); do
  for layout in 11 21 12; do
    case $layout in
      11) line=$(run 1 1 core) ;;
      21) line=$(run 2 1 core) ;;
      12) line=$(run 1 2 none) ;;
    esac
    echo "[$layout run $k] $line"
    s=$(echo "$line" | seconds)
    var="best$layout"
    if [ "$s" = failed ] || [ "${!var}" = failed ]; then printf -v "$var" failed
    elif [ -z "${!var}" ] || awk -v a="$s" -v b="${!var}" 'BEGIN{exit !(a<b)}'; then printf -v "$var" '%s' "$s"; fi
  done
done
echo "load after:  $(uptime)"
awk -v n="$N" -v steps="$STEPS" -v t11="$best11" -v t21="$best21" -v t12="$best12" '
function row(name, t) {
  if (t == "failed" || t11 == "failed") { printf "  %s: failed (energy error; see the run lines above)\n", name; return }
  printf "  %s: %.4f   speed-up %.2f   efficiency %.1f%%\n", name, t/steps, t11/t, 100*t11/(2*t)
}
BEGIN{
  printf "N=%d RKMK4 %d steps (fastest of the repeats), seconds per step:\n", n, steps
  if (t11 == "failed") printf "  1 rank  x 1 thread : failed (energy error; see the run lines above)\n"
  else printf "  1 rank  x 1 thread : %.4f\n", t11/steps
  row("2 ranks x 1 thread ", t21)
  row("1 rank  x 2 threads", t12)
}'
