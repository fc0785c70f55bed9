#!/usr/bin/env bash
# Idempotent setup: installs exactly the Debian packages liebench needs (when missing),
# then configures and builds the project in build/ (Release).
#   scripts/setup.sh            install + build
#   scripts/setup.sh --deps     install only
. "$(dirname "${BASH_SOURCE[0]}")/lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
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
  texlive-latex-base texlive-latex-recommended poppler-utils   # tests/cli/latex_tables.sh: pdflatex, pdftoppm
  chromium fonts-liberation                                     # tests/cli/benchmark_scoreboard.sh: the HTML report in a real browser
)

missing=()
for p in "${PACKAGES[@]}"; do
  command -v dpkg-query >/dev/null 2>&1 || break
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# The package step is skipped, with one line saying so, where it cannot or need not run: every
# package present, LIEBENCH_SKIP_APT=1 (a cluster whose libraries come from environment modules),
# no dpkg/apt-get (not Debian), or not root and no sudo. CMake then finds what it can and names
# anything missing; docs/extending.md ("Installing") gives the plain cmake line for such machines.
if [ "${LIEBENCH_SKIP_APT:-0}" = 1 ]; then
  echo "[setup] LIEBENCH_SKIP_APT=1: not installing packages; CMake looks for the libraries itself" >&2
elif ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "[setup] no dpkg/apt-get here: not installing packages; CMake looks for the libraries itself" >&2
elif ((${#missing[@]})); then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo"
    else
      echo "[setup] missing Debian packages (${missing[*]}) and no root or sudo to install them; trying the build anyway" >&2
      SUDO="skip"
    fi
  fi
  if [ "$SUDO" != skip ]; then
    echo "[setup] installing Debian packages: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
    $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
else
  echo "[setup] all Debian packages present" >&2
fi

if [ "${1:-}" = "--deps" ]; then exit 0; fi

BUILD_DIR="${LIEBENCH_BUILD_DIR:-$ROOT/build}"
BUILD_TYPE="${LIEBENCH_BUILD_TYPE:-Release}"
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" ${LIEBENCH_CMAKE_ARGS:-} >&2
cmake --build "$BUILD_DIR" -j "$(nproc)" >&2
