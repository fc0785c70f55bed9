#!/usr/bin/env bash
# Checkpoint and restart (issue 14) of the implicit methods whose steps carry solver state:
# slgi / slgi_kk ([P] 3.2, 3.4.3) warm-start each step's Newton iteration from the previous step
# (solution, Jacobian and its LU), which the checkpoint must carry (Stepper::resume_state); lgvi
# ([L] (28)) starts its Newton iteration afresh every step and only caches dV/dq (rebuilt on
# restart). Runs stopped by SIGTERM / SIGUSR1 at random moments of their progress
# (lib_checkpoint.bash) and continued, alternately on 1 and 2 ranks, must give the final file
# of an uninterrupted run bit for bit (h5diff-like comparison of every dataset and attribute
# except /provenance and the timings). Without the solver state in the checkpoint the heavy-top
# results differed by ~1e-9 (final_state) and this test failed. A checkpoint whose solver state
# is altered or missing is refused with exit status 2.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/lib_studies.bash"
source "$HERE/lib_checkpoint.bash"

# Heavy top, data of [P] 3.4.4 (the model's defaults); 100000 steps of h = 0.001 take about
# 1 s on one core (60000 were too short on a loaded machine) (the suite's choice: long enough for the kills to land inside the run).
cat > top.cfg <<'CFG'
study = simulate
model = heavy_top
methods = slgi
dt = 0.001
t_final = 100
sample_every = 1000
[heavy_top]
formulation = tstar_so3
CFG
cat > top_kk.cfg <<'CFG'
study = invariants
model = heavy_top
methods = slgi_kk
dt = 0.001
t_final = 100
sample_every = 1000
[heavy_top]
formulation = quadratic
CFG
# [L] Example 1 (double spherical pendulum, implicit LGVI), 600000 steps (suite's choice of h, T:
# about 1.5 s on one core; 60000 steps took 0.15 s and finished before any signal landed on CI).
cat > lgvi.cfg <<'CFG'
study = invariants
model = nfold_pendulum
methods = lgvi
dt = 0.001
t_final = 600
sample_every = 5000
[nfold_pendulum]
N = 2
mass = 1
length = 9.81
gravity = 9.81
initial = custom
q0 = 0.8660254037844386, 0, -0.5,   0, 0, -1
w0 = 0.4330127018922193, 0, 0.75,   0, -1, 0
CFG

# check_case NAME RANKS RUNNERS CMD...: uninterrupted reference on RANKS ranks, then the same
# command stopped by SIGTERM, SIGUSR1, SIGTERM and continued with RUNNERS (e.g. "1 2").
check_case() {
  local name=$1 ranks=$2 runners=$3; shift 3
  if [[ $ranks -eq 1 ]]; then "$LB" "$@" -o "ref_$name.h5" -q "${PROGRESS[@]}" || { bad "$name: reference run failed"; return; }
  else "${MPIRUN[@]}" -n "$ranks" "$LB" "$@" -o "ref_$name.h5" -q "${PROGRESS[@]}" || { bad "$name: reference run failed"; return; }; fi
  stop_and_restart "$name" "int_$name.h5" "TERM USR1 TERM" "$runners" "$@" || return
  if same_result "ref_$name.h5" "int_$name.h5"; then ok "$name: stopped/restarted result bitwise equal to the uninterrupted run"
  else bad "$name: results differ"; fi
}

check_case slgi_zero_2 2 "2" run top.cfg --slgi.theta=0
check_case slgi_half_1to2 1 "1 2" run top.cfg          # the checkpoints change layout every round
check_case slgi_kk_2to1 2 "2 1" run top_kk.cfg
check_case slgi_fixed_point_1 1 "1" run top.cfg --slgi.solver=fixed_point
check_case lgvi_1 1 "1" run lgvi.cfg

# The solver state is covered by the checksum: a checkpoint with one value of it changed, or
# without it, is refused (exit 2, one line), and kept.
"$LB" run top.cfg -o bad.h5 "${PROGRESS[@]}" > run.log 2>&1 &
pid=$!
wait_for_percent run.log $pid 20 && kill -TERM $pid
wait $pid; st=$?
if [[ $st -eq 5 ]]; then
  cp bad.h5.ckpt.h5 flipped.ckpt.h5; cp bad.h5.ckpt.h5 missing.ckpt.h5
  /usr/bin/python3 - flipped.ckpt.h5 missing.ckpt.h5 <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    s = f["current/stepper_state"]
    v = s[()]
    v[7] = np.nextafter(v[7], np.inf)  # one bit of the warm-start solution z
    s[...] = v
with h5py.File(sys.argv[2], "r+") as f:
    del f["current/stepper_state"]
PY
  for c in flipped missing; do
    sum=$(md5sum < $c.ckpt.h5)
    expect_status "checkpoint with a $c solver state refused" 2 "checkpoint $c.ckpt.h5 is refused" \
      "$LB" run top.cfg -o bad.h5 -q --restart $c.ckpt.h5
    out=$("$LB" run top.cfg -o bad.h5 -q --restart $c.ckpt.h5 2>&1)
    [[ $(printf '%s\n' "$out" | wc -l) -eq 1 ]] && ok "$c: refusal is one line" || bad "$c: refusal is not one line: $out"
    [[ "$(md5sum < $c.ckpt.h5)" == "$sum" ]] && ok "$c: refused checkpoint kept intact" || bad "$c: checkpoint changed"
    [[ -e bad.h5 ]] && bad "$c: a refused restart wrote a result file"
  done
  expect_status "the intact checkpoint continues" 0 "" "$LB" run top.cfg -o bad.h5 -q "${PROGRESS[@]}"
  same_result ref_slgi_half_1to2.h5 bad.h5 && ok "continued from the intact checkpoint: same bits" || bad "bad.h5 differs"
else
  bad "refusal setup: exit $st: $(tail -3 run.log)"
fi
finish
