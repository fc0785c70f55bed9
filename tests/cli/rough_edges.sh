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
finish
