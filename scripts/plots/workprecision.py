"""Work-precision data of a convergence, adaptive or timing study (with errors), from the file alone.

Every run gives one point: the error at T (/summary/error) against its cost, as vector-field
(RHS) evaluations (/summary/rhs_evaluations) and as wall-clock seconds of the time stepping
(the slowest rank's runs/<id>/timings/integrate; in a timing study, the fastest repetition's of
the recorded pass: /summary/wall_min, the least over every pass, may be smaller). Adaptive studies with a constant-step
comparison (adaptive.compare_method) give a second point per run: compare_error,
compare_rhs_evaluations and runs/<id>/compare/timings/integrate. Failed runs are left out.
"""
import csv

import numpy as np

from lbcommon import failed_mask, group_columns, group_labels, method_word, text, wall_seconds

COLUMNS = ["series", "group", "method", "variant", "steps", "tol", "error", "rhs_evaluations", "wall_seconds", "run_id"]


def rows(f, tab):
    """One dict per point (COLUMNS), in /summary order; the comparison point follows its run."""
    kind = text(f["study"].attrs["kind"])
    if kind not in ("convergence", "adaptive", "timing") or "error" not in tab:
        return []
    gcols = group_columns(f, tab)
    groups = group_labels(tab, gcols)
    failed = failed_mask(tab)
    out = []
    for i, r in enumerate(tab["run_id"]):
        if failed[i]:
            continue
        m = tab["method"][i]
        g = groups[i]
        steps = int(tab["steps"][i]) if "steps" in tab else int(tab["accepted"][i]) if "accepted" in tab else -1
        tol = float(tab["tol"][i]) if "tol" in tab else np.nan
        variant = "adaptive" if kind == "adaptive" else "constant step"
        out.append(dict(series=series_name(m, variant, g, kind), group=g, method=m, variant=variant, steps=steps,
                        tol=tol, error=float(tab["error"][i]), rhs_evaluations=int(tab["rhs_evaluations"][i]),
                        wall_seconds=wall_seconds(f, r), run_id=r))
        if kind == "adaptive" and "compare_method" in tab and text(tab["compare_method"][i]):
            cm = text(tab["compare_method"][i])
            out.append(dict(series=series_name(cm, "constant step", g, kind), group=g, method=cm,
                            variant="constant step", steps=int(tab["compare_steps"][i]), tol=tol,
                            error=float(tab["compare_error"][i]),
                            rhs_evaluations=int(tab["compare_rhs_evaluations"][i]),
                            wall_seconds=wall_seconds(f, r, "compare"), run_id=r))
    return out


def series_name(method, variant, group, kind):
    name = method_word(method) + (", " + variant if kind == "adaptive" else "")
    return name + (f" [{group}]" if group and kind == "convergence" else "")


def write_csv(points, path):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for p in points:
            w.writerow([f"{p[c]:.17g}" if isinstance(p[c], float) else p[c] for c in COLUMNS])
    print(path)
    return path


def figure(f, tab, title):
    """Two panels (error vs RHS evaluations, error vs wall time), every series on one set of
    axes; None when the study has no points."""
    import matplotlib.pyplot as plt

    from lbcommon import side_legend, style

    pts = rows(f, tab)
    if not pts:
        return None, []
    kind = text(f["study"].attrs["kind"])
    series = list(dict.fromkeys(p["series"] for p in pts))
    # one tolerance and a grid (the [P] Fig 8 study): a point per grid point, labelled by it
    per_group = kind == "adaptive" and len({p["tol"] for p in pts}) == 1 and len({p["group"] for p in pts}) > 1
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), sharey=True)
    for ax, cost, xlabel in ((axes[0], "rhs_evaluations", "cost: vector-field (RHS) evaluations"),
                             (axes[1], "wall_seconds", "cost: wall-clock time of the time stepping (s)")):
        for k, s in enumerate(series):
            sp = [p for p in pts if p["series"] == s and np.isfinite(p[cost]) and p["error"] > 0]
            if not sp:
                continue
            x = np.array([p[cost] for p in sp], dtype=float)
            y = np.array([p["error"] for p in sp])
            st = style(k)
            if per_group:  # points of different problems: no line through them
                st["linestyle"] = "none"
            else:
                idx = np.argsort(x)
                x, y = x[idx], y[idx]
                sp = [sp[j] for j in idx]
            ax.loglog(x, y, label=s, **st)
            if per_group:
                for xx, yy, p in zip(x, y, sp):
                    ax.annotate(p["group"].split("=")[-1].strip(), (xx, yy), textcoords="offset points",
                                xytext=(4, 3), fontsize=6, color=st["color"])
        if per_group:  # the two points of one grid point joined by a thin grey line
            for g in dict.fromkeys(p["group"] for p in pts):
                gp = [p for p in pts if p["group"] == g and np.isfinite(p[cost]) and p["error"] > 0]
                if len(gp) == 2:
                    ax.plot([gp[0][cost], gp[1][cost]], [gp[0]["error"], gp[1]["error"]], color="0.75", lw=0.8,
                            zorder=0)
        ax.set_xlabel(xlabel)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel(f"error at T = {f['study'].attrs['t_final']:g} (Euclidean norm, embedding space)")
    handles, labels = axes[0].get_legend_handles_labels()
    side_legend(fig, handles, labels, fontsize=8)
    fig.suptitle(title + "\nwork-precision: lower left is better", fontsize=10)
    notes = []
    if per_group:
        gname = pts[0]["group"].split("=")[0].strip()
        notes.append(f"one point per run, labelled by {gname}; grey lines join the adaptive run and its "
                     "constant-step run of the same number of steps")
    from lbcommon import attr
    if kind == "adaptive" and float(attr(f["parameters"], "sample_dt", "0") or 0) > 0:
        notes.append("the adaptive runs' wall time includes their dense output at the sample_dt times")
    if any(not np.isfinite(p["wall_seconds"]) for p in pts):
        notes.append("runs without stored timings are missing from the wall-time panel")
    return fig, notes
