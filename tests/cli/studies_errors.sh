#!/usr/bin/env bash
# Bad input gets a clear error (exit status 2, the message names the key/value and the fix),
# and nothing is created or damaged: unknown key, missing file, NaN, unknown method, negative
# step, zero steps, bad model value, unwritable output, existing file without --force.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"

cat > ok.cfg <<'CFG'
study = convergence
model = free_rigid_body
methods = rkmk3
steps = 8, 16
reference.method = rkmk5
reference.steps = 256
CFG

grep -v -E '^(steps|reference\.)' ok.cfg > nosteps.cfg
expect_status "missing experiment file" 2 "cannot open experiment file 'nope.cfg'" "$LB" run nope.cfg -o x.h5
printf 'no_such_key = 1\n' | cat ok.cfg - > badkey.cfg
expect_status "unknown key in the file" 2 "unknown key 'no_such_key'" "$LB" run badkey.cfg -o x.h5
expect_status "unknown key on the command line" 2 "unknown key 'bogus'" "$LB" run ok.cfg --bogus=1 -o x.h5
printf 't_final = nan\n' | cat ok.cfg - > nan.cfg
expect_status "NaN in the file" 2 "'t_final' has value 'nan'" "$LB" run nan.cfg -o x.h5
expect_status "unknown method" 2 "'rk99'" "$LB" run ok.cfg --methods=rkmk4,rk99 -o x.h5
expect_status "negative step" 2 "'-0.1'" "$LB" run nosteps.cfg --dt=-0.1 -o x.h5
expect_status "zero steps" 2 "'0'" "$LB" run ok.cfg --steps=0 -o x.h5
expect_status "dt not dividing T" 2 "must divide" "$LB" run nosteps.cfg --dt=0.3 --reference.method=rkmk5 -o x.h5
expect_status "t_final <= t0" 2 "t_final" "$LB" run ok.cfg --t_final=0 -o x.h5
expect_status "bad model value" 2 "every entry must be > 0" "$LB" run ok.cfg --free_rigid_body.inertia=1,0,2 -o x.h5
expect_status "bad grid value" 2 "'-3'" "$LB" run ok.cfg "--grid=free_rigid_body.seed=1,-3" -o x.h5
{ grep -v -E '^steps' ok.cfg; printf 'zip = free_rigid_body.seed = 1, 2, 3 ; steps = 8, 16\n'; } > zip.cfg
expect_status "zip of unequal lengths" 2 "zipped keys need the same number of values" "$LB" run zip.cfg -o x.h5
out=$("$LB" run zip.cfg -o x.h5 2>&1); [[ $(wc -l <<<"$out") -eq 1 ]] || bad "zip error is not one line: $out"
expect_status "unknown study" 2 "unknown study" "$LB" run ok.cfg --study=nope -o x.h5
expect_status "no reference without exact solution" 2 "has no exact solution" "$LB" run nosteps.cfg --steps=8 --model=heavy_top -o x.h5
expect_status "tolerance without embedded pair" 2 "embedded" "$LB" run nosteps.cfg --study=adaptive --tol=1e-6 -o x.h5
expect_status "missing output directory" 2 "does not exist" "$LB" run ok.cfg -o no_dir/x.h5
if [[ $EUID -eq 0 ]]; then unwritable=/proc; else mkdir ro && chmod 555 ro && unwritable=ro; fi
expect_status "unwritable output" 2 "not writable" "$LB" run ok.cfg -o "$unwritable/x.h5"

expect_status "--check of a valid experiment" 0 "is valid" "$LB" run ok.cfg -o x.h5 --check
expect_status "--check of a bad experiment" 2 "'rk99'" "$LB" run ok.cfg --methods=rk99 -o x.h5 --check

# an existing result is never touched without --force, and survives bad input with --force
echo "earlier result" > old.h5
sum_before=$(md5sum < old.h5)
expect_status "existing file without --force" 2 "pass --force" "$LB" run ok.cfg -o old.h5
expect_status "bad input with --force" 2 "'rk99'" "$LB" run ok.cfg --methods=rk99 -o old.h5 --force
[[ "$(md5sum < old.h5)" == "$sum_before" ]] && ok "earlier file intact" || bad "earlier file changed"
left=$(ls | grep -v -E '^(ok|badkey|nan|nosteps|zip)\.cfg$|^old\.h5$|^ro$' || true)
[[ -z "$left" ]] && ok "nothing created by bad input" || bad "bad input created files: $left"

# report and merge reject bad input too
expect_status "report of a missing file" 2 "cannot open" "$LB" report nope.h5
expect_status "report of a non-HDF5 file" 2 "cannot open" "$LB" report old.h5
expect_status "report bad format" 2 "'xls'" "$LB" report old.h5 --format xls
expect_status "report bad table" 2 "'nope'" "$LB" report old.h5 --table nope
expect_status "merge without output" 2 "--output" "$LB" merge a.h5
# The chain's own bad input: N = 0, a non-unit q, a non-tangent w (nothing written).
printf 'study = simulate\nmodel = nfold_pendulum\nmethods = rkmk4\nsteps = 10\n[nfold_pendulum]\nN = 2\n' > chain.cfg
expect_status "N = 0" 2 "'nfold_pendulum.N' has value '0'" "$LB" run chain.cfg --nfold_pendulum.N=0 -o chain.h5
expect_status "non-unit q" 2 "must be a unit vector" "$LB" run chain.cfg --nfold_pendulum.initial=custom \
  "--nfold_pendulum.q0=0.8660,0,0.5" "--nfold_pendulum.w0=0,1,0" -o chain.h5
expect_status "non-tangent w" 2 "must be tangent" "$LB" run chain.cfg --nfold_pendulum.initial=custom \
  "--nfold_pendulum.q0=0,0,1" "--nfold_pendulum.w0=0,1,0.5" -o chain.h5
expect_status "q0 of the wrong length" 2 "3N = 6" "$LB" run chain.cfg --nfold_pendulum.initial=custom \
  "--nfold_pendulum.q0=0,0,1,0,0" "--nfold_pendulum.w0=0,1,0" -o chain.h5
expect_status "method the model cannot use" 2 "needs a Hamiltonian on a cotangent bundle" "$LB" run chain.cfg \
  --methods=slgi -o chain.h5
[[ -e chain.h5 ]] && bad "bad chain input created chain.h5" || ok "bad chain input created nothing"
finish
