#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs every test
# (unit, convergence, MPI on 1-4 ranks x 1-2 threads, CLI) with CTest.
#   scripts/test.sh [CTEST_ARGS...]   e.g. -R NAME (tests matching NAME), -L cli, -LE slurm
#   LIEBENCH_TEST_JOBS=N (default 2), LIEBENCH_BUILD_DIR=DIR (default build/)
. "$(dirname "${BASH_SOURCE[0]}")/lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
cd "${LIEBENCH_BUILD_DIR:-$ROOT/build}"
ctest --output-on-failure -j "${LIEBENCH_TEST_JOBS:-2}" --timeout 600 "$@"
