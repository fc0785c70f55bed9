#!/usr/bin/env bash
# Issue 29 item 4: every study kind reports a table whose failed rows show `failed` (md, tex,
# csv) with the reason in a note, for any number of failed runs including all of them (an
# adaptive study whose only run failed was refused with exit 2 and "'out.h5' is a adaptive
# study").
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"

# check_report NAME FILE TABLE: md, tex and csv of TABLE exit 0 and show `failed` in the failed
# rows; md and tex also the reason, in a note below the table (csv: one row per run, no notes)
check_report() {
  local name=$1 file=$2 table=$3 fmt rep st
  for fmt in md tex csv; do
    rep=$("$LB" report "$file" --format $fmt --table "$table" 2>&1); st=$?
    if [[ $st -ne 0 ]]; then bad "$name: report --format $fmt: exit $st: $rep"; continue; fi
    local id=run_00000; [[ $fmt == tex ]] && id='run\_00000'
    if [[ $fmt == csv && $(grep -v '^#' <<<"$rep" | grep -c ',failed') -ge 1 ]] ||
       [[ $fmt != csv && $(grep -c failed <<<"$rep") -ge 2 && "$rep" == *"$id"*"failed: "* ]]; then
      local what="the failed rows"; [[ $fmt != csv ]] && what+=" and the reason"
      ok "$name: $fmt table shows $what"
    else
      bad "$name: $fmt table: $rep"
    fi
  done
}

# An adaptive study whose only run fails (the issue's case: tol = 1e-300, step size underflow).
cat > adapt.cfg <<'CFG'
study = adaptive
model = nfold_pendulum
methods = rkmk54
tol = 1e-6
t_final = 3
reference.method = dopri54
reference.tol = 1e-10
adaptive.compare_method = rkmk5
[nfold_pendulum]
N = 2
initial = paper
CFG
out=$("$LB" run adapt.cfg --tol=1e-300 -o out.h5 -q 2>&1); st=$?
[[ $st -eq 3 && "$out" == *"step size underflow"* ]] && ok "adaptive, only run failed: exit 3, reason on stderr" \
  || bad "adaptive, only run failed: exit $st: $out"
check_report "adaptive, only run failed" out.h5 adaptive
row=$("$LB" report out.h5 | grep '| rkmk54')
[[ "$row" == *"1.0e-300"*"failed"*"failed"*"failed"* && "$row" != *"e+00 "* ]] \
  && ok "adaptive md row: tol 1e-300, failed results" || bad "adaptive md row: $row"
# the failed run keeps the steps it took (its step-size history is data)
acc=$(h5dump -d /summary/accepted out.h5 2>/dev/null | grep -A1 'DATA {' | tail -1 | tr -dc '0-9')
[[ -n "$acc" ]] && ok "adaptive: the failed run's accepted steps are recorded ($acc)" || bad "no accepted column"
# one of two tolerances fails
out=$("$LB" run adapt.cfg --tol=1e-6,1e-300 -o two.h5 -q 2>&1); st=$?
[[ $st -eq 3 ]] && ok "adaptive, one of two failed: exit 3" || bad "adaptive, one of two: exit $st: $out"
rep=$("$LB" report two.h5)
grep '1.0e-06' <<<"$rep" | grep -qv failed && grep '1.0e-300' <<<"$rep" | grep -q failed \
  && ok "adaptive, one of two failed: numbers for the good run, failed for the other" || bad "adaptive two: $rep"
# grammar of the kind in the message of a table the file does not have
out=$("$LB" report out.h5 --table convergence 2>&1); st=$?
[[ $st -eq 2 && "$out" == *"is an adaptive study"* ]] && ok "'an adaptive study'" || bad "grammar: $st: $out"

# A convergence study whose every run fails (the implicit solve at h = 25, 50 does not converge).
out=$("$LB" run /dev/null --model=nfold_pendulum --study=convergence --methods=lgvi --steps=1,2 --t_final=50 \
  --reference.method=lgvi --reference.steps=8192 -o conv.h5 -q 2>&1); st=$?
[[ $st -eq 3 ]] && ok "convergence, every run failed: exit 3" || bad "convergence, all failed: exit $st: $out"
check_report "convergence, every run failed" conv.h5 convergence
rep=$("$LB" report conv.h5)
[[ "$rep" == *"| lgvi "*"no order"* && "$rep" == *"lgvi: no order: every run failed"* ]] \
  && ok "convergence, every run failed: no order, and why" || bad "convergence all failed: $rep"

# invariants and scaling studies whose every run fails
for kind in invariants scaling; do
  out=$("$LB" run /dev/null --model=nfold_pendulum --study=$kind --methods=lgvi --steps=10 --t_final=100 \
    -o $kind.h5 -q 2>&1); st=$?
  [[ $st -eq 3 ]] && ok "$kind, every run failed: exit 3" || bad "$kind, all failed: exit $st: $out"
  check_report "$kind, every run failed" $kind.h5 $kind
done
check_report "energy-drift, every run failed" invariants.h5 energy-drift
finish
