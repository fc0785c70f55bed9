#!/usr/bin/env bash
# [K] Figs 3.11-3.14 (issue 12): the 2-D dipolar experiments as written start in a bound state and
# bond as [K] describes. Measured cause of the earlier fly-apart figures: with seed 1 the random
# state had positive energy (two particles starting at rest can then separate for good: E0 > 0 is
# kinetic energy at infinity), and at [K]'s h = 0.1 a close approach can add 0.5 to the energy of a
# bound pair (seed 3); the experiment files explain the seeds they use.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
PY=/usr/bin/python3
"$PY" -c "import h5py" 2>/dev/null || { echo "skipped: /usr/bin/python3 has no h5py"; exit 77; }
"$LB" run "$SRC/experiments/K_fig3_11_dipolar_2d_two_particles.cfg" -q -o two.h5 || { bad "two particles"; finish; }
"$LB" run "$SRC/experiments/K_fig3_13_dipolar_2d_ten_particles.cfg" -q -o ten.h5 || { bad "ten particles"; finish; }
out=$("$PY" - two.h5 ten.h5 <<'PY'
import sys, h5py, numpy as np
bad = []
for path, bonded_min in ((sys.argv[1], 2), (sys.argv[2], 4)):
    with h5py.File(path, "r") as f:
        E = f["observables/total_energy/value"][()]
        x = f["particles/bodies/position/value"][()]
        if np.abs(x[..., 2]).max() != 0: bad.append(f"{path}: the motion leaves the plane")
        if not E[0] < 0: bad.append(f"{path}: initial energy {E[0]:.4g} >= 0: the particles can fly apart")
        last = x[len(x) // 2:]  # second half of the run
        D = np.linalg.norm(last[:, :, None] - last[:, None], axis=3) + 1e9 * np.eye(x.shape[1])
        nearest = D.min(axis=2).max(axis=0)  # largest nearest-neighbour distance of each particle
        bonded = int((nearest < 2.0).sum())
        if bonded < bonded_min:
            bad.append(f"{path}: {bonded} particles keep a neighbour within 2 sigma over the second half, "
                       f"expected >= {bonded_min} (nearest: {np.round(nearest, 2)})")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
) && ok "[K] Figs 3.11, 3.13 as written: E0 < 0, in the plane, bonded pairs over the second half" || bad "$out"
finish
