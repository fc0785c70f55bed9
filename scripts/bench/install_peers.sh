#!/usr/bin/env bash
# Idempotent install of the benchmark peers of issue 16 (like scripts/setup.sh for the build):
#   lammps      Debian's LAMMPS (executable lmp), the peer of the dipolar spheres
#   libboost-dev (Boost.Odeint, header-only) and libeigen3-dev (unsupported/Eigen/MatrixFunctions)
#               for the baselines in tests/benchmarks/ (normally present already from setup.sh)
# Skipped, with one line saying why, where it cannot run (LIEBENCH_SKIP_APT=1, no apt-get, not
# root and no sudo). Exit 0 when every peer is present afterwards, 1 otherwise.
#   scripts/bench/install_peers.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
PACKAGES=(lammps libboost-dev libeigen3-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then missing+=("$p"); fi
done
if ((${#missing[@]} == 0)); then
  echo "[install_peers] all peers present (${PACKAGES[*]})" >&2
  exit 0
fi
if [ "${LIEBENCH_SKIP_APT:-0}" = 1 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "[install_peers] cannot install ${missing[*]} here (LIEBENCH_SKIP_APT=1 or no apt-get); install them by hand" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=sudo
  else
    echo "[install_peers] missing ${missing[*]} and no root or sudo to install them" >&2
    exit 1
  fi
fi
echo "[install_peers] installing Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
command -v lmp >/dev/null 2>&1 || { echo "[install_peers] lammps installed but no 'lmp' on PATH" >&2; exit 1; }
echo "[install_peers] done" >&2
