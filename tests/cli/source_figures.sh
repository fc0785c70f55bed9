#!/usr/bin/env bash
# The figures of the sources (studies/plots/source_figures.py) from small versions of the
# experiments (same files, fewer steps/grid points, written under the experiments' names): every
# expected figure exists as a non-trivial PNG and a PDF; a figure whose file is missing is
# skipped with a message and status 1; results/figures/README.md is the script's list; and the
# work-precision table holds exactly the file's numbers (/summary, runs/*/timings/integrate).
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
PY=/usr/bin/python3
XP="$SRC/experiments"
"$PY" -c "import h5py, numpy, matplotlib" || { bad "Debian python3-h5py/numpy/matplotlib missing"; finish; }
mkdir -p results
run() { local name=$1; shift; "$LB" run "$XP/$name.cfg" -o "results/$name.h5" -q "$@" || bad "run $name $*"; }
run P_fig5_double_pendulum_convergence --steps=2^4..2^6
run P_fig6_7_double_pendulum_invariants --t_final=0.5
run P_fig6_7_double_pendulum_invariants_ode45 --t_final=0.5
run P_fig8_9_11_adaptive_chain "--grid=nfold_pendulum.N = 2, 4"
run P_fig9_11_double_pendulum_ode45
run P_fig2_heavy_top_trajectory --steps=128
run P_fig2_heavy_top_slgi_convergence --steps=2^5..2^7 --reference.steps=1024
run P_fig2_heavy_top_slgikk_convergence --steps=2^5..2^7 --reference.steps=1024
run P_fig3_heavy_top_energy --t_final=1
run K_fig3_1_rigid_body_orbits "--grid=free_rigid_body.seed = 1, 2" --t_final=5
run K_fig3_11_dipolar_2d_two_particles --steps=200 --t_final=20
figs=P_fig2,P_fig3,P_fig5,P_fig5_work_precision,P_fig6,P_fig7,P_fig8,P_fig8_work_precision,P_fig9,P_fig11,K_fig3_1,K_fig3_11,K_fig3_12
"$PY" "$SRC/studies/plots/source_figures.py" --results results --out figs --only "$figs" > figs.list 2> figs.err \
  && ok "source_figures.py ran" || bad "source_figures.py: $(cat figs.err)"
for fig in ${figs//,/ }; do
  size=$(stat -c %s "figs/$fig.png" 2>/dev/null || echo 0)
  # a figure with axes, curves and labels is tens of kB; an empty canvas a few kB
  [[ $size -gt 20000 ]] && ok "figs/$fig.png ($size bytes)" || bad "figs/$fig.png missing or trivial ($size bytes)"
  head -c 5 "figs/$fig.pdf" 2>/dev/null | grep -q "%PDF" && ok "figs/$fig.pdf" || bad "figs/$fig.pdf missing"
done
expect_status "a figure without its file is skipped" 1 "K_fig3_2 skipped: results/K_fig3_2_rigid_body_convergence.h5 missing" \
  "$PY" "$SRC/studies/plots/source_figures.py" --results results --out figs --only K_fig3_2
expect_status "an unknown figure name" 2 "--only names P_fig99" \
  "$PY" "$SRC/studies/plots/source_figures.py" --results results --out figs --only P_fig99
"$PY" "$SRC/studies/plots/source_figures.py" --out figs --only P_fig5 --results results --readme list.md > /dev/null
cmp -s list.md "$SRC/results/figures/README.md" && ok "results/figures/README.md is the script's list" \
  || bad "results/figures/README.md differs from source_figures.py --readme (regenerate it)"

# Work-precision table against the file's own datasets.
for stem in P_fig5_double_pendulum_convergence P_fig8_9_11_adaptive_chain; do
  "$PY" "$SRC/studies/plots/plot_study.py" "results/$stem.h5" --out plots --tables tables --formats png > /dev/null \
    || bad "plot_study.py $stem"
  "$PY" - "results/$stem.h5" "tables/$stem.work-precision.csv" <<'PYEOF' && ok "$stem work-precision table = file" || bad "$stem work-precision table"
import csv, sys
import h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
rows = list(csv.DictReader(open(sys.argv[2])))
s = f["summary"]
ids = [x.decode() for x in s["run_id"][()]]
status = [x.decode() for x in s["status"][()]]
adaptive = "compare_error" in s
want = []
for k, r in enumerate(ids):
    if status[k] != "ok":
        continue
    want.append((r, s["error"][k], s["rhs_evaluations"][k], np.max(f[f"runs/{r}/timings/integrate"][()])))
    if adaptive:
        want.append((r, s["compare_error"][k], s["compare_rhs_evaluations"][k],
                     np.max(f[f"runs/{r}/compare/timings/integrate"][()])))
assert len(rows) == len(want) > 0, (len(rows), len(want))
for row, (r, e, n, w) in zip(rows, want):
    assert row["run_id"] == r, (row, r)
    assert float(row["error"]) == e, (row, e)          # written with 17 significant digits: exact
    assert int(row["rhs_evaluations"]) == n, (row, n)
    assert float(row["wall_seconds"]) == w, (row, w)
    assert e > 0 and n > 0 and w > 0
# RHS evaluations of the fixed-step runs: stages x steps (an independent count)
if not adaptive:
    for k, r in enumerate(ids):
        stages = {"lie_euler": 1, "lie_euler_heun": 2, "rkmk3": 3}.get(s["method"][k].decode())
        if stages:
            assert s["rhs_evaluations"][k] == stages * s["steps"][k], (r, s["rhs_evaluations"][k])
PYEOF
  [[ -s plots/${stem}_work_precision.png ]] && ok "plots/${stem}_work_precision.png" || bad "work-precision figure of $stem"
done
finish
