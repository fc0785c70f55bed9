#!/usr/bin/python3
"""[L] Fig. 7: the kinetic-energy distribution of the molecules on the sphere over time, from a
simulate file of model sphere_md with save_state (experiments/L_ex6_sphere_md.cfg).

    /usr/bin/python3 scripts/plots/plot_sphere_md.py results/L_ex6_sphere_md.h5 [--out DIR]
        [--times 0,0.25,0.5,0.75,5] [--level 4]

The sphere is discretised by the icosahedron subdivided `level` times (4: 5120 faces, as [L];
the same construction as src/models/icosphere.cpp: midpoints pushed to the sphere). A molecule
lies within the face whose spherical triangle contains it (the first such face on an edge or a
vertex). The colour of a face is the average kinetic energy m |q_i'|^2 / 2 of the molecules within
the face and within its neighbouring faces, read here as the faces sharing a vertex with it
([L] does not say which neighbours); faces whose neighbourhood holds no molecule are grey.
Colours: blue, green, yellow, red in ascending order (jet), one scale for all panels.

Writes <stem>.faces.h5 next to the input (datasets time [T], face_kinetic_energy [T][F]
(NaN: no molecule), molecules [T][F] (molecules counted), vertices [V][3], faces [F][3]) and
DIR/<stem>_fig7_kinetic_energy.png, and prints their names.
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import h5py  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from mpl_toolkits.mplot3d.art3d import Poly3DCollection  # noqa: E402

from lbcommon import open_or_exit  # noqa: E402


def icosphere(level):
    t = (1.0 + 5.0 ** 0.5) / 2.0
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
         (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    verts = [np.array(p, float) / np.linalg.norm(p) for p in v]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
             (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
             (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(level):
        mid = {}

        def midpoint(a, b):
            key = (min(a, b), max(a, b))
            if key not in mid:
                m = verts[a] + verts[b]
                verts.append(m / np.linalg.norm(m))
                mid[key] = len(verts) - 1
            return mid[key]

        nxt = []
        for a, b, c in faces:
            ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
            nxt += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = nxt
    return np.array(verts), np.array(faces, dtype=np.int64)


def face_of(points, V, F):
    """Index of the face whose spherical triangle contains each point (first one on ties)."""
    a, b, c = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    nab, nbc, nca = np.cross(a, b), np.cross(b, c), np.cross(c, a)
    tol = -1e-12
    inside = (points @ nab.T >= tol) & (points @ nbc.T >= tol) & (points @ nca.T >= tol)
    if not inside.any(axis=1).all():
        raise SystemExit("plot_sphere_md: a molecule lies in no face (not on the unit sphere?)")
    return inside.argmax(axis=1)


def vertex_neighbourhoods(V, F):
    by_vertex = [[] for _ in range(len(V))]
    for f, tri in enumerate(F):
        for v in tri:
            by_vertex[v].append(f)
    return [np.unique(np.concatenate([by_vertex[v] for v in tri])) for tri in F]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--out", default=None)
    ap.add_argument("--times", default="0,0.25,0.5,0.75,5")
    ap.add_argument("--level", type=int, default=4)
    args = ap.parse_args()
    times = [float(x) for x in args.times.split(",")]
    with open_or_exit(args.file, "plot_sphere_md", ("particles/molecules",),
                      "a simulate run of model sphere_md with save_state = true") as f:
        g = f["particles/molecules"]
        t_all = g["direction/time"][:]
        Q = g["direction/value"][:]
        K = g["kinetic_energy/value"][:][..., 0]
    frames = []
    for t in times:
        k = int(np.argmin(np.abs(t_all - t)))
        if abs(t_all[k] - t) > 1e-9 * max(1.0, abs(t)):
            raise SystemExit(f"plot_sphere_md: no saved state at t = {t} (saved: {t_all[0]} .. {t_all[-1]}); "
                             "set state_every so that it is saved")
        frames.append(k)
    V, F = icosphere(args.level)
    hood = vertex_neighbourhoods(V, F)
    nF = len(F)
    ke = np.full((len(frames), nF), np.nan)
    count = np.zeros((len(frames), nF), dtype=np.int64)
    for r, k in enumerate(frames):
        fid = face_of(Q[k], V, F)
        s = np.bincount(fid, weights=K[k], minlength=nF)
        c = np.bincount(fid, minlength=nF)
        for i in range(nF):
            cc = c[hood[i]].sum()
            count[r, i] = cc
            if cc > 0:
                ke[r, i] = s[hood[i]].sum() / cc
    stem = os.path.splitext(os.path.basename(args.file))[0]
    faces_h5 = os.path.join(os.path.dirname(os.path.abspath(args.file)), stem + ".faces.h5")
    with h5py.File(faces_h5, "w") as h:
        h["time"] = np.array([t_all[k] for k in frames])
        h["face_kinetic_energy"] = ke
        h["molecules"] = count
        h["vertices"] = V
        h["faces"] = F
        h.attrs["source"] = args.file
        h.attrs["description"] = ("[L] Fig. 7: average kinetic energy of the molecules within each face of the "
                                  f"icosahedron subdivided {args.level} times and the faces sharing a vertex with it")
    print(faces_h5)
    out = args.out or os.path.dirname(os.path.abspath(args.file))
    os.makedirs(out, exist_ok=True)
    vmax = np.nanmax(ke)
    cmap = plt.get_cmap("jet")
    elev, azim = np.radians(50.0), np.radians(-60.0)
    eye = np.array([np.cos(elev) * np.cos(azim), np.cos(elev) * np.sin(azim), np.sin(elev)])
    front = V[F].mean(axis=1) @ eye > 0.0
    fig = plt.figure(figsize=(2.6 * len(frames) + 1.0, 3.0))
    for r, k in enumerate(frames):
        ax = fig.add_axes([r * 0.9 / len(frames), 0.0, 0.9 / len(frames), 0.92], projection="3d")
        colors = [cmap(v / vmax) if np.isfinite(v) else (0.8, 0.8, 0.8, 1.0) for v in ke[r][front]]
        pc = Poly3DCollection(V[F[front]], facecolors=colors, edgecolors="none")
        ax.add_collection3d(pc)
        ax.set_xlim(-1, 1), ax.set_ylim(-1, 1), ax.set_zlim(-1, 1)
        ax.set_box_aspect((1, 1, 1), zoom=1.45)
        ax.view_init(elev=np.degrees(elev), azim=np.degrees(azim))
        ax.set_axis_off()
        ax.set_title(f"t = {t_all[k]:g}", y=0.98)
    sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0.0, vmax))
    fig.colorbar(sm, cax=fig.add_axes([0.92, 0.15, 0.012, 0.7]), label="local kinetic energy")
    png = os.path.join(out, stem + "_fig7_kinetic_energy.png")
    fig.savefig(png, dpi=110)
    print(png)


if __name__ == "__main__":
    main()
