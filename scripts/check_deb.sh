#!/usr/bin/env bash
# The Debian package for real (run by .ci/run after the tests; needs root and apt-get):
# `cpack -G DEB` in the build directory, `apt-get install ./liebench_*.deb` (which pulls in its
# declared dependencies), `liebench list` and the default experiment's convergence study from the
# installed /usr/share/liebench/experiments on 2 ranks, then `apt-get remove liebench`.
# On a machine where that is not possible it says so and exits 0 (skipped).
. "$(dirname "${BASH_SOURCE[0]}")/lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${LIEBENCH_BUILD_DIR:-$ROOT/build}"
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "[check_deb] skipped: needs root and apt-get" >&2; exit 0
fi
if dpkg-query -W -f='${Status}' liebench 2>/dev/null | grep -q "install ok installed"; then
  echo "[check_deb] skipped: a liebench package is already installed on this machine" >&2; exit 0
fi
WORK="$(mktemp -d)"
cleanup() { apt-get -o DPkg::Lock::Timeout=600 remove -y -qq liebench >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
(cd "$BUILD_DIR" && cpack -G DEB -B "$WORK" >"$WORK/cpack.log")
DEB="$(ls "$WORK"/liebench_*.deb)"
echo "[check_deb] $(basename "$DEB"): installing" >&2
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$DEB" >/dev/null
[ "$(command -v liebench)" = /usr/bin/liebench ] || { echo "[check_deb] /usr/bin/liebench not installed" >&2; exit 1; }
cd "$WORK"
liebench list models >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun --oversubscribe -n 2 liebench run /usr/share/liebench/experiments/P_fig5_double_pendulum_convergence.cfg \
  --ranks_per_run=1 --output fig5.h5 --quiet
liebench report fig5.h5 >report.txt
grep -q "rkmk4" report.txt
apt-get -o DPkg::Lock::Timeout=600 remove -y -qq liebench >/dev/null
if [ -e /usr/bin/liebench ]; then echo "[check_deb] /usr/bin/liebench left after remove" >&2; exit 1; fi
echo "[check_deb] installed, ran the [P] Fig. 5 convergence study from the package, removed: ok" >&2
