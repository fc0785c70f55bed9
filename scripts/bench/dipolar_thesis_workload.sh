#!/usr/bin/env bash
# The [K] 3.2.2 workload that "requires a simulation time of more than a week": N = 100
# dipolar soft spheres, RKMK4, h = 0.01, t in [0, 1000] (10^5 steps), [K] initial state
# (positions spread over [-N, N], random orientations, p = m = 0, seed 1).
#   usage: scripts/bench/dipolar_thesis_workload.sh [BUILD_DIR] [RANKS] [THREADS] [STEPS]
# On a machine shared with other users, Linux autogroup scheduling (sched_autogroup_enabled = 1)
# gives every *session* an equal CPU share: two ranks of one session then get the share of one
# core (measured: two pinned busy loops each ran 1.9x slower side by side than alone), whatever
# their nice value. Measure in a session of its own with a raised autogroup priority:
#   setsid bash -c 'echo -20 > /proc/$$/autogroup; scripts/bench/<this script> ...'
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
BUILD=${1:-build}
NP=${2:-1}
NT=${3:-1}
STEPS=${4:-100000}
for v in NP NT STEPS; do positive_int dipolar_thesis_workload.sh "$v" "${!v}"; done
BIN="$BUILD/tests/bench_dipolar_run"
[[ -x "$BIN" ]] || { echo "missing $BIN (cmake --build $BUILD --target bench_dipolar_run)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "# [K] N=100, RKMK4, h=0.01, $STEPS steps; $NP rank(s) x $NT thread(s); load before: $(uptime | sed 's/.*load average: //')"
OMP_NUM_THREADS=$NT mpirun -n "$NP" --bind-to none "$BIN" --mode integrate --n 100 --method rkmk4 --h 0.01 --steps "$STEPS"
echo "# load after: $(uptime | sed 's/.*load average: //')"
