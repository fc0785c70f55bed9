#!/usr/bin/env bash
# Checkpoint and restart (issue 14): runs of single-run studies (simulate, invariants) stopped by
# SIGTERM / SIGUSR1 at random moments write <output>.ckpt.h5 and exit 5; running the same
# command again continues, until the result file is written. The final file is compared with
# an uninterrupted run of the same command (h5diff: every dataset and attribute except
# /provenance and the wall-clock timings): fixed-step and adaptive, chain (nfold_pendulum) and
# dipoles (dipolar), 1 and 2 ranks, and a restart on another number of ranks. SIGKILL then restart
# from the last periodic checkpoint (checkpoint_every). A truncated checkpoint, one of another N
# and one of another method are refused with exit status 2, and the checkpoint file is kept.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"

# Run lengths of about 1.5-2 s on one core after a start-up of about 0.3 s (the kills land inside the run).
cat > chain_fixed.cfg <<'CFG'
study = simulate
model = nfold_pendulum
methods = rkmk4
steps = 120000
t_final = 12
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
t_final = 16
[nfold_pendulum]
N = 16
initial = paper
CFG
cat > dipoles_fixed.cfg <<'CFG'
study = invariants
model = dipolar
methods = rkmk4
dt = 0.001
t_final = 80
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
t_final = 200
[dipolar]
N = 10
initial = random
seed = 1
CFG

# same_result A B: equal except provenance (host, times) and wall-clock timings.
same_result() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
skip_attr = {"wall", "wall_max", "wall_min", "wall_mean", "created", "seconds"}
def timing(name): return "provenance" in name or "timings" in name or name.split("/")[-1].startswith("wall") or name.split("/")[-1].startswith("time.")
diffs = []
def items(f):
    out = {}
    def visit(name, obj):
        if timing(name): return
        out[name] = obj
    f.visititems(visit)
    out["/"] = f
    return out
ia, ib = items(a), items(b)
if set(ia) != set(ib): diffs.append("objects differ: %s" % sorted(set(ia) ^ set(ib)))
for k in sorted(set(ia) & set(ib)):
    x, y = ia[k], ib[k]
    for an in set(x.attrs) | set(y.attrs):
        if an in skip_attr or an.startswith("wall") or an.startswith("timing") or an.startswith("time."): continue
        if an not in x.attrs or an not in y.attrs: diffs.append("%s@%s missing" % (k, an)); continue
        va, vb = np.asarray(x.attrs[an]), np.asarray(y.attrs[an])
        if va.shape != vb.shape or va.tobytes() != vb.tobytes(): diffs.append("%s@%s: %r != %r" % (k, an, x.attrs[an], y.attrs[an]))
    if isinstance(x, h5py.Dataset):
        va, vb = x[()], y[()]
        if k.startswith("summary/wall") or k.startswith("summary/time"): continue
        if np.asarray(va).tobytes() != np.asarray(vb).tobytes(): diffs.append("%s: data differ" % k)
for d in diffs[:10]: print("   ", d)
sys.exit(1 if diffs else 0)
PY
}

# wait_for_temp PATTERN: until the temporary result file exists (the study is running)
wait_for_temp() {
  for _ in $(seq 1 100); do
    compgen -G "$1" > /dev/null && return 0
    sleep 0.05
  done
  return 1
}

# signal_ranks SIG PID: the signal to the liebench processes (as SLURM's --signal delivers it to
# the tasks; mpirun itself would end the job on SIGTERM): PID, or its children (VIA_MPIRUN=1).
signal_ranks() {
  if [[ "$VIA_MPIRUN" == 1 ]]; then
    local kids=""
    for _ in $(seq 1 50); do kids=$(pgrep -P "$2") && break; sleep 0.02; done
    [[ -n "$kids" ]] && kill "-$1" $kids 2>/dev/null
  else
    kill "-$1" "$2" 2>/dev/null
  fi
}

# interrupted NAME CFG OUT RUNNER...: kills the run with SIGTERM and SIGUSR1 (alternately) after a
# random fraction of the uninterrupted run time $REF_SECONDS, three times, then lets it finish.
interrupted() {
  local name=$1 cfg=$2 out=$3; shift 3
  local sigs=(TERM USR1 TERM) stops=0 st
  for round in 0 1 2 3 4 5; do
    "$@" run "$cfg" -o "$out" -q > run.log 2>&1 &
    local pid=$!
    if (( round < 3 )); then
      wait_for_temp "$out.tmp.*"  # past validation: the signal handlers are installed
      sleep "$(/usr/bin/python3 -c "import random; print((0.05 + 0.3 * random.random()) * $REF_SECONDS / (1 + $round))")"
      signal_ranks "${sigs[$round]}" $pid
    fi
    wait $pid; st=$?
    [[ -n "${CKPT_DEBUG:-}" ]] && echo "     round $round: exit $st"
    if [[ $st -eq 5 ]]; then
      stops=$((stops + 1))
      grep -q "checkpoint written to $out.ckpt.h5" run.log || bad "$name: exit 5 without the checkpoint line: $(cat run.log)"
      [[ -e "$out.ckpt.h5" ]] || bad "$name: exit 5 but no $out.ckpt.h5"
      compgen -G "$out.tmp.*" > /dev/null && bad "$name: temporary result file left after exit 5"
      [[ -e "$out" ]] && bad "$name: result file written by a stopped run"
    elif [[ $st -eq 0 ]]; then
      break
    elif [[ $st -gt 128 && -e "$out" && ! -e "$out.ckpt.h5" ]]; then
      # the signal came after the result was committed (the handlers are gone at exit)
      echo "     ($name: signal after the end of the study, exit $st, result complete)"; st=0; break
    else
      bad "$name: exit status $st: $(cat run.log)"; return 1
    fi
  done
  [[ $st -eq 0 ]] || { bad "$name: never finished"; return 1; }
  [[ -e "$out.ckpt.h5" ]] && bad "$name: checkpoint left after the finished run"
  echo "     ($name: stopped $stops times)"
  (( stops > 0 )) || bad "$name: no kill landed inside the run (runs too short for this machine?)"
}

# case NAME CFG RANKS_REF RANKS_RESTART...: uninterrupted reference, then interrupted runs.
check_case() {
  local name=$1 cfg=$2 ranks=$3
  local t0 t1
  t0=$(date +%s.%N)
  "${MPIRUN[@]}" -n "$ranks" "$LB" run "$cfg" -o "ref_$name.h5" -q || { bad "$name: reference run failed"; return; }
  t1=$(date +%s.%N)
  REF_SECONDS=$(/usr/bin/python3 -c "print($t1 - $t0)")
  if [[ $ranks -eq 1 ]]; then VIA_MPIRUN=0 interrupted "$name" "$cfg" "int_$name.h5" "$LB"
  else VIA_MPIRUN=1 interrupted "$name" "$cfg" "int_$name.h5" "${MPIRUN[@]}" -n "$ranks" "$LB"; fi
  [[ $? -eq 0 ]] || return
  if same_result "ref_$name.h5" "int_$name.h5"; then ok "$name: stopped/restarted result bitwise equal to the uninterrupted run"
  else bad "$name: results differ"; fi
}

check_case chain_fixed_1 chain_fixed.cfg 1
check_case chain_adaptive_1 chain_adaptive.cfg 1
check_case dipoles_fixed_2 dipoles_fixed.cfg 2
check_case dipoles_adaptive_2 dipoles_adaptive.cfg 2

# Restart on another layout: stop a 1-rank run, continue on 2 ranks (reference: the 2-rank run).
"$LB" run dipoles_fixed.cfg -o layout.h5 -q > run.log 2>&1 &
pid=$!; wait_for_temp "layout.h5.tmp.*"; sleep 0.3; kill -TERM $pid; wait $pid; st=$?
if [[ $st -eq 5 ]]; then
  "${MPIRUN[@]}" -n 2 "$LB" run dipoles_fixed.cfg -o layout.h5 -q || bad "layout: 2-rank restart failed"
  same_result ref_dipoles_fixed_2.h5 layout.h5 && ok "1-rank checkpoint continued on 2 ranks: same bits" ||
    bad "layout: 1 -> 2 ranks results differ"
else
  bad "layout: first run exit $st (expected 5): $(cat run.log)"
fi

# SIGKILL: continue from the last periodic checkpoint (checkpoint_every, part of the experiment
# so that the reference has the same keys).
cp chain_fixed.cfg every.cfg; echo "checkpoint_every = 5000" | sed -i '1r /dev/stdin' every.cfg
"$LB" run every.cfg -o every_ref.h5 -q || bad "checkpoint_every reference failed"
"$LB" run every.cfg -o every.h5 -q > run.log 2>&1 &
pid=$!
for _ in $(seq 1 100); do [[ -e every.h5.ckpt.h5 ]] && break; sleep 0.05; done
sleep 0.2; kill -KILL $pid; wait $pid
if [[ -e every.h5.ckpt.h5 ]]; then
  ok "SIGKILL: periodic checkpoint present"
  expect_status "restart after SIGKILL" 0 "" "$LB" run every.cfg -o every.h5 -q
  same_result every_ref.h5 every.h5 && ok "SIGKILL + restart: same bits" || bad "SIGKILL + restart: results differ"
else
  bad "no periodic checkpoint written before SIGKILL"
fi

# Refused checkpoints: exit 2, one line, the checkpoint kept, no result file.
"$LB" run chain_fixed.cfg -o bad.h5 -q > run.log 2>&1 &
pid=$!; wait_for_temp "bad.h5.tmp.*"; sleep 0.3; kill -TERM $pid; wait $pid; st=$?
if [[ $st -eq 5 ]]; then
  sum=$(md5sum < bad.h5.ckpt.h5)
  expect_status "checkpoint of another N refused" 2 "another run" "$LB" run chain_fixed.cfg --nfold_pendulum.N=8 -o bad.h5 -q
  expect_status "checkpoint of another method refused" 2 "method" "$LB" run chain_fixed.cfg --methods=rkmk5 -o bad.h5 -q
  expect_status "checkpoint of another experiment refused" 2 "another experiment" "$LB" run chain_fixed.cfg --t_final=5 -o bad.h5 -q
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
expect_status "checkpoint keys on a multi-run study refused" 2 "single-run" "$LB" run chain_fixed.cfg --methods=rkmk4,rkmk5 --checkpoint_every=10 -o multi.h5 -q
finish
