#!/usr/bin/env bash
# The rough edges a new user hits first (issue 12): abbreviated keys are not guessed, --check
# and run report the configuration's errors before "output exists", `liebench tableau` takes a
# method name, config errors name the line.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"

cat > ok.cfg <<'CFG'
study = invariants
model = free_rigid_body
methods = rkmk4
steps = 64
CFG

# ---- no guessing of key prefixes (Boost's default would read --meth as --methods)
expect_status "--meth=rk4 is an unknown key" 2 "unknown key 'meth' on the command line (did you mean 'methods'" \
  "$LB" run ok.cfg --meth=rk4 -o a.h5 --check
expect_status "--method is not guessed either" 2 "did you mean 'methods'" "$LB" run ok.cfg --method=rk4 -o a.h5 --check
expect_status "the full key works" 0 "" "$LB" run ok.cfg --methods=rk4 -o a.h5 --check
expect_status "a typo gets a suggestion" 2 "did you mean 't_final'" "$LB" run ok.cfg --t_fnal=3 -o a.h5 --check
printf 'study = invariants\nmodel = free_rigid_body\nmethds = rkmk4\nsteps = 64\n' > typo.cfg
expect_status "typo in the file: line and suggestion" 2 "typo.cfg:3: unknown key 'methds' (did you mean 'methods'" \
  "$LB" run typo.cfg -o a.h5 --check
[[ ! -e a.h5 ]] && ok "nothing written" || bad "a.h5 written"

# ---- the configuration's errors come before "output exists"
echo keep > exists.h5
expect_status "--check: unknown method before output exists" 2 "nosuch" \
  "$LB" run ok.cfg --methods=nosuch -o exists.h5 --check
expect_status "run: unknown method before output exists" 2 "nosuch" "$LB" run ok.cfg --methods=nosuch -o exists.h5 -q
expect_status "--check: output exists when the rest is valid" 2 "exists; pass --force" \
  "$LB" run ok.cfg -o exists.h5 --check
[[ "$(cat exists.h5)" == keep ]] && ok "existing file kept" || bad "existing file changed"

# ---- liebench tableau takes a method name
expect_status "tableau rkmk4" 0 "" "$LB" tableau rkmk4
"$LB" tableau rkmk4 > t.txt
grep -q "built on table 'rk4'" t.txt && grep -q "order found: 4" t.txt && ok "tableau rkmk4 checks rk4" \
  || bad "tableau rkmk4 output: $(head -3 t.txt)"
"$LB" tableau rkmk54 | grep -q "order found: 5, embedded order found: 4" && ok "tableau rkmk54: 5(4)" \
  || bad "tableau rkmk54"
"$LB" tableau cf43 | grep -q "order found: 4" && ok "tableau cf43 (a CF method)" || bad "tableau cf43"
expect_status "tableau lgvi (no table)" 2 "not built on a coefficient table" "$LB" tableau lgvi

# ---- scripts/reproduce_results.sh: a pattern that selects no deck is a typo, not an empty run
# (before: exit 0 after rewriting the tables' index and listing every figure as skipped)
out=$(LIEBENCH_BIN="$LB" LIEBENCH_RESULTS_DIR="$W/rr" bash "$SRC/scripts/reproduce_results.sh" 'P_Fig5*' 2>&1); st=$?
if [[ $st -eq 2 && "$out" == *"no experiment matches 'P_Fig5*'"* && $(wc -l <<< "$out") -eq 1 && ! -e "$W/rr" ]]; then
  ok "reproduce_results.sh 'P_Fig5*': one line, exit 2, nothing written"
else bad "reproduce_results.sh 'P_Fig5*': status $st, $(wc -l <<< "$out") lines, results dir $([[ -e "$W/rr" ]] && echo written || echo absent): ${out:0:300}"; fi
expect_status "reproduce_results.sh with two patterns" 2 "one NAME_PATTERN, got 2 arguments" \
  env LIEBENCH_BIN="$LB" LIEBENCH_RESULTS_DIR="$W/rr" bash "$SRC/scripts/reproduce_results.sh" 'P_fig5*' 'K*'
finish
