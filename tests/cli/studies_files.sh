#!/usr/bin/env bash
# The five study kinds run from the example experiment files under mpirun -n 2 and write
# valid HDF5 with the documented layout (checked with h5dump); `liebench report` gives
# identical tables (md, tex, csv) from one job and from the same study in three merged parts.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
run2() { "${MPIRUN[@]}" -n 2 "$LB" run "$@" --quiet; }

# ---- five kinds, small versions of the examples (overrides on the command line)
run2 "$EX/frb_simulate.cfg" --steps=200 --t_final=2 --state_every=50 -o simulate.h5 && ok "simulate" || bad "simulate"
run2 "$EX/frb_convergence.cfg" --steps=2^3..2^7 --reference.steps=4096 -o convergence.h5 && ok "convergence" || bad "convergence"
run2 "$EX/frb_invariants.cfg" --t_final=10 -o invariants.h5 && ok "invariants" || bad "invariants"
run2 "$EX/frb_adaptive.cfg" --tol=1e-4,1e-7 --t_final=4 -o adaptive.h5 && ok "adaptive" || bad "adaptive"
"$LB" run "$EX/frb_scaling.cfg" --steps=500 "--scaling.layouts=1x1 2x1" -o scaling_1x1.h5 -q && ok "scaling 1x1" || bad "scaling 1x1"
run2 "$EX/frb_scaling.cfg" --steps=500 "--scaling.layouts=1x1 2x1" -o scaling_2x1.h5 && ok "scaling 2x1" || bad "scaling 2x1"
"$LB" merge scaling_1x1.h5 scaling_2x1.h5 -o scaling.h5 2> /dev/null && ok "scaling merged" || bad "scaling merge"
expect_status "scaling report" 0 "| 2x1    |" "$LB" report scaling.h5

# ---- h5dump: valid files with the documented layout (results/README.md)
has() {  # FILE PATH...: every path is listed by h5dump -n
  local f=$1; shift
  local listing; listing=$(h5dump -n "$f" 2>&1) || { bad "h5dump cannot read $f"; return; }
  for p in "$@"; do
    grep -q -E "^ *(group|dataset) +$p( |$)" <<< "$listing" || { bad "$f lacks $p"; return; }
  done
  ok "$f: layout"
}
common=(/h5md /h5md/author /h5md/creator /parameters /study /study/axes /provenance/job_0 /provenance/job_0/max_rss
        /runs/run_00000 /runs/run_00000/final_state /runs/run_00000/timings /summary /summary/run_id
        /summary/run_index /summary/method)
has simulate.h5 "${common[@]}" /particles/free_rigid_body/box /particles/free_rigid_body/state/value \
  /particles/free_rigid_body/state/step /particles/free_rigid_body/state/time /observables/total_energy/value
has convergence.h5 "${common[@]}" /summary/error /summary/h /summary/steps /references/point_00000/final_state \
  /analysis/convergence/observed_order /runs/run_00034/final_state
has invariants.h5 "${common[@]}" /runs/run_00007/observables/total_energy/value /runs/run_00007/observables/casimir/time \
  /summary/total_energy.rel_error.drift /summary/orthogonality_error.max
has adaptive.h5 "${common[@]}" /runs/run_00003/step_size/value /runs/run_00003/error_estimate/value \
  /runs/run_00003/rejected_time /summary/accepted /summary/compare_error
has scaling.h5 "${common[@]}" /runs/run_00001/timings/rhs /provenance/job_1
for f in simulate convergence invariants adaptive scaling; do
  kind=$(h5dump -a /study/kind "$f.h5" 2>&1 | grep '(0):' | grep -o '"[a-z]*"' | tr -d '"')
  [[ "$kind" == "$f" ]] && ok "$f.h5: /study/kind = $kind" || bad "$f.h5: /study/kind = '$kind'"
done
state=$(h5dump -d /runs/run_00000/final_state -H simulate.h5 | grep -o 'SIMPLE { ( [0-9, ]* )' | head -1)
[[ "$state" == "SIMPLE { ( 1, 12 )" ]] && ok "final_state is [components][values]" || bad "final_state shape: $state"
frames=$(h5dump -d /particles/free_rigid_body/state/value -H simulate.h5 | grep -o 'SIMPLE { ( [0-9, ]* )' | head -1)
[[ "$frames" == "SIMPLE { ( 5, 1, 12 )" ]] && ok "H5MD value is [frames][N][dim]" || bad "H5MD value shape: $frames"
h5dump -a /h5md/version simulate.h5 | grep -q "1, 1" && ok "H5MD version 1.1" || bad "H5MD version"
h5dump -a /runs/run_00000/params convergence.h5 | grep -q "method=lie_euler; steps=8" && ok "run params attribute" \
  || bad "run params attribute"

# ---- one job vs three parts merged: identical tables and /summary
for k in 1 2 3; do
  run2 "$EX/frb_convergence.cfg" --steps=2^3..2^7 --reference.steps=4096 --part $k/3 -o part$k.h5 || bad "part $k/3"
done
"$LB" merge part3.h5 part1.h5 part2.h5 -o merged.h5 2> /dev/null && ok "merge of 3 parts" || bad "merge of 3 parts"
for fmt in md tex csv; do
  "$LB" report convergence.h5 --format $fmt > one.$fmt && "$LB" report merged.h5 --format $fmt > merged.$fmt
  if cmp -s one.$fmt merged.$fmt && [[ -s one.$fmt ]]; then ok "report --format $fmt identical"
  else bad "report --format $fmt differs: $(diff one.$fmt merged.$fmt | head -5)"; fi
done
for g in /summary /analysis /references /study /parameters; do
  h5diff convergence.h5 merged.h5 $g $g > /dev/null && ok "h5diff $g identical" || bad "h5diff $g differs"
done
grep -q "rkmk4 " one.md || grep -q "| rkmk4 " one.md && ok "report lists rkmk4" || bad "report lacks rkmk4"

# ---- merge refuses what does not belong together
expect_status "merge with a missing part" 2 "missing run_" "$LB" merge part1.h5 part2.h5 -o x.h5
expect_status "merge with a part twice" 2 "in both" "$LB" merge part1.h5 part1.h5 part2.h5 part3.h5 -o x.h5
run2 "$EX/frb_convergence.cfg" --steps=2^3..2^7 --reference.steps=2048 --part 1/3 -o other1.h5
expect_status "merge of different configurations" 2 "different configurations" \
  "$LB" merge other1.h5 part2.h5 part3.h5 -o x.h5
expect_status "merge onto an existing file" 2 "pass --force" "$LB" merge part1.h5 part2.h5 part3.h5 -o merged.h5
[[ -e x.h5 ]] && bad "a refused merge wrote x.h5" || ok "refused merges write nothing"
finish
