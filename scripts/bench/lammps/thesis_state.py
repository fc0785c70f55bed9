#!/usr/bin/python3
"""One initial state of the [K] 3.2.2 workload for both programs (issue 16, target 4).

    thesis_state.py N SEED OUTDIR

[K] 3.2.2: N dipolar soft spheres, mass 1, inertia diag(1, 1.88, 2.88), body dipole
mubar = (0, 1, 1), kappa = eps = sigma = 1, positions with Gaussian components stretched to
fill [-N, N], uniformly random orientations, p = m = 0 (the suite's defaults, src/models/dipolar.hpp;
this generator is numpy's, seeded, not the suite's stream). Writes
  OUTDIR/state.h5      dataset /initial_state [N][18]: rows (q, p, Q row-major, m), the suite's
                       initial-state file (dipolar.initial = file)
  OUTDIR/sphere.data   LAMMPS data file, atom_style hybrid sphere dipole, one atom per body with
                       mu_i = Q_i mubar (fix nve/sphere: isotropic inertia 0.1 m d^2; d chosen so
                       that it is the mean of [K]'s three moments, 1.96: not [K]'s body)
  OUTDIR/rigid.data    the same state for fix rigid/nve with [K]'s inertia: per body the dipole atom
                       (type 1) and a non-interacting satellite atom (type 2, 0.01 away; LAMMPS
                       rejects one-atom bodies), bodies by atom ID (custom v_body)
  OUTDIR/rigid.inertia fix rigid infile: per body mass 1, centre = the dipole atom, space-frame
                       inertia Q_i diag(1, 1.88, 2.88) Q_i^T (LAMMPS finds the principal axes)
and prints the potential energy summed here independently (plain double loops over the pairs)
as python_H0 (p = m = 0: H0 is the potential).
"""
import math
import sys

import h5py
import numpy as np
if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):  # the docstring is the usage
    print(__doc__.strip())
    sys.exit(0)

try:
    N, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    if N < 2 or len(sys.argv) != 4:
        raise ValueError
except (IndexError, ValueError):
    print(f"thesis_state.py: give N SEED OUTDIR, N >= 2 and SEED integers (got {sys.argv[1:]}; see --help)",
          file=sys.stderr)
    sys.exit(2)
rng = np.random.default_rng(seed)
g = rng.standard_normal((N, 3))
pos = g * (N / np.abs(g).max())
quat = rng.standard_normal((N, 4))
quat /= np.linalg.norm(quat, axis=1)[:, None]


def rotation(qt):
    w, x, y, z = qt
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


Q = np.array([rotation(q) for q in quat])
mubar = np.array([0.0, 1.0, 1.0])
mu = np.einsum("nij,j->ni", Q, mubar)
rows = np.zeros((N, 18))
rows[:, 0:3] = pos
rows[:, 6:15] = Q.reshape(N, 9)  # row-major
with h5py.File(f"{out}/state.h5", "w") as f:
    f.create_dataset("initial_state", data=rows)

inertia_mean = (1.0 + 1.88 + 2.88) / 3
d = math.sqrt(inertia_mean / 0.1)  # nve/sphere: I = 0.1 m d^2
density = 1.0 / (math.pi / 6 * d ** 3)  # mass 1
lo, hi = pos.min() - 1, pos.max() + 1
with open(f"{out}/sphere.data", "w") as f:
    f.write(f"[K] 3.2.2 state, N = {N}, seed {seed} (scripts/bench/lammps/thesis_state.py)\n\n{N} atoms\n1 atom types\n\n")
    for ax in "xyz":
        f.write(f"{lo!r} {hi!r} {ax}lo {ax}hi\n")
    f.write("\nAtoms # hybrid\n\n")
    for i in range(N):
        x, y, z = pos[i]
        f.write(f"{i + 1} 1 {x!r} {y!r} {z!r} {d!r} {density!r} 0.0 {mu[i, 0]!r} {mu[i, 1]!r} {mu[i, 2]!r}\n")

with open(f"{out}/rigid.data", "w") as f:
    f.write(f"[K] 3.2.2 state, N = {N}, seed {seed}, rigid bodies (scripts/bench/lammps/thesis_state.py)\n\n"
            f"{2 * N} atoms\n2 atom types\n\n")
    for ax in "xyz":
        f.write(f"{lo!r} {hi!r} {ax}lo {ax}hi\n")
    f.write("\nAtoms # hybrid\n\n")
    for i in range(N):
        x, y, z = pos[i]
        # diameter 1 (mass 1): LAMMPS adds an atom's torque to its body only for finite spheres
        f.write(f"{2 * i + 1} 1 {x!r} {y!r} {z!r} 1.0 {6 / math.pi!r} 0.0 {mu[i, 0]!r} {mu[i, 1]!r} {mu[i, 2]!r}\n")
        f.write(f"{2 * i + 2} 2 {x + 0.01!r} {y!r} {z!r} 0.0 1e-12 0.0 0.0 0.0 0.0\n")
with open(f"{out}/rigid.inertia", "w") as f:
    f.write(f"# body mass xcm ycm zcm ixx iyy izz ixy ixz iyz vxcm vycm vzcm lx ly lz ix iy iz\n{N}\n")
    for i in range(N):
        I = Q[i] @ np.diag([1.0, 1.88, 2.88]) @ Q[i].T
        x, y, z = pos[i]
        f.write(f"{i + 1} 1.0 {x!r} {y!r} {z!r} {I[0, 0]!r} {I[1, 1]!r} {I[2, 2]!r} {I[0, 1]!r} {I[0, 2]!r} "
                f"{I[1, 2]!r} 0 0 0 0 0 0 0 0 0\n")

V = 0.0
for i in range(N):
    for j in range(i + 1, N):
        r = pos[i] - pos[j]
        r2 = float(r @ r)
        rr = math.sqrt(r2)
        ir2 = 1.0 / r2
        s6 = ir2 ** 3
        V += 4.0 * s6 * s6 + float(mu[i] @ mu[j]) / (rr * r2) - 3.0 * float(mu[i] @ r) * float(mu[j] @ r) / (rr * r2 * r2)
print(f"python_H0={V!r} diameter={d!r}")
