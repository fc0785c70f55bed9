#!/usr/bin/env bash
# [L] Fig. 7 from a sphere_md file: the experiment file's settings on a small system (42 molecules,
# level 1), plot_sphere_md.py writes the kinetic energy over the 5120 faces at the paper's times to
# <file>.faces.h5 and draws the PNG; face values are averages of molecule kinetic energies (within
# their range), the mesh is the 5120-face icosphere; a missing time fails with one line, exit != 0.
# scripts/tables/paper_table.py sets the run beside the '# paper:' lines.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
PY=/usr/bin/python3
"$PY" -c "import h5py, numpy, matplotlib" || { bad "Debian python3-h5py/numpy/matplotlib missing"; finish; }
"$LB" run "$SRC/experiments/L_ex6_sphere_md.cfg" --sphere_md.level=1 -o md.h5 -q || bad "sphere_md run"
"$PY" "$SRC/scripts/plots/plot_sphere_md.py" md.h5 --out plots > list || bad "plot_sphere_md.py failed"
[[ -s plots/md_fig7_kinetic_energy.png ]] && ok "Fig. 7 PNG" || bad "plots/md_fig7_kinetic_energy.png missing"
"$PY" - <<'PYEOF' && ok "faces file" || bad "faces file"
import h5py, numpy as np
f = h5py.File("md.faces.h5", "r")
g = h5py.File("md.h5", "r")["particles/molecules"]
assert list(f["time"][:]) == [0.0, 0.25, 0.5, 0.75, 5.0], f["time"][:]
ke, V, F = f["face_kinetic_energy"][:], f["vertices"][:], f["faces"][:]
assert ke.shape == (5, 5120) and F.shape == (5120, 3) and V.shape == (2562, 3)
assert np.allclose(np.linalg.norm(V, axis=1), 1.0, atol=1e-15)
t = g["kinetic_energy/time"][:]
for r, time in enumerate(f["time"][:]):
    k = g["kinetic_energy/value"][int(np.argmin(abs(t - time)))][:, 0]
    v = ke[r][np.isfinite(ke[r])]
    assert v.size > 0 and v.min() >= k.min() - 1e-15 and v.max() <= k.max() + 1e-15, (time, v.min(), v.max())
PYEOF
expect_status "a time without a saved state" 1 "no saved state at t = 0.1" "$PY" "$SRC/scripts/plots/plot_sphere_md.py" md.h5 --times 0,0.1 --out plots
cp "$SRC/experiments/L_ex6_sphere_md.cfg" L_ex6_sphere_md.cfg
"$PY" "$SRC/scripts/tables/paper_table.py" L_ex6_sphere_md.cfg md.h5 . || bad "paper_table.py failed"
grep -q '| lgvi_explicit | dt=0.005 | 1000 | 1001 | .* (1.8893e-03) | .* (5.2623e-15) |' L_ex6_sphere_md.paper.md \
  && ok "paper table row" || bad "paper table row: $(cat L_ex6_sphere_md.paper.md)"
"$PY" - <<'PYEOF' && ok "paper CSV: one rectangular table, the paper's values in their columns" || bad "paper CSV"
import csv
rows = list(csv.reader(open("L_ex6_sphere_md.paper.csv")))
assert len(set(map(len, rows))) == 1 and len(set(rows[0])) == len(rows[0]), rows
h = rows[0]
r = dict(zip(h, rows[1]))
assert r["paper_mean_abs_energy"] == "1.8893e-03" and r["paper_mean_unit"] == "5.2623e-15" and r["paper_max_rel_energy"] == "", r
assert abs(float(r["mean_abs_energy"]) - float(r["mean_rel_energy"]) * abs(float(r["E0"]))) < 1e-12 * float(r["mean_abs_energy"])
PYEOF
finish
