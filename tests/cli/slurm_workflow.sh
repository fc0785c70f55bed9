#!/usr/bin/env bash
# The SLURM workflows of slurm/ on a real single-node SLURM (scripts/slurm_local.sh, state in a
# fresh /tmp/liebench-slurm-test.* directory, daemons stopped on every exit):
#  - a convergence study of free_rigid_body as an array of 3 parts x 2 ranks (srun --mpi=pmix)
#    plus the dependent merge job (slurm/submit.sh): the merged file's `liebench report` and
#    /summary equal those of one `mpirun -n 2 liebench run` of the same experiment; a deleted
#    part recomputed by resubmitting one index of the kept job script, then merged again;
#  - a scaling study, one array task per layout 1x1 2x1 1x2, merged (submit.sh --scaling);
#  - the templates submitted by hand (sbatch slurm/study_array.sbatch, then slurm/merge.sbatch);
#  - a part that fails: the merge job is cancelled, nothing is written under the output name.
# Jobs are waited for by polling squeue (sbatch --wait polls slowly), with a timeout.
# Exit status 77 (CTest: skipped) when SLURM cannot be brought up here (not root, packages
# not installable, daemons not starting), with the reason; LIEBENCH_REQUIRE_SLURM=1 makes
# that a failure instead.
# Arguments: LIEBENCH SOURCE_DIR SCRATCH_DIR.
# shellcheck disable=SC2001,SC2015,SC2054,SC2317  # indenting with sed, `cond && ok || bad` (ok never fails), commas in --methods, trap handler
# shellcheck source=tests/cli/lib_studies.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
# shellcheck source=tests/cli/lib_slurm.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib_slurm.bash"
set -o pipefail
SUBMIT=("$SRC/slurm/submit.sh" --liebench "$LB")  # the binary of this build, never a guess
WAIT_TIMEOUT="${LIEBENCH_SLURM_TEST_TIMEOUT:-120}"

slurm_up slurm_workflow test

# wait_jobs ID...: polls squeue until no job of the list is pending or running
wait_jobs() {
  local ids q deadline=$((SECONDS + WAIT_TIMEOUT))
  ids=$(IFS=,; echo "$*")
  while :; do
    if ! q=$(squeue -h -j "$ids" -o "%i %T %r" 2>&1); then bad "squeue -j $ids: $q"; return 1; fi
    [[ -z "$q" ]] && return 0
    if ((SECONDS >= deadline)); then
      bad "jobs still queued after $WAIT_TIMEOUT s: $q"
      scancel "$@" 2>/dev/null
      return 1
    fi
    sleep 0.3
  done
}
job_state() { scontrol show job "$1" 2>&1 | grep -o 'JobState=[A-Z_]*' | sort -u | tr '\n' ' ' | sed 's/ $//'; }
attr() { h5dump -a "$2" "$1" 2>/dev/null | grep '(0):' | sed 's/.*(0): *//; s/"//g'; }

EXP="$EX/frb_convergence.cfg"
ARGS=(--methods=rkmk4,lie_euler_heun --steps=2^3..2^6 --reference.steps=1024)
SCALING_ARGS=(--steps=2000)

# ---- submit everything at once (the scheduler runs them on the node's cores as they free up)
ids=$("${SUBMIT[@]}" "$EXP" conv.h5 --parts 3 --ntasks 2 --cpus-per-task 1 --time 5 -- "${ARGS[@]}") \
  || bad "submit.sh convergence: exit status $?"
read -r conv_array conv_merge <<< "$ids"
ids=$("${SUBMIT[@]}" "$EX/frb_scaling.cfg" scaling.h5 --scaling --layouts "1x1 2x1 1x2" -- "${SCALING_ARGS[@]}") \
  || bad "submit.sh --scaling: exit status $?"
read -r sc_array sc_merge <<< "$ids"
ids=$("${SUBMIT[@]}" "$EXP" broken.h5 --parts 2 --no-check -- --methods=rkmk4,no_such_method) \
  || bad "submit.sh (failing parts): exit status $?"
read -r bad_array bad_merge <<< "$ids"
# the templates submitted by hand from the repository root, as slurm/README.md shows
scratch="$PWD"
hand_array=$(cd "$SRC" && EXP="$EXP" OUT="$scratch/hand.h5" LIEBENCH="$LB" RUN_ARGS="${ARGS[*]}" \
  sbatch --parsable --array=0-1 --ntasks=1 --output="$scratch/hand_array_%A_%a.log" slurm/study_array.sbatch) \
  || bad "sbatch slurm/study_array.sbatch: exit status $?"
hand_merge=$(cd "$SRC" && OUT="$scratch/hand.h5" LIEBENCH="$LB" sbatch --parsable --dependency="afterok:${hand_array%%;*}" \
  --kill-on-invalid-dep=yes --output="$scratch/hand_merge_%j.log" slurm/merge.sbatch) \
  || bad "sbatch slurm/merge.sbatch: exit status $?"
hand_array="${hand_array%%;*}" hand_merge="${hand_merge%%;*}"
all=("$conv_array" "$conv_merge" "$sc_array" "$sc_merge" "$bad_array" "$bad_merge" "$hand_array" "$hand_merge")
for id in "${all[@]}"; do
  [[ "$id" =~ ^[0-9]+$ ]] || { bad "job ids: '${all[*]}'"; finish; }
done
ok "submitted: convergence $conv_array+$conv_merge, scaling $sc_array+$sc_merge, failing $bad_array+$bad_merge," \
  "by hand $hand_array+$hand_merge"

# meanwhile, the same experiment as one mpirun job
"${MPIRUN[@]}" -n 2 "$LB" run "$EXP" "${ARGS[@]}" --output single.h5 --quiet || bad "mpirun -n 2 liebench run: exit status $?"
"$LB" report single.h5 >single.md || bad "report of the single run"

t_wait=$SECONDS
wait_jobs "${all[@]}" || finish
ok "all jobs left the queue after $((SECONDS - t_wait)) s of waiting"

# ---- convergence: array of 3 parts x 2 ranks, merged
[[ "$(job_state "$conv_array")" == "JobState=COMPLETED" ]] && ok "array tasks completed" \
  || bad "array $conv_array: $(job_state "$conv_array")"
[[ "$(job_state "$conv_merge")" == "JobState=COMPLETED" ]] && ok "merge job completed" \
  || bad "merge $conv_merge: $(job_state "$conv_merge")"
for i in 1 2 3; do
  p="conv.parts/part_${i}of3.h5"
  if [[ ! -f "$p" ]]; then bad "missing $p"; continue; fi
  # two ranks really formed one MPI job under srun --mpi=pmix (singletons would say 1x1)
  l=$(attr "$p" /provenance/job_0/layout); pt=$(attr "$p" /provenance/job_0/part)
  [[ "$l" == 2x1 && "$pt" == "$i/3" ]] && ok "$p: part $pt, layout $l" || bad "$p: part '$pt', layout '$l'"
done
if [[ -f conv.h5 ]]; then
  "$LB" report conv.h5 >conv.md || bad "report of the merged file"
  cmp -s conv.md single.md && ok "merged report == report of one mpirun -n 2 run" \
    || bad "reports differ: $(diff conv.md single.md | head -n 20)"
  cmp -s conv.slurm/report.md single.md && ok "merge job wrote the same report (conv.slurm/report.md)" \
    || bad "conv.slurm/report.md differs from the single run's report"
  h5diff -q conv.h5 single.h5 /summary /summary && ok "/summary bitwise equal to the single run's" \
    || bad "/summary differs (h5diff)"
  [[ "$(attr conv.h5 /study/run_count)" == 8 ]] && ok "8 runs" || bad "run_count $(attr conv.h5 /study/run_count)"
else
  bad "no merged file conv.h5"
fi
# provenance: the scripts as submitted, the logs of every task, the job ids
for f in study_array.sbatch merge.sbatch submit.txt "logs/array_${conv_array}_0.log" \
    "logs/array_${conv_array}_2.log" "logs/merge_${conv_merge}.log"; do
  [[ -s "conv.slurm/$f" ]] || bad "missing conv.slurm/$f"
done
grep -q -- "-> job $conv_merge" conv.slurm/submit.txt && grep -q "^#SBATCH --array=0-2" conv.slurm/study_array.sbatch \
  && grep -q "^#SBATCH --ntasks=2" conv.slurm/study_array.sbatch && ok "job scripts and submit.txt kept next to the output" \
  || bad "conv.slurm/ lacks the rendered scripts or job ids"
grep -q "srun" conv.slurm/study_array.sbatch || bad "rendered script has no srun"

# ---- a lost part: resubmit its array index of the rendered script (PARTS is in it), then the merge
if [[ -f conv.parts/part_2of3.h5 && -f conv.h5 ]]; then
  rm -f conv.parts/part_2of3.h5 conv.h5 conv.slurm/report.md
  re_array=$(sbatch --parsable --array=1 conv.slurm/study_array.sbatch) || bad "resubmitting part 2: exit status $?"
  re_array="${re_array%%;*}"
  re_merge=$(sbatch --parsable --dependency="afterok:$re_array" --kill-on-invalid-dep=yes conv.slurm/merge.sbatch) \
    || bad "resubmitting the merge: exit status $?"
  re_merge="${re_merge%%;*}"
  if wait_jobs "$re_array" "$re_merge"; then
    [[ -f conv.parts/part_2of3.h5 && "$(attr conv.parts/part_2of3.h5 /provenance/job_0/part)" == 2/3 ]] \
      && "$LB" report conv.h5 | cmp -s - single.md && cmp -s conv.slurm/report.md single.md \
      && ok "part 2/3 recomputed by sbatch --array=1 conv.slurm/study_array.sbatch; same report after the merge" \
      || bad "recovery of part 2: $(job_state "$re_array") / $(job_state "$re_merge")"
  fi
fi

# ---- scaling: one array task per layout, merged
[[ "$(job_state "$sc_array")" == "JobState=COMPLETED" && "$(job_state "$sc_merge")" == "JobState=COMPLETED" ]] \
  && ok "scaling array and merge completed" || bad "scaling: $(job_state "$sc_array") / $(job_state "$sc_merge")"
for l in 1x1 2x1 1x2; do
  p="scaling.parts/layout_$l.h5"
  [[ -f "$p" && "$(attr "$p" /provenance/job_0/layout)" == "$l" ]] && ok "$p ran as $l" \
    || bad "$p: layout '$(attr "$p" /provenance/job_0/layout)'"
done
if [[ -f scaling.h5 ]]; then
  table=$("$LB" report scaling.h5 --table scaling) || bad "scaling report"
  for l in 1x1 2x1 1x2; do
    grep -q "| rkmk4 *| $l " <<< "$table" || bad "scaling table lacks layout $l: $table"
  done
  cmp -s <(echo "$table") scaling.slurm/report.md && ok "scaling table (also in scaling.slurm/report.md)" \
    || bad "scaling.slurm/report.md differs from liebench report --table scaling"
else
  bad "no merged file scaling.h5"
fi

# ---- the templates submitted by hand
if [[ -f hand.h5 ]] && "$LB" report hand.h5 >hand.md && cmp -s hand.md single.md && cmp -s hand.report.md single.md; then
  ok "by hand: sbatch slurm/study_array.sbatch + slurm/merge.sbatch give the same report"
else
  bad "by hand: $(job_state "$hand_array") / $(job_state "$hand_merge"); $(cat hand_array_*.log hand_merge_*.log 2>&1 | tail -n 5)"
fi

# ---- failing parts: the merge job never runs, no output file
s=$(job_state "$bad_merge")
[[ "$s" == "JobState=CANCELLED" ]] && ok "merge cancelled after failed parts ($(job_state "$bad_array"))" \
  || bad "merge job after failed parts: $s"
[[ ! -e broken.h5 ]] && ok "no broken.h5" || bad "broken.h5 written although the parts failed"
grep -q "no_such_method" broken.slurm/logs/array_"${bad_array}"_0.log && ok "the task log names the bad method" \
  || bad "task log lacks the error"

finish
