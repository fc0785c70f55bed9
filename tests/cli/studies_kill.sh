#!/usr/bin/env bash
# Killing a study mid-run (SIGTERM and SIGKILL on one rank, SIGTERM to mpirun -n 2, SIGINT)
# leaves no file under the final name and any earlier file there intact; a caught signal also
# removes the temporary file (SIGKILL can leave only that stray temporary file). A checkpointed
# study (long.cfg, two runs) stops with exit status 5 and its checkpoint; one that is not
# (save_state trajectories: nosave.cfg) with 128 + signal (restarts: checkpoint_restart.sh,
# checkpoint_grids.sh).
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"

cat > long.cfg <<'CFG'
study = invariants
model = free_rigid_body
methods = rkmk4, rkmk5
steps = 100000000
t_final = 100000
CFG
cat > nosave.cfg <<'CFG'
study = simulate
model = free_rigid_body
methods = rkmk4
steps = 100000000
t_final = 100000
save_state = true
state_every = 10000000
CFG
"$LB" run "$EX/frb_simulate.cfg" --steps=10 --t_final=0.1 -o result.h5 -q || bad "setup run failed"
sum_before=$(md5sum < result.h5)

# wait_for_temp PATTERN: until the temporary file exists (the run is past validation)
wait_for_temp() {
  for _ in $(seq 1 100); do
    compgen -G "$1" > /dev/null && return 0
    sleep 0.1
  done
  return 1
}

kill_run() {  # NAME SIGNAL OUTPUT EXPECTED_STATUS(or "nonzero") CMD...  (log: last.log)
  local name=$1 sig=$2 out=$3 want=$4; shift 4
  "$@" > last.log 2>&1 &
  local pid=$!
  wait_for_temp "$out.tmp.*" || { bad "$name: no temporary file appeared"; kill -KILL $pid; wait $pid; return; }
  sleep 0.3
  kill "-$sig" $pid
  wait $pid
  local st=$?
  if [[ "$want" == nonzero ]]; then [[ $st -ne 0 ]] && ok "$name: exit status $st" || bad "$name: exit status 0"
  else [[ $st -eq $want ]] && ok "$name: exit status $st" || bad "$name: exit status $st, expected $want"; fi
}

kill_run "SIGTERM, 1 rank, not checkpointed" TERM result.h5 143 "$LB" run nosave.cfg -o result.h5 --force
[[ "$(md5sum < result.h5)" == "$sum_before" ]] && ok "earlier file intact after SIGTERM" || bad "earlier file changed"
compgen -G "result.h5.tmp.*" > /dev/null && bad "SIGTERM left a temporary file" || ok "no temporary file after SIGTERM"
grep -q "interrupted by SIGTERM" last.log && ok "message names the signal" || bad "no message: $(cat last.log)"
[[ -e result.h5.ckpt.h5 ]] && bad "a study without checkpoints left one" || ok "no checkpoint without checkpoints"

kill_run "SIGTERM, 1 rank, checkpointed" TERM result.h5 5 "$LB" run long.cfg -o result.h5 --force
[[ "$(md5sum < result.h5)" == "$sum_before" ]] && ok "earlier file intact after a checkpointed stop" || bad "earlier file changed"
compgen -G "result.h5.tmp.*" > /dev/null && bad "SIGTERM left a temporary file" || ok "no temporary file after exit 5"
grep -q "stopped by SIGTERM; checkpoint written to result.h5.ckpt.h5" last.log && ok "message names the signal and the checkpoint" ||
  bad "no message: $(cat last.log)"
[[ -e result.h5.ckpt.h5 ]] && ok "checkpoint kept" || bad "no checkpoint after exit 5"

kill_run "SIGKILL, 1 rank" KILL result.h5 137 "$LB" run long.cfg -o result.h5 --force
[[ "$(md5sum < result.h5)" == "$sum_before" ]] && ok "earlier file intact after SIGKILL" || bad "earlier file changed"
rm -f result.h5.tmp.*   # SIGKILL cannot clean up: at most this stray temporary file

# SIGTERM to mpirun itself: Open MPI forwards it to the ranks and kills them after a short grace
# period, which a study without checkpoints uses to remove its temporary file (a checkpointed one
# may be killed while it writes its checkpoint: then the previous checkpoint stays and the stale
# temporaries are removed by the next run; batch systems signal the ranks, checkpoint_*.sh)
kill_run "SIGTERM, mpirun -n 2" TERM result.h5 nonzero "${MPIRUN[@]}" -n 2 "$LB" run nosave.cfg -o result.h5 --force
[[ "$(md5sum < result.h5)" == "$sum_before" ]] && ok "earlier file intact after SIGTERM to mpirun" || bad "earlier file changed"
compgen -G "result.h5.tmp.*" > /dev/null && bad "mpirun SIGTERM left a temporary file" || ok "no temporary file after mpirun SIGTERM"

kill_run "SIGINT, new file" INT fresh.h5 5 "$LB" run long.cfg -o fresh.h5
[[ -e fresh.h5 ]] && bad "SIGINT left a file under the final name" || ok "no file after SIGINT"
kill_run "SIGINT, new file, not checkpointed" INT fresh2.h5 130 "$LB" run nosave.cfg -o fresh2.h5
[[ -e fresh2.h5 ]] && bad "SIGINT left a file under the final name" || ok "no file after SIGINT"
finish
