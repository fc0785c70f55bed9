#!/usr/bin/env bash
# The SMPI build variant (scripts/smpi): the compute core compiled with SimGrid's smpicxx runs
# the same steps as the regular build, bit for bit. liebench_steps of both builds on the chain
# (RKMK4), the particles (RKMK4) and an adaptive run (RKMK5(4), a global error-norm reduction
# every step): the regular build on 1 and 2 ranks (mpirun), the SMPI build on 1 and 2 simulated
# ranks on one node (loopback) and on 8 ranks of the InfiniBand platform, and the cutoff path in
# a periodic box (dlm, the spatial decomposition); every final-state hash and final energy must
# be the same. The box's replay from its geometry has the real decomposition's traffic. The per-phase timers (t_rhs, t_comm, t_solve: the simulated
# clock under SMPI) are present and ordered. Then bad input: one line, exit 2.
# Builds the SMPI variant next to this build (<build>-smpi) when it is missing (minutes, once).
# Exit 77 (skipped) only where SimGrid cannot be installed (scripts/smpi/install.sh says why).
# Arguments: LIEBENCH SOURCE_DIR SCRATCH_DIR.
# shellcheck source=tests/cli/lib_studies.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
set -o pipefail
BUILD="$(dirname "$LB")"
REG="$BUILD/liebench_steps"
[[ -x "$REG" ]] || { echo "FAIL regular liebench_steps missing next to $LB"; exit 1; }
bash "$SRC/scripts/smpi/install.sh"
st=$?
if [[ $st -eq 77 ]]; then echo "skipped: SimGrid cannot be installed here (see above)"; exit 77; fi
[[ $st -eq 0 ]] || { echo "FAIL scripts/smpi/install.sh exit $st"; exit 1; }
export LIEBENCH_BUILD_DIR="$BUILD"
# always: an up-to-date variant is a no-op of a few seconds
bash "$SRC/scripts/smpi/build.sh" > build.log 2>&1 || { tail -n 30 build.log; echo "FAIL scripts/smpi/build.sh"; exit 1; }
RUN=("$SRC/scripts/smpi/run.sh")
key() { tr ' ' '\n' | sed -n "s/^$1=//p"; }
num() { [[ "$1" =~ ^[0-9.e+-]+$ ]]; }
# check_phases NAME LINE RANKS: the per-phase seconds (par::Timers; simulated under SMPI) are
# numbers with 0 <= t_solve, t_comm <= t_rhs <= seconds; t_comm = comm_seconds; on several
# ranks the field communicates (t_comm > 0), and the chain's reduced solve is timed (t_solve > 0
# in the regular build).
check_phases() {
  local name=$1 line=$2 np=$3 rhs comm solve sec
  rhs=$(key t_rhs <<< "$line"); comm=$(key t_comm <<< "$line"); solve=$(key t_solve <<< "$line")
  sec=$(key seconds <<< "$line")
  if ! num "$rhs" || ! num "$comm" || ! num "$solve"; then bad "$name: phase timers '$rhs' '$comm' '$solve' in $line"; return; fi
  [[ $(key comm_seconds <<< "$line") == "$comm" ]] || bad "$name: comm_seconds != t_comm in $line"
  # awk, not bc: the numbers come in %g form (1.2e-05)
  if awk -v c="$comm" -v s="$solve" -v r="$rhs" -v t="$sec" 'BEGIN { exit !(c <= r && s <= r && r <= t && r > 0) }'; then
    ok "$name: t_comm $comm, t_solve $solve <= t_rhs $rhs <= seconds $sec"
  else bad "$name: phase timers out of order: t_comm $comm t_solve $solve t_rhs $rhs seconds $sec"; fi
  if [[ $np -gt 1 ]] && ! awk -v c="$comm" 'BEGIN { exit !(c > 0) }'; then bad "$name: t_comm = 0 on $np ranks"; fi
  # (regular build only: SMPI drops compute bursts below smpi/cpu-threshold, 1 us, and the
  # reduced solve of 7 separators takes ~0.1 us)
  if [[ $(key model <<< "$line") == chain && $(key build <<< "$line") == regular ]] &&
     ! awk -v s="$solve" 'BEGIN { exit !(s > 0) }'; then bad "$name: chain with t_solve = 0"; fi
}

cases=("--model=chain --N=96 --blocks=8 --steps=5 --dt=1e-3"
       "--model=particles --N=40 --steps=3"
       "--model=particles --N=24 --method=rkmk54 --tol=1e-8 --t_final=0.05"
       "--model=box --lattice=16,16,8 --method=dlm --steps=2")
for c in "${cases[@]}"; do
  read -r -a A <<< "$c"
  ref="$(mpirun --oversubscribe -n 1 "$REG" "${A[@]}" 2> err.txt)" || { cat err.txt; bad "regular 1 rank: $c"; continue; }
  h=$(key state_hash <<< "$ref"); e=$(key energy <<< "$ref"); n=$(key steps <<< "$ref")
  [[ $(key build <<< "$ref") == regular && -n "$h" ]] || { bad "regular summary: $ref"; continue; }
  r2="$(mpirun --oversubscribe -n 2 "$REG" "${A[@]}" 2> err.txt)"
  [[ $(key state_hash <<< "$r2") == "$h" ]] && ok "regular 2 ranks = 1 rank: $c" || bad "regular 2 ranks: $r2 vs $ref"
  for layout in "loopback 1" "loopback 2" "ib 8"; do
    read -r plat np <<< "$layout"
    out="$("${RUN[@]}" "$plat" "$np" "${A[@]}" 2> err.txt)"
    st=$?
    if [[ $st -ne 0 ]]; then tail -n 20 err.txt; bad "smpi $plat $np ranks: exit $st ($c)"; continue; fi
    if [[ $(key build <<< "$out") == smpi && $(key ranks <<< "$out") == "$np" && $(key state_hash <<< "$out") == "$h" &&
          $(key energy <<< "$out") == "$e" && $(key steps <<< "$out") == "$n" ]]; then
      ok "smpi $plat $np ranks: state hash $h, energy $e, $n steps as the regular build ($c)"
    else
      bad "smpi $plat $np ranks: $out; regular: $ref"
    fi
    sim=$(key seconds <<< "$out")
    # awk, not bc (as check_phases): below 1e-4 s the seconds come in %g's exponent form
    num "$sim" && awk -v s="$sim" 'BEGIN { exit !(s > 0) }' || bad "smpi $plat $np: simulated seconds '$sim'"
    check_phases "smpi $plat $np ranks ($c)" "$out" "$np"
  done
  check_phases "regular 2 ranks ($c)" "$r2" 2
done
# The box replayed from its geometry (--replay=yes, parallel/domain_replay.hpp): on 8 simulated
# ranks, the same traffic counters as the real decomposition, and a replayed step whose
# injected compute is the calibrated cost (entry_ns per list entry, body_ns per body).
T="--model=box --lattice=16,16,8 --method=dlm --steps=2"
read -r -a A <<< "$T"
real="$("${RUN[@]}" ib 8 "${A[@]}" 2> err.txt)" || { cat err.txt; bad "smpi box real"; }
rep="$("${RUN[@]}" ib 8 "${A[@]}" --replay=yes --entry_ns=10 --body_ns=100 2> err.txt)" || { cat err.txt; bad "smpi box replay"; }
same=1
for k in domain_bytes_eval_max domain_bytes_eval_mean domain_messages_eval_max domain_messages_eval_mean domain_home_max \
         domain_ghosts_max domain_entries_max domain_entries_sum; do
  [[ -n "$(key $k <<< "$real")" && $(key $k <<< "$real") == $(key $k <<< "$rep") ]] || { same=0; bad "replay $k: $(key $k <<< "$rep") vs real $(key $k <<< "$real")"; }
done
[[ $same == 1 ]] && ok "replay on 8 simulated ranks: the real decomposition's traffic ($(key domain_messages_eval_max <<< "$rep") messages, $(key domain_bytes_eval_max <<< "$rep") bytes per evaluation, max)"
[[ $(key replay <<< "$rep") == 1 && $(key state_hash <<< "$rep") == na ]] && ok "replay line says replay=1, state_hash=na" || bad "replay line: $rep"
# its compute: at least 3 evaluations x entries_max x 10 ns (the injected bursts) on the busiest rank
if awk -v t="$(key seconds <<< "$rep")" -v e="$(key domain_entries_max <<< "$rep")" 'BEGIN { exit !(t >= 3 * e * 10e-9) }'; then
  ok "replayed seconds $(key seconds <<< "$rep") >= the injected pair work"
else bad "replayed seconds $(key seconds <<< "$rep") below 3 x $(key domain_entries_max <<< "$rep") x 10 ns"; fi
expect_status "replay without costs" 2 "needs --entry_ns and --body_ns" "${RUN[@]}" loopback 1 "${A[@]}" --replay=yes
expect_status "replay of rkmk4" 2 "replays dlm" "${RUN[@]}" loopback 1 --model=box --lattice=8 --replay=yes --entry_ns=1 --body_ns=1
expect_status "replay of the chain" 2 "needs --model=box" "$REG" --model=chain --replay=yes
expect_status "replay with a negative cost" 2 "nanoseconds >= 0" "$REG" "${A[@]}" --replay=yes --entry_ns=-1 --body_ns=1

# a different initial state changes the hash (the comparison can fail)
o1="$("${RUN[@]}" loopback 1 --model=chain --N=96 --blocks=8 --steps=5 --dt=1e-3 2>/dev/null)"
o2="$("${RUN[@]}" loopback 1 --model=chain --N=96 --blocks=8 --steps=6 --dt=1e-3 2>/dev/null)"
[[ -n "$(key state_hash <<< "$o1")" && $(key state_hash <<< "$o1") != $(key state_hash <<< "$o2") ]] &&
  ok "one more step changes the hash" || bad "hash insensitive: $o1 / $o2"

expect_status "bad model (smpi)" 2 "expected chain, particles or box" "${RUN[@]}" loopback 1 --model=rope
expect_status "bad model (regular)" 2 "expected chain, particles or box" "$REG" --model=rope
expect_status "bad rank count" 2 "expected 1..1024" "${RUN[@]}" ib 2000 --model=chain
expect_status "bad platform" 2 "platform 'myrinet' unknown" "${RUN[@]}" myrinet 2 --model=chain
finish
