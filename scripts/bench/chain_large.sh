#!/usr/bin/env bash
# Large chains of the N-fold pendulum:
#   * N = 10^7 links (480 MB of state, ~3 GB per rank with RKMK4's stage arrays) on 2 ranks:
#     time per step and peak resident memory per rank (getrusage ru_maxrss);
#   * N = 10^5 links: seconds per 100 RKMK4 steps, with the energy and manifold errors, for
#     a random 3-D chain and the paper's straight chain at 45 degrees.
# Steps inside the stable range (--dt=auto, bench_pendulum_chain.cpp; results/performance/notes.md):
# the paper's chain rotates rigidly with tensions growing like N^2 (tau_1 = N^2/2 for m = L = 1),
# its highest transverse frequency like sqrt(2) N, and the explicit methods' stable step shrinks
# like 1/N: measured h_max = 2.0/N for RKMK4, RK4 and CF4 (N = 300 ... 10^5; 1.3/N RKMK3), so
# auto takes half of it, about 1/N (1e-5 here; at N = 10^5 five times the limit, h = 1e-4, gave
# an energy error of 4e65 within 5 steps). The random chain's stable step does not shrink with N (0.02-0.035 within 40
# steps, N = 10^2 ... 10^5): auto takes 1e-3. A run whose energy error at the end is not finite
# or above 1e-3 prints status=failed and no time (exit status 3; this script goes on).
#   scripts/bench/chain_large.sh [BUILD_DIR] [STEPS_1E7]
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -uo pipefail
BUILD=${1:-build}
STEPS7=${2:-5}
positive_int chain_large.sh STEPS7 "$STEPS7"
BIN="$BUILD/tests/bench_pendulum_chain"
[ -x "$BIN" ] || { echo "missing $BIN (cmake --build $BUILD --target bench_pendulum_chain)" >&2; exit 2; }
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
status=0
run() {  # ranks args...: a failed run (exit 3) is reported by its line; other failures stop
  local np=$1 st=0; shift
  OMP_NUM_THREADS=1 mpirun -n "$np" --bind-to core "$BIN" --dt=auto "$@" || st=$?
  if ((st == 3)); then status=3; elif ((st != 0)); then exit "$st"; fi
}
echo "load before: $(uptime)"
echo "# N = 10^5, 100 steps, 1 rank x 1 thread"
run 1 --N=100000 --steps=100 --initial=random
run 1 --N=100000 --steps=100 --initial=paper
echo "# N = 10^7, $STEPS7 steps, 2 ranks x 1 thread"
run 2 --N=10000000 --steps="$STEPS7" --initial=random
echo "load after:  $(uptime)"
exit $status
