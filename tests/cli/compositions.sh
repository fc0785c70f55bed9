#!/usr/bin/env bash
# Compositions as data (method composition:<name>, issue 26) through the whole program: a study
# of ten dipoles with yoshida4 and kahan_li6 of dlm, and one of a heavy top with a user
# composition of SLGI (whose simplified Newton keeps a Jacobian and a warm start across steps:
# the stepper's resume state), stopped by signals at random moments and continued on 1 and 2
# ranks, end bitwise equal to the uninterrupted runs, counters included; the counters add the
# base's (3 and 9 force evaluations per step, one to start); every refusal is exit 2 with one
# line naming the value and the fix.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/lib_studies.bash"
source "$HERE/lib_checkpoint.bash"

cat > dip.cfg <<'CFG'
study = invariants
model = dipolar
methods = composition:yoshida4, composition:kahan_li6
dt = 0.002
t_final = 10
sample_every = 100
[composition]
base = dlm
[dipolar]
N = 10
initial = random
seed = 1
CFG
"$LB" run dip.cfg -o ref.h5 -q "${PROGRESS[@]}" || { bad "uninterrupted run failed"; finish; }
stop_and_restart "dlm compositions" int.h5 "TERM USR1 TERM" "1 2" run dip.cfg &&
  { same_result ref.h5 int.h5 && ok "dlm compositions stopped and restarted: bitwise the uninterrupted run" || bad "results differ"; }
counts=$(/usr/bin/python3 - <<'PY'
import h5py
with h5py.File("ref.h5", "r") as f:
    for name in sorted(f["runs"]):
        a = f["runs"][name].attrs
        m = a["method"]
        print(m.decode() if isinstance(m, bytes) else m, int(a["steps"]), int(a["rhs_evaluations"]))
PY
)
[[ "$counts" == $'composition:yoshida4 5000 15001\ncomposition:kahan_li6 5000 45001' ]] &&
  ok "counters: s force evaluations per step, one to start" || bad "counters: $counts"

cat > top.cfg <<'CFG'
study = invariants
model = heavy_top
methods = composition:triple
dt = 0.002
t_final = 100
sample_every = 50
[composition.triple]
coefficients = 1.35120719195965763404768780897, -1.70241438391931526809537561794, 1.35120719195965763404768780897
base = slgi
[heavy_top]
mass = 1
length = 0.5
omega0 = 1, 2, -0.5
CFG
"$LB" run top.cfg -o tref.h5 -q "${PROGRESS[@]}" || { bad "uninterrupted heavy-top run failed"; finish; }
stop_and_restart "slgi composition" tint.h5 "TERM TERM USR1" "2 1" run top.cfg &&
  { same_result tref.h5 tint.h5 && ok "slgi composition stopped and restarted: bitwise" || bad "heavy-top results differ"; }

# `liebench tableau`: the order conditions of the shipped sets and of a file's sections; the
# sixth-order set with c_1 = c_9 moved by 1e-8 and c_5 by -2e-8 (still summing to 1) keeps order 2 only
expect_status "tableau kahan_li6" 0 "order found: 6" "$LB" tableau kahan_li6
expect_status "tableau suzuki4" 0 "order found: 4" "$LB" tableau suzuki4
cat > comp.cfg <<'CFG'
[composition.k6]
coefficients = kahan_li6
[composition.k6bad]
coefficients = 0.39216145400731413928, 0.33259913678935943860, -0.70624617255763935981, 0.082213596293550800230, 0.79854397093482996340, 0.082213596293550800230, -0.70624617255763935981, 0.33259913678935943860, 0.39216145400731413928
CFG
out=$("$LB" tableau comp.cfg 2>&1)
[[ "$out" == *"composition 'k6' (9 steps of the base)"*"order found: 6"*"composition 'k6bad'"*"VIOLATED"*"order found: 2"* ]] &&
  ok "tableau FILE.cfg: both sections, the perturbed one refused its orders" || bad "tableau FILE.cfg: $out"

# refusals: exit 2, one line naming the value and the fix
refuse() {  # NAME SUBSTRING ARGS...
  local name=$1 text=$2; shift 2
  expect_status "$name" 2 "$text" "$LB" run "$@" -o x.h5
  local n; n=$("$LB" run "$@" -o x.h5 2>&1 >/dev/null | wc -l)
  [[ $n -eq 1 ]] && ok "$name: one line" || bad "$name: $n lines on stderr"
  [[ -e x.h5 ]] && bad "$name: wrote x.h5"
}
refuse "unknown composition" "unknown composition 'yoshida5'; shipped: yoshida4, suzuki4, kahan_li6" \
  dip.cfg --methods=composition:yoshida5
grep -v "^base = dlm" dip.cfg > nobase.cfg
refuse "no base" "needs a base method: set composition.base" nobase.cfg
refuse "base not symmetric" "'rkmk4', a method of order 4 that is not time-symmetric" dip.cfg --composition.base=rkmk4
refuse "slgi off one half" "'slgi', a method of order 1 that is not time-symmetric" top.cfg --slgi.theta=0.25
refuse "sum not 1" "sum to 1 + 0.10000000000000009; they must sum to 1 (to 1e-14)" top.cfg --composition.triple.coefficients=0.4,0.3,0.4
refuse "not symmetric" "are not symmetric (c_1 = 0.3 but c_3 = 0.5)" top.cfg --composition.triple.coefficients=0.3,0.2,0.5
refuse "model without rigid bodies" "needs a system of rigid bodies" dip.cfg --model=nfold_pendulum
sed 's/^dt = .*/tol = 1e-6/' dip.cfg > tol.cfg
refuse "adaptive" "method 'composition:yoshida4' has no embedded error estimator" tol.cfg
finish
