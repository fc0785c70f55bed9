#!/usr/bin/env bash
# Large chains of the N-fold pendulum:
#   * N = 10^7 links (480 MB of state, ~3 GB per rank with RKMK4's stage arrays) on 2 ranks:
#     time per step and peak resident memory per rank (getrusage ru_maxrss);
#   * N = 10^5 links: seconds per 100 RKMK4 steps, with the energy and manifold errors, for
#     a random 3-D chain (dt = 1e-3) and the paper's straight chain at 45 degrees (dt = 1e-5:
#     its tensions grow like N^2 and the fastest mode like N, so explicit steps must shrink).
#   scripts/bench/chain_large.sh [BUILD_DIR] [STEPS_1E7]
set -euo pipefail
BUILD=${1:-build}
STEPS7=${2:-5}
BIN="$BUILD/tests/bench_pendulum_chain"
[ -x "$BIN" ] || { echo "missing $BIN (cmake --build $BUILD --target bench_pendulum_chain)" >&2; exit 2; }
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
echo "load before: $(uptime)"
echo "# N = 10^5, 100 steps, 1 rank x 1 thread"
OMP_NUM_THREADS=1 mpirun -n 1 --bind-to core "$BIN" --N=100000 --steps=100 --dt=1e-3 --initial=random
OMP_NUM_THREADS=1 mpirun -n 1 --bind-to core "$BIN" --N=100000 --steps=100 --dt=1e-5 --initial=paper
echo "# N = 10^7, $STEPS7 steps, 2 ranks x 1 thread"
OMP_NUM_THREADS=1 mpirun -n 2 --bind-to core "$BIN" --N=10000000 --steps="$STEPS7" --dt=1e-3 --initial=random
echo "load after:  $(uptime)"
