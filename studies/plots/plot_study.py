#!/usr/bin/python3
"""Plots of a liebench study file (PNG and PDF), from the file alone.

    /usr/bin/python3 studies/plots/plot_study.py results/study.h5 [--out DIR] [--formats png,pdf]

Debian's python3-h5py, python3-numpy and python3-matplotlib (Agg backend); the `python3`
of a pyenv/conda installation usually cannot import them, hence /usr/bin/python3.

What is drawn depends on the study kind (layout: results/README.md):
  convergence  log-log global error vs h per method, with dashed reference slopes h^p of the
               nominal orders and the observed order (from /analysis/convergence) in the legend
  invariants,  relative energy error, Casimir/momentum errors and manifold errors over time
  simulate     (one panel per quantity, one line per run)
  adaptive     step-size history h(t) of every run (rejected steps marked) and error vs tol
               with the constant-step comparison
  scaling      speedup and parallel efficiency vs cores
Failed runs (/summary status "failed: ..." or "nonfinite") are never drawn as numbers: their
curves are left out, convergence plots mark their step sizes with a red x labelled "failed"
at the top of the axes, and every figure with failed runs lists them in a note "failed: ...".
Writes <stem>_<plot>.png/.pdf into DIR (default: next to the file) and prints their names.
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import h5py  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def text(x):
    return x.decode() if isinstance(x, (bytes, np.bytes_)) else str(x)


def attr(obj, name, default=None):
    return text(obj.attrs[name]) if name in obj.attrs else default


def summary(f):
    """The /summary table as a dict of numpy arrays (strings decoded)."""
    s = f["summary"]
    out = {}
    for name in s.attrs["columns"]:
        name = text(name)
        v = s[name][()]
        if v.dtype.kind == "S":
            v = np.array([text(x) for x in v])
        out[name] = v
    return out


def failed_mask(tab):
    """True for runs whose status is not "ok" (their numbers are not results)."""
    n = len(tab["run_id"])
    if "status" not in tab:
        return np.zeros(n, dtype=bool)
    return np.array([text(x) != "ok" for x in tab["status"]])


def note_failures(fig, tab, rows, gcols):
    """A note at the bottom of the figure naming the failed runs among `rows` (a mask)."""
    failed = failed_mask(tab) & rows
    if failed.any():
        labels = [run_label(tab, i, gcols) for i in np.nonzero(failed)[0]]
        fig.text(0.01, 0.01, "failed (not drawn): " + "; ".join(labels[:8]) + (" ..." if len(labels) > 8 else ""),
                 ha="left", va="bottom", fontsize=7, color="red")


def group_columns(f, tab):
    keys = [text(k) for k in f["study"].attrs["key_columns"]]
    return [k for k in keys if k not in ("method", "steps", "h", "tol", "layout") and k in tab]


def group_labels(tab, cols):
    n = len(tab["run_id"])
    return np.array([", ".join(f"{c}={tab[c][i]}" for c in cols) for i in range(n)])


def save(fig, out_dir, stem, name, formats):
    paths = []
    for ext in formats:
        p = os.path.join(out_dir, f"{stem}_{name}.{ext}")
        fig.savefig(p, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    for p in paths:
        print(p)
    return paths


def plot_convergence(f, tab, out_dir, stem, formats):
    groups = group_labels(tab, group_columns(f, tab))
    # /analysis/convergence has one row per series (group, method) in order of first appearance
    series = list(dict.fromkeys(zip(groups, tab["method"])))
    orders = {}
    if "analysis/convergence" in f:
        a = f["analysis/convergence"]
        for key, o, lo, hi in zip(series, a["observed_order"][()], a["fit_h_min"][()], a["fit_h_max"][()]):
            orders[key] = (o, lo, hi)
    paths = []
    failed = failed_mask(tab)
    for k, g in enumerate(dict.fromkeys(groups)):
        fig, ax = plt.subplots(figsize=(6.4, 4.8))
        sel = groups == g
        marked = False
        for m in dict.fromkeys(tab["method"][sel]):
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
            label = m
            key = (g, m)
            if key in orders and np.isfinite(orders[key][0]):
                label += f" (order {orders[key][0]:.2f})"
            (line,) = ax.loglog(h[ok], e[ok], "o-", label=label)
            # reference slope h^p of the nominal order over the fit range, drawn a factor 4 below
            p = int(tab["method_order"][rows][0])
            if key in orders and np.isfinite(orders[key][2]):
                h_hi = orders[key][2]
                e_hi = e[np.argmin(np.abs(h - h_hi))]
                hh = np.array([orders[key][1], h_hi])
                ax.loglog(hh, 0.25 * e_hi * (hh / h_hi) ** p, "--", color=line.get_color(), alpha=0.7, lw=1)
        ax.set_xlabel("step size h")
        ax.set_ylabel(f"global error at T = {f['study'].attrs['t_final']:g}")
        title = attr(f, "title", "") or "convergence"
        ax.set_title(title + (f"\n{g}" if g else ""), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        note_failures(fig, tab, sel, group_columns(f, tab))
        fig.text(0.99, 0.01, "dashed: slope h^p of the nominal order p over the fitted range (shifted down)", ha="right", fontsize=7, alpha=0.7)
        paths += save(fig, out_dir, stem, "convergence" + (f"_{k}" if k else ""), formats)
    return paths


def run_label(tab, i, gcols):
    parts = [tab["method"][i]]
    if "steps" in tab:
        parts.append(f"h={tab['h'][i]:.3g}")
    if "tol" in tab:
        parts.append(f"tol={tab['tol'][i]:.0e}")
    parts += [f"{c}={tab[c][i]}" for c in gcols]
    return " ".join(parts)


def plot_invariants(f, tab, out_dir, stem, formats, max_runs=12):
    gcols = group_columns(f, tab)
    failed = failed_mask(tab)
    runs = [r for r, bad in zip(tab["run_id"], failed) if not bad][:max_runs]
    names = []
    for r in runs:
        if f"runs/{r}/observables" in f:
            for n in f[f"runs/{r}/observables"]:
                if n not in names:
                    names.append(n)
    panels = []
    for n in names:
        if n.endswith("_error"):
            panels.append((n, n, lambda v: np.abs(v), True))
        elif n in ("total_energy", "energy", "hamiltonian"):
            panels.append((n, "|H - H0| / |H0|", lambda v: np.abs(v - v[0]) / (abs(v[0]) if v[0] != 0 else 1.0), True))
        elif n.startswith("casimir") or "momentum" in n:
            panels.append((n, f"|{n} - {n}(0)|", lambda v: np.abs(v - v[0]), True))
    if not panels:
        if failed.any():  # every run failed: a figure that says so instead of nothing
            fig, ax = plt.subplots(figsize=(6.4, 2.4))
            ax.axis("off")
            ax.text(0.5, 0.5, "failed", ha="center", va="center", fontsize=20, color="red")
            note_failures(fig, tab, failed, gcols)
            return save(fig, out_dir, stem, "invariants", formats)
        return []
    order = {"|H - H0| / |H0|": 0}
    panels.sort(key=lambda p: order.get(p[1], 2 if p[0].endswith("_error") else 1))
    fig, axes = plt.subplots(len(panels), 1, figsize=(6.4, 2.4 * len(panels)), sharex=True, squeeze=False)
    for ax, (n, ylabel, fn, logy) in zip(axes[:, 0], panels):
        for r in runs:
            i = list(tab["run_id"]).index(r)
            path = f"runs/{r}/observables/{n}"
            if path not in f:
                continue
            t, v = f[path + "/time"][()], f[path + "/value"][()]
            y = fn(v)
            if logy:
                y = np.where(y > 0, y, np.nan)
            ax.plot(t, y, lw=1, label=run_label(tab, i, gcols))
        if logy:
            ax.set_yscale("log")
        ax.set_ylabel(ylabel, fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
    axes[-1, 0].set_xlabel("time t")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, -0.02 - 0.025 * ((len(labels) + 1) // 2)),
               fontsize=7, ncol=2)
    axes[0, 0].set_title(attr(f, "title", "") or "invariants over time", fontsize=10)
    note_failures(fig, tab, failed, gcols)
    return save(fig, out_dir, stem, "invariants", formats)


def plot_adaptive(f, tab, out_dir, stem, formats, max_runs=12):
    gcols = group_columns(f, tab)
    paths = []
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    failed = failed_mask(tab)
    for i, r in enumerate(list(tab["run_id"])[:max_runs]):
        if failed[i]:
            continue
        g = f[f"runs/{r}"]
        if "step_size" not in g:
            continue
        t, h = g["step_size/time"][()], g["step_size/value"][()]
        (line,) = ax.step(t, h, where="pre", lw=1, label=run_label(tab, i, gcols))  # h_i ends at t_i
        rej = g["rejected_time"][()] if "rejected_time" in g else []
        if len(rej):
            hr = np.interp(rej, t, h)
            ax.plot(rej, hr, "x", color=line.get_color(), ms=4)
    ax.set_yscale("log")
    ax.set_xlabel("time t")
    ax.set_ylabel("accepted step size h")
    ax.set_title((attr(f, "title", "") or "step-size history") + "\n(x: rejected steps)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    note_failures(fig, tab, failed, gcols)
    paths += save(fig, out_dir, stem, "stepsize", formats)

    if "error" in tab:
        fig, ax = plt.subplots(figsize=(6.4, 4.8))
        groups = group_labels(tab, gcols)
        for g in dict.fromkeys(groups):
            for m in dict.fromkeys(tab["method"][groups == g]):
                rows = (groups == g) & (tab["method"] == m) & ~failed
                if not rows.any():
                    continue
                lab = m + (f" {g}" if g else "")
                (line,) = ax.loglog(tab["tol"][rows], tab["error"][rows], "o-", label=lab + " (adaptive)")
                if "compare_error" in tab:
                    cm = tab["compare_method"][rows][0]
                    ax.loglog(tab["tol"][rows], tab["compare_error"][rows], "s--", color=line.get_color(),
                              label=f"{cm} constant step, same cost")
        ax.set_xlabel("tolerance")
        ax.set_ylabel(f"error at T = {f['study'].attrs['t_final']:g}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        note_failures(fig, tab, failed, gcols)
        paths += save(fig, out_dir, stem, "error_vs_tol", formats)
    return paths


def plot_scaling(f, tab, out_dir, stem, formats):
    t = []
    for r in tab["run_id"]:
        tg = f[f"runs/{r}/timings"]
        t.append(np.max(tg["integrate"][()]) if "integrate" in tg else np.nan)
    t = np.array(t)
    cores = tab["cores"].astype(float)
    failed = failed_mask(tab)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.6))
    for m in dict.fromkeys(tab["method"]):
        rows = (tab["method"] == m) & ~failed
        if not rows.any():
            continue
        c, tt = cores[rows], t[rows]
        idx = np.argsort(c)
        c, tt = c[idx], tt[idx]
        speed = tt[0] / tt
        weak = attr(f["parameters"], "scaling.mode", "strong") == "weak"
        eff = speed if weak else speed * c[0] / c
        a1.plot(c, speed, "o-", label=m)
        a2.plot(c, eff, "o-", label=m)
    a1.plot(sorted(set(cores)), np.array(sorted(set(cores))) / min(cores), "k:", label="ideal (strong)")
    a1.set_xlabel("cores (ranks x threads)")
    a1.set_ylabel("speedup")
    a2.set_xlabel("cores (ranks x threads)")
    a2.set_ylabel("efficiency")
    for a in (a1, a2):
        a.grid(True, alpha=0.3)
        a.legend(fontsize=7)
    note_failures(fig, tab, failed, group_columns(f, tab))
    return save(fig, out_dir, stem, "scaling", formats)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--out", default=None, help="directory for the plots (default: next to the file)")
    ap.add_argument("--formats", default="png,pdf")
    args = ap.parse_args(argv)
    formats = [x for x in args.formats.split(",") if x]
    out_dir = args.out or os.path.dirname(os.path.abspath(args.file))
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.file))[0]
    with h5py.File(args.file, "r") as f:
        if "study" not in f or "summary" not in f:
            sys.exit(f"{args.file}: not a liebench study file (no /study or /summary)")
        kind = text(f["study"].attrs["kind"])
        tab = summary(f)
        paths = []
        if kind == "convergence":
            paths += plot_convergence(f, tab, out_dir, stem, formats)
        if kind in ("invariants", "simulate", "adaptive"):
            paths += plot_invariants(f, tab, out_dir, stem, formats)
        if kind == "adaptive":
            paths += plot_adaptive(f, tab, out_dir, stem, formats)
        if kind == "scaling":
            paths += plot_scaling(f, tab, out_dir, stem, formats)
        n_failed = int(failed_mask(tab).sum())
    if n_failed:
        print(f"{args.file}: {n_failed} failed run(s), shown as failed in the plots", file=sys.stderr)
    if not paths:
        sys.exit(f"{args.file}: nothing to plot for a {kind} study")


if __name__ == "__main__":
    main()
