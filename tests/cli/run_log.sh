#!/usr/bin/env bash
# The run log <output>.log (issue 14, "A run log"; src/studies/run_log.hpp):
#  - periodic lines (log_every) do not change the result: every dataset and attribute equal to a
#    run with log_every = 0 except /provenance, the wall-clock timings and the key log_every
#    itself (fixed and adaptive, chain and dipoles, 1 and 2 ranks x 1 and 2 threads, convergence);
#  - rank 0's stdout is the log file; --quiet leaves stdout empty and still writes the log;
#  - the numbers of the log are those of the file: the energy and manifold errors at sampled steps
#    (from /runs/*/observables), steps / RHS evaluations / accepted / rejected (/summary), the
#    per-phase timings (timings/<phase> summed over runs, min/avg/max over ranks) and the peak
#    memory (/provenance/job_0/max_rss);
#  - a checkpointed run (SIGTERM, exit 5), a run with failed runs (exit 3) and an I/O-free bad
#    input (exit 2) end as documented: the log says how the job ended, the restart keeps the
#    earlier log on top, bad input leaves the earlier log untouched; no temporary log is left.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"

cat > chain_fixed.cfg <<'CFG'
study = simulate
model = nfold_pendulum
methods = rkmk4
steps = 3000
t_final = 3
sample_every = 50
[nfold_pendulum]
N = 8
initial = paper
CFG
cat > chain_adaptive.cfg <<'CFG'
study = simulate
model = nfold_pendulum
methods = rkmk54
tol = 1e-9
t_final = 4
[nfold_pendulum]
N = 8
initial = paper
CFG
cat > dipoles.cfg <<'CFG'
study = invariants
model = dipolar
methods = rkmk4, cf4
dt = 0.01
t_final = 4
sample_every = 10
[dipolar]
N = 10
initial = random
seed = 1
CFG

# same_but_log A B: equal except provenance, wall-clock timings and the key log_every.
same_but_log() {
  /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/h5same.py" "$1" "$2" --ignore-key log_every
}

# log_matches_file LOG H5 EVERY: the numbers of the log are those of the file
log_matches_file() {
  /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import sys, re, h5py, numpy as np
log, f, every = open(sys.argv[1]).read().split("\n"), h5py.File(sys.argv[2], "r"), int(sys.argv[3])
bad = []
summary = {k: f["summary"][k][()] for k in f["summary"]}
ids = [x.decode() if isinstance(x, bytes) else x for x in summary["run_id"]]
run, cols, lines = None, None, {}
for l in log:
    m = re.match(r"^run (run_\d+) \(", l)
    if m: run, cols = m.group(1), None; lines[run] = {}; continue
    if run and l.strip().startswith("step "): cols = l.split(); continue
    if run and cols and re.match(r"^\s*\d+\s", l):
        v = l.split(); lines[run][int(v[0])] = dict(zip(cols, map(float, v)))
        continue
    m = re.match(r"^run (run_\d+): (\S+); (accepted steps|steps) (\d+)(, rejected (\d+))?, RHS evaluations (\d+)$", l)
    if m:
        i = ids.index(m.group(1))
        if int(m.group(7)) != summary["rhs_evaluations"][i]: bad.append("%s: RHS evaluations %s" % (m.group(1), m.group(7)))
        key = "accepted" if m.group(3) == "accepted steps" else "steps"
        if int(m.group(4)) != summary[key][i]: bad.append("%s: %s %s" % (m.group(1), key, m.group(4)))
        if m.group(6) is not None and int(m.group(6)) != summary["rejected"][i]: bad.append("%s: rejected" % m.group(1))
        run, cols = None, None
if sorted(lines) != sorted(ids): bad.append("runs with lines: %s, in the file: %s" % (sorted(lines), ids))
checked, has_obs = 0, False
for rid, steps in lines.items():
    obs = f["runs"][rid]["observables"] if "observables" in f["runs"][rid] else {}
    has_obs = has_obs or len(obs) > 0
    last = max(steps)
    if every and any(s % every and s != last for s in steps): bad.append("%s: a line off the log_every grid" % rid)
    if every and sorted(s for s in steps if s != last) != list(range(0, last, every)): bad.append("%s: lines %s" % (rid, sorted(steps)))
    for name in obs:
        st, val = obs[name]["step"][()], obs[name]["value"][()]
        for s, row in steps.items():
            hit = np.nonzero(st == s)[0]
            col = [c for c in row if c == name or c.startswith(name + ".")]
            if not len(hit) or not col: continue
            x = val[hit[0]]
            want = (x - val[0]) / abs(val[0]) if col[0].endswith(".rel_error") else (x - val[0] if col[0].endswith(".abs_error") else x)
            if not abs(row[col[0]] - want) <= 1e-8 * abs(want) + 1e-300: bad.append("%s step %d %s: log %r file %r" % (rid, s, col[0], row[col[0]], want))
            checked += 1
if every and has_obs and checked == 0: bad.append("no logged value could be checked against the file")
# timings: per phase, per rank summed over the runs; min/avg/max as printed (6 decimals)
sums = {}
for rid in ids:
    for ph, d in f["runs"][rid]["timings"].items(): sums[ph] = sums.get(ph, 0) + d[()]
seen = 0
for l in log:
    v = l.split()
    if len(v) == 4 and v[0] in sums:
        s = sums[v[0]]
        for got, want in zip(map(float, v[1:]), (s.min(), s.mean(), s.max())):
            if abs(got - want) > 6e-7: bad.append("timing %s: %s vs %r" % (v[0], v[1:], (s.min(), s.mean(), s.max())))
        seen += 1
if seen != len(sums): bad.append("timing lines %d, phases in the file %d" % (seen, len(sums)))
rss = f["provenance"]["job_0"]["max_rss"][()] / 1024.0
m = [l for l in log if l.startswith("peak memory")]
want = "peak memory (max RSS, MiB): min %.1f avg %.1f max %.1f over %d rank(s)" % (rss.min(), rss.mean(), rss.max(), len(rss))
if m != [want]: bad.append("memory line %r, expected %r" % (m, want))
for b in bad[:10]: print("   ", b)
sys.exit(1 if bad else 0)
PY
}

# case NAME CFG EVERY LAUNCH...: log_every = 0 and EVERY give the same result; log = stdout = file
case_() {
  local name=$1 cfg=$2 every=$3; shift 3
  "$@" "$LB" run "$cfg" -o "${name}_0.h5" --log_every=0 -q > /dev/null 2>err.txt || { bad "$name: log_every=0 run failed: $(cat err.txt)"; return; }
  "$@" "$LB" run "$cfg" -o "${name}_e.h5" "--log_every=$every" > "${name}.stdout" 2>err.txt || { bad "$name: log_every=$every run failed: $(cat err.txt)"; return; }
  same_but_log "${name}_0.h5" "${name}_e.h5" && ok "$name: log_every=$every gives the bits of log_every=0" || bad "$name: log lines changed the result"
  cmp -s "${name}.stdout" "${name}_e.h5.log" && ok "$name: stdout of rank 0 is the log file" || bad "$name: stdout differs from ${name}_e.h5.log"
  log_matches_file "${name}_e.h5.log" "${name}_e.h5" "$every" && ok "$name: the log's numbers are the file's" || bad "$name: log and file disagree"
  grep -q '^end: finished, wrote '"${name}_e.h5"' (exit status 0)' "${name}_e.h5.log" || bad "$name: no end line"
  grep -q '^  log_every = '"$every"'$' "${name}_e.h5.log" || bad "$name: resolved configuration lacks log_every"
  compgen -G "${name}_*.log.tmp.*" > /dev/null && bad "$name: temporary log left"
  [[ -s "${name}_0.h5.log" ]] && ! grep -qE '^ +step ' "${name}_0.h5.log" && ok "$name: log_every=0: log without periodic lines" ||
    bad "$name: log_every=0 log"
}

case_ chain_fixed chain_fixed.cfg 7
case_ chain_adaptive chain_adaptive.cfg 3
case_ dipoles_2x1 dipoles.cfg 25 "${MPIRUN[@]}" -n 2
OMP_NUM_THREADS=2 case_ dipoles_2x2 dipoles.cfg 25 "${MPIRUN[@]}" -n 2
case_ convergence "$EX/frb_convergence.cfg" 1

# --quiet: nothing on stdout, the log written
out=$("$LB" run chain_fixed.cfg -o quiet.h5 -q 2>/dev/null)
[[ -z "$out" && -s quiet.h5.log ]] && ok "--quiet: stdout empty, log written" || bad "--quiet: stdout '$out'"

# bad input: the earlier log untouched, no temporary
sum=$(md5sum < quiet.h5.log)
expect_status "existing output without --force" 2 "exists" "$LB" run chain_fixed.cfg -o quiet.h5 -q
[[ "$(md5sum < quiet.h5.log)" == "$sum" ]] && ok "bad input: earlier log untouched" || bad "bad input changed the log"
compgen -G "quiet.h5.log.tmp.*" > /dev/null && bad "bad input left a temporary log"

# failed runs (exit 3): the log is written and says so
"$LB" run /dev/null --model=nfold_pendulum --study=simulate --methods=lgvi --steps=10 --t_final=100 -o failed.h5 -q 2>/dev/null
st=$?
[[ $st -eq 3 ]] && grep -q '^end: result written, runs failed: .*(exit status 3)' failed.h5.log &&
  grep -q '^run run_00000: failed: ' failed.h5.log && ok "failed run: exit 3, the log says failed" ||
  bad "failed run: exit $st, log: $(tail -3 failed.h5.log 2>&1)"

# checkpointed (SIGTERM, exit 5), then continued: one log with both attempts
cat > long.cfg <<'CFG'
study = simulate
model = nfold_pendulum
methods = rkmk4
steps = 200000
t_final = 20
sample_every = 1000
log_every = 10000
[nfold_pendulum]
N = 16
initial = paper
CFG
"$LB" run long.cfg -o ck.h5 -q > /dev/null 2>err.txt &
pid=$!
for _ in $(seq 1 200); do grep -qE '^ +10000 ' ck.h5.log.tmp.* 2>/dev/null && break; sleep 0.05; done
kill -TERM $pid; wait $pid; st=$?
if [[ $st -eq 5 ]]; then
  grep -q '^end: checkpointed, not finished: .*(exit status 5)' ck.h5.log &&
    grep -qE '^run run_00000: not finished \(last line: step [1-9][0-9]*0000, ' ck.h5.log && ok "SIGTERM: exit 5, the log says checkpointed" ||
    bad "checkpointed log: $(tail -2 ck.h5.log)"
  compgen -G "ck.h5.log.tmp.*" > /dev/null && bad "checkpointed run left a temporary log"
  "$LB" run long.cfg -o ck.h5 -q > /dev/null 2>err.txt || bad "restart failed: $(cat err.txt)"
  [[ $(grep -c '^end: ' ck.h5.log) -eq 2 && $(grep -c 'continuing from a checkpoint' ck.h5.log) -eq 1 ]] &&
    grep -q '^end: finished' ck.h5.log && grep -qE '^ +200000 ' ck.h5.log &&
    ok "restart: one log with the checkpointed attempt on top and the finished one below" ||
    bad "restarted log: $(grep -E '^end:|continuing' ck.h5.log)"
else
  bad "SIGTERM: exit $st (expected 5): $(cat err.txt)"
fi

finish
