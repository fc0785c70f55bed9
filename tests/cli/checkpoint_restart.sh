#!/usr/bin/env bash
# Checkpoint and restart (issue 14) of single runs (simulate, invariants; grids of runs:
# tests/cli/checkpoint_grids.sh): runs stopped by SIGTERM / SIGUSR1 at random moments of their
# progress (lib_checkpoint.bash) write <output>.ckpt.h5 and exit 5; running the same
# command again continues, until the result file is written. The final file is compared with
# an uninterrupted run of the same command (h5diff: every dataset and attribute except
# /provenance and the wall-clock timings): fixed-step and adaptive, chain (nfold_pendulum) and
# dipoles (dipolar; also in a periodic box), 1 and 2 ranks, and a restart on another number of ranks. SIGKILL then restart
# from the last periodic checkpoint (checkpoint_every). A truncated checkpoint, one of another N
# and one of another method are refused with exit status 2, and the checkpoint file is kept.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/lib_studies.bash"
source "$HERE/lib_checkpoint.bash"

# Run lengths of about 1.5-2 s on one core after a start-up of about 0.3 s (the kills land inside the run;
# the chain's steps and t_final grew when the small-system path made a 16-link step 2-3x faster).
cat > chain_fixed.cfg <<'CFG'
study = simulate
model = nfold_pendulum
methods = rkmk4
steps = 480000
t_final = 6
sample_every = 50
[nfold_pendulum]
N = 16
initial = paper
CFG
cat > chain_adaptive.cfg <<'CFG'
study = simulate
model = nfold_pendulum
methods = rkmk54
tol = 1e-12
t_final = 32
[nfold_pendulum]
N = 16
initial = paper
CFG
cat > dipoles_fixed.cfg <<'CFG'
study = invariants
model = dipolar
methods = rkmk4
dt = 0.001
t_final = 40
sample_every = 100
[dipolar]
N = 10
initial = random
seed = 1
CFG
cat > dipoles_adaptive.cfg <<'CFG'
study = invariants
model = dipolar
methods = rkmk54
tol = 1e-11
t_final = 100
[dipolar]
N = 10
initial = random
seed = 1
CFG
# The cutoff path in a periodic box (issue 28): the state holds unwrapped positions, so the
# checkpoint needs nothing else; bodies leave the box during the run.
cat > dipoles_box.cfg <<'CFG'
study = invariants
model = dipolar
methods = dlm
dt = 0.001
t_final = 120
sample_every = 100
[dipolar]
N = 10
initial = random
seed = 1
spread = 6
cutoff = 6
box = 12, 12, 12
cutoff_shift = true
CFG

# check_case NAME CFG RANKS: uninterrupted reference, then the same command stopped by SIGTERM,
# SIGUSR1, SIGTERM at random moments of its progress and run again until it finishes.
check_case() {
  local name=$1 cfg=$2 ranks=$3
  "${MPIRUN[@]}" -n "$ranks" "$LB" run "$cfg" -o "ref_$name.h5" -q "${PROGRESS[@]}" || { bad "$name: reference run failed"; return; }
  stop_and_restart "$name" "int_$name.h5" "TERM USR1 TERM" "$ranks" run "$cfg" || return
  if same_result "ref_$name.h5" "int_$name.h5"; then ok "$name: stopped/restarted result bitwise equal to the uninterrupted run"
  else bad "$name: results differ"; fi
}

# stop_once OUT CMD...: runs CMD -o OUT on one rank and stops it with SIGTERM at 10-40% of its
# progress; status of the run
stop_once() {
  local out=$1; shift
  "$LB" "$@" -o "$out" "${PROGRESS[@]}" > run.log 2>&1 &
  local pid=$!
  wait_for_percent run.log $pid "$(awk -v r="$RANDOM" 'BEGIN { print 10 + 30 * r / 32767 }')" && kill -TERM $pid
  wait $pid
}

check_case chain_fixed_1 chain_fixed.cfg 1
check_case chain_adaptive_1 chain_adaptive.cfg 1
check_case dipoles_fixed_2 dipoles_fixed.cfg 2
check_case dipoles_adaptive_2 dipoles_adaptive.cfg 2
check_case dipoles_box_2 dipoles_box.cfg 2

# Restart on another layout: stop a 1-rank run, continue on 2 ranks (reference: the 2-rank run).
stop_once layout.h5 run dipoles_fixed.cfg; st=$?
if [[ $st -eq 5 ]]; then
  "${MPIRUN[@]}" -n 2 "$LB" run dipoles_fixed.cfg -o layout.h5 -q "${PROGRESS[@]}" || bad "layout: 2-rank restart failed"
  same_result ref_dipoles_fixed_2.h5 layout.h5 && ok "1-rank checkpoint continued on 2 ranks: same bits" ||
    bad "layout: 1 -> 2 ranks results differ"
else
  bad "layout: first run exit $st (expected 5): $(cat run.log)"
fi

# SIGKILL: continue from the last periodic checkpoint (checkpoint_every, part of the experiment
# so that the reference has the same keys).
cp chain_fixed.cfg every.cfg; echo "checkpoint_every = 5000" | sed -i '1r /dev/stdin' every.cfg
"$LB" run every.cfg -o every_ref.h5 -q "${PROGRESS[@]}" || bad "checkpoint_every reference failed"
"$LB" run every.cfg -o every.h5 "${PROGRESS[@]}" > run.log 2>&1 &
pid=$!
for _ in $(seq 1 600); do [[ -e every.h5.ckpt.h5 ]] && break; sleep 0.05; done
wait_for_percent run.log $pid "$(awk -v r="$RANDOM" 'BEGIN { print 30 + 40 * r / 32767 }')"
kill -KILL $pid; wait $pid
if [[ -e every.h5.ckpt.h5 ]]; then
  ok "SIGKILL: periodic checkpoint present"
  expect_status "restart after SIGKILL" 0 "" "$LB" run every.cfg -o every.h5 -q "${PROGRESS[@]}"
  same_result every_ref.h5 every.h5 && ok "SIGKILL + restart: same bits" || bad "SIGKILL + restart: results differ"
else
  bad "no periodic checkpoint written before SIGKILL"
fi

# Refused checkpoints: exit 2, one line, the checkpoint kept, no result file.
stop_once bad.h5 run chain_fixed.cfg; st=$?
if [[ $st -eq 5 ]]; then
  sum=$(md5sum < bad.h5.ckpt.h5)
  expect_status "checkpoint of another N refused" 2 "another experiment (nfold_pendulum.N = 16 there, 8 here)" "$LB" run chain_fixed.cfg --nfold_pendulum.N=8 -o bad.h5 -q
  expect_status "checkpoint of another method refused" 2 "methods = rkmk4 there, rkmk5 here" "$LB" run chain_fixed.cfg --methods=rkmk5 -o bad.h5 -q
  expect_status "checkpoint of another experiment refused" 2 "t_final = 6 there, 5 here" "$LB" run chain_fixed.cfg --t_final=5 -o bad.h5 -q
  expect_status "checkpoint of another study refused" 2 "another run: study 'simulate'" "$LB" run chain_fixed.cfg --study=invariants -o bad.h5 -q
  [[ "$(md5sum < bad.h5.ckpt.h5)" == "$sum" ]] && ok "refused checkpoint kept intact" || bad "checkpoint changed"
  [[ -e bad.h5 ]] && bad "a refused restart wrote a result file"
  head -c 3000 bad.h5.ckpt.h5 > trunc.ckpt.h5
  expect_status "truncated checkpoint refused" 2 "checkpoint trunc.ckpt.h5 is refused" "$LB" run chain_fixed.cfg -o bad.h5 -q --restart trunc.ckpt.h5
  expect_status "missing --restart file refused" 2 "does not exist" "$LB" run chain_fixed.cfg -o bad.h5 -q --restart nope.h5
  out=$("$LB" run chain_fixed.cfg --nfold_pendulum.N=8 -o bad.h5 -q 2>&1)
  [[ $(printf '%s\n' "$out" | wc -l) -eq 1 ]] && ok "refusal is one line" || bad "refusal is not one line: $out"
else
  bad "refusal setup: exit $st: $(cat run.log)"
fi
expect_status "checkpoint keys with save_state refused" 2 "save_state" "$LB" run chain_fixed.cfg --save_state=true --checkpoint_every=10 -o multi.h5 -q
finish
