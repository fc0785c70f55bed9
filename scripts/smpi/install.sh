#!/usr/bin/env bash
# Installs SimGrid's SMPI from Debian (idempotent): libsimgrid-dev brings smpicxx, smpirun and
# libsimgrid (Debian 12: SimGrid 3.32; Debian has no separate `simgrid` package). Exit 0 when
# smpicxx and smpirun are there afterwards; 77 (the "skip" status of the tests) with one line on
# stderr when they cannot be installed here (no apt-get, not root and no sudo, or apt failed).
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
have() { command -v smpicxx >/dev/null 2>&1 && command -v smpirun >/dev/null 2>&1; }
if have; then
  echo "[smpi] SimGrid present: $(smpirun -version 2>/dev/null | head -n1)" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "[smpi] SimGrid (smpicxx, smpirun) is missing and there is no apt-get here: install SimGrid >= 3.32 by hand" >&2
  exit 77
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo"
  else
    echo "[smpi] SimGrid is missing and there is no root or sudo to run: apt-get install libsimgrid-dev" >&2
    exit 77
  fi
fi
echo "[smpi] installing libsimgrid-dev (smpicxx, smpirun)" >&2
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends libsimgrid-dev >/dev/null; then
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq || true
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends libsimgrid-dev >/dev/null || {
    echo "[smpi] apt-get install libsimgrid-dev failed (see above)" >&2
    exit 77
  }
fi
have || { echo "[smpi] libsimgrid-dev installed but smpicxx/smpirun are not on PATH" >&2; exit 77; }
echo "[smpi] SimGrid installed: $(smpirun -version 2>/dev/null | head -n1)" >&2
