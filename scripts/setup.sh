#!/usr/bin/env bash
# Idempotent setup: installs exactly the Debian packages liebench needs (when missing),
# then configures and builds the project in build/ (Release).
#   scripts/setup.sh            install + build
#   scripts/setup.sh --deps     install only
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libopenmpi-dev openmpi-bin
  libeigen3-dev
  libboost-program-options-dev libboost-dev
  libhdf5-openmpi-dev hdf5-tools
  libgtest-dev libbenchmark-dev
  python3-h5py python3-matplotlib python3-numpy
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "[setup] installing Debian packages: ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "[setup] all Debian packages present" >&2
fi

if [ "${1:-}" = "--deps" ]; then exit 0; fi

BUILD_DIR="${LIEBENCH_BUILD_DIR:-$ROOT/build}"
BUILD_TYPE="${LIEBENCH_BUILD_TYPE:-Release}"
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" ${LIEBENCH_CMAKE_ARGS:-} >&2
cmake --build "$BUILD_DIR" -j "$(nproc)" >&2
