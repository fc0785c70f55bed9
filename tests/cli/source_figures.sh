#!/usr/bin/env bash
# The figures of the sources (scripts/plots/source_figures.py) from small versions of the
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
run P_fig14_18_quadrotors_tracking --t_final=2
run L_ex1_double_pendulum_lgvi --t_final=2
run L_ex1_double_pendulum_rk45 --t_final=2
run L_ex2_sphere_bodies_lgvi --t_final=0.2
run L_ex2_sphere_bodies_rk2 --t_final=0.2
run L_ex3_spring_pendula --t_final=0.2
run L_ex4_elastic_rod_lgvi --t_final=0.02
run L_ex4_elastic_rod_rk45 --t_final=0.02
run L_ex5_magnet_array_lgvi --t_final=0.05
run L_ex5_magnet_array_rk45 --t_final=0.05
run L_ex6_sphere_md --t_final=0.05
figs=P_fig2,P_fig3,P_fig5,P_fig5_work_precision,P_fig6,P_fig7,P_fig8,P_fig8_work_precision,P_fig9,P_fig11,K_fig3_1,K_fig3_11,K_fig3_12
figs+=,P_fig14,P_fig15,P_fig16,P_fig17,P_fig18,L_fig1,L_fig2,L_fig3,L_fig4,L_fig5,L_fig6
"$PY" "$SRC/scripts/plots/source_figures.py" --results results --out figs --only "$figs" > figs.list 2> figs.err \
  && ok "source_figures.py ran" || bad "source_figures.py: $(cat figs.err)"
for fig in ${figs//,/ }; do
  size=$(stat -c %s "figs/$fig.png" 2>/dev/null || echo 0)
  # a figure with axes, curves and labels is tens of kB; an empty canvas a few kB
  [[ $size -gt 20000 ]] && ok "figs/$fig.png ($size bytes)" || bad "figs/$fig.png missing or trivial ($size bytes)"
  head -c 5 "figs/$fig.pdf" 2>/dev/null | grep -q "%PDF" && ok "figs/$fig.pdf" || bad "figs/$fig.pdf missing"
done
expect_status "a figure without its file is skipped" 1 "K_fig3_2 skipped: results/K_fig3_2_rigid_body_convergence.h5 missing" \
  "$PY" "$SRC/scripts/plots/source_figures.py" --results results --out figs --only K_fig3_2
expect_status "an unknown figure name" 2 "--only names P_fig99" \
  "$PY" "$SRC/scripts/plots/source_figures.py" --results results --out figs --only P_fig99
"$PY" "$SRC/scripts/plots/source_figures.py" --out figs --only P_fig5 --results results --readme list.md > /dev/null
cmp -s list.md "$SRC/results/figures/README.md" && ok "results/figures/README.md is the script's list" \
  || bad "results/figures/README.md differs from source_figures.py --readme (regenerate it)"

# [P] Figs 14-18: the plot's y_d(t) (the formula of [P] 6.2) against the model's own load error
# y - y_d at the same samples, the plot's per-link |1 - q_i.q_i| from the stored directions against
# the model's unit_norm_error, and the Lie group method at round-off where RK4 drifts (issue 10).
"$PY" - "$SRC/scripts/plots" results/P_fig14_18_quadrotors_tracking.h5 <<'PYEOF' \
  && ok "P_fig14-18: y_d, |q_i| and the RKMK4/RK4 contrast from the file" || bad "P_fig14-18 data checks"
import sys
sys.path.insert(0, sys.argv[1])
import h5py, numpy as np
import source_figures as sf
f = h5py.File(sys.argv[2], "r")
unit = {}
for r, word in sf.quad_runs(f):
    t, y = sf.trajectory(f, r, "load_position")
    yd = sf.desired_load_position(t)
    for c in range(3):
        te, e = sf.series(f, r, f"load_error_{'xyz'[c]}")
        assert np.array_equal(te, t), (r, c)
        assert np.max(np.abs(y[:, 0, c] - yd[:, c] - e)) < 1e-13, (r, c, np.max(np.abs(y[:, 0, c] - yd[:, c] - e)))
    _, q = sf.trajectory(f, r, "link_directions")
    per_link = np.abs(1 - np.einsum("kic,kic->ki", q[:, 0, :].reshape(-1, 2, 3), q[:, 0, :].reshape(-1, 2, 3)))
    _, u = sf.series(f, r, "unit_norm_error")
    assert np.max(np.abs(per_link.max(axis=1) - np.abs(u))) < 1e-15, r
    unit[word] = per_link.max()
    # the load closes in on the parabola: |y - y_d| at t = 2 below a third of its value at t = 0
    assert np.linalg.norm(y[-1, 0] - yd[-1]) < np.linalg.norm(y[0, 0] - yd[0]) / 3, r
rk4 = [v for w, v in unit.items() if w == "RK4"][0]
lie = [v for w, v in unit.items() if w.startswith("RKMK4")][0]
assert lie < 1e-13 < 1e-11 < rk4, unit
print(unit)
PYEOF

# Work-precision table against the file's own datasets.
for stem in P_fig5_double_pendulum_convergence P_fig8_9_11_adaptive_chain; do
  "$PY" "$SRC/scripts/plots/plot_study.py" "results/$stem.h5" --out plots --tables tables --formats png > /dev/null \
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
