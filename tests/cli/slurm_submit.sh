#!/usr/bin/env bash
# slurm/submit.sh without SLURM: rendered job scripts (--dry-run), argument and experiment
# errors (exit status 2, one line), and --local (the same job scripts with mpirun), whose merged
# report equals that of one `mpirun -n 2 liebench run`; the templates run by hand outside SLURM.
# (tests/cli/slurm_workflow.sh runs the same workflows on a real SLURM.)
# Arguments: LIEBENCH SOURCE_DIR SCRATCH_DIR.
# shellcheck disable=SC2015,SC2054  # `cond && ok || bad` (ok never fails), commas in --methods
# shellcheck source=tests/cli/lib_studies.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
set -o pipefail
SUBMIT=("$SRC/slurm/submit.sh" --liebench "$LB")
CONV="$EX/frb_convergence.cfg"
SCALE="$EX/frb_scaling.cfg"
ARGS=(--methods=rkmk4,lie_euler --steps=2^3..2^5 --reference.steps=512)
export MPIRUN_FLAGS="--oversubscribe"

# ---- --dry-run: the rendered scripts carry every sbatch option and variable; nothing is written
out=$("${SUBMIT[@]}" "$CONV" dry.h5 --parts 4 --ntasks 2 --cpus-per-task 2 --time 00:10:00 --partition short \
  --account proj1 --sbatch-arg=--qos=debug --dry-run -- "${ARGS[@]}" 2>/dev/null)
st=$?
array=$(awk 'NR == 1 { print $NF }' <<< "$out")
merge=$(awk 'NR == 2 { print $NF }' <<< "$out")
if [[ $st -eq 0 && -f "$array" && -f "$merge" ]]; then
  ok "dry run: exit 0, scripts rendered in $(dirname "$array")"
  missing=""
  for line in "--array=0-3" "--ntasks=2" "--cpus-per-task=2" "--time=00:10:00" "--partition=short" \
      "--account=proj1" "--qos=debug" "--job-name=lb-dry"; do
    grep -qx -- "#SBATCH $line" "$array" || missing+=" $line"
  done
  grep -q "^PARTS=4$" "$array" || missing+=" PARTS=4"
  grep -qF "RUN_ARGS=( --methods=rkmk4\\,lie_euler --steps=2\\^3..2\\^5 --reference.steps=512 )" "$array" \
    || missing+=" RUN_ARGS"
  grep -q "^liebench_launch()" "$array" || missing+=" liebench_launch"
  grep -qx -- "#SBATCH --partition=short" "$merge" || missing+=" merge:--partition"
  for line in "--signal=B:USR1@120" "--requeue" "--open-mode=append"; do
    grep -qx -- "#SBATCH $line" "$array" || missing+=" $line"
  done
  grep -q "^liebench_checkpointed()" "$array" || missing+=" liebench_checkpointed"
  [[ -z "$missing" ]] && ok "dry run: #SBATCH lines and variables present" || bad "dry run: missing$missing"
  bash -n "$array" && bash -n "$merge" && ok "rendered scripts parse (bash -n)" || bad "rendered scripts do not parse"
  [[ "$out" == *"--dependency=afterok:"* ]] && ok "dry run prints the dependent merge" || bad "dry run: $out"
  rm -rf "$(dirname "$array")"
else
  bad "dry run: exit status $st, output: $out"
fi
[[ ! -e dry.slurm && ! -e dry.parts ]] && ok "dry run wrote nothing next to the output" || bad "dry run wrote dry.slurm or dry.parts"

out=$("${SUBMIT[@]}" "$SCALE" sdry.h5 --scaling --dry-run 2>/dev/null)
array=$(awk 'NR == 1 { print $NF }' <<< "$out")
if [[ -f "$array" ]]; then
  grep -qx "#SBATCH --array=0-2" "$array" && grep -qx "#SBATCH --ntasks=2" "$array" \
    && grep -qx "#SBATCH --exclusive" "$array" && grep -qx "LAYOUTS=1x1\\\\ 2x1\\\\ 1x2" "$array" \
    && ok "scaling dry run: layouts of the experiment file, one task each, allocation of the largest" \
    || bad "scaling dry run: $(grep -E '^(#SBATCH|LAYOUTS)' "$array")"
  rm -rf "$(dirname "$array")"
else
  bad "scaling dry run: $out"
fi

out=$("${SUBMIT[@]}" "$CONV" dry0.h5 --signal-lead 0 --dry-run 2>/dev/null)
array=$(awk 'NR == 1 { print $NF }' <<< "$out")
if [[ -f "$array" ]]; then
  grep -qE '^#SBATCH --(signal|requeue)' "$array" && bad "--signal-lead 0 still renders --signal/--requeue" ||
    ok "--signal-lead 0: no --signal, no --requeue"
  rm -rf "$(dirname "$array")"
else
  bad "--signal-lead 0 dry run: $out"
fi

# ---- bad arguments: exit status 2 and a message naming the problem
expect_status "--signal-lead x" 2 "option --signal-lead has value 'x'" "${SUBMIT[@]}" "$CONV" x.h5 --signal-lead x --dry-run
# no binary given: never a guess inside the sources (issue 17: <source>/build/liebench)
expect_status "no --liebench, no LIEBENCH" 2 "no liebench binary given" \
  env -u LIEBENCH "$SRC/slurm/submit.sh" "$CONV" x.h5 --dry-run
expect_status "LIEBENCH from the environment" 0 "" env LIEBENCH="$LB" "$SRC/slurm/submit.sh" "$CONV" x.h5 --dry-run
expect_status "usage" 2 "usage" "${SUBMIT[@]}" "$CONV"
expect_status "--parts 0" 2 "option --parts has value '0'" "${SUBMIT[@]}" "$CONV" x.h5 --parts 0 --dry-run
expect_status "--ntasks x" 2 "option --ntasks has value 'x'" "${SUBMIT[@]}" "$CONV" x.h5 --ntasks x --dry-run
expect_status "output not .h5" 2 "must end in .h5" "${SUBMIT[@]}" "$CONV" x.txt --dry-run
expect_status "output dir missing" 2 "does not exist" "${SUBMIT[@]}" "$CONV" nodir/x.h5 --dry-run
expect_status "experiment missing" 2 "does not exist" "${SUBMIT[@]}" nothere.cfg x.h5 --dry-run
expect_status "unknown option" 2 "unknown option '--nodes'" "${SUBMIT[@]}" "$CONV" x.h5 --nodes 2 --dry-run
expect_status "--output after --" 2 "is set by submit.sh" "${SUBMIT[@]}" "$CONV" x.h5 --dry-run -- --output=y.h5
expect_status "--part after --" 2 "is set by submit.sh" "${SUBMIT[@]}" "$CONV" x.h5 --dry-run -- --part 1/2
expect_status "--scaling, convergence study" 2 "needs a scaling study" "${SUBMIT[@]}" "$CONV" x.h5 --scaling --dry-run
expect_status "scaling study without --scaling" 2 "submit it with --scaling" "${SUBMIT[@]}" "$SCALE" x.h5 --dry-run
expect_status "--scaling with --ntasks" 2 "do not apply to --scaling" "${SUBMIT[@]}" "$SCALE" x.h5 --scaling --ntasks 2 --dry-run
expect_status "bad layout" 2 "layout '2y1'" "${SUBMIT[@]}" "$SCALE" x.h5 --scaling --layouts "1x1 2y1" --dry-run
expect_status "bad experiment key (liebench run --check)" 2 "no_such_method" \
  "${SUBMIT[@]}" "$CONV" x.h5 --dry-run -- --methods=no_such_method
expect_status "ranks_per_run with --parts" 2 "cannot be combined with --parts 2" \
  "${SUBMIT[@]}" "$CONV" x.h5 --parts 2 --ntasks 2 --dry-run -- --ranks_per_run=1
expect_status "missing binary" 2 "not executable" "$SRC/slurm/submit.sh" "$CONV" x.h5 --liebench ./nope --dry-run
[[ ! -e x.slurm && ! -e x.parts && ! -e x.h5 ]] && ok "errors wrote nothing" || bad "errors left files"

# ---- --local: the same job scripts with mpirun, then the merge
"${MPIRUN[@]}" -n 2 "$LB" run "$CONV" "${ARGS[@]}" --output single.h5 --quiet || bad "single run"
"$LB" report single.h5 >single.md
"${SUBMIT[@]}" "$CONV" loc.h5 --parts 3 --ntasks 2 --local -- "${ARGS[@]}" >loc.stdout 2>loc.stderr \
  && ok "--local, 3 parts x 2 ranks" || bad "--local: $(cat loc.stderr)"
"$LB" report loc.h5 >loc.md 2>&1; cmp -s loc.md single.md && cmp -s loc.md loc.stdout \
  && ok "--local: merged report == one mpirun -n 2 run (and printed)" || bad "--local report differs: $(diff loc.md single.md | head)"
[[ "$(ls loc.parts)" == $'part_1of3.h5\npart_1of3.h5.log\npart_2of3.h5\npart_2of3.h5.log\npart_3of3.h5\npart_3of3.h5.log' && -s loc.slurm/study_array.sbatch \
  && -s loc.slurm/merge.sbatch && -s loc.slurm/submit.txt && -s loc.slurm/logs/local_array_2.log ]] \
  && ok "--local keeps parts, scripts and logs" || bad "--local files: $(ls loc.parts loc.slurm)"
expect_status "--local again without --force" 2 "exists; add --force" "${SUBMIT[@]}" "$CONV" loc.h5 --local -- "${ARGS[@]}"
"${SUBMIT[@]}" "$CONV" loc.h5 --parts 2 --local --force -- "${ARGS[@]}" >/dev/null 2>&1 \
  && [[ "$(ls loc.parts)" == $'part_1of2.h5\npart_1of2.h5.log\npart_2of2.h5\npart_2of2.h5.log' ]] && "$LB" report loc.h5 | cmp -s - single.md \
  && ok "--force replaces the parts of the earlier submission" || bad "--force: $(ls loc.parts)"
"${SUBMIT[@]}" "$CONV" fail.h5 --parts 2 --local --no-check -- --methods=no_such_method >/dev/null 2>fail.stderr
st=$?
[[ $st -ne 0 && ! -e fail.h5 ]] && grep -q "not merging" fail.stderr && ok "--local: a failing part stops before the merge" \
  || bad "--local failing part: status $st, $(tail -n 3 fail.stderr)"

"${SUBMIT[@]}" "$SCALE" sc.h5 --scaling --layouts "1x1 2x1" --local -- --steps=500 >sc.stdout 2>sc.stderr \
  && grep -q "| rkmk4 *| 2x1 " sc.stdout && grep -q "| rkmk4 *| 1x1 " sc.stdout \
  && ok "--local --scaling: layouts 1x1 2x1 merged into one table" || bad "--local --scaling: $(cat sc.stderr sc.stdout)"

# ---- the templates by hand outside SLURM (mpirun), as a workstation user would run them
for i in 0 1; do
  EXP="$CONV" OUT="$PWD/hand.h5" LIEBENCH="$LB" PARTS=2 LIEBENCH_TASK_ID=$i LIEBENCH_NTASKS=2 \
    RUN_ARGS="${ARGS[*]}" LIEBENCH_SLURM_DIR="$SRC/slurm" bash "$SRC/slurm/study_array.sbatch" >/dev/null 2>&1 \
    || bad "study_array.sbatch task $i by hand"
done
OUT="$PWD/hand.h5" LIEBENCH="$LB" LIEBENCH_SLURM_DIR="$SRC/slurm" bash "$SRC/slurm/merge.sbatch" >/dev/null 2>&1 && cmp -s hand.report.md single.md \
  && ok "study_array.sbatch + merge.sbatch by hand (mpirun)" || bad "templates by hand"
expect_status "study_array.sbatch: task outside the parts" 2 "does not name one of 2 parts" \
  env EXP="$CONV" OUT="$PWD/hand.h5" LIEBENCH="$LB" PARTS=2 LIEBENCH_TASK_ID=2 LIEBENCH_SLURM_DIR="$SRC/slurm" \
  bash "$SRC/slurm/study_array.sbatch"
expect_status "scaling_array.sbatch: bad layout" 2 "is not RANKSxTHREADS" \
  env EXP="$SCALE" OUT="$PWD/hs.h5" LIEBENCH="$LB" LAYOUTS="1x1 2" LIEBENCH_TASK_ID=1 LIEBENCH_SLURM_DIR="$SRC/slurm" \
  bash "$SRC/slurm/scaling_array.sbatch"

# ---- checkpoint forwarding outside SLURM: SIGUSR1 to the job script reaches the run through
# mpirun (liebench_checkpointed), which checkpoints (exit 5); the same script again finishes it
# with the bits of a direct run; merge.sbatch refuses to merge while a part has a checkpoint.
cat > long.cfg <<'CFG'
study = simulate
model = nfold_pendulum
methods = rkmk4
steps = 200000
t_final = 20
sample_every = 1000
log_every = 5000
[nfold_pendulum]
N = 16
initial = paper
CFG
"$LB" run long.cfg -o long_direct.h5 -q || bad "direct long run"
task=(env EXP="$PWD/long.cfg" OUT="$PWD/long.h5" LIEBENCH="$LB" PARTS=1 LIEBENCH_TASK_ID=0 LIEBENCH_NTASKS=1
  LIEBENCH_SLURM_DIR="$SRC/slurm" bash "$SRC/slurm/study_array.sbatch")
"${task[@]}" > task.log 2>&1 &  # (env execs bash: $! is the job script's shell)
pid=$!
for _ in $(seq 1 300); do grep -qE '^ +[1-9][0-9]* +[0-9]' task.log && break; sleep 0.05; done
kill -USR1 $pid
wait $pid; st=$?
if [[ $st -eq 5 && -f long.parts/part_1of1.h5.ckpt.h5 && ! -f long.parts/part_1of1.h5 ]] &&
    grep -q "forwarding SIGUSR1" task.log && grep -q "run the same script again" task.log; then
  ok "SIGUSR1 to study_array.sbatch: forwarded through mpirun, checkpoint, exit 5"
  expect_status "merge.sbatch refuses a part that is not finished" 1 "not finished" \
    env OUT="$PWD/long.h5" LIEBENCH="$LB" LIEBENCH_SLURM_DIR="$SRC/slurm" bash "$SRC/slurm/merge.sbatch"
  [[ ! -e long.h5 ]] || bad "merge.sbatch wrote long.h5 from an unfinished part"
  "${task[@]}" > task2.log 2>&1 && OUT="$PWD/long.h5" LIEBENCH="$LB" LIEBENCH_SLURM_DIR="$SRC/slurm" \
    bash "$SRC/slurm/merge.sbatch" > /dev/null 2>&1 || bad "continuing the task / merging: $(tail -n 3 task2.log)"
  h5diff -q long.h5 long_direct.h5 /summary /summary && h5diff -q long.h5 long_direct.h5 /runs/run_00000/final_state \
    /runs/run_00000/final_state && ok "continued task + merge: /summary and final state equal to the direct run's" ||
    bad "continued result differs from the direct run"
else
  bad "SIGUSR1 to study_array.sbatch: exit $st; $(grep -v '^ ' task.log | tail -n 5)"
fi

finish
