#!/usr/bin/env bash
# Builds the SMPI variant: the compute core and liebench_steps compiled with SimGrid's smpicxx,
# without HDF5 (CMake option LIEBENCH_SMPI), in LIEBENCH_SMPI_BUILD_DIR (default: build-smpi next
# to the regular build LIEBENCH_BUILD_DIR, or <source>/build-smpi). Installs SimGrid first
# (install.sh; exit 77 when it cannot). Prints the path of the SMPI liebench_steps on stdout.
#   LIEBENCH_BUILD_DIR=$PWD/build bash scripts/smpi/build.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bash "$ROOT/scripts/smpi/install.sh"
if [ -n "${LIEBENCH_SMPI_BUILD_DIR:-}" ]; then DIR="$LIEBENCH_SMPI_BUILD_DIR"
elif [ -n "${LIEBENCH_BUILD_DIR:-}" ]; then DIR="${LIEBENCH_BUILD_DIR%/}-smpi"
else DIR="$ROOT/build-smpi"; fi
# SMPI programs are shared objects loaded by smpirun (smpicxx links with -shared); the
# compiler checks of CMake link test programs the same way, which works.
cmake -S "$ROOT" -B "$DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLIEBENCH_SMPI=ON \
  -DCMAKE_CXX_COMPILER="$(command -v smpicxx)" -DCMAKE_C_COMPILER="$(command -v smpicc)" \
  ${LIEBENCH_SMPI_CMAKE_ARGS:-} >&2
cmake --build "$DIR" -j "${LIEBENCH_JOBS:-2}" --target liebench_steps >&2
echo "$DIR/liebench_steps"
