#!/usr/bin/python3
"""Plots of a liebench study file (PNG and PDF), from the file alone.

    /usr/bin/python3 scripts/plots/plot_study.py results/study.h5 [--out DIR] [--formats png,pdf]
                     [--tables DIR]

Debian's python3-h5py, python3-numpy and python3-matplotlib (Agg backend); the `python3`
of a pyenv/conda installation usually cannot import them, hence /usr/bin/python3.

What is drawn depends on the study kind (layout: results/README.md):
  convergence  log-log global error vs h per method, with dashed reference slopes h^p of the
               nominal orders and the observed order (from /analysis/convergence) in the legend;
               a grid (e.g. slgi.theta) gives one panel per grid point in one figure;
               and the work-precision diagram (error vs RHS evaluations and vs wall time)
  invariants,  relative energy error, Casimir/momentum errors and manifold errors over time
  simulate     (one panel per quantity, one line per run; identically-zero series are named in
               the panel)
  adaptive     step-size history h(t) of every run (rejected steps marked), error at T against
               the tolerance (several tolerances) or against the grid axis (one tolerance, e.g.
               N in [P] Fig 8) with the constant-step comparison, the work-precision diagram,
               and the invariants sampled at the accepted steps or the sample_dt times
  scaling      speedup and parallel efficiency vs cores, every ranks x threads layout marked
  timing       with errors at T (a work-precision deck of experiments/benchmark/): the
               work-precision diagram (the fastest repetition's wall time)
Failed runs (/summary status "failed: ..." or "nonfinite") are never drawn as numbers: their
curves are left out, convergence plots mark their step sizes with a red x labelled "failed"
at the top of the axes, and every figure with failed runs lists them in a note "failed: ...".
Writes <stem>_<plot>.png/.pdf into DIR (default: next to the file) and the work-precision
table <stem>.work-precision.csv into the --tables DIR (default: DIR), and prints their names.
The figures named after the source figures: scripts/plots/source_figures.py.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import h5py  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import workprecision  # noqa: E402
from lbcommon import (attr, axis_word, failed_mask, failure_note, fmt, footnote, group_columns,  # noqa: E402
                      group_labels, log_series, method_word, observable_panel, open_or_exit, save, side_legend, style,
                      summary, text, top_margin, varying, zero_note)


def run_label(tab, i, gcols):
    """Method and the keys that vary between the runs of the file."""
    parts = [method_word(tab["method"][i])]
    if "steps" in tab and varying(tab, ["h"]):
        parts.append(f"h = {tab['h'][i]:.3g}")
    if "tol" in tab and varying(tab, ["tol"]):
        parts.append(f"tol = {tab['tol'][i]:.0e}")
    parts += [f"{axis_word(c)} = {fmt(tab[c][i])}" for c in gcols]
    return ", ".join(parts)


# --- convergence -----------------------------------------------------------------------------


def convergence_axes(ax, f, tab, sel, orders, g):
    """Error vs h of the runs `sel` (one grid point) on ax; returns whether failures were marked."""
    failed = failed_mask(tab)
    marked = False
    for k, m in enumerate(dict.fromkeys(tab["method"][sel])):
        bad = sel & (tab["method"] == m) & failed
        if bad.any():
            # failed step sizes: a red x at the top edge (x in data, y in axes coordinates)
            ax.plot(tab["h"][bad], np.full(bad.sum(), 0.97), "x", color="red", ms=8,
                    transform=ax.get_xaxis_transform(), label=None if marked else "failed")
            marked = True
        rows = sel & (tab["method"] == m) & ~failed
        if not rows.any():
            continue
        h, e = tab["h"][rows], tab["error"][rows]
        idx = np.argsort(h)
        h, e = h[idx], e[idx]
        ok = np.isfinite(e) & (e > 0)
        label = method_word(m)
        key = (g, m)
        if key in orders and np.isfinite(orders[key][0]):
            label += f", observed order {orders[key][0]:.2f}"
        st = style(k)
        ax.loglog(h[ok], e[ok], label=label, **st)
        # reference slope h^p of the nominal order over the fit range, drawn a factor 4 below
        p = int(tab["method_order"][rows][0])
        if key in orders and np.isfinite(orders[key][2]):
            h_hi = orders[key][2]
            e_hi = e[np.argmin(np.abs(h - h_hi))]
            hh = np.array([orders[key][1], h_hi])
            ax.loglog(hh, 0.25 * e_hi * (hh / h_hi) ** p, ":", color=st["color"], alpha=0.8, lw=1)
    ax.set_xlabel("step size h (time units)")
    ax.grid(True, which="both", alpha=0.3)
    return marked


def convergence_orders(f, tab, groups):
    # /analysis/convergence has one row per series (group, method) in order of first appearance
    series = list(dict.fromkeys(zip(groups, tab["method"])))
    orders = {}
    if "analysis/convergence" in f:
        a = f["analysis/convergence"]
        for key, o, lo, hi in zip(series, a["observed_order"][()], a["fit_h_min"][()], a["fit_h_max"][()]):
            orders[key] = (o, lo, hi)
    return orders


SLOPE_NOTE = "dotted: slope h^p of the nominal order p over the fitted range (a factor 4 below the data)"


def plot_convergence(f, tab, out_dir, stem, formats):
    gcols = group_columns(f, tab)
    groups = group_labels(tab, gcols)
    orders = convergence_orders(f, tab, groups)
    glist = list(dict.fromkeys(groups))
    n = len(glist)
    ncol = min(n, 3)
    nrow = (n + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.2 * ncol, 4.3 * nrow), sharex=True, sharey=True, squeeze=False)
    for k, g in enumerate(glist):
        ax = axes.flat[k]
        convergence_axes(ax, f, tab, groups == g, orders, g)
        if g:
            ax.set_title(g, fontsize=9)
        if n == 1:  # outside the axes: never over the data
            ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
        else:
            ax.legend(fontsize=7, loc="lower right")
    for ax in axes.flat[n:]:
        ax.axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel(f"global error at T = {f['study'].attrs['t_final']:g}")
    fig.suptitle(attr(f, "title", "") or "convergence", fontsize=10)
    top_margin(fig)
    footnote(fig, [SLOPE_NOTE, failure_note(tab, np.ones(len(groups), bool), lambda i: run_label(tab, i, gcols))])
    return save(fig, out_dir, f"{stem}_convergence", formats)


# --- invariants over time --------------------------------------------------------------------


def observable_names(f, runs):
    names = []
    for r in runs:
        if f"runs/{r}/observables" in f:
            for n in f[f"runs/{r}/observables"]:
                if n not in names and observable_panel(n):
                    names.append(n)
    order = {"energy": 0, "other": 1, "error": 2}
    names.sort(key=lambda n: order[observable_panel(n)[2]])
    return names


def invariants_axes(ax, f, tab, runs, name, gcols, labels=None):
    """One observable of several runs on ax (log y); identically-zero series named in the panel."""
    ylabel, fn, _ = observable_panel(name)
    zeros, drawn = [], False
    for k, r in enumerate(runs):
        i = list(tab["run_id"]).index(r)
        path = f"runs/{r}/observables/{name}"
        if path not in f:
            continue
        t, v = f[path + "/time"][()], f[path + "/value"][()]
        label = labels[k] if labels else run_label(tab, i, gcols)
        drawn = log_series(ax, t, fn(v), label, style(k, len(t)), zeros) is not None or drawn
    ax.set_yscale("log")
    zero_note(ax, zeros, drawn)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.grid(True, which="both", alpha=0.3)


def plot_invariants(f, tab, out_dir, stem, formats, max_runs=12):
    gcols = group_columns(f, tab)
    failed = failed_mask(tab)
    runs = [r for r, bad in zip(tab["run_id"], failed) if not bad][:max_runs]
    names = observable_names(f, runs)
    if not names:
        if failed.any():  # every run failed: a figure that says so instead of nothing
            fig, ax = plt.subplots(figsize=(6.4, 2.4))
            ax.axis("off")
            ax.text(0.5, 0.5, "failed", ha="center", va="center", fontsize=20, color="red")
            footnote(fig, [failure_note(tab, failed, lambda i: run_label(tab, i, gcols))])
            return save(fig, out_dir, f"{stem}_invariants", formats)
        return []
    fig, axes = plt.subplots(len(names), 1, figsize=(7.5, 2.3 * len(names) + 0.6), sharex=True, squeeze=False)
    for ax, n in zip(axes[:, 0], names):
        invariants_axes(ax, f, tab, runs, n, gcols)
    axes[-1, 0].set_xlabel("time t (time units)")
    handles, labels = [], []
    for ax in axes[:, 0]:  # every series, also those missing from the first panel
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    side_legend(fig, handles, labels, fontsize=7)
    fig.suptitle(attr(f, "title", "") or "invariants over time", fontsize=10)
    top_margin(fig)
    notes = [failure_note(tab, failed, lambda i: run_label(tab, i, gcols))]
    if len(tab["run_id"]) > max_runs:
        notes.append(f"the first {max_runs} of {len(tab['run_id'])} runs")
    if text(f["study"].attrs["kind"]) == "adaptive" and runs:
        t = f[f"runs/{runs[0]}/observables/{names[0]}/time"][()]
        if len(t) <= 2:
            notes.append("sampled at t0 and T only (set sample_dt or sample_every for the history)")
    footnote(fig, notes)
    return save(fig, out_dir, f"{stem}_invariants", formats)


# --- adaptive --------------------------------------------------------------------------------


def stepsize_axes(ax, f, tab, rows, gcols, extra=()):
    for k, i in enumerate(rows):
        g = f[f"runs/{tab['run_id'][i]}"]
        if "step_size" not in g:
            continue
        t, h = g["step_size/time"][()], g["step_size/value"][()]
        st = style(k, len(t))
        st.pop("marker"), st.pop("markevery", None)
        (line,) = ax.step(t, h, where="pre", label=run_label(tab, i, gcols), **st)  # h_i ends at t_i
        rej = g["rejected_time"][()] if "rejected_time" in g else []
        if len(rej):
            ax.plot(rej, np.interp(rej, t, h), "x", color=line.get_color(), ms=4)
    ax.set_yscale("log")
    ax.set_xlabel("time t (time units)")
    ax.set_ylabel("accepted step size h (time units)")
    ax.grid(True, which="both", alpha=0.3)


def error_axes(ax, f, tab, gcols, failed):
    """Error at T: against tol for several tolerances (each series at its own), against the grid
    axis for one tolerance and a one-axis grid ([P] Figs 8, 10 left)."""
    tols = np.unique(tab["tol"])
    by_grid = len(tols) == 1 and len(gcols) == 1
    cm = next((text(c) for c in tab.get("compare_method", []) if text(c)), "")
    if by_grid:
        x = tab[gcols[0]].astype(float)
        for k, m in enumerate(dict.fromkeys(tab["method"])):
            rows = (tab["method"] == m) & ~failed
            idx = np.argsort(x[rows])
            ax.semilogy(x[rows][idx], tab["error"][rows][idx], label=f"{method_word(m)}, variable step, tol = {tols[0]:g}",
                        **style(2 * k))
            if cm:
                ax.semilogy(x[rows][idx], tab["compare_error"][rows][idx],
                            label=f"{method_word(cm)}, constant step, same number of steps", **style(2 * k + 1))
        ax.set_xlabel(axis_word(gcols[0]))
        ax.set_xticks(np.unique(x))
    else:
        groups = group_labels(tab, gcols)
        k = 0
        for g in dict.fromkeys(groups):
            for m in dict.fromkeys(tab["method"][groups == g]):
                rows = (groups == g) & (tab["method"] == m) & ~failed
                if not rows.any():
                    continue
                idx = np.argsort(tab["tol"][rows])
                lab = method_word(m) + (f" [{g}]" if g else "")
                ax.loglog(tab["tol"][rows][idx], tab["error"][rows][idx], label=lab + ", variable step", **style(k))
                if cm:
                    ax.loglog(tab["tol"][rows][idx], tab["compare_error"][rows][idx],
                              label=f"{method_word(cm)} [{g}], constant step, same steps" if g else
                              f"{method_word(cm)}, constant step, same number of steps", **style(k + 1))
                k += 2
        ax.set_xlabel("tolerance tol")
    ax.set_ylabel(f"error at T = {f['study'].attrs['t_final']:g}")
    ax.grid(True, which="both", alpha=0.3)
    return by_grid


def plot_adaptive(f, tab, out_dir, stem, formats, max_runs=12):
    gcols = group_columns(f, tab)
    failed = failed_mask(tab)
    paths = []
    rows = [i for i in range(len(tab["run_id"])) if not failed[i]][:max_runs]
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    stepsize_axes(ax, f, tab, rows, gcols)
    ax.set_title((attr(f, "title", "") or "step-size history") + "\n(x: rejected steps)", fontsize=9)
    side_legend(fig, *ax.get_legend_handles_labels(), fontsize=7)
    footnote(fig, [failure_note(tab, failed, lambda i: run_label(tab, i, gcols))])
    paths += save(fig, out_dir, f"{stem}_stepsize", formats)

    if "error" in tab:
        fig, ax = plt.subplots(figsize=(7.5, 4.6))
        by_grid = error_axes(ax, f, tab, gcols, failed)
        ax.set_title(attr(f, "title", "") or "error at T", fontsize=9)
        fig.legend(*ax.get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, -0.0), fontsize=7,
                   frameon=False, ncol=1)
        paths += save(fig, out_dir, f"{stem}_error_vs_{'grid' if by_grid else 'tol'}", formats)
    return paths


# --- scaling ---------------------------------------------------------------------------------


def plot_scaling(f, tab, out_dir, stem, formats):
    t = np.array([np.max(f[f"runs/{r}/timings/integrate"][()]) if f"runs/{r}/timings/integrate" in f else np.nan
                  for r in tab["run_id"]])
    cores = tab["cores"].astype(float)
    failed = failed_mask(tab)
    weak = attr(f["parameters"], "scaling.mode", "strong") == "weak"
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    layouts = list(dict.fromkeys(tab["layout"]))
    lay_marker = {lay: m for lay, m in zip(layouts, ["o", "s", "^", "D", "v", "P", "X", "*"] * 4)}
    for k, m in enumerate(dict.fromkeys(tab["method"])):
        rows = (tab["method"] == m) & ~failed
        if not rows.any():
            continue
        base = t[rows][np.argmin(cores[rows])]
        c0 = np.min(cores[rows])
        speed = base / t
        eff = speed if weak else speed * c0 / cores
        color = style(k)["color"]
        # a line through the best layout per core count, every layout its own marker and label
        for a, y in ((a1, speed), (a2, eff)):
            cs = np.unique(cores[rows])
            best = [np.max(y[rows & (cores == c)]) for c in cs]
            a.plot(cs, best, "-", color=color, lw=1, alpha=0.6)
            for i in np.nonzero(rows)[0]:
                a.plot(cores[i], y[i], lay_marker[tab["layout"][i]], color=color, ms=8, mfc="none" if
                       tab["threads"][i] > 1 else color, label=f"{method_word(m)}, {tab['ranks'][i]} rank(s) x "
                       f"{tab['threads'][i]} thread(s)")
                a.annotate(tab["layout"][i], (cores[i], y[i]), textcoords="offset points", xytext=(6, -3), fontsize=7)
    cs = np.array(sorted(set(cores)))
    a1.plot(cs, cs / cs.min() if not weak else np.ones_like(cs), "k:", label="ideal")
    a2.plot(cs, np.ones_like(cs), "k:")
    a1.set_ylabel("weak-scaling speedup T(1)/T(p) at fixed work per core" if weak else "speedup T(1)/T(p)")
    a2.set_ylabel("parallel efficiency")
    for a in (a1, a2):
        a.set_xlabel("cores p = ranks x threads")
        a.set_xticks(cs)
        a.grid(True, alpha=0.3)
    handles, labels = a1.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    side_legend(fig, uniq.values(), uniq.keys(), fontsize=7)
    fig.suptitle(attr(f, "title", "") or "scaling", fontsize=10)
    footnote(fig, ["layouts labelled ranks x threads; T = the slowest rank's wall time of the time stepping",
                   failure_note(tab, failed, lambda i: run_label(tab, i, []))])
    return save(fig, out_dir, f"{stem}_scaling", formats)


def plot_work_precision(f, tab, out_dir, tables_dir, stem, formats):
    pts = workprecision.rows(f, tab)
    if not pts:
        return []
    paths = [workprecision.write_csv(pts, os.path.join(tables_dir, f"{stem}.work-precision.csv"))]
    fig, notes = workprecision.figure(f, tab, attr(f, "title", "") or stem)
    footnote(fig, notes)
    return paths + save(fig, out_dir, f"{stem}_work_precision", formats)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--out", default=None, help="directory for the plots (default: next to the file)")
    ap.add_argument("--tables", default=None, help="directory for the work-precision CSV (default: --out)")
    ap.add_argument("--formats", default="png,pdf")
    args = ap.parse_args(argv)
    formats = [x for x in args.formats.split(",") if x]
    out_dir = args.out or os.path.dirname(os.path.abspath(args.file))
    os.makedirs(out_dir, exist_ok=True)
    tables_dir = args.tables or out_dir
    os.makedirs(tables_dir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.file))[0]
    with open_or_exit(args.file, "plot_study", ("study", "summary"), "a liebench study file") as f:
        kind = text(f["study"].attrs["kind"])
        tab = summary(f)
        paths = []
        if kind == "convergence":
            paths += plot_convergence(f, tab, out_dir, stem, formats)
        if kind in ("invariants", "simulate", "adaptive"):
            paths += plot_invariants(f, tab, out_dir, stem, formats)
        if kind == "adaptive":
            paths += plot_adaptive(f, tab, out_dir, stem, formats)
        if kind in ("convergence", "adaptive", "timing"):
            paths += plot_work_precision(f, tab, out_dir, tables_dir, stem, formats)
        if kind == "scaling":
            paths += plot_scaling(f, tab, out_dir, stem, formats)
        n_failed = int(failed_mask(tab).sum())
    if n_failed:
        print(f"{args.file}: {n_failed} failed run(s), shown as failed in the plots", file=sys.stderr)
    if not paths:
        sys.exit(f"{args.file}: nothing to plot for a {kind} study")


if __name__ == "__main__":
    main()
