#!/usr/bin/env bash
# Checkpoint + requeue on a real SLURM (issue 14, "Done when"): a single-run study submitted with
# slurm/submit.sh on 2 ranks (srun --mpi=pmix) with a time limit of 1 minute and
# --signal=B:USR1@50, i.e. SIGUSR1 to the batch shell about 10 s into every attempt (SLURM checks
# time limits every ~30 s, so it may come later); the run takes longer than the first attempt gets:
# the test also sends the same signal itself (`scancel --signal=USR1 --batch`) once the run log
# shows that the run is under way, so that the first attempt is stopped within seconds whatever
# the load. The batch script forwards it to the run (liebench_checkpointed, slurm/launch.bash),
# liebench checkpoints and exits 5, the task requeues itself (scontrol requeue; the local
# cluster's cred_expire = 10 s makes the requeued job eligible after ~11 s instead of 121 s), the
# next attempt continues from the checkpoint, and the merge job (afterok) runs once the task has
# finished for real. Checks: at least one requeue, the task and the merge COMPLETED, no checkpoint
# left, the merged result bitwise equal (every dataset and attribute except /provenance and the
# wall-clock timings) to a direct `mpirun -n 2 liebench run`, and the run log of the part with
# the checkpointed attempt(s) and the finished one.
# Exit status 77 (skipped) when SLURM cannot be brought up here; LIEBENCH_REQUIRE_SLURM=1 makes
# that a failure. CTest label `slurm` (ctest -LE slurm leaves it out). About 1 minute.
# Arguments: LIEBENCH SOURCE_DIR SCRATCH_DIR.
# shellcheck disable=SC2015,SC2317  # `cond && ok || bad` (ok never fails), trap handler
# shellcheck source=tests/cli/lib_studies.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
# shellcheck source=tests/cli/lib_slurm.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib_slurm.bash"
WAIT_TIMEOUT="${LIEBENCH_SLURM_TEST_TIMEOUT:-180}"

slurm_up slurm_requeue rq

job_field() { scontrol show job "$1" 2>/dev/null | grep -o "$2=[^ ]*" | head -n 1 | cut -d= -f2; }

# A chain on 2 ranks (2 virtual blocks): ~4 s of work on an idle machine (since issue 27's fused
# stages a step of N = 16 takes ~11 us here: 20000 steps ran in 0.22 s and finished before the
# signal could stop them), longer at load.
cat > rq.cfg <<'CFG'
study = simulate
model = nfold_pendulum
methods = rkmk4
steps = 400000
t_final = 40
sample_every = 10000
log_every = 20000
[nfold_pendulum]
N = 16
blocks = 2
initial = paper
CFG

ids=$("$SRC/slurm/submit.sh" rq.cfg rq.h5 --liebench "$LB" --parts 1 --ntasks 2 --time 1 --signal-lead 50) ||
  { bad "submit.sh: exit status $?"; finish; }
read -r array merge <<< "$ids"
[[ "$array" =~ ^[0-9]+$ && "$merge" =~ ^[0-9]+$ ]] || { bad "job ids '$ids'"; finish; }
script=rq.slurm/study_array.sbatch
grep -qx '#SBATCH --signal=B:USR1@50' "$script" && grep -qx '#SBATCH --requeue' "$script" &&
  grep -q 'liebench_checkpointed' "$script" && ok "rendered array script: --signal=B:USR1@50, --requeue, liebench_checkpointed" ||
  bad "rendered array script lacks the signal/requeue settings"
log="rq.slurm/logs/array_${array}_0.log"

# the first attempt: signal the batch shell once the run has logged its first periodic lines
# (unless SLURM's own signal came first)
deadline=$((SECONDS + WAIT_TIMEOUT))
signalled=0
while ((SECONDS < deadline)); do
  if grep -q 'requeueing job' "$log" 2>/dev/null; then break; fi
  if grep -qE '^ +[1-9][0-9]* +[0-9]' "$log" 2>/dev/null; then
    scancel --signal=USR1 --batch "${array}_0" && signalled=1
    break
  fi
  sleep 0.2
done
((signalled)) && ok "scancel --signal=USR1 --batch after the first periodic lines" ||
  echo "     (SLURM's own --signal came first)"

# meanwhile the same experiment as one direct mpirun job
"${MPIRUN[@]}" -n 2 "$LB" run rq.cfg -o direct.h5 -q || bad "direct mpirun -n 2 run: exit status $?"

while ((SECONDS < deadline)); do
  q=$(squeue -h -j "$array,$merge" -o "%i %T %r" 2>&1) || { bad "squeue: $q"; break; }
  [[ -z "$q" ]] && break
  sleep 0.5
done
[[ -z "${q:-}" ]] || { bad "jobs still queued after $WAIT_TIMEOUT s: $q"; scancel "$array" "$merge"; }

restarts=$(job_field "${array}_0" Restarts)
state=$(job_field "${array}_0" JobState)
[[ "$restarts" =~ ^[1-9][0-9]*$ && "$state" == COMPLETED ]] && ok "array task COMPLETED after $restarts requeue(s)" ||
  bad "array task: JobState=$state Restarts=$restarts; log: $(tail -n 15 "$log" 2>&1)"
grep -q 'checkpoint written to' "$log" && grep -q 'requeueing job' "$log" && grep -q 'restart 1 ->' "$log" &&
  ok "task log: checkpoint written, requeued, restarted (log appended)" || bad "task log: $(grep -E 'liebench|study_array' "$log")"
[[ "$(job_field "$merge" JobState)" == COMPLETED ]] && ok "merge job COMPLETED after the task finished" ||
  bad "merge job: $(job_field "$merge" JobState)"
compgen -G "rq.parts/*.ckpt.h5" >/dev/null && bad "checkpoint left in rq.parts"

same_result() {
  /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/h5same.py" "$1" "$2"
}
if [[ -f rq.h5 && -f direct.h5 ]]; then
  same_result rq.h5 direct.h5 && ok "requeued + merged result bitwise equal to the direct mpirun -n 2 run" ||
    bad "requeued result differs from the direct run"
else
  bad "missing rq.h5 or direct.h5"
fi
plog=rq.parts/part_1of1.h5.log
[[ $(grep -c '^end: checkpointed, not finished' "$plog" 2>/dev/null) -ge 1 && $(grep -c '^end: finished' "$plog") -eq 1 ]] &&
  grep -qE '^ +20000 ' "$plog" && ok "run log of the part: checkpointed attempt(s), then finished" ||
  bad "run log of the part: $(grep -E '^end:' "$plog" 2>&1)"

finish
