#!/usr/bin/env bash
# The simulated-cluster study in one command (issue 17): installs SimGrid (apt, idempotent),
# builds the regular variant if it is missing (scripts/setup.sh: calibration and tables use it)
# and the SMPI variant (build.sh), calibrates the simulated cores on this machine
# (calibrate.sh -> calibration.env), runs the strong and weak scaling cases on 1 ... 1024
# simulated ranks of both platforms (scaling.sh: lines merged into
# results/smpi/{strong,weak}_summaries.txt), and writes the tables and plots with the cost model
# beside the simulation (scaling_table.py -> results/smpi/{strong,weak}_scaling.{h5,md,csv,png}
# and *_efficiency.md, the compact tables of docs/scaling.md; the box cases' traffic table
# box_table.py -> results/smpi/box_scaling.md).
#   bash scripts/smpi/study.sh                 everything (hours on 2 cores: N = 64000 on 1024
#                                              ranks takes ~10 min on ib, over an hour on eth)
#   bash scripts/smpi/study.sh --quick         a few minutes: chain_1e6 and particles_4000 on 1,
#                                              16, 64 ranks of ib (results into a temporary
#                                              directory unless LIEBENCH_SMPI_RESULTS is set;
#                                              the calibration there is kept)
#   bash scripts/smpi/study.sh --cases=A,B --ranks=1,16 --platforms=ib   (scaling.sh's options)
#   --no-calibrate: keep scripts/smpi/calibration.env as it is
# Environment: LIEBENCH_BUILD_DIR (the regular build; default <source>/build),
# LIEBENCH_SMPI_RESULTS (default results/smpi).
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
die() { echo "smpi/study.sh: $*" >&2; exit 2; }
calibrate=1; pass=()
for a in "$@"; do
  case "$a" in
    --quick)
      pass+=(--cases=chain_1e6,particles_4000 --ranks=1,16,64 --platforms=ib)
      [[ -f "$ROOT/scripts/smpi/calibration.env" ]] && calibrate=0  # keep the calibration there is
      if [[ -z "${LIEBENCH_SMPI_RESULTS:-}" ]]; then
        LIEBENCH_SMPI_RESULTS="$(mktemp -d "${TMPDIR:-/tmp}/liebench_smpi_quick.XXXXXX")"
      fi ;;
    --no-calibrate) calibrate=0 ;;
    --cases=*|--ranks=*|--platforms=*) pass+=("$a") ;;
    *) die "unknown argument '$a'; expected --quick, --no-calibrate, --cases=A,B, --ranks=1,16, --platforms=ib,eth" ;;
  esac
done
export LIEBENCH_BUILD_DIR="${LIEBENCH_BUILD_DIR:-$ROOT/build}"
OUT="${LIEBENCH_SMPI_RESULTS:-$ROOT/results/smpi}"
export LIEBENCH_SMPI_RESULTS="$OUT"
step() { echo "[study] $(date -u +%H:%M:%S) $*" >&2; }

step "SimGrid"
bash "$ROOT/scripts/smpi/install.sh"
if [[ ! -x "$LIEBENCH_BUILD_DIR/liebench" || ! -x "$LIEBENCH_BUILD_DIR/liebench_steps" ]]; then
  step "regular build ($LIEBENCH_BUILD_DIR)"
  bash "$ROOT/scripts/setup.sh"
fi
step "SMPI build"
bash "$ROOT/scripts/smpi/build.sh" > /dev/null
if [[ $calibrate == 1 ]]; then
  step "calibration (scripts/smpi/calibration.env)"
  bash "$ROOT/scripts/smpi/calibrate.sh"
fi
step "simulated runs -> $OUT/{strong,weak}_summaries.txt"
bash "$ROOT/scripts/smpi/scaling.sh" "${pass[@]}"
for kind in strong weak; do
  [[ -s "$OUT/${kind}_summaries.txt" ]] || continue
  step "$kind-scaling tables and plot -> $OUT/${kind}_scaling.{h5,md,csv,png}"
  /usr/bin/python3 "$ROOT/scripts/smpi/scaling_table.py" "$OUT/${kind}_summaries.txt" "$OUT/${kind}_scaling" \
    --kind "$kind" > /dev/null
done
if grep -q "case=box" "$OUT/strong_summaries.txt" "$OUT/weak_summaries.txt" 2>/dev/null; then
  step "the box cases with their traffic -> $OUT/box_scaling.md"
  LIEBENCH_SMPI_RESULTS="$OUT" /usr/bin/python3 "$ROOT/scripts/smpi/box_table.py" > /dev/null
fi
step "done: $OUT/strong_scaling_efficiency.md, $OUT/weak_scaling_efficiency.md"
cat "$OUT/strong_scaling_efficiency.md" 2>/dev/null || true
cat "$OUT/weak_scaling_efficiency.md" 2>/dev/null || true
