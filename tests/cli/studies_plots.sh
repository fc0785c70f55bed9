#!/usr/bin/env bash
# The plotting script makes PNG and PDF plots from result files with Debian's Python
# (/usr/bin/python3 with python3-h5py, python3-numpy, python3-matplotlib).
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
PY=/usr/bin/python3
"$PY" -c "import h5py, numpy, matplotlib" || { bad "Debian python3-h5py/numpy/matplotlib missing (scripts/setup.sh installs them)"; finish; }
"$LB" run "$EX/frb_convergence.cfg" --steps=2^3..2^6 --reference.steps=1024 -o conv.h5 -q || bad "convergence run"
"$LB" run "$EX/frb_adaptive.cfg" --tol=1e-4,1e-6 --t_final=3 -o ada.h5 -q || bad "adaptive run"
"$LB" run "$EX/frb_invariants.cfg" --t_final=5 -o inv.h5 -q || bad "invariants run"
for f in conv ada inv; do
  "$PY" "$SRC/scripts/plots/plot_study.py" $f.h5 --out plots > $f.list || bad "plot_study.py $f.h5 failed"
done
for p in conv_convergence conv_work_precision ada_stepsize ada_error_vs_tol ada_work_precision ada_invariants inv_invariants; do
  for ext in png pdf; do
    [[ -s plots/$p.$ext ]] && ok "plots/$p.$ext" || bad "plots/$p.$ext missing"
  done
done
for t in conv ada; do
  [[ -s plots/$t.work-precision.csv ]] && ok "plots/$t.work-precision.csv" || bad "plots/$t.work-precision.csv missing"
done
# adaptive invariants are sampled (the dense output at sample_dt), not only at t0 and T
"$LB" run "$EX/frb_adaptive.cfg" --tol=1e-6 --t_final=3 --sample_dt=0.1 -o ada_dt.h5 -q || bad "adaptive run with sample_dt"
n=$("$PY" -c "import h5py; print(len(h5py.File('ada_dt.h5')['runs/run_00000/observables/total_energy/time']))")
[[ $n -eq 31 ]] && ok "adaptive observables at the 31 sample_dt times" || bad "adaptive observables: $n samples, expected 31"
head -c 8 plots/conv_convergence.png | grep -q PNG && ok "PNG signature" || bad "not a PNG"
head -c 5 plots/conv_convergence.pdf | grep -q "%PDF" && ok "PDF signature" || bad "not a PDF"
# bad input: one line naming the file, exit 2 (not an HDF5 file; an HDF5 file without a study)
expect_status "plot of a non-HDF5 file" 2 "plot_study: /dev/null: not an HDF5 file" "$PY" "$SRC/scripts/plots/plot_study.py" /dev/null
"$PY" -c "import h5py; h5py.File('empty.h5', 'w').close()"
expect_status "plot of an HDF5 file without a study" 2 "plot_study: empty.h5: not a liebench study file" \
  "$PY" "$SRC/scripts/plots/plot_study.py" empty.h5
finish
