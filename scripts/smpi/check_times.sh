#!/usr/bin/env bash
# Simulated against real time on this machine, where both can be measured: the same case run
# alternately (real, simulated, real, simulated, ...) with the regular build (mpirun -n P) and
# the SMPI build on P ranks of one simulated node (platform `loopback`), P = 1 and 2. SMPI
# measures compute bursts in thread CPU time, so the real run's reference is its CPU time per
# step (cpu_seconds: max over ranks); its wall time is printed beside it (on a loaded machine
# it also counts the time other processes hold the core). Prints each pair, the ratio
# simulated / real CPU, the median ratio per case, and `uptime` before and after.
#   LIEBENCH_BUILD_DIR=$PWD/build bash scripts/smpi/check_times.sh [repeats=3]
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REG="${LIEBENCH_BUILD_DIR:-$ROOT/build}/liebench_steps"
[ -x "$REG" ] || { echo "smpi/check_times.sh: '$REG' not found (set LIEBENCH_BUILD_DIR)" >&2; exit 2; }
reps="${1:-3}"
key() { tr ' ' '\n' | sed -n "s/^$1=//p"; }
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "# before: $(uptime)"
for c in "--model=chain --N=200000 --blocks=16 --steps=5" "--model=particles --N=2000 --steps=2"; do
  read -r -a A <<< "$c"
  for np in 1 2; do
    ratios=()
    for ((i = 0; i < reps; ++i)); do
      r="$(mpirun --oversubscribe -n "$np" "$REG" "${A[@]}")"
      s="$("$ROOT/scripts/smpi/run.sh" loopback "$np" "${A[@]}")"
      [ "$(key state_hash <<< "$r")" = "$(key state_hash <<< "$s")" ] || { echo "different final states: $r / $s" >&2; exit 1; }
      steps=$(key steps <<< "$r")
      rc=$(awk "BEGIN { print $(key cpu_seconds <<< "$r") / $steps }"); rw=$(key s_per_step <<< "$r")
      ss=$(key s_per_step <<< "$s")
      q=$(awk "BEGIN { print $ss / $rc }")
      ratios+=("$q")
      printf '%s ranks=%d real_cpu_s_per_step=%s real_wall_s_per_step=%s simulated_s_per_step=%s ratio=%.3f simulator_wall_s=%s\n' \
        "$c" "$np" "$rc" "$rw" "$ss" "$q" "$(key wall_seconds <<< "$s")"
    done
    med=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf '%s ranks=%d median_ratio=%.3f\n' "$c" "$np" "$med"
  done
done
echo "# after: $(uptime)"
