#!/usr/bin/env bash
# The trajectories that invariants and adaptive studies store with save_state (the data of the
# source figures) do not depend on ranks x threads: every dataset under runs/*/particles,
# runs/*/compare/particles and runs/*/observables is bitwise the same on 1 rank x 1 thread,
# 2 ranks x 1 thread and 2 ranks x 2 threads (chains split by links; the heavy top written by
# rank 0).
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
PY=/usr/bin/python3
XP="$SRC/experiments"
"$PY" -c "import h5py, numpy" || { bad "Debian python3-h5py/numpy missing"; finish; }
ada=(run "$XP/P_fig8_9_11_adaptive_chain.cfg" "--grid=nfold_pendulum.N = 6" --nfold_pendulum.blocks=2 --t_final=1
     --sample_dt=0.05 -q)
inv=(run "$XP/P_fig3_heavy_top_energy.cfg" --t_final=0.5 -q)
chain=(run "$XP/P_fig6_7_double_pendulum_invariants.cfg" --methods=rkmk4,rk4 --t_final=0.5 --save_state=true
       --state_every=5 --nfold_pendulum.N=6 --nfold_pendulum.blocks=2 -q)
for layout in 1x1 2x1 2x2; do
  np=${layout%x*}; nt=${layout#*x}
  for study in ada inv chain; do
    declare -n cmd=$study
    OMP_NUM_THREADS=$nt "${MPIRUN[@]}" -n "$np" "$LB" "${cmd[@]}" -o "$study.$layout.h5" \
      || bad "$study on $layout"
  done
done
for study in ada inv chain; do
  for layout in 2x1 2x2; do
    "$PY" - "$study.1x1.h5" "$study.$layout.h5" <<'PYEOF' && ok "$study: $layout = 1x1 (trajectories, observables)" || bad "$study: $layout differs from 1x1"
import sys
import h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = []
a["runs"].visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) and
                     ("particles/" in n or "observables/" in n) else None)
assert any("particles/" in n for n in names), "no trajectory stored"
for n in names:
    x, y = a["runs"][n][()], b["runs"][n][()]
    assert x.shape == y.shape and x.tobytes() == y.tobytes(), n
print(len(names), "datasets")
PYEOF
  done
done
# the adaptive file holds the comparison run's trajectory at every step and its timings
"$PY" - ada.1x1.h5 <<'PYEOF' && ok "adaptive: compare trajectory at every step, compare timings" || bad "adaptive compare group"
import sys
import h5py
f = h5py.File(sys.argv[1], "r")
n = int(f["summary/compare_steps"][0])
assert f["runs/run_00000/compare/particles/pendulum/direction/value"].shape[0] == n + 1
assert f["runs/run_00000/compare/timings/integrate"][0] > 0
assert len(f["runs/run_00000/observables/total_energy/time"]) == 21   # sample_dt = 0.05 on [0, 1]
PYEOF
finish
