"""Shared pieces of the liebench plotters: reading a study file, styles that keep overlapping
series distinguishable, words-with-units labels, notes that never overlap the axes.

Debian's python3-h5py/numpy/matplotlib (/usr/bin/python3), Agg backend.
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# --- reading ---------------------------------------------------------------------------------


def open_or_exit(path, program, required, what):
    """The HDF5 file at path, open for reading; where it is not an HDF5 file or lacks one of the
    groups in required, one line on stderr naming it and exit 2 (bad input)."""
    import h5py

    try:
        f = h5py.File(path, "r")
    except OSError as e:
        print(f"{program}: {path}: not an HDF5 file ({e})", file=sys.stderr)
        sys.exit(2)
    missing = [g for g in required if g not in f]
    if missing:
        f.close()
        print(f"{program}: {path}: not {what} (no /{missing[0]})", file=sys.stderr)
        sys.exit(2)
    return f


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
        if v.dtype.kind in ("S", "O"):
            v = np.array([text(x) for x in v])
        out[name] = v
    return out


def failed_mask(tab):
    """True for runs whose status is not "ok" (their numbers are not results)."""
    n = len(tab["run_id"])
    if "status" not in tab:
        return np.zeros(n, dtype=bool)
    return np.array([text(x) != "ok" for x in tab["status"]])


def group_columns(f, tab):
    """The grid axes of the study (key columns other than method, step and layout)."""
    keys = [text(k) for k in f["study"].attrs["key_columns"]]
    return [k for k in keys if k not in ("method", "steps", "h", "tol", "layout") and k in tab]


def group_labels(tab, cols):
    n = len(tab["run_id"])
    return np.array([", ".join(f"{axis_word(c)} = {fmt(tab[c][i])}" for c in cols) for i in range(n)])


def fmt(v):
    if isinstance(v, (float, np.floating)):
        return f"{v:g}"
    return text(v)


def wall_seconds(f, run_id, sub=""):
    """Wall-clock seconds of the time stepping of a run: the slowest rank's `integrate` phase
    (runs/<id>[/sub]/timings/integrate), NaN when not stored."""
    p = f"runs/{run_id}/{sub + '/' if sub else ''}timings/integrate"
    return float(np.max(f[p][()])) if p in f else np.nan


# --- words and units -------------------------------------------------------------------------

AXIS_WORDS = {
    "nfold_pendulum.N": "number of pendulums N",
    "slgi.theta": "SLGI theta",
    "free_rigid_body.seed": "initial value (seed)",
    "dipolar.N": "number of particles N",
}

METHOD_WORDS = {
    "lie_euler": "Lie-Euler",
    "lie_euler_heun": "Lie-Euler-Heun",
    "rkmk3": "RKMK3",
    "rkmk4": "RKMK4 (exact dexpinv)",
    "rkmk4_co": "RKMK4 (2 commutators)",
    "rkmk4_trunc": "RKMK4 (truncated dexpinv)",
    "rkmk5": "RKMK5",
    "rkmk54": "RKMK(5,4)",
    "cf4": "CF4",
    "rk4": "RK4",
    "dopri54": "ODE45 (dopri54)",
    "slgi": "SLGI",
    "slgi_kk": "SLGIKK",
    "lgvi": "LGVI",
    "lgvi_explicit": "LGVI (explicit)",
    "rk2": "RK2",
    "rk2_proj": "RK2 + projection",
    "rk4_proj": "RK4 + projection",
}


def axis_word(key):
    return AXIS_WORDS.get(key, key)


def method_word(m):
    return METHOD_WORDS.get(m, m)


def observable_panel(name):
    """(y label with words and units, transform of the values, kind) of an observable with a
    role, or None. Units: the models are written in their own (dimensionless or SI) units, so
    relative and manifold errors are dimensionless and absolute errors carry the model's unit."""
    if name == "unit_norm_error":
        return "unit-norm error\nmax_i |1 - q_i.q_i|", lambda v: np.abs(v), "error"
    if name == "tangency_error":
        return "tangency error\nmax_i |q_i.w_i|", lambda v: np.abs(v), "error"
    if name == "orthogonality_error":
        return "orthogonality error\nmax_i ||Q_i^T Q_i - I||", lambda v: np.abs(v), "error"
    if name.endswith("_error"):
        return name.replace("_", " "), lambda v: np.abs(v), "error"
    if name in ("total_energy", "energy", "hamiltonian"):
        return ("relative energy error\n|H - H(0)| / |H(0)|",
                lambda v: np.abs(v - v[0]) / (abs(v[0]) if v[0] != 0 else 1.0), "energy")
    if name.startswith("casimir") or "momentum" in name:
        words = name.replace("_", " ")
        return f"{words} error\n|C - C(0)| (model units)", lambda v: np.abs(v - v[0]), "other"
    return None


# --- styles ----------------------------------------------------------------------------------

COLORS = plt.rcParams["axes.prop_cycle"].by_key()["color"]
MARKERS = ["o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h", "p"]
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1))]


def style(k, n_points=None):
    """Distinct colour, marker, line style and a marker size that shrinks with k, so series
    lying on top of each other stay visible (open markers of decreasing size around filled ones)."""
    st = dict(color=COLORS[k % len(COLORS)], marker=MARKERS[k % len(MARKERS)],
              linestyle=LINESTYLES[k % len(LINESTYLES)], markersize=max(3.0, 9.0 - 1.2 * k), lw=1.3)
    if k % 2 == 1:
        st["markerfacecolor"] = "none"
    if n_points and n_points > 40:
        st["markevery"] = max(1, n_points // 12)
    return st


# --- notes and saving ------------------------------------------------------------------------


def footnote(fig, lines):
    """Notes under the figure, below every axis label (never overlapping them)."""
    lines = [x for x in lines if x]
    if lines:
        # below the lowest artist (axis labels, legends under the axes): the figure's tight box,
        # which lays out the text without drawing (a full draw first gave byte-identical PNGs of
        # every plot_study, scoreboard and source figure and took a tenth to a fifth of their time)
        bottom = fig.get_tightbbox(fig.canvas.get_renderer()).y0 / fig.get_size_inches()[1]
        fig.text(0.5, min(bottom, 0.0) - 0.01, "\n".join(lines), ha="center", va="top", fontsize=7, color="0.25")


def failure_note(tab, rows, label_fn):
    failed = failed_mask(tab) & rows
    if not failed.any():
        return ""
    labels = [label_fn(i) for i in np.nonzero(failed)[0]]
    return "failed (not drawn): " + "; ".join(labels[:8]) + (" ..." if len(labels) > 8 else "")


def zero_note(ax, names, drawn=True):
    """Says in the panel which series are identically 0 (they have no place on a log axis);
    drawn = False: no series was drawn, the panel says so in its middle."""
    if names and not drawn:
        ax.set_yscale("linear")
        ax.set_yticks([])
        ax.text(0.5, 0.5, "identically 0 for every run", transform=ax.transAxes, ha="center", va="center",
                fontsize=10, color="0.3")
    elif names:
        ax.text(0.01, 0.97, "identically 0: " + ", ".join(names), transform=ax.transAxes, ha="left", va="top",
                fontsize=7, bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="0.7", alpha=0.9))


def top_margin(fig, inches=0.55):
    """Room for the suptitle, independent of the figure's height."""
    fig.subplots_adjust(top=1.0 - inches / fig.get_size_inches()[1])


def side_legend(fig, handles, labels, fontsize=7):
    """The legend right of the axes (never over the data), next to them."""
    fig.subplots_adjust(right=0.97)
    handles, labels = list(handles), list(labels)
    if labels:
        fig.legend(handles, labels, loc="center left", bbox_to_anchor=(0.98, 0.5), fontsize=fontsize, frameon=False)


def varying(tab, cols):
    """The columns among cols whose value differs between runs."""
    return [c for c in cols if c in tab and len(set(map(str, tab[c]))) > 1]


def save(fig, out_dir, name, formats):
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for ext in formats:
        p = os.path.join(out_dir, f"{name}.{ext}")
        fig.savefig(p, bbox_inches="tight", pad_inches=0.15, dpi=130)
        paths.append(p)
    plt.close(fig)
    for p in paths:
        print(p)
    return paths


def log_series(ax, x, y, label, st, zeros):
    """Plots positive values of y on a log axis; an identically-zero series goes to `zeros`."""
    y = np.asarray(y, dtype=float)
    fin = np.isfinite(y)
    if fin.any() and np.all(y[fin] == 0):
        zeros.append(label)
        return None
    y = np.where(y > 0, y, np.nan)
    (line,) = ax.plot(x, y, label=label, **st)
    return line
