#!/usr/bin/env bash
# study = timing (src/studies/timing.cpp, the kind added through the grid driver alone): every run
# of the grid is repeated until timing.min_seconds in total and at least timing.min_repeats times,
# the first min_repeats - 1 repetitions in separate passes over the grid (timing.interleave).
# Checked on every run of every file: the repetition rule (repeats >= min_repeats, total >=
# min_seconds, and no repetition more than the rule needs), min <= median <= max <= total, the
# per-step and per-rhs minima; never a timing value against a threshold. The file is reported in
# md, tex and csv; run in 2 parts and merged, and in rank groups (ranks_per_run = 1 on 2 ranks): the
# same runs with the same counters and final states as one job; stopped by SIGTERM and continued:
# the runs the checkpoint holds keep their numbers bit for bit, the interrupted one is repeated.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/lib_studies.bash"
source "$HERE/lib_checkpoint.bash"

cat > timing.cfg <<'CFG'
study = timing
model = free_rigid_body
methods = rkmk4, lie_euler_heun
steps = 200, 400
t_final = 2
timing.min_seconds = 0.05
CFG

# rule FILE MIN_SECONDS MIN_REPEATS RUNS: the repetition rule on every row of FILE's /summary
rule() {
  /usr/bin/python3 - "$@" <<'PY'
import sys, h5py
path, min_s, min_r, runs = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
s = h5py.File(path, "r")["summary"]
col = lambda c: s[c][()]
problems = []
if len(col("run_index")) != runs: problems.append(f"{len(col('run_index'))} rows, expected {runs}")
for i in range(len(col("run_index"))):
    n, lo, med, hi, tot = (col(c)[i] for c in ("repeats", "wall_min", "wall_median", "wall_max", "wall_total"))
    where = f"run {col('run_id')[i].decode()}"
    if col("status")[i].decode() != "ok": problems.append(f"{where}: status {col('status')[i]}")
    if n < min_r: problems.append(f"{where}: {n} repeats < {min_r}")
    if not tot >= min_s: problems.append(f"{where}: total {tot} < {min_s}")
    if not (0 < lo <= med <= hi <= tot): problems.append(f"{where}: not 0 < min {lo} <= median {med} <= max {hi} <= total {tot}")
    eps = 1e-12 * tot  # the total is a sum of n rounded numbers
    if not (n * lo - eps <= tot <= n * hi + eps): problems.append(f"{where}: total {tot} not within repeats x [min, max]")
    # the rule stops at the first repetition that meets both targets: without the last one
    # (at most the max) the total was short, unless the count alone decided
    if n > min_r and not tot - hi < min_s + eps: problems.append(f"{where}: {n} repeats, {tot - hi} s without one: too many")
    if col("wall_per_step_min")[i] != lo / col("steps")[i]: problems.append(f"{where}: per step != min / steps")
    if col("wall_per_rhs_min")[i] != lo / col("rhs_evaluations")[i]: problems.append(f"{where}: per rhs != min / rhs")
    if not col("timer_overhead")[i] > 0: problems.append(f"{where}: timer overhead {col('timer_overhead')[i]}")
print("; ".join(problems))
sys.exit(1 if problems else 0)
PY
}

# same_runs A B: the same runs with the same method, steps, counters, status and final states
same_runs() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:3])
bad = []
for c in ("run_index", "run_id", "method", "steps", "rhs_evaluations", "exponentials", "status"):
    if not np.array_equal(a["summary"][c][()], b["summary"][c][()]): bad.append(c)
for r in a["runs"]:
    if not np.array_equal(a["runs"][r]["final_state"][()], b["runs"][r]["final_state"][()]): bad.append(r)
print(" ".join(bad)); sys.exit(1 if bad else 0)
PY
}

# ---- one job: the rule, the table in three formats
"$LB" run timing.cfg -o one.h5 -q || bad "timing study failed"
msg=$(rule one.h5 0.05 3 4) && ok "one job: the repetition rule holds on every run" || bad "one job: $msg"
[[ "$("$LB" report one.h5 --list-tables)" == timing ]] && ok "report lists the table timing" || bad "tables: $("$LB" report one.h5 --list-tables)"
"$LB" report one.h5 > one.md && grep -q "| rkmk4 .*| *200 |" one.md && grep -q "timer overhead per call" one.md \
  && ok "md table" || bad "md table: $(cat one.md)"
"$LB" report one.h5 --format tex > one.tex && grep -q 'toprule' one.tex && grep -q 'lie\\_euler\\_heun' one.tex \
  && ok "tex table" || bad "tex table: $(cat one.tex)"
"$LB" report one.h5 --format csv > one.csv && head -1 one.csv | grep -q "method,steps,repeats,min \[s\],median \[s\],max \[s\]" \
  && [[ $(wc -l < one.csv) -eq 5 ]] && ok "csv table (one row per run)" || bad "csv table: $(cat one.csv)"

# ---- work precision (issue 25): the error at T of every timed run, against the exact solution
# here, the same bits as the convergence study's; on a model without one, against a certified
# reference when reference.method is set, and no error column without it
"$LB" run timing.cfg --study=convergence -o conv.h5 -q || bad "convergence of the same grid failed"
same=$(/usr/bin/python3 - <<'PY'
import h5py, numpy as np
a, b = (h5py.File(p, "r")["summary"] for p in ("one.h5", "conv.h5"))
print(np.array_equal(a["error"][()], b["error"][()]) and bool(np.all(a["error"][()] > 0)))
PY
)
[[ "$same" == True ]] && ok "timed runs' errors at T equal the convergence study's, bit for bit" || bad "timing errors differ from convergence's"
grep -q "error at T" one.md && ok "md table has the error at T beside the cost" || bad "no error column: $(cat one.md)"
cat > wp.cfg <<'CFG'
study = timing
model = nfold_pendulum
methods = rkmk4, cf4
steps = 100, 200
t_final = 1
timing.min_seconds = 0
reference.method = rkmk5
reference.steps = 2048
reference.check_method = rk4
reference.check_steps = 4096
[nfold_pendulum]
N = 2
CFG
"$LB" run wp.cfg -o wp.h5 -q || bad "work-precision timing with a certified reference failed"
cert=$(/usr/bin/python3 - <<'PY'
import h5py, numpy as np
s = h5py.File("wp.h5", "r")["summary"]
c, e = s["reference_certified"][()], s["error"][()]
print(bool(np.all(c > 0) and np.all(e > 10 * c)))
PY
)
[[ "$cert" == True ]] && ok "errors against the certified reference (certified error > 0, errors above 10x it)" || bad "certified reference columns: $cert"
grep -v '^reference' wp.cfg > noerr.cfg
"$LB" run noerr.cfg -o noerr.h5 -q; st=$?
noerr=$(/usr/bin/python3 -c "import h5py; print('error' in h5py.File('noerr.h5','r')['summary'])" 2>&1)
[[ $st -eq 0 && "$noerr" == False ]] && ok "no reference, no exact solution: timed without an error column" || bad "without reference: exit $st, error column: $noerr"
expect_status "convergence table of a timing file without errors refused" 2 "no global errors" "$LB" report noerr.h5 --table convergence
"$LB" report one.h5 --table convergence | grep -q "rkmk4" && ok "a timing file with errors has the convergence table too" || bad "convergence table of one.h5"

# ---- interleaved (the default): the first min_repeats - 1 repetitions of every run come from
# earlier passes over the grid; without interleave, none
il=$(/usr/bin/python3 -c "import h5py; print(sorted(set(int(x) for x in h5py.File('one.h5','r')['summary/repeats_interleaved'][()])))")
[[ "$il" == "[2]" ]] && ok "interleaved: 2 of the >= 3 repetitions of every run made in earlier passes" || bad "interleaved repetitions: $il"
"$LB" run timing.cfg --timing.interleave=false -o flat.h5 -q || bad "timing.interleave = false failed"
il=$(/usr/bin/python3 -c "import h5py; print(sorted(set(int(x) for x in h5py.File('flat.h5','r')['summary/repeats_interleaved'][()])))")
msg=$(rule flat.h5 0.05 3 4) && [[ "$il" == "[0]" ]] && ok "not interleaved: no earlier passes, the rule holds" || bad "interleave = false: $il $msg"
msg=$(same_runs one.h5 flat.h5) && ok "interleaved or not: the same runs, counters and final states" || bad "interleave changes results: $msg"

# ---- the count alone decides when min_seconds is 0
"$LB" run timing.cfg --timing.min_seconds=0 --timing.min_repeats=4 -o count.h5 -q || bad "min_seconds = 0 failed"
reps=$(/usr/bin/python3 -c "import h5py; print(sorted(set(int(x) for x in h5py.File('count.h5','r')['summary/repeats'][()])))")
[[ "$reps" == "[4]" ]] && ok "min_seconds = 0: exactly min_repeats = 4 repetitions" || bad "min_seconds = 0: repeats $reps"

# ---- parts and merge, rank groups
"$LB" run timing.cfg --part 1/2 -o p1.h5 -q && "$LB" run timing.cfg --part 2/2 -o p2.h5 -q \
  && "$LB" merge p1.h5 p2.h5 -o merged.h5 2>/dev/null || bad "2 parts + merge failed"
msg=$(rule merged.h5 0.05 3 4) && ok "2 parts merged: the rule holds on every run" || bad "merged: $msg"
msg=$(same_runs one.h5 merged.h5) && ok "2 parts merged: the runs of one job" || bad "merged differs from one job: $msg"
"$LB" report merged.h5 --format csv > merged.csv && [[ $(wc -l < merged.csv) -eq 5 ]] && ok "merged file reports" || bad "merged report"
"${MPIRUN[@]}" -n 2 "$LB" run timing.cfg --ranks_per_run=1 -o groups.h5 -q || bad "ranks_per_run = 1 on 2 ranks failed"
msg=$(rule groups.h5 0.05 3 4) && ok "rank groups: the rule holds on every run" || bad "rank groups: $msg"
msg=$(same_runs one.h5 groups.h5) && ok "rank groups: the runs of one job" || bad "rank groups differ: $msg"
ls ./*.part >/dev/null 2>&1 && bad "part files left: $(ls ./*.part)" || ok "no part files left"

# ---- stopped and continued: finished runs kept bit for bit, the interrupted one repeated
cat > long.cfg <<'CFG'
study = timing
model = free_rigid_body
methods = rkmk4, lie_euler_heun
steps = 200, 400
t_final = 2
timing.min_seconds = 0.4
CFG
"$LB" run long.cfg -o stop.h5 "${PROGRESS[@]}" > run.log 2>&1 &
pid=$!
wait_for_percent run.log $pid "$(awk -v r="$RANDOM" 'BEGIN { print 30 + 40 * r / 32767 }')" && kill -TERM $pid
wait $pid; st=$?
if [[ $st -eq 5 && -e stop.h5.ckpt.h5 && ! -e stop.h5 ]]; then
  ok "SIGTERM: checkpoint written, exit 5"
  /usr/bin/python3 - > kept.txt <<'PY'
import h5py
f = h5py.File("stop.h5.ckpt.h5", "r")
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
for e in f["finished"].values() if "finished" in f else []:
    print(text(e.attrs["label"]), text(e.attrs["metrics"]).replace("\n", " "))
print("current" in f)
PY
  [[ "$(tail -1 kept.txt)" == False ]] && ok "checkpoint holds no run in progress (runs are checkpointed at their ends)" \
    || bad "checkpoint holds a run in progress"
  expect_status "restart" 0 "" "$LB" run long.cfg -o stop.h5 -q "${PROGRESS[@]}"
  [[ -e stop.h5.ckpt.h5 ]] && bad "checkpoint left after the finished run"
  msg=$(rule stop.h5 0.4 3 4) && ok "stopped and continued: the rule holds on every run" || bad "restart: $msg"
  kept=$(/usr/bin/python3 - <<'PY'
import h5py
s = h5py.File("stop.h5", "r")["summary"]
rows = {s["run_id"][i].decode(): i for i in range(len(s["run_id"]))}
bad = n = 0
for line in open("kept.txt").read().splitlines()[:-1]:
    label, *cells = line.split()
    for c in cells:
        k, v = c.split("=")
        n += 1
        bad += float(v) != s[k][rows[label]]
print(f"{n} {bad}")
PY
)
  [[ "${kept% *}" -gt 0 && "${kept#* }" -eq 0 ]] && ok "the checkpoint's finished runs kept their numbers (${kept% *} values)" \
    || bad "finished runs not kept: $kept ($(cat kept.txt))"
else
  bad "SIGTERM: exit $st, expected 5 with a checkpoint: $(tail -3 run.log)"
fi
finish
