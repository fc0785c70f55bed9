#!/usr/bin/env bash
# The rigid-body splittings (dlm, no_squish, rotor_exact; issue 26) through the whole program: a
# study of ten dipoles, stopped by SIGTERM / SIGUSR1 at random moments and continued, alternating
# 1 and 2 ranks, ends bitwise equal to the uninterrupted run, counters included (the forces at
# the end of a step are those of the next step's start: a restart rebuilds them without counting,
# stepper.hpp rebuild_cache). The report names the three methods with one force evaluation per
# step, and a model without rigid bodies is refused with one line.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/lib_studies.bash"
source "$HERE/lib_checkpoint.bash"

cat > split.cfg <<'CFG'
study = invariants
model = dipolar
methods = dlm, no_squish, rotor_exact
dt = 0.001
t_final = 20
sample_every = 100
[dipolar]
N = 10
initial = random
seed = 1
CFG
"$LB" run split.cfg -o ref.h5 -q "${PROGRESS[@]}" || { bad "uninterrupted run failed"; finish; }
stop_and_restart "splittings" int.h5 "TERM USR1 TERM TERM" "1 2" run split.cfg &&
  { same_result ref.h5 int.h5 && ok "stopped and restarted: bitwise the uninterrupted run" || bad "results differ"; }
# one force evaluation per step and one at the start: 20001 for 20000 steps
counts=$(/usr/bin/python3 - <<'PY'
import h5py
with h5py.File("ref.h5", "r") as f:
    for name in sorted(f["runs"]):
        a = f["runs"][name].attrs
        m = a["method"]
        print(m.decode() if isinstance(m, bytes) else m, int(a["steps"]), int(a["rhs_evaluations"]))
PY
)
[[ "$counts" == $'dlm 20000 20001\nno_squish 20000 20001\nrotor_exact 20000 20001' ]] &&
  ok "one force evaluation per step" || bad "counters: $counts"
expect_status "a model without rigid bodies: refused" 2 "needs a system of rigid bodies" \
  "$LB" run split.cfg --model=nfold_pendulum -o x.h5
finish
