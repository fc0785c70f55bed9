#!/usr/bin/env bash
# Calibrates the simulated cores: measures, on one core of this machine with the regular
# build's liebench_steps (Open MPI, 1 rank, 1 thread), the kernels that dominate a step --
#   * the dipolar particles' all-pairs field: ordered pair interactions per second
#     (N = 1000, RKMK4, 4 field evaluations per step: N (N - 1) pairs each),
#   * the chain: links x steps per second of RKMK4 (N = 100000),
#   * the cutoff path in a periodic box (--model=box --lattice=64, dlm, 4 steps): nanoseconds per
#     Verlet list entry of a field evaluation (the stepping loop's CPU time times its share
#     t_rhs / seconds, over rhs x list entries) and per body of a step (the rest, over steps x N),
# and writes scripts/smpi/calibration.env:
#   HOST_SPEED=<pair interactions per second>f   (SimGrid's smpi/host-speed and the platforms'
#                                                   core speed: one simulated core = one core here)
#   PAIR_NS=..., CHAIN_LINK_STEP_NS=...          (the cost model's compute terms)
#   BOX_ENTRY_NS=..., BOX_BODY_NS=...            (the box's replay, liebench_steps --replay=yes,
#                                                   and its cost model)
# The unit of speed is thus "pair interactions of the dipolar kernel per second"; a cluster
# whose cores are k times faster on this kernel is simulated by a platform speed k HOST_SPEED.
# Times are the stepping loop's thread CPU time (cpu_seconds of liebench_steps), the clock
# SMPI measures compute bursts with: on a loaded machine wall time counts the time other
# processes hold the core. Rerun by the same command; each kernel is measured 3 times, the
# fastest kept. --box-only measures the box alone and replaces its two lines (the others kept).
#   LIEBENCH_BUILD_DIR=$PWD/build bash scripts/smpi/calibrate.sh [--box-only]
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STEPS="${LIEBENCH_BUILD_DIR:-$ROOT/build}/liebench_steps"
[ -x "$STEPS" ] || { echo "smpi/calibrate.sh: '$STEPS' not found: build the regular variant (scripts/setup.sh) or set LIEBENCH_BUILD_DIR" >&2; exit 2; }
export OMP_NUM_THREADS=1
key() { tr ' ' '\n' | sed -n "s/^$1=//p"; }
box_only=0
case "${1:-}" in
  "") ;;
  --box-only) box_only=1 ;;
  *) echo "smpi/calibrate.sh: unknown argument '$1'; expected --box-only or nothing" >&2; exit 2 ;;
esac
best_pair="" best_link="" best_entry="" best_body=""
calc() { awk "BEGIN { printf \"%.6g\", ($1) }"; }   # bc cannot read 1e-05
for i in 1 2 3; do
  b="$("$STEPS" --model=box --lattice=64 --method=dlm --steps=4)"
  cpu=$(key cpu_seconds <<< "$b"); share=$(calc "$(key t_rhs <<< "$b") / $(key seconds <<< "$b")")
  e=$(calc "$cpu * $share / ($(key rhs <<< "$b") * $(key domain_entries_sum <<< "$b")) * 1e9")
  v=$(calc "$cpu * (1 - $share) / (4 * 262144) * 1e9")
  if [ -z "$best_entry" ] || [ "$(calc "$e < $best_entry")" = 1 ]; then best_entry=$e; best_body=$v; fi
  [ $box_only = 1 ] && continue
  p="$("$STEPS" --model=particles --N=1000 --steps=2)"
  v=$(calc "$(key cpu_seconds <<< "$p") / ($(key rhs <<< "$p") * 1000 * 999) * 1e9")
  if [ -z "$best_pair" ] || [ "$(calc "$v < $best_pair")" = 1 ]; then best_pair=$v; fi
  c="$("$STEPS" --model=chain --N=100000 --steps=5)"
  v=$(calc "$(key cpu_seconds <<< "$c") / (100000 * 5) * 1e9")
  if [ -z "$best_link" ] || [ "$(calc "$v < $best_link")" = 1 ]; then best_link=$v; fi
done
[ "$(calc "$best_entry > 0 && $best_body > 0")" = 1 ] || { echo "smpi/calibrate.sh: the box measured no time ($best_entry ns per entry, $best_body ns per body)" >&2; exit 1; }
if [ $box_only = 1 ]; then
  f="$ROOT/scripts/smpi/calibration.env"
  [ -f "$f" ] || { echo "smpi/calibrate.sh: --box-only needs an existing $f (run without it first)" >&2; exit 2; }
  grep -v '^BOX_\|^# box:' "$f" > "$f.tmp" || true
  { echo "# box: measured at $(date -u +%Y-%m-%dT%H:%M:%SZ); load: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "BOX_ENTRY_NS=$best_entry"; echo "BOX_BODY_NS=$best_body"; } >> "$f.tmp"
  mv "$f.tmp" "$f"
  cat "$f"
  exit 0
fi
[ "$(calc "$best_pair > 0 && $best_link > 0")" = 1 ] || { echo "smpi/calibrate.sh: measured no time ($best_pair ns per pair, $best_link ns per link step)" >&2; exit 1; }
speed=$(awk "BEGIN { printf \"%.4e\", 1e9 / $best_pair }")
{
  echo "# written by scripts/smpi/calibrate.sh on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ); load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
  echo "HOST_SPEED=${speed}f"
  echo "PAIR_NS=$best_pair"
  echo "CHAIN_LINK_STEP_NS=$best_link"
  echo "BOX_ENTRY_NS=$best_entry"
  echo "BOX_BODY_NS=$best_body"
} > "$ROOT/scripts/smpi/calibration.env"
cat "$ROOT/scripts/smpi/calibration.env"
