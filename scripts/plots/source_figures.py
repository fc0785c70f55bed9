#!/usr/bin/python3
"""The figures of the source papers that the suite reproduces, one figure per source figure,
named after it (P_fig9.png = [P] Fig 9), regenerated from the HDF5 files of the experiments
alone.

    /usr/bin/python3 scripts/plots/source_figures.py [--results results] [--out results/figures]
                     [--formats png,pdf] [--only P_fig5,K_fig3_1] [--readme results/figures/README.md]

Every figure reads results/<experiment>.h5 (written by `liebench run experiments/<experiment>.cfg`
or scripts/reproduce_results.sh); a figure whose files are missing is skipped with a line on
stderr naming them (exit status 1 if any was skipped, 0 otherwise). --readme writes the list of
every figure beside the source figure it reproduces (FIGURES below is the one place).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import h5py  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import plot_study as ps  # noqa: E402
import workprecision  # noqa: E402
from lbcommon import (COLORS, LINESTYLES, attr, failed_mask, footnote, group_columns, log_series,  # noqa: E402
                      method_word, observable_panel, save, side_legend, style, summary, top_margin, zero_note)

# --- helpers ---------------------------------------------------------------------------------


def runs_of(f):
    tab = summary(f)
    ok = ~failed_mask(tab)
    return tab, [r for r, good in zip(tab["run_id"], ok) if good]


def param(f, key, default=None):
    v = attr(f["parameters"], key, None)
    return v if v is not None else default


def series(f, run, name):
    g = f[f"runs/{run}/observables/{name}"]
    return g["time"][()], g["value"][()]


def trajectory(f, run, field, sub=""):
    """(time [frames], value [frames][components][dim]) of an H5MD element of a run."""
    base = f"runs/{run}/{sub + '/' if sub else ''}particles"
    group = next(iter(k for k in f[base] if k != "box"))
    g = f[f"{base}/{group}/{field}"]
    return g["time"][()], g["value"][()]


def run_where(f, tab, key, value):
    for i, r in enumerate(tab["run_id"]):
        if key in tab and float(tab[key][i]) == float(value):
            return i, r
    raise KeyError(f"no run with {key} = {value}")


def signed_panel(ax, t, y, label, st):
    ax.plot(t, y, label=label, **st)
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-2, 2))


# --- figure functions: fn(files) -> (fig, notes) ------------------------------------------------


def fig_convergence(files):
    (f,) = files
    tab = summary(f)
    gcols = group_columns(f, tab)
    groups = ps.group_labels(tab, gcols)
    orders = ps.convergence_orders(f, tab, groups)
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    for g in dict.fromkeys(groups):
        ps.convergence_axes(ax, f, tab, groups == g, orders, g)
    ax.set_ylabel(f"global error at T = {f['study'].attrs['t_final']:g}")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)  # never over the data
    return fig, [ps.SLOPE_NOTE]


def fig_work_precision(files):
    (f,) = files
    fig, notes = workprecision.figure(f, summary(f), attr(f, "title", ""))
    return fig, notes


def fig_manifold(name):
    def draw(files):
        fig, ax = plt.subplots(figsize=(7.2, 4.2))
        zeros, drawn, k, tmax = [], False, 0, 0.0
        for f in files:
            tab, runs = runs_of(f)
            fn = observable_panel(name)[1]
            for r in runs:
                i = list(tab["run_id"]).index(r)
                t, v = series(f, r, name)
                tmax = max(tmax, t[-1])
                drawn = log_series(ax, t, fn(v), method_word(tab["method"][i]), style(k, len(t)), zeros) is not None \
                    or drawn
                k += 1
        ax.set_yscale("log")
        zero_note(ax, zeros, drawn)
        ax.set_xlim(0, tmax)
        ax.set_ylabel(observable_panel(name)[0])
        ax.set_xlabel("time t")
        ax.grid(True, which="both", alpha=0.3)
        if drawn:
            ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
        notes = ["maximum over the links i = 1, 2 (the paper draws each link)",
                 "ODE45: dopri54 with MATLAB's default tolerances at its accepted steps"]
        if not drawn:
            notes.append("every method: " + ", ".join(zeros) + ". The paper's planar initial state keeps this "
                         "quantity exactly 0 in floating point; P_fig6_7_3d shows a genuinely 3-D state")
        return fig, notes
    return draw


def fig_P6_7(files):
    fig, axes = plt.subplots(2, 1, figsize=(7.2, 6.6), sharex=True)
    for ax, name in zip(axes, ("unit_norm_error", "tangency_error")):
        zeros, drawn, k = [], False, 0
        for f in files:
            tab, runs = runs_of(f)
            for r in runs:
                i = list(tab["run_id"]).index(r)
                t, v = series(f, r, name)
                drawn = log_series(ax, t, np.abs(v), method_word(tab["method"][i]), style(k, len(t)), zeros) \
                    is not None or drawn
                k += 1
        ax.set_yscale("log")
        zero_note(ax, zeros, drawn)
        ax.set_ylabel(observable_panel(name)[0], fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
    axes[-1].set_xlabel("time t")
    side_legend(fig, *axes[0].get_legend_handles_labels(), fontsize=7)
    return fig, ["top: Fig 6 quantity, bottom: Fig 7 quantity; maximum over the links i = 1, 2"]


def fig_adaptive_pair(files):
    """[P] Figs 8, 10: error at T against N (left) and the step adaptation for N = 20 (right)."""
    (f,) = files
    tab, runs = runs_of(f)
    gcols = group_columns(f, tab)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    fig.subplots_adjust(wspace=0.3)
    ps.error_axes(a1, f, tab, gcols, failed_mask(tab))
    a1.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.15), frameon=False)
    nmax = np.max(tab[gcols[0]].astype(float))
    i, r = run_where(f, tab, gcols[0], nmax)
    t, h = f[f"runs/{r}/step_size/time"][()], f[f"runs/{r}/step_size/value"][()]
    a2.step(t, h, where="pre", label=f"{method_word(tab['method'][i])}, variable step", **dict(style(0), marker=None))
    rej = f[f"runs/{r}/rejected_time"][()]
    if len(rej):
        a2.plot(rej, np.interp(rej, t, h), "x", color=COLORS[0], ms=5, label="rejected trial steps")
    if "compare_steps" in tab and tab["compare_steps"][i] > 0:
        T = float(f["study"].attrs["t_final"])
        a2.axhline(T / tab["compare_steps"][i], **dict(style(1), marker=None),
                   label=f"{method_word(tab['compare_method'][i])}, constant step h = T / {tab['compare_steps'][i]}")
    a2.set_yscale("log")
    a2.set_xlabel("time t")
    a2.set_ylabel("step size h")
    a2.set_title(f"step adaptation, N = {nmax:g}", fontsize=9)
    a2.grid(True, which="both", alpha=0.3)
    a2.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.15), frameon=False)
    return fig, []


def n2_run(f):
    tab, _ = runs_of(f)
    return run_where(f, tab, "nfold_pendulum.N", 2)


def fig_P9(files):
    fa, fo = files
    _, r = n2_run(fa)
    ode_run = runs_of(fo)[1][0]
    curves = [("RKMK(5,4), variable step (dense output)", trajectory(fa, r, "direction"),
               trajectory(fa, r, "angular_velocity")),
              ("RKMK5, constant step, same number of steps", trajectory(fa, r, "direction", "compare"),
               trajectory(fa, r, "angular_velocity", "compare")),
              ("ODE45 (dopri54, accepted steps)", trajectory(fo, ode_run, "direction"),
               trajectory(fo, ode_run, "angular_velocity"))]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), sharey=True)
    comp = ["q^(1)", "q^(2)", "q^(3)", "w^(1)", "w^(2)", "w^(3)"]
    for link, ax in enumerate(axes):
        for m, (label, (tq, q), (tw, w)) in enumerate(curves):
            for c in range(6):
                v = q[:, link, c] if c < 3 else w[:, link, c - 3]
                ax.plot(tq, v, color=COLORS[c], linestyle=LINESTYLES[m], lw=1.4 - 0.3 * m,
                        label=f"{comp[c]}" if m == 0 else None)
        ax.set_title(f"(q_{link + 1}(t), w_{link + 1}(t)), mass {link + 1}", fontsize=9)
        ax.set_xlabel("time t")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("solution component")
    h1, l1 = axes[0].get_legend_handles_labels()
    meth = [plt.Line2D([], [], color="k", linestyle=LINESTYLES[m], lw=1.4 - 0.3 * m) for m in range(3)]
    side_legend(fig, h1 + meth, l1 + [c[0] for c in curves], fontsize=7)
    zero = [comp[c] for c in range(6) if all(np.all((q if c < 3 else w)[:, :, c % 3] == 0)
                                              for _, (_, q), (_, w) in curves)]
    notes = ["N = 2, T = 3, tol = 1e-6; colour: component, line style: method"]
    if zero:
        notes.append(f"{', '.join(zero)}: identically 0 for every method and both masses (planar motion)")
    return fig, notes


def fig_P11(files):
    fa, fo = files
    tab, _ = runs_of(fa)
    i, r = n2_run(fa)
    ode_run = runs_of(fo)[1][0]
    T = float(fa["study"].attrs["t_final"])
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(16, 4.2))
    fig.subplots_adjust(wspace=0.32)
    t, h = fa[f"runs/{r}/step_size/time"][()], fa[f"runs/{r}/step_size/value"][()]
    a1.step(t, h, where="pre", label="RKMK(5,4), variable step", **dict(style(0), marker=None))
    to, ho = fo[f"runs/{ode_run}/step_size/time"][()], fo[f"runs/{ode_run}/step_size/value"][()]
    a1.step(to, ho, where="pre", label="ODE45 (dopri54, rtol 1e-3, atol 1e-6)", **dict(style(2), marker=None))
    n = int(tab["compare_steps"][i])
    a1.axhline(T / n, label=f"RKMK5, constant step h = T / {n}", **dict(style(1), marker=None))
    a1.set_yscale("log")
    a1.set_xlabel("time t")
    a1.set_ylabel("step size h")
    a1.set_title("(a) step adaptation", fontsize=9)
    curves = [("RKMK(5,4)", trajectory(fa, r, "angular_velocity")),
              ("RKMK5", trajectory(fa, r, "angular_velocity", "compare")),
              ("ODE45", trajectory(fo, ode_run, "angular_velocity"))]
    for m, (label, (tw, w)) in enumerate(curves):
        zoom = tw >= 2.1
        for link in range(2):
            a2.plot(tw[zoom], w[zoom, link, 1], color=COLORS[link], linestyle=LINESTYLES[m], lw=1.4 - 0.3 * m,
                    label=f"w_{link + 1}^(2), {label}")
    a2.set_xlabel("time t")
    a2.set_ylabel("angular velocity component w_i^(2)")
    a2.set_title("(b) zoom at final times, t in [2.1, 3]", fontsize=9)
    tw, w = curves[0][1]
    for link in range(2):
        a3.plot(tw, np.gradient(w[:, link, 1], tw), color=COLORS[link], label=f"d w_{link + 1}^(2) / dt")
    a3.set_xlabel("time t")
    a3.set_ylabel("angular acceleration component")
    a3.set_title("(c) values of dw_i^(2)/dt", fontsize=9)
    for a in (a1, a2, a3):
        a.grid(True, which="both", alpha=0.3)
        a.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.15), frameon=False)
    return fig, ["N = 2, T = 3; (c): central differences of RKMK(5,4)'s dense output at spacing "
                 f"{np.median(np.diff(tw)):.3g}"]


def heavy_top_scale(f):
    return float(param(f, "heavy_top.mass", "15")) * float(param(f, "heavy_top.length", "2"))


def fig_P2(files):
    ft, fs, fk = files
    tab, runs = runs_of(ft)
    fig = plt.figure(figsize=(16.5, 4.8))
    fig.subplots_adjust(wspace=0.38)
    a1 = fig.add_subplot(1, 3, 1, projection="3d")
    a2 = fig.add_subplot(1, 3, 2)
    a3 = fig.add_subplot(1, 3, 3)
    Ml = heavy_top_scale(ft)
    length = float(param(ft, "heavy_top.length", "2"))
    for k, r in enumerate(runs):
        i = list(tab["run_id"]).index(r)
        lab = f"SLGI theta = {tab['slgi.theta'][i]:g}"
        t, g = trajectory(ft, r, "body_gravity")
        a1.plot(*(Ml * g[:, 0, :]).T, color=COLORS[k], linestyle=LINESTYLES[k], label=lab)
        t, x = trajectory(ft, r, "centre_of_mass")
        for c in range(3):
            a2.plot(t, x[:, 0, c] / length, color=COLORS[c], linestyle=LINESTYLES[k], lw=1.6 - 0.4 * k,
                    label=f"(Q X)^({c + 1})" if k == 0 else None)
    a1.set_title("M l Q^-1 Gamma0", fontsize=9)
    a1.set_xlabel("x")
    a1.set_ylabel("y")
    a1.set_zlabel("z")
    a1.legend(fontsize=7, loc="upper left")
    meth = [plt.Line2D([], [], color="k", linestyle=LINESTYLES[k], lw=1.6 - 0.4 * k) for k in range(len(runs))]
    h2, l2 = a2.get_legend_handles_labels()
    a2.legend(h2 + meth, l2 + [f"theta = {tab['slgi.theta'][i]:g}" for i in range(len(runs))], fontsize=7)
    a2.set_xlabel("time t")
    a2.set_ylabel("components of Q X")
    a2.set_title("components of Q X", fontsize=9)
    a2.grid(True, alpha=0.3)
    k = 0
    for f in (fs, fk):
        tb = summary(f)
        groups = ps.group_labels(tb, group_columns(f, tb))
        for g in dict.fromkeys(groups):
            rows = (groups == g) & ~failed_mask(tb)
            idx = np.argsort(tb["h"][rows])
            lab = method_word(tb["method"][rows][0]) + (f", {g.replace('SLGI ', '')}" if g else "")
            a3.loglog(tb["h"][rows][idx], tb["error"][rows][idx], label=lab, **style(k))
            k += 1
    hh = np.array([np.min(tb["h"]), np.max(tb["h"])])
    for p, ls in ((1, ":"), (2, "--")):
        a3.loglog(hh, 2e-3 * (hh / hh[-1]) ** p * (10 if p == 1 else 1), color="0.5", linestyle=ls, lw=1,
                  label=f"slope h^{p}")
    a3.set_xlabel("step size h")
    a3.set_ylabel(f"global error at T = {fs['study'].attrs['t_final']:g}")
    a3.set_title("order of the methods", fontsize=9)
    a3.grid(True, which="both", alpha=0.3)
    a3.legend(fontsize=7)
    h = float(tab["h"][0])
    return fig, [f"left and centre: h = {h:g} (suite's choice; the paper: 'the same step-size')"]


def fig_P3(files):
    (f,) = files
    tab, runs = runs_of(f)
    fig = plt.figure(figsize=(7.5, 8.5))
    a1 = fig.add_subplot(2, 1, 1)
    a2 = fig.add_subplot(2, 1, 2, projection="3d")
    Ml = heavy_top_scale(f)
    zeros = []
    for k, r in enumerate(runs):
        i = list(tab["run_id"]).index(r)
        lab = f"SLGI theta = {tab['slgi.theta'][i]:g}"
        t, v = series(f, r, "total_energy")
        log_series(a1, t, np.abs(v - v[0]) / abs(v[0]), lab, style(k, len(t)), zeros)
        t, g = trajectory(f, r, "body_gravity")
        # one point per step: at |w| ~ 150 rad/s a step of 0.01 turns the top by 1.5 rad (lines would be chords)
        a2.plot(*(Ml * g[:, 0, :]).T, ".", color=COLORS[k], ms=1.0, alpha=0.6, label=lab)
    a1.set_yscale("log")
    zero_note(a1, zeros)
    a1.set_xlabel("time t")
    a1.set_ylabel(observable_panel("total_energy")[0])
    a1.grid(True, which="both", alpha=0.3)
    a1.legend(fontsize=7)
    a2.set_title("M l Q^-1 Gamma0 (one point per step)", fontsize=9)
    a2.legend(fontsize=7, loc="upper left", markerscale=8)
    a2.set_xlabel("x")
    a2.set_ylabel("y")
    a2.set_zlabel("z")
    return fig, ["h = 0.01, 6000 steps"]


def fig_K_orbits(files):
    (f,) = files
    tab, runs = runs_of(f)
    fig = plt.figure(figsize=(6.5, 6.5))
    ax = fig.add_subplot(1, 1, 1, projection="3d")
    u, v = np.mgrid[0:2 * np.pi:40j, 0:np.pi:20j]
    ax.plot_wireframe(np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v), color="0.85", lw=0.4)
    for k, r in enumerate(runs):
        t, m = trajectory(f, r, "state")
        m = m[:, 0, :3]
        ax.plot(*m.T, color=COLORS[k % len(COLORS)], lw=1.2)
        ax.plot(*m[0], "o", color="k", ms=3)
    ax.set_xlabel("m_1")
    ax.set_ylabel("m_2")
    ax.set_zlabel("m_3")
    ax.set_box_aspect((1, 1, 1), zoom=0.85)  # room for the axis labels
    return fig, [f"{len(runs)} orbits of the body angular momentum m(t), |m(0)| = 1, RKMK4, h = "
                 f"{tab['h'][0]:g}, t in [0, {f['study'].attrs['t_final']:g}]; black dots: m(0)"]


def fig_K_signed(name, relative):
    def draw(files):
        (f,) = files
        tab, runs = runs_of(f)
        fig, ax = plt.subplots(figsize=(7, 4))
        for k, r in enumerate(runs):
            i = list(tab["run_id"]).index(r)
            t, v = series(f, r, name)
            y = (v - v[0]) / (abs(v[0]) if relative else 1.0)
            signed_panel(ax, t, y, method_word(tab["method"][i]) + f", h = {tab['h'][i]:g}", dict(color=COLORS[k],
                                                                                               lw=0.8))
        word = {"total_energy": "Hamiltonian", "casimir": "Casimir"}.get(name, name)
        ax.set_ylabel(f"relative error in the {word} (H - H(0)) / |H(0)|" if relative else
                      f"error in the {word} {word[0]}(m_k) - {word[0]}(m_1)")
        ax.set_xlabel("time t")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        if np.all([np.all(series(f, r, name)[1] == series(f, r, name)[1][0]) for r in runs]):
            zero_note(ax, ["every run"])
        every = int(tab["sample_every"][0]) if "sample_every" in tab else 0
        return fig, [f"{word} sampled at every step" if every == 1 else
                     f"{word} sampled every {every} steps" if every > 1 else ""]
    return draw


def fig_K_orthogonality(files):
    (f,) = files
    tab, runs = runs_of(f)
    fig, ax = plt.subplots(figsize=(7, 4))
    t, v = series(f, runs[0], "orthogonality_error")
    signed_panel(ax, t, v, "RKMK4", dict(color=COLORS[0], lw=0.8))
    ax.set_ylabel("orthogonality error max_i ||Q_i^T Q_i - I||")
    ax.set_xlabel("time t")
    ax.grid(True, alpha=0.3)
    return fig, [f"maximum over the {param(f, 'dipolar.N', '?')} particles at every step (the thesis draws each "
                 "particle)"]


def fig_K_particles(directions):
    def draw(files):
        (f,) = files
        _, runs = runs_of(f)
        t, x = trajectory(f, runs[0], "position")
        fig, ax = plt.subplots(figsize=(6.5, 6.5))
        steps = f[f"runs/{runs[0]}/particles/bodies/position/step"][()]
        mark = steps % 100 == 0
        for p in range(x.shape[1]):
            c = COLORS[p % len(COLORS)]
            ax.plot(x[:, p, 0], x[:, p, 1], color=c, lw=1 if not directions else 0.6, alpha=1 if not directions
                    else 0.5)
            if directions:
                _, mu = trajectory(f, runs[0], "dipole_moment")
                d = mu[mark, p, :2] / np.maximum(np.linalg.norm(mu[mark, p, :2], axis=1, keepdims=True), 1e-300)
                ax.quiver(x[mark, p, 0], x[mark, p, 1], d[:, 0], d[:, 1], color=c, angles="xy", scale=18, width=0.005)
            else:
                ax.plot(x[mark, p, 0], x[mark, p, 1], "o", mfc="none", color=c, ms=7)
            ax.plot(x[0, p, 0], x[0, p, 1], "o", color="k", ms=5)
        ax.set_aspect("equal", adjustable="datalim")
        ax.set_xlabel("x (sigma)")
        ax.set_ylabel("y (sigma)")
        ax.grid(True, alpha=0.3)
        what = "arrows: dipole direction" if directions else "circles"
        e0 = f[f"runs/{runs[0]}/observables/total_energy/value"][0]
        return fig, [f"{x.shape[1]} particles, {int(steps[-1])} RKMK4 steps to T = {t[-1]:g}; {what} every 100 "
                     "steps; black dots: starting positions",
                     f"differs from [K]: the random initial state (dipolar.seed = {param(f, 'dipolar.seed')}, the "
                     f"suite's choice: bound, E0 = {e0:.3g} < 0; [K] gives no seed; the experiment file says why)"]
    return draw


# --- [P] Figs 14-18: two quadrotors carrying a point mass, tracking of a parabola --------------


def desired_load_position(t):
    """y_d(t) = (t - 2.5, 0, (t - 2.5)^2 - 7), [P] 6.2 (src/models/quadrotors.hpp, controller)."""
    t = np.asarray(t, dtype=float)
    return np.stack([t - 2.5, np.zeros_like(t), (t - 2.5) ** 2 - 7.0], axis=-1)


def quad_runs(f):
    tab, runs = runs_of(f)
    return [(r, method_word(tab["method"][list(tab["run_id"]).index(r)])) for r in runs]


QUAD_VERTICAL = "z (m); axis inverted: e3 points along gravity"


def fig_P14(files):
    """Snapshots in the x-z plane: load path, desired parabola, quadrotors and links."""
    (f,) = files
    r, word = quad_runs(f)[0]
    t, y = trajectory(f, r, "load_position")
    _, yq = trajectory(f, r, "quadrotor_positions")
    fig, ax = plt.subplots(figsize=(9, 5.6))
    td = np.linspace(0, t[-1], 400)
    yd = desired_load_position(td)
    ax.plot(yd[:, 0], yd[:, 2], color="tab:red", lw=1.2, linestyle="--", label="desired load path y_d(t)")
    ax.plot(y[:, 0, 0], y[:, 0, 2], color="tab:blue", lw=1.4, label=f"load y(t), {word}")
    step = max(1, int(round(0.5 / np.median(np.diff(t)))))  # a snapshot every 0.5 s
    for k in range(0, len(t), step):
        for i in range(2):
            q = yq[k, 0, 3 * i:3 * i + 3]
            ax.plot([q[0], y[k, 0, 0]], [q[2], y[k, 0, 2]], color="0.45", lw=0.8)
            ax.plot(q[0], q[2], marker="s" if i == 0 else "D", color=COLORS[4 + i], ms=6, linestyle="none",
                    label=f"quadrotor {i + 1}" if k == 0 else None)
        ax.plot(y[k, 0, 0], y[k, 0, 2], "o", color="tab:blue", ms=5, label="load" if k == 0 else None)
        if k % (2 * step) == 0:  # a label every second snapshot (neighbouring labels overlap)
            # below the load (the quadrotors are above it), inside the arch on its flanks
            x0 = y[k, 0, 0] - 0.5 * (y[0, 0, 0] + y[-1, 0, 0])
            side = 0 if abs(x0) <= 1 else (1 if x0 < 0 else -1)
            ax.annotate(f"t = {t[k]:g}", (y[k, 0, 0], y[k, 0, 2]), textcoords="offset points",
                        xytext=(8 * side, -12), ha={0: "center", 1: "left", -1: "right"}[side], fontsize=7,
                        color="0.3", bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.8))
    ax.plot([], [], color="0.45", lw=0.8, label="links")
    ax.invert_yaxis()
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x (m)")
    ax.set_ylabel(QUAD_VERTICAL)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
    off = np.max(np.abs(y[:, 0, 1]))
    return fig, [f"snapshots every {t[step] - t[0]:g} s (suite's choice: [P] does not give its snapshot times); "
                 f"projection on the x-z plane: the load leaves it by at most {off:.2g} m (Fig 15, middle)",
                 "y_d from the formula of [P] 6.2 (src/models/quadrotors.hpp), not from the file"]


def fig_P15(files):
    (f,) = files
    fig, axes = plt.subplots(3, 1, figsize=(7.5, 7.5), sharex=True)
    for m, (r, word) in enumerate(quad_runs(f)):
        t, y = trajectory(f, r, "load_position")
        for c, ax in enumerate(axes):
            ax.plot(t, y[:, 0, c], color="tab:blue" if m == 0 else "tab:cyan", linestyle=LINESTYLES[m],
                    lw=1.5 - 0.4 * m, label=f"load y^({c + 1}), {word}")
    td = np.linspace(0, t[-1], 400)
    yd = desired_load_position(td)
    for c, ax in enumerate(axes):
        ax.plot(td, yd[:, c], color="tab:red", lw=1.0, linestyle=":", label=f"desired y_d^({c + 1})")
        ax.set_ylabel(f"y^({c + 1}) (m)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    axes[-1].set_xlabel("time t (s)")
    return fig, ["y_d(t) = (t - 2.5, 0, (t - 2.5)^2 - 7) from the formula of [P] 6.2 (src/models/quadrotors.hpp)"]


def fig_P16(files):
    (f,) = files
    fig, axes = plt.subplots(3, 1, figsize=(7.5, 7.5), sharex=True)
    for m, (r, word) in enumerate(quad_runs(f)):
        for c, ax in enumerate(axes):
            t, e = series(f, r, f"load_error_{'xyz'[c]}")
            ax.plot(t, e, color=COLORS[m], linestyle=LINESTYLES[m], lw=1.5 - 0.4 * m, label=word)
    for c, ax in enumerate(axes):
        ax.set_ylabel(f"y^({c + 1}) - y_d^({c + 1}) (m)")
        ax.grid(True, alpha=0.3)
        ax.ticklabel_format(axis="y", style="sci", scilimits=(-2, 2))
    side_legend(fig, *axes[0].get_legend_handles_labels())
    axes[-1].set_xlabel("time t (s)")
    every = int(summary(f)["sample_every"][0])
    return fig, [f"observables load_error_x, _y, _z of the file, sampled every {every} steps"]


def fig_P17(files):
    (f,) = files
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    k = 0
    for r, word in quad_runs(f):
        for i in (1, 2):
            t, e = series(f, r, f"link{i}_direction_error")
            ax.plot(t, e, label=f"link {i}, {word}", **style(k, len(t)))
            k += 1
    ax.set_xlabel("time t (s)")
    ax.set_ylabel("direction error |q_id x q_i|")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return fig, ["q_id: desired link direction of the geometric controller (src/models/quadrotors.hpp)"]


def fig_P18(files):
    (f,) = files
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    zeros, drawn, k = [], False, 0
    for r, word in quad_runs(f):
        t, q = trajectory(f, r, "link_directions")
        for i in range(2):
            qi = q[:, 0, 3 * i:3 * i + 3]
            v = np.abs(1.0 - np.einsum("kc,kc->k", qi, qi))
            drawn = log_series(ax, t, v, f"link {i + 1}, {word}", style(k, len(t)), zeros) is not None or drawn
            k += 1
    ax.set_yscale("log")
    zero_note(ax, zeros, drawn)
    ax.set_xlabel("time t (s)")
    ax.set_ylabel("unit-norm error |1 - q_i.q_i|")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return fig, ["from the stored link directions q_i (save_state); RK4 integrates on the embedding R^42; "
                 "gaps: values exactly 0",
                 "the energy of this controlled system is not conserved and is not drawn as an error"]


# --- [L] Figs 1-5: computed total energy and unit-length errors ------------------------------


def l_run_labels(f):
    """(run id, label) of the good runs of an [L] file: method, step (or ode45 tolerances), grid."""
    tab, runs = runs_of(f)
    gcols = group_columns(f, tab)
    hs = set(tab["h"]) if "h" in tab else set()
    out = []
    for r in runs:
        i = list(tab["run_id"]).index(r)
        lab = method_word(tab["method"][i])
        if "h" in tab and len(hs) > 1:
            lab += f", h = {tab['h'][i]:g}"
        elif "h" in tab:
            lab += f" (h = {tab['h'][i]:g})"
        else:
            lab += ", ode45 default tolerances"
        for c in gcols:
            lab += f", {c.split('.')[-1]} = {tab[c][i]}"
        out.append((r, lab))
    return out


def element_stride(f, r, field="position"):
    """(steps between stored frames, element) of a run's H5MD element."""
    group = next(iter(k for k in f[f"runs/{r}/particles"] if k != "box"))
    steps = f[f"runs/{r}/particles/{group}/{field}/step"][()]
    return (int(steps[1] - steps[0]) if len(steps) > 1 else 1), group


def metres_alike(ax, pts):
    """Equal scale on the three axes of a 3-D panel (lengths in m look like lengths); an axis whose
    extent is below a fifth of the largest is drawn at a fifth (its ticks stay readable)."""
    ext = np.ptp(pts.reshape(-1, 3), axis=0)
    ax.set_box_aspect(np.maximum(ext, 0.2 * ext.max()))
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.set_major_locator(plt.MaxNLocator(4))
    return [n for n, e in zip("xyz", ext) if e < 0.2 * ext.max()]


def panel_paths(a0, f, r, lab, kind):
    """The (a) panel of [L] Figs 1, 3, 4, 5 from the run's stored positions; returns its note."""
    t, x = trajectory(f, r, "position")
    stride, _ = element_stride(f, r)
    if kind == "rod":  # Fig 4(a) deformation of the rod: its shape at a few times, clamped end at 0
        keep = np.unique(np.linspace(0, len(t) - 1, 11).round().astype(int))
        cmap = plt.get_cmap("viridis")
        for j in keep:
            shape = np.vstack([np.zeros(3), x[j]])
            a0.plot(*shape.T, color=cmap(t[j] / max(t[-1], 1e-300)), lw=1.2, marker=".", ms=3)
        sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, t[-1]))
        plt.colorbar(sm, ax=a0, shrink=0.5, pad=0.02, orientation="horizontal", label="time t (s) of the shape")
        a0.plot([0], [0], [0], "ks", ms=5, label="clamped end")
        stretched = metres_alike(a0, np.concatenate([x.reshape(-1, 3), np.zeros((1, 3))]))
        title, note = "(a) deformation of the rod", (f"(a): shape of the rod (element ends) at {len(keep)} times "
                                                     f"in [0, {t[-1]:g}] s, {lab}")
    else:
        word = {"pendulum": "bob", "bobs": "bob", "magnets": "north pole"}[kind]
        for b in range(x.shape[1]):
            a0.plot(*x[:, b, :].T, color=COLORS[b % len(COLORS)], lw=0.6,
                    label=f"{word} {b + 1}" if x.shape[1] <= 6 else None)
        a0.plot(*x[0].T, "ko", ms=3, label="at t = 0")
        pts = x.reshape(-1, 3)
        if kind == "pendulum":
            a0.plot([0], [0], [0], "k^", ms=5, label="pivot")
            pts = np.concatenate([pts, np.zeros((1, 3))])
        stretched = metres_alike(a0, pts)
        title = {"pendulum": "(a) trajectory", "bobs": "(a) motion of the pendula (bob paths)",
                 "magnets": "(a) motion of the magnetic dipoles (north-pole paths)"}[kind]
        note = (f"(a): {word} paths over [0, {t[-1]:g}] s, states every {stride} steps, {lab}"
                + ("; the suite's frame (gravity along -e3, [L]'s state mirrored in z)" if kind == "pendulum" else ""))
    if stretched:
        note += (f"; (a) at equal scale on x, y, z except {', '.join(stretched)} (stretched to a fifth of the "
                 "largest extent)")
    a0.set_title(f"{title}, {lab}", fontsize=9, pad=0)
    a0.set_xlabel("x (m)")
    a0.set_ylabel("y (m)")
    a0.set_zlabel("z (m)")
    a0.legend(fontsize=7, loc="upper left")
    return note


def fig_L_time(unit, kind):
    """[L] Figs 1, 3, 4, 5: (a) the motion, where a file stores it (save_state); E - E(0) (top) and
    the unit-length error (bottom) over t, every file's runs."""
    def draw(files):
        paths = [(f, r, lab) for f in files for r, lab in l_run_labels(f) if f"runs/{r}/particles" in f]
        if paths:
            fig = plt.figure(figsize=(14, 6.6))
            a0 = fig.add_subplot(1, 2, 1, projection="3d")
            a1 = fig.add_subplot(2, 2, 2)
            a2 = fig.add_subplot(2, 2, 4, sharex=a1)
            fig.subplots_adjust(wspace=0.25)
            panel_note = panel_paths(a0, *paths[0], kind)
        else:
            fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 6.6), sharex=True)
            panel_note = "the trajectory panel of [L] is not reproduced (the file stores no trajectory)"
        zeros, drawn, k, tmax, ode45 = [], False, 0, 0.0, False
        for f in files:
            ode45 = ode45 or "dopri54" in summary(f)["method"]
            for r, lab in l_run_labels(f):
                t, e = series(f, r, "total_energy")
                _, u = series(f, r, "unit_norm_error")
                tmax = max(tmax, t[-1])
                st = style(k, len(t))
                a1.plot(t, e - e[0], label=lab, **st)
                drawn = log_series(a2, t, np.abs(u), lab, st, zeros) is not None or drawn
                k += 1
        a1.set_ylabel(f"total energy deviation\nE - E(0) ({unit})")
        a1.ticklabel_format(axis="y", style="sci", scilimits=(-2, 2))
        a2.set_yscale("log")
        zero_note(a2, zeros, drawn)
        a2.set_ylabel("unit-length error\nmax_i |1 - q_i.q_i|")
        a2.set_xlabel("time t (s)")
        a2.set_xlim(0, tmax)
        for a in (a1, a2):
            a.grid(True, which="both", alpha=0.3)
        side_legend(fig, *a1.get_legend_handles_labels())
        return fig, ["[L] draws the computed total energy E; here E - E(0) on the same scale for every method; "
                     + panel_note,
                     "ode45: dopri54 with MATLAB's default tolerances at its accepted steps" if ode45 else ""]
    return draw


def fig_L6(files):
    """[L] Fig 6: (a) the molecules' paths on the sphere from t = 0, (b) the computed total energy."""
    (f,) = files
    _, runs = runs_of(f)
    r = runs[0]
    t, q = trajectory(f, r, "direction")
    stride, _ = element_stride(f, r, "direction")
    fig = plt.figure(figsize=(13, 5.8))
    a0 = fig.add_subplot(1, 2, 1, projection="3d")
    a1 = fig.add_subplot(1, 2, 2)
    fig.subplots_adjust(wspace=0.3)
    # the sphere, then the paths on its visible half (x > 0 at t = 0), each from its dot at t = 0
    u, v = np.meshgrid(np.linspace(0, 2 * np.pi, 40), np.linspace(0, np.pi, 20))
    a0.plot_wireframe(np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v), color="0.85", lw=0.4)
    front = np.where(q[0, :, 0] > 0.2)[0]
    for i in front:
        a0.plot(*q[:, i, :].T, color=COLORS[0], lw=1.0)
    a0.plot(*q[0, front].T, "k.", ms=2.5)
    a0.view_init(elev=15, azim=0)
    a0.set_box_aspect((1, 1, 1))
    a0.set_axis_off()  # the unit sphere, seen from +x (its wireframe is the scale)
    a0.set_title(f"(a) paths over [0, {t[-1]:g}] s of the {len(front)} molecules on the\nhalf facing the viewer "
                 "(dots: t = 0; unit sphere seen from +x)", fontsize=9)
    te, e = series(f, r, "total_energy")
    a1.plot(te, e, color=COLORS[1], lw=1.2, label=method_word(summary(f)["method"][0]))
    a1.set_xlabel("time t (s)")
    a1.set_ylabel("total energy E (J)")
    a1.ticklabel_format(axis="y", style="sci", scilimits=(-2, 2), useOffset=False)
    a1.set_title("(b) computed total energy", fontsize=9)
    a1.grid(True, alpha=0.3)
    a1.legend(fontsize=8)
    return fig, [f"{q.shape[1]} molecules, T = {t[-1]:g} s, paths from the states every {stride} steps; "
                 f"mean |E - E(0)| = {np.mean(np.abs(e - e[0])):.4g} J ([L]: 1.8893e-3)"]


def mean_deviation(f, r):
    """(mean |E - E(0)|, mean unit-length error) over the samples of a run, as [L] reports them."""
    _, e = series(f, r, "total_energy")
    _, u = series(f, r, "unit_norm_error")
    return np.mean(np.abs(e - e[0])), np.mean(np.abs(u))


def fig_L2(files):
    """[L] Fig 2: energy and unit-length errors against the step size (three bodies on the sphere)."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.4))
    fig.subplots_adjust(wspace=0.3)
    k, lows, T = 0, [], float(files[0]["study"].attrs["t_final"])
    for f in files:
        tab, runs = runs_of(f)
        gcols = group_columns(f, tab)
        keys = [(tab["method"][i], tuple(str(tab[c][i]) for c in gcols)) for i in range(len(tab["run_id"]))]
        for key in dict.fromkeys(keys):
            rows = [i for i, kk in enumerate(keys) if kk == key and tab["run_id"][i] in runs]
            rows.sort(key=lambda i: tab["h"][i])
            h = np.array([tab["h"][i] for i in rows])
            dev = np.array([mean_deviation(f, tab["run_id"][i]) for i in rows])
            lows.append((h[0], dev[0, 0]))
            lab = method_word(key[0]) + "".join(f", {c.split('.')[-1]} = {v}" for c, v in zip(gcols, key[1]))
            for a, y in ((a1, dev[:, 0]), (a2, dev[:, 1])):
                y = np.where(y > 0, y, np.nan)
                a.loglog(h, y, label=lab, **style(k))
            k += 1
    h0, e0 = min(lows)  # the guide through a third of the energy deviation at the smallest step
    hh = np.array([h0, 100 * h0])
    a1.loglog(hh, e0 / 3 * (hh / h0) ** 2, color="0.5", linestyle="--", lw=1, label="slope h^2")
    a1.set_ylabel("mean total energy deviation |E - E(0)| (J)")
    a2.set_ylabel("mean unit-length error max_i |1 - q_i.q_i|")
    for a in (a1, a2):
        a.set_xlabel("step size h (s)")
        a.grid(True, which="both", alpha=0.3)
    side_legend(fig, *a1.get_legend_handles_labels())
    return fig, [f"means over the samples of [0, {T:g}] (the statistics [L] prints); m_i = 1, gamma = 1 as printed "
                 "(without units; read as SI, the experiment files' units = si); "
                 "a point missing: mean exactly 0"]


def pair_correlation(q, L, r_max, dr):
    """g(r) of the positions q [N][3] in a periodic cube of side L (minimum image), r < r_max."""
    n = len(q)
    edges = np.arange(0.0, r_max + dr / 2, dr)
    counts = np.zeros(len(edges) - 1)
    w = np.mod(q, L)
    for i in range(n - 1):  # each pair once
        d = w[i + 1:] - w[i]
        d -= L * np.rint(d / L)
        counts += np.histogram(np.sqrt((d * d).sum(axis=1)), bins=edges)[0]
    shell = 4.0 / 3.0 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    ideal = 0.5 * n * (n - 1) / L ** 3 * shell
    return 0.5 * (edges[1:] + edges[:-1]), counts / ideal


def fig_K_bounded_domain(files):
    (f,) = files
    tab, runs = runs_of(f)
    L = float(str(param(f, "dipolar.box")).split(",")[0])
    fig, axes = plt.subplots(2, 2, figsize=(10, 7.2))
    (a, b), (c, d) = axes
    words = []
    for k, r in enumerate(runs):
        i = list(tab["run_id"]).index(r)
        word = method_word(tab["method"][i])
        words.append(word)
        t, K = series(f, r, "kinetic_energy")
        _, V = series(f, r, "potential_energy")
        _, H = series(f, r, "total_energy")
        ls = "-" if k == 0 else "--"
        a.plot(t, K, ls, color=COLORS[0], lw=1, label=f"kinetic, {word}")
        a.plot(t, V, ls, color=COLORS[1], lw=1, label=f"potential, {word}")
        a.plot(t, H, ls, color=COLORS[2], lw=1, label=f"total, {word}")
        b.plot(t, (H - H[0]) / abs(H[0]), ls, color=COLORS[k], lw=1, label=word)
        _, P1 = series(f, r, "polarization")
        _, S = series(f, r, "nematic_order")
        c.plot(t, P1, ls, color=COLORS[3], lw=1, label=f"polarization, {word}")
        c.plot(t, S, ls, color=COLORS[4], lw=1, label=f"nematic order, {word}")
    r0 = runs[0]
    ts, q = trajectory(f, r0, "position")
    picks = sorted(set([1, len(ts) // 5, len(ts) // 2, len(ts) - 1]))  # (frame 0: the lattice's delta peaks)
    for j, fr in enumerate(picks):
        rr, g = pair_correlation(q[fr], L, 0.5 * L, 0.05)
        d.plot(rr, g, color=COLORS[j % len(COLORS)], lw=1.0, label=f"t = {ts[fr]:g}")
    a.set_ylabel("energy")
    b.set_ylabel("relative energy error (H - H(0)) / |H(0)|")
    c.set_ylabel("order parameter")
    c.set_ylim(0, max(0.1, c.get_ylim()[1]))
    d.set_ylabel("pair correlation g(r)")
    d.set_xlabel("r / sigma")
    for ax in (a, b, c):
        ax.set_xlabel("time t")
    lo, hi = a.get_ylim()
    a.set_ylim(lo, hi + 0.6 * (hi - lo))  # room for the legend above the curves
    for ax in (a, b, c, d):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, ncol=2 if ax is a else 1, loc="upper left" if ax in (a, b) else "upper right")
    d.set_ylim(0, 3)
    d.axhline(1.0, color="0.5", lw=0.6)
    nbodies = q.shape[1]
    return fig, [f"{nbodies} dipolar soft spheres in a periodic cube L = {L:.4g} (density {nbodies / L ** 3:.2g}), "
                 f"lattice start, rc = {param(f, 'dipolar.cutoff')}, h = {tab['h'][0]:g}; solid: {words[0]}"
                 + (f", dashed: {words[1]}" if len(words) > 1 else ""),
                 f"g(r) of {words[0]} at saved frames; the truncated dipole energy jumps "
                 "when pairs cross rc, and H grows with t for both methods (docs/models.md)"]


# --- the list ----------------------------------------------------------------------------------

# (figure, source figure, what it shows, experiment files, function)
FIGURES = [
    ("P_fig2", "[P] Fig 2", "heavy top on [0, 1]: M l Q^-1 Gamma0 (3-D), components of Q X, orders of SLGI "
     "theta = 0, 1/2, 1 and SLGIKK",
     ["P_fig2_heavy_top_trajectory", "P_fig2_heavy_top_slgi_convergence", "P_fig2_heavy_top_slgikk_convergence"],
     fig_P2),
    ("P_fig3", "[P] Fig 3", "heavy top, 6000 steps of h = 0.01: energy error (top), M l Q^-1 Gamma0 (bottom)",
     ["P_fig3_heavy_top_energy"], fig_P3),
    ("P_fig5", "[P] Fig 5", "convergence of the Lie group integrators on the double spherical pendulum",
     ["P_fig5_double_pendulum_convergence"], fig_convergence),
    ("P_fig5_work_precision", "[P] Fig 5 (work-precision)", "error at T against RHS evaluations and wall time",
     ["P_fig5_double_pendulum_convergence"], fig_work_precision),
    ("P_fig6", "[P] Fig 6", "1 - q_i^T q_i over [0, 5], every method and ODE45",
     ["P_fig6_7_double_pendulum_invariants", "P_fig6_7_double_pendulum_invariants_ode45"],
     fig_manifold("unit_norm_error")),
    ("P_fig7", "[P] Fig 7", "q_i^T w_i over [0, 5], every method and ODE45",
     ["P_fig6_7_double_pendulum_invariants", "P_fig6_7_double_pendulum_invariants_ode45"],
     fig_manifold("tangency_error")),
    ("P_fig6_7_3d", "[P] Figs 6-7 (3-D state)", "Figs 6 and 7 on a genuinely 3-D initial state (the planar state "
     "of the paper keeps q_i^T w_i = 0 exactly)", ["P_fig6_7_double_pendulum_invariants_3d"], fig_P6_7),
    ("P_fig8", "[P] Fig 8", "accuracy at T = 3 against N (RKMK(5,4) vs RKMK5 with equal steps) and the step "
     "adaptation for N = 20, L_i = 1", ["P_fig8_9_11_adaptive_chain"], fig_adaptive_pair),
    ("P_fig8_work_precision", "[P] Fig 8 (work-precision)", "error at T against RHS evaluations and wall time, "
     "one point per N", ["P_fig8_9_11_adaptive_chain"], fig_work_precision),
    ("P_fig8_authors_code", "[P] Figs 8, 10 (authors' code)", "as Fig 8 in the configuration of the authors' code "
     "(q_i = (1, 0, 0), w_i = 0, L_i = 5/N)", ["P_fig8_11_adaptive_chain_authors_code"], fig_adaptive_pair),
    ("P_fig9", "[P] Fig 9", "the six components of (q_i, w_i) of both masses, N = 2: RKMK5, RKMK(5,4), ODE45",
     ["P_fig8_9_11_adaptive_chain", "P_fig9_11_double_pendulum_ode45"], fig_P9),
    ("P_fig10", "[P] Fig 10", "as Fig 8 with L_i = 5/N", ["P_fig10_adaptive_chain_scaled_lengths"],
     fig_adaptive_pair),
    ("P_fig11", "[P] Fig 11", "N = 2: step sizes of RKMK(5,4), ODE45 and RKMK5; w_i^(2) on [2.1, 3]; dw_i^(2)/dt",
     ["P_fig8_9_11_adaptive_chain", "P_fig9_11_double_pendulum_ode45"], fig_P11),
    ("P_fig13", "[P] Fig 13", "convergence on two quadrotors carrying a point mass",
     ["P_fig13_quadrotors_convergence"], fig_convergence),
    ("P_fig14", "[P] Fig 14", "two quadrotors carrying a load, tracking a parabola: snapshots in the x-z plane, "
     "load path and desired path", ["P_fig14_18_quadrotors_tracking"], fig_P14),
    ("P_fig15", "[P] Fig 15", "components of the load position and of the desired trajectory over t",
     ["P_fig14_18_quadrotors_tracking"], fig_P15),
    ("P_fig16", "[P] Fig 16", "deviation y - y_d of the load from the desired trajectory",
     ["P_fig14_18_quadrotors_tracking"], fig_P16),
    ("P_fig17", "[P] Fig 17", "direction error |q_id x q_i| of the links", ["P_fig14_18_quadrotors_tracking"],
     fig_P17),
    ("P_fig18", "[P] Fig 18", "preservation of |q_i|: RKMK4 against RK4 on the embedding",
     ["P_fig14_18_quadrotors_tracking"], fig_P18),
    ("L_fig1", "[L] Fig 1", "double spherical pendulum, T = 100: trajectory, total energy deviation and "
     "unit-length error, VI (LGVI, h = 0.01) and RK45", ["L_ex1_double_pendulum_lgvi", "L_ex1_double_pendulum_rk45"],
     fig_L_time("N m", "pendulum")),
    ("L_fig2", "[L] Fig 2", "three bodies on the sphere, T = 10: mean energy deviation and unit-length error "
     "against the step size, explicit VI and RK2", ["L_ex2_sphere_bodies_lgvi", "L_ex2_sphere_bodies_rk2"], fig_L2),
    ("L_fig3", "[L] Fig 3", "four spherical pendula with springs: motion of the bobs (VI), total energy deviation "
     "and unit-length error, VI, RK2 and RK2 with projection", ["L_ex3_spring_pendula"], fig_L_time("N m", "bobs")),
    ("L_fig4", "[L] Fig 4", "elastic rod (n = 10), T = 3: deformation of the rod (VI), total energy deviation and "
     "unit-length error, VI and RK45", ["L_ex4_elastic_rod_lgvi", "L_ex4_elastic_rod_rk45"], fig_L_time("N m", "rod")),
    ("L_fig5", "[L] Fig 5", "4 x 4 array of magnetic dipoles, T = 10: motion of the north poles (VI), total energy "
     "deviation and unit-length error, VI and RK45", ["L_ex5_magnet_array_lgvi", "L_ex5_magnet_array_rk45"],
     fig_L_time("N m", "magnets")),
    ("L_fig6", "[L] Fig 6", "molecular dynamics of 642 molecules on the sphere: paths from t = 0 and the total energy",
     ["L_ex6_sphere_md"], fig_L6),
    ("K_conclusion_bounded_domain", "[K] 4 (conclusion)", "dipolar soft spheres in a periodic box from a lattice: "
     "energies, energy error, orientational order and pair correlation, towards equilibrium",
     ["K_conclusion_bounded_domain"], fig_K_bounded_domain),
    ("K_fig3_1", "[K] Fig 3.1", "ten orbits of the free rigid body on the momentum sphere",
     ["K_fig3_1_rigid_body_orbits"], fig_K_orbits),
    ("K_fig3_2", "[K] Fig 3.2", "RKMK4 order plot, free rigid body", ["K_fig3_2_rigid_body_convergence"],
     fig_convergence),
    ("K_fig3_3", "[K] Fig 3.3", "error in the Hamiltonian over 10^6 steps", ["K_fig3_3_rigid_body_invariants"],
     fig_K_signed("total_energy", False)),
    ("K_fig3_4", "[K] Fig 3.4", "error in the Casimir over 10^6 steps", ["K_fig3_3_rigid_body_invariants"],
     fig_K_signed("casimir", False)),
    ("K_fig3_5", "[K] Fig 3.5", "orders of RKMK3 and RKMK4, 100 dipolar particles", ["K_fig3_5_dipolar_convergence"],
     fig_convergence),
    ("K_fig3_6", "[K] Fig 3.6", "orthogonality over 1000 steps, 100 dipolar particles",
     ["K_fig3_6_dipolar_orthogonality"], fig_K_orthogonality),
    ("K_fig3_7", "[K] Fig 3.7", "relative Hamiltonian error, N = 100, T = 1, h = 0.01",
     ["K_fig3_7_dipolar_energy_T1_h0.01"], fig_K_signed("total_energy", True)),
    ("K_fig3_8", "[K] Fig 3.8", "relative Hamiltonian error, N = 100, T = 1, h = 0.001",
     ["K_fig3_8_dipolar_energy_T1_h0.001"], fig_K_signed("total_energy", True)),
    ("K_fig3_9", "[K] Fig 3.9", "relative Hamiltonian error, N = 100, T = 100, h = 0.01",
     ["K_fig3_9_dipolar_energy_N100_T100"], fig_K_signed("total_energy", True)),
    ("K_fig3_10", "[K] Fig 3.10", "relative Hamiltonian error, N = 10, T = 1000, h = 0.01",
     ["K_fig3_10_dipolar_energy_N10_T1000"], fig_K_signed("total_energy", True)),
    ("K_fig3_11", "[K] Fig 3.11", "two dipolar particles in 2-D: positions (a bound random state: the "
     "seed is the suite's choice, [K] gives none)",
     ["K_fig3_11_dipolar_2d_two_particles"], fig_K_particles(False)),
    ("K_fig3_12", "[K] Fig 3.12", "two dipolar particles in 2-D: directions (same run as Fig 3.11)",
     ["K_fig3_11_dipolar_2d_two_particles"], fig_K_particles(True)),
    ("K_fig3_13", "[K] Fig 3.13", "ten dipolar particles in 2-D: positions (a bound random state: the "
     "seed is the suite's choice, [K] gives none)",
     ["K_fig3_13_dipolar_2d_ten_particles"], fig_K_particles(False)),
    ("K_fig3_14", "[K] Fig 3.14", "ten dipolar particles in 2-D: directions (same run as Fig 3.13)",
     ["K_fig3_13_dipolar_2d_ten_particles"], fig_K_particles(True)),
]


def readme(path):
    with open(path, "w") as fh:
        fh.write("# Figures of the sources\n\n"
                 "Written by `scripts/plots/source_figures.py --readme` (the list `FIGURES` there); the figures\n"
                 "themselves are regenerated by `scripts/reproduce_results.sh` into this folder as `<figure>.png`\n"
                 "and `.pdf` from `results/<experiment>.h5` alone and are not committed (like the HDF5 files).\n"
                 "One figure per source figure; sources as in the top-level README ([P], [K], [L]).\n\n"
                 "| figure | source figure | shows | experiment files |\n|---|---|---|---|\n")
        for name, src, what, exps, _ in FIGURES:
            files = ", ".join(f"[`{e}`](../../experiments/{e}.cfg)" for e in exps)
            fh.write(f"| `{name}` | {src} | {what} | {files} |\n")
        fh.write("\nDrawn elsewhere: [L] Fig 7 (kinetic-energy distribution of the molecules on the sphere) by\n"
                 "`scripts/plots/plot_sphere_md.py` from [`L_ex6_sphere_md`](../../experiments/L_ex6_sphere_md.cfg) "
                 "into\n`results/plots/L_ex6_sphere_md_fig7_kinetic_energy.png` (`scripts/reproduce_results.sh "
                 "'L_ex6*'` runs it).\n\n"
                 "Not drawn here: [P] Figs 1, 4, 12 (sketches of the models).\n\n"
                 "## Reading a work-precision diagram\n\n"
                 "Every point is one run: its error at the final time T (vertical, log scale) against what it\n"
                 "cost (horizontal, log scale): on the left the number of vector-field (RHS) evaluations, a\n"
                 "machine-independent count; on the right the wall-clock seconds of the time stepping (the\n"
                 "slowest rank's `timings/integrate`), which includes the cost of exponentials, commutators and\n"
                 "communication that RHS counts miss. Lower left is better: for a given cost, the lowest curve is\n"
                 "the most accurate method; for a given accuracy, the leftmost curve is the cheapest. The slope of\n"
                 "a constant-step method's curve is -p for a method of order p (error ~ h^p ~ cost^-p), so curves of\n"
                 "higher order cross lower-order ones towards small errors. Wall times depend on the machine and on\n"
                 "what else ran on it; compare methods within one figure, not across machines. The numbers are in\n"
                 "`results/tables/<experiment>.work-precision.csv` (one row per point; an adaptive study's\n"
                 "constant-step comparison run is its own series, its wall time from `runs/<id>/compare/timings`).\n")
    print(path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default="results", help="directory of the experiments' HDF5 files")
    ap.add_argument("--out", default=os.path.join("results", "figures"))
    ap.add_argument("--formats", default="png,pdf")
    ap.add_argument("--only", default="", help="comma-separated figure names")
    ap.add_argument("--readme", default="", help="write the list of figures to this file")
    ap.add_argument("--list", action="store_true", help="print the figure names and exit")
    args = ap.parse_args(argv)
    if args.list:
        for name, *_ in FIGURES:
            print(name)
        return 0
    if args.readme:
        readme(args.readme)
    only = [x for x in args.only.split(",") if x]
    unknown = [x for x in only if x not in [n for n, *_ in FIGURES]]
    if unknown:
        print(f"source_figures: --only names {', '.join(unknown)}, which are not figures (--list names them)",
              file=sys.stderr)
        return 2
    formats = [x for x in args.formats.split(",") if x]
    skipped = 0
    for name, src, what, exps, fn in FIGURES:
        if only and name not in only:
            continue
        paths = [os.path.join(args.results, e + ".h5") for e in exps]
        missing = [p for p in paths if not os.path.exists(p)]
        if missing:
            print(f"source_figures: {name} skipped: {', '.join(missing)} missing (scripts/reproduce_results.sh "
                  f"'{os.path.basename(missing[0])[:-3]}' writes it)", file=sys.stderr)
            skipped += 1
            continue
        files = [h5py.File(p, "r") for p in paths]
        try:
            fig, notes = fn(files)
        except KeyError as e:  # a file written before the experiment stored what the figure needs
            print(f"source_figures: {name} skipped: {', '.join(paths)} lacks data the figure needs ({e}); "
                  f"regenerate it with scripts/reproduce_results.sh '{exps[0]}'", file=sys.stderr)
            skipped += 1
            for f in files:
                f.close()
            continue
        fig.suptitle(f"{src}: {what}", fontsize=10)
        top_margin(fig, 0.5)
        footnote(fig, notes + [f"from {', '.join(e + '.h5' for e in exps)}"])
        save(fig, args.out, name, formats)
        for f in files:
            f.close()
    return 1 if skipped else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # a bug, not a skipped figure (status 1): the reproduce script stops on it
        import traceback
        traceback.print_exc()
        print(f"source_figures: failed: {e}", file=sys.stderr)
        sys.exit(4)
