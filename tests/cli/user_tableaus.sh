#!/usr/bin/env bash
# Issue 29 item 8: a user tableau's name is shown wherever the method's name is (tables,
# progress and failure lines, run log, /summary and run attributes that the plots read), and
# several user tableaus run in one study: methods = rkmk_user:<name>, ... with the tables in
# sections [tableau.<name>]. Experiment files of the one-tableau form stay valid.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"

cat > two.cfg <<'CFG'
study = convergence
model = free_rigid_body
methods = rkmk_user:rkmk38, rkmk_user:ralston3, rkmk4
steps = 2^4..2^8
t_final = 1
# Kutta's 3/8 rule (order 4) and Ralston's third-order method
[tableau.rkmk38]
A = 0; 1/3; -1/3, 1; 1, -1, 1
b = 1/8, 3/8, 3/8, 1/8
[tableau.ralston3]
A = 0; 1/2; 0, 3/4
b = 2/9, 1/3, 4/9
CFG
out=$("$LB" run two.cfg -o two.h5 --progress_interval=0.001 2>&1); st=$?
[[ $st -eq 0 ]] && ok "two user tableaus in one study: exit 0" || bad "two tableaus: exit $st: $out"
[[ "$out" == *"rkmk_user:rkmk38 steps="* && "$out" == *"rkmk_user:ralston3 steps="* ]] \
  && ok "progress lines name the tableaus" || bad "progress: $out"
rep=$("$LB" report two.h5)
hdr=$(grep -E '^\| *steps' <<<"$rep")
[[ "$hdr" == *"rkmk_user:rkmk38"*"rkmk_user:ralston3"*"rkmk4"* ]] && ok "table columns: $hdr" || bad "columns: $rep"
grep -qE '^\| rkmk_user:rkmk38 +\| +4 \| +(3\.9|4\.0)' <<<"$rep" && grep -qE '^\| rkmk_user:ralston3 +\| +3 \| +(2\.9|3\.0)' <<<"$rep" \
  && ok "each tableau its own order (4 and 3)" || bad "orders: $rep"
"$LB" report two.h5 --format tex | grep -q 'rkmk\\_user:rkmk38' && ok "tex names the tableau" || bad "tex"
"$LB" report two.h5 --format csv | grep -q '^,rkmk_user:ralston3,3,' && ok "csv names the tableau" || bad "csv"
/usr/bin/python3 - two.h5 <<'PY' && ok "/summary/method, run attribute method, /study methods name the tableaus" || bad "h5 names"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
m = [x.decode() for x in f["summary/method"][()]]
assert m.count("rkmk_user:rkmk38") == 5 and m.count("rkmk_user:ralston3") == 5, m
assert f["runs/run_00005"].attrs["method"] == "rkmk_user:ralston3", f["runs/run_00005"].attrs["method"]
assert [x.decode() if isinstance(x, bytes) else x for x in f["study"].attrs["methods"]][:2] == \
    ["rkmk_user:rkmk38", "rkmk_user:ralston3"]
assert "methods = rkmk_user:ralston3" in f["runs/run_00005"].attrs["config"]
PY
grep -q 'rkmk_user:ralston3 steps=16' two.h5.log && ok "run log names the tableau" || bad "run log: $(cat two.h5.log)"
# a run's stored configuration repeats that run alone
/usr/bin/python3 -c 'import h5py,sys; print(h5py.File("two.h5","r")["runs/run_00005"].attrs["config"])' > one.cfg
"$LB" run one.cfg -o one.h5 -q && /usr/bin/python3 - <<'PY' && ok "the stored run configuration repeats the run" || bad "repeat"
import h5py
a, b = h5py.File("two.h5", "r"), h5py.File("one.h5", "r")
assert a["summary/error"][5] == b["summary/error"][0] and b["summary/method"][0] == b"rkmk_user:ralston3"
PY
# the plot script reads /summary/method: the legend names the tableaus
if /usr/bin/python3 -c 'import h5py, matplotlib' 2>/dev/null; then
  mkdir -p mpl && echo 'svg.fonttype: none' > mpl/matplotlibrc  # text as text, to grep the legend
  out=$(MPLCONFIGDIR=$PWD/mpl /usr/bin/python3 "$SRC/scripts/plots/plot_study.py" two.h5 --out plots --formats svg 2>&1)
  st=$?
  svg=$(ls plots/*.svg 2>/dev/null | head -1)
  [[ $st -eq 0 && -n "$svg" ]] && grep -q 'rkmk_user:ralston3' "$svg" && ok "plot legend names the tableaus" \
    || bad "plot: exit $st: $out"
fi
out=$("$LB" tableau two.cfg 2>&1)
[[ "$out" == *"user tableau 'ralston3'"*"order found: 3"*"user tableau 'rkmk38'"*"order found: 4"* ]] \
  && ok "liebench tableau checks every tableau of the file" || bad "tableau: $out"

# the one-tableau form (tableau.name and the keys tableau.*) is named by its tableau too
cat > one_form.cfg <<'CFG'
study = simulate
model = nfold_pendulum
methods = classical_user
steps = 10
t_final = 100
[tableau]
name = rk4copy
A = 0; 1/2; 0, 1/2; 0, 0, 1
b = 1/6, 1/3, 1/3, 1/6
CFG
out=$("$LB" run one_form.cfg -o one_form.h5 2>&1); st=$?
[[ $st -eq 3 && "$out" == *"run_00000 (classical_user:rk4copy steps=10): nonfinite"* ]] \
  && ok "failure line names the tableau (one-tableau form)" || bad "one-tableau form: exit $st: $out"
"$LB" report one_form.h5 | grep -q '^| classical_user:rk4copy ' && ok "report names the tableau (one-tableau form)" \
  || bad "one-tableau report: $("$LB" report one_form.h5)"
# a tableau given on the command line, and as reference method
expect_status "tableau on the command line" 0 "" "$LB" run /dev/null --model=free_rigid_body --study=convergence \
  --methods=rkmk_user:cli --steps=16,32 --tableau.cli.A='0; 1' --tableau.cli.b='1/2, 1/2' -o cli.h5 -q
expect_status "user tableau as reference method" 0 "" "$LB" run two.cfg --methods=rkmk4 --reference.method=rkmk_user:rkmk38 \
  --reference.steps=4096 -o ref.h5 -q
h5dump -a /references/point_00000/description ref.h5 | grep -q 'rkmk_user:rkmk38 steps=4096' \
  && ok "the reference names its tableau" || bad "reference description"

# bad input: exit 2, one line naming the problem
expect_status "a built-in method takes no tableau name" 2 "method 'rkmk4' takes no tableau name" \
  "$LB" run two.cfg --methods=rkmk4:x -o bad.h5
expect_status "an undefined tableau" 2 "no user tableau named 'nosuch'" "$LB" run two.cfg --methods=rkmk_user:nosuch -o bad.h5
expect_status "an ill-formed tableau name" 2 "letters, digits" "$LB" run two.cfg --methods=rkmk_user:a.b -o bad.h5
sed 's/^b = 1\/8/bb = 1\/8/' two.cfg > typo.cfg
expect_status "a typo in a tableau section (file)" 2 "typo.cfg:9: unknown key 'tableau.rkmk38.bb'" \
  "$LB" run typo.cfg -o bad.h5
expect_status "a typo in a tableau key (command line)" 2 "unknown key 'tableau.rkmk38.Ab'" \
  "$LB" run two.cfg --tableau.rkmk38.Ab=1 -o bad.h5
expect_status "a listed tableau twice" 2 "lists 'rkmk_user:rkmk38' twice" \
  "$LB" run two.cfg --methods=rkmk_user:rkmk38,rkmk_user:rkmk38 -o bad.h5
[[ -e bad.h5 ]] && bad "bad input wrote bad.h5" || ok "bad input wrote nothing"
finish
