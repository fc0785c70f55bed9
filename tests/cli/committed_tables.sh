#!/usr/bin/env bash
# The committed tables are what the code writes (issue 29, item 9): scripts/check_tables.sh
# regenerates the tables of eleven experiments that run in under a second (every family: [P]
# double pendulum, heavy top and quadrotors; [K] rigid body and dipoles; [L] pendulum, spheres,
# springs, magnets) into a scratch directory and compares them with results/tables/, timings excluded.
# The rest: `bash scripts/check_tables.sh` (README, "Results"). The comparison itself is shown
# to fail on a changed digit, a missing and an extra table.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
FAST=('P_fig5_double_pendulum_convergence' 'P_fig6_7_double_pendulum_invariants' 'P_fig2_heavy_top_slgi_convergence'
      'P_fig14_18_quadrotors_tracking' 'K_fig3_2_rigid_body_convergence' 'K_fig3_7_dipolar_energy_T1_h0.01'
      'K_fig3_11_dipolar_2d_two_particles' 'L_ex1_double_pendulum_rk45' 'L_ex2_sphere_bodies_lgvi' 'L_ex3_spring_pendula'
      'L_ex5_magnet_array_rk45')
out=$(LIEBENCH_BIN="$LB" bash "$SRC/scripts/check_tables.sh" "${FAST[@]}" 2>&1); st=$?
if [[ $st -eq 0 ]]; then ok "committed tables of ${#FAST[@]} experiment patterns as the code writes them: ${out##*compare_tables: }"
else bad "committed tables differ from the code's (status $st):
$out"; fi

expect_status "no experiment matches: exit 2" 2 "no experiment matches 'nope*'" \
  env LIEBENCH_BIN="$LB" bash "$SRC/scripts/check_tables.sh" 'nope*'

# The comparison fails where it must: one digit, a missing table, an extra one; timings ignored.
mkdir -p committed regenerated
cp "$SRC"/results/tables/P_fig5_double_pendulum_convergence.* committed/
cp committed/* regenerated/
expect_status "identical copies compare equal" 0 "as committed" /usr/bin/python3 "$SRC/scripts/compare_tables.py" committed regenerated
/usr/bin/python3 - regenerated/P_fig5_double_pendulum_convergence.work-precision.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
i = rows[0].index("wall_seconds")
for r in rows[1:]: r[i] = "123.0"
csv.writer(open(sys.argv[1], "w", newline="")).writerows(rows)
PY
expect_status "other wall times compare equal" 0 "as committed" /usr/bin/python3 "$SRC/scripts/compare_tables.py" committed regenerated
sed -i '0,/e-10/s/e-10/e-11/' regenerated/P_fig5_double_pendulum_convergence.md
expect_status "one changed exponent is found" 1 "P_fig5_double_pendulum_convergence.md differs at line" \
  /usr/bin/python3 "$SRC/scripts/compare_tables.py" committed regenerated
cp committed/P_fig5_double_pendulum_convergence.md regenerated/
rm committed/P_fig5_double_pendulum_convergence.tex
expect_status "a table not committed is found" 1 "written by the code but not committed" \
  /usr/bin/python3 "$SRC/scripts/compare_tables.py" committed regenerated
cp regenerated/P_fig5_double_pendulum_convergence.tex committed/
rm regenerated/P_fig5_double_pendulum_convergence.convergence.csv
expect_status "a committed table no longer written is found" 1 "committed but no longer written" \
  /usr/bin/python3 "$SRC/scripts/compare_tables.py" committed regenerated
finish
