#!/usr/bin/env bash
# ranks_per_run: P/k groups of k ranks run disjoint parts of a study's grid side by side and
# rank 0 merges them. The result must be the file of a single job (identical reports and
# /summary), no part file may be left behind, and bad values are reported before anything runs.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
EXP="$SRC/experiments/P_fig5_double_pendulum_convergence.cfg"
common=(--steps=2^4..2^7 --reference.tol=1e-10 --quiet)

# same_as_single NAME EXPERIMENT NP K: run with NP ranks in groups of K, compare with one job
same_as_single() {
  local name=$1 exp=$2 np=$3 k=$4
  local out="${name}_np${np}_k${k}.h5"
  [[ -e "$name.h5" ]] || { "$LB" run "$exp" "${common[@]}" -o "$name.h5" >/dev/null 2>&1 && "$LB" report "$name.h5" > "$name.md" 2>/dev/null; } \
    || bad "$name: serial run failed"
  if "${MPIRUN[@]}" -n "$np" "$LB" run "$exp" "${common[@]}" --ranks_per_run="$k" -o "$out" >/dev/null 2>log.txt; then
    "$LB" report "$out" > "${out%.h5}.md" 2>/dev/null
    if diff -q "$name.md" "${out%.h5}.md" >/dev/null && h5diff "$name.h5" "$out" /summary /summary >/dev/null; then
      ok "$name, np $np, ranks_per_run $k: same tables and /summary as one job"
    else
      bad "$name, np $np, ranks_per_run $k: result differs from the single job"
    fi
  else
    bad "$name, np $np, ranks_per_run $k: run failed: $(cat log.txt)"
  fi
}
same_as_single chain "$EXP" 2 1
same_as_single chain "$EXP" 4 1
# groups of 2 ranks (the rigid body lives on the first rank of its group)
common=(--steps=2^2..2^6 --quiet)
same_as_single rigid "$SRC/experiments/K_fig3_2_rigid_body_convergence.cfg" 4 2
common=(--steps=2^4..2^7 --reference.tol=1e-10 --quiet)
if ls ./*.part* >/dev/null 2>&1; then bad "part files left behind: $(ls ./*.part*)"; else ok "no part files left"; fi

expect_status "ranks_per_run must divide the ranks" 2 "must divide" \
  "${MPIRUN[@]}" -n 3 "$LB" run "$EXP" "${common[@]}" --ranks_per_run=2 -o bad.h5
expect_status "ranks_per_run with --part" 2 "cannot be combined with --part" \
  "${MPIRUN[@]}" -n 2 "$LB" run "$EXP" "${common[@]}" --ranks_per_run=1 --part 1/2 -o bad.h5
expect_status "a chain split below its blocks names ranks_per_run" 2 "ranks_per_run" \
  "${MPIRUN[@]}" -n 2 "$LB" run "$EXP" "${common[@]}" -o bad.h5
[[ -e bad.h5 ]] && bad "bad input created bad.h5" || ok "bad input created nothing"
finish
