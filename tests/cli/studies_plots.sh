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
  "$PY" "$SRC/studies/plots/plot_study.py" $f.h5 --out plots > $f.list || bad "plot_study.py $f.h5 failed"
done
for p in conv_convergence ada_stepsize ada_error_vs_tol ada_invariants inv_invariants; do
  for ext in png pdf; do
    [[ -s plots/$p.$ext ]] && ok "plots/$p.$ext" || bad "plots/$p.$ext missing"
  done
done
head -c 8 plots/conv_convergence.png | grep -q PNG && ok "PNG signature" || bad "not a PNG"
head -c 5 plots/conv_convergence.pdf | grep -q "%PDF" && ok "PDF signature" || bad "not a PDF"
expect_status "plot of a non-study file" 1 "" "$PY" "$SRC/studies/plots/plot_study.py" /dev/null
finish
