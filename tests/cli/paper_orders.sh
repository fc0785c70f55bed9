#!/usr/bin/env bash
# The regenerated [P] Fig. 5 convergence table (experiments/P_fig5_double_pendulum_convergence.cfg,
# run on 2 ranks with grid points side by side) shows every method's nominal order within 0.2,
# and so do the other convergence experiments of the sources that run in seconds: [K] Fig. 3.2
# (free rigid body, exact solution), [K] Fig. 3.5 (dipolar soft spheres) and [P] Fig. 2 (heavy top,
# SLGI theta = 0, 1/2, 1 and SLGIKK).
# The orders are read from the file's /analysis/convergence (what `liebench report` prints).
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
check_orders() {  # NAME FILE.h5
  /usr/bin/python3 - "$2" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
a = f["analysis/convergence"]
bad = 0
for m, g, p, o in zip(a["method"][()], a["group"][()], a["nominal_order"][()], a["observed_order"][()]):
    ok = abs(o - p) <= 0.2
    bad += not ok
    print(f"   {m.decode():16s} {g.decode():24s} nominal {p}  observed {o:.3f}  {'ok' if ok else 'OFF'}")
sys.exit(1 if bad or len(a["method"][()]) == 0 else 0)
PY
}
for exp in P_fig5_double_pendulum_convergence K_fig3_2_rigid_body_convergence K_fig3_5_dipolar_convergence \
           P_fig2_heavy_top_slgi_convergence \
           P_fig2_heavy_top_slgikk_convergence; do
  if "${MPIRUN[@]}" -n 2 "$LB" run "$SRC/experiments/$exp.cfg" --ranks_per_run=1 -o "$exp.h5" --quiet >log.txt 2>&1; then
    if check_orders "$exp" "$exp.h5"; then ok "$exp: every observed order within 0.2 of nominal"
    else bad "$exp: an observed order is off"; fi
  else
    bad "$exp: run failed: $(cat log.txt)"
  fi
done
finish
