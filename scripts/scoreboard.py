#!/usr/bin/python3
"""The benchmark's scoreboard (issue 25), from the HDF5 files of experiments/benchmark/ alone.

    /usr/bin/python3 scripts/scoreboard.py [--results DIR] [--out DIR] [--performance FILE]

A problem is a stem shared by the decks experiments/benchmark/{wp,longtime,tolerance}_<stem>.cfg,
whose results are DIR/benchmark_{wp,longtime,tolerance}_<stem>.h5 (scripts/benchmark.sh runs them).
For each problem and accuracy level (1e-3, 1e-6, 1e-9, 1e-12, relative error at T: the suite's
solution distance to the certified reference divided by |y(T)|) the scoreboard names:
  - the cheapest run that reaches the level, by vector-field evaluations and by wall time (the
    minimum over the timed repetitions of study = timing; the range min..max beside it): a
    measured run, never an interpolation between runs;
  - the best long-time energy behaviour at equal cost: the runs of the long-time deck that no
    other run beats on both cost (evaluations) and maximum relative energy error (the Pareto
    front), with the growth law of the energy error (bounded, sqrt(t), linear, ...).
A run counts as reaching a level when it finished, its error is resolved and at most the level.
An unresolved run (its error lies below 10 x the reference's certified error: status "failed:
the reference does not resolve ...") reaches at most 10 x that error; a level below that is
"beyond the reference" for the problem, not a result. Failed runs (blow-ups, solver failures)
reach nothing and are listed on the problem's page.
Where docs/performance.md measured a method's step against a hand-written loop of the same
arithmetic and found it slower by more than IMPLEMENTATION_FACTOR, the scoreboard says so
beside that method (its wall-time ranking is then a statement about this implementation).

Writes into OUT (default results/benchmark): scoreboard.md, scoreboard.tex (booktabs; compiles
in a minimal article), scoreboard.csv, index.html and <problem>.html (static, no server, no
script), figures/<problem>_work_precision.png and figures/<problem>_longtime.png.
"""
import argparse
import csv
import glob
import html
import math
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "plots"))

import h5py  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from lbcommon import attr, footnote, side_legend, style, summary, text  # noqa: E402

LEVELS = [1e-3, 1e-6, 1e-9, 1e-12]
IMPLEMENTATION_FACTOR = 1.5  # a step slower than this x the hand-written loop is flagged
KINDS = ("wp", "longtime", "tolerance")


def sci(x, d=1):
    return "-" if x is None or not np.isfinite(x) else f"{x:.{d}e}"


def level_text(level):
    return f"1e{int(round(math.log10(level)))}"


# --- reading ---------------------------------------------------------------------------------


def parameters(f):
    return {k: text(v) for k, v in f["parameters"].attrs.items()} if "parameters" in f else {}


def problems_in(results):
    """{stem: {kind: path}} of every benchmark file present."""
    found = {}
    for path in sorted(glob.glob(os.path.join(results, "benchmark_*.h5"))):
        name = os.path.basename(path)[len("benchmark_"):-3]
        for kind in KINDS:
            if name.startswith(kind + "_"):
                found.setdefault(name[len(kind) + 1:], {})[kind] = path
    return found


def work_precision(path):
    """The timed runs of a wp deck: one dict per run with what the scoreboard needs."""
    with h5py.File(path, "r") as f:
        tab = summary(f)
        title = text(attr(f, "title", ""))
        params = parameters(f)
    runs = []
    for i in range(len(tab["run_id"])):
        status = text(tab["status"][i])
        scale = float(tab["error_scale"][i]) if "error_scale" in tab else 1.0
        ref = float(tab["reference_error"][i]) if "reference_error" in tab else 0.0
        floor = 10.0 * ref / scale if scale > 0 else 0.0  # relative error the reference resolves
        err = float(tab["error"][i]) / scale if "error" in tab and scale > 0 else float("nan")
        if status == "ok":
            state, achieved = "ok", err
        elif "does not resolve" in status:
            state, achieved = "unresolved", floor
        else:
            state, achieved = "failed", None
        runs.append(dict(method=text(tab["method"][i]), steps=int(tab["steps"][i]), status=status, state=state,
                         error=err, achieved=achieved, floor=floor, evals=int(tab["rhs_evaluations"][i]),
                         wall_min=float(tab["wall_min"][i]), wall_median=float(tab["wall_median"][i]),
                         wall_max=float(tab["wall_max"][i]),
                         reference=text(tab["reference"][i]) if "reference" in tab else "exact"))
    return title, params, runs


def energy_column(tab):
    """The energy error's column prefix of an invariants file (relative error of the energy)."""
    laws = [c[:-len(".law")] for c in tab if c.endswith(".law")]
    for c in laws:
        if "energy" in c or "hamiltonian" in c:
            return c
    return laws[0] if laws else None


def longtime(path):
    with h5py.File(path, "r") as f:
        tab = summary(f)
        title = text(attr(f, "title", ""))
    col = energy_column(tab)
    runs = []
    for i in range(len(tab["run_id"])):
        status = text(tab["status"][i])
        ok = status == "ok" and col is not None
        runs.append(dict(method=text(tab["method"][i]), h=float(tab["h"][i]), steps=int(tab["steps"][i]),
                         evals=int(tab["rhs_evaluations"][i]), status=status, ok=ok,
                         max=float(tab[col + ".max"][i]) if ok else None,
                         drift=float(tab[col + ".drift"][i]) if ok else None,
                         growth=float(tab[col + ".growth"][i]) if ok else None,
                         law=text(tab[col + ".law"][i]) if ok else "failed"))
    return title, col, runs


def pareto(runs):
    """Runs no other run beats on both evaluations and maximum energy error, by cost."""
    # a saturated energy error (relative error above 0.1: the solution left the problem) is no behaviour
    ok = sorted((r for r in runs if r["ok"] and np.isfinite(r["max"]) and r["law"] != "saturated"),
                key=lambda r: (r["evals"], r["max"]))
    front, best = [], math.inf
    for r in ok:
        if r["max"] < best:
            front.append(r)
            best = r["max"]
    return front


def implementation_notes(perf_path, model, params):
    """{method: note} from docs/performance.md's rows "N = n: <METHOD> step vs hand-written ..."."""
    notes = {}
    if model != "nfold_pendulum" or not os.path.exists(perf_path):
        return notes
    n = params.get("nfold_pendulum.N", "")
    for line in open(perf_path, encoding="utf-8"):
        m = re.match(r"\|\s*[\d.]*\s*N = (\d+): (\w+) step vs (hand-written [^|]*?)\s*\|([^|]*)\|([^|]*)\|\s*([\d.]+)\s*\|", line)
        if m and m.group(1) == n and float(m.group(6)) > IMPLEMENTATION_FACTOR:
            method = m.group(2).lower()
            notes[method] = (f"{method}'s step took {float(m.group(6)):.2f}x a {m.group(3)} of the same arithmetic "
                             f"(docs/performance.md, N = {n}): its wall time measures this implementation")
    return notes


# --- the scoreboard ----------------------------------------------------------------------------


def cheapest(runs, level, key):
    """The run reaching `level` with the least `key` ("evals" or "wall_min"); ties: the other cost.
    Runs that evaluate no vector field (the splittings on the force-free rigid body: kinetic flows
    only) have no cost on the evaluation axis and are ranked by wall time only."""
    other = "wall_min" if key == "evals" else "evals"
    reach = [r for r in runs if r["achieved"] is not None and r["achieved"] <= level and (key != "evals" or r["evals"] > 0)]
    return min(reach, key=lambda r: (r[key], r[other])) if reach else None


def resolvable(runs, level):
    floors = [r["floor"] for r in runs]
    return not floors or level >= min(floors)


def cell(runs, level, key):
    if not resolvable(runs, level):
        return "beyond the reference", None
    r = cheapest(runs, level, key)
    if r is None:
        return "not reached", None
    return r["method"], r


def build(results, perf_path):
    board = []
    for stem, files in sorted(problems_in(results).items()):
        p = dict(stem=stem, files=files, runs=[], front=[], lt_runs=[], notes={})
        if "wp" in files:
            p["title"], params, p["runs"] = work_precision(files["wp"])
            p["model"] = params.get("model", "")
            p["notes"] = implementation_notes(perf_path, p["model"], params)
        if "longtime" in files:
            p["lt_title"], p["energy"], p["lt_runs"] = longtime(files["longtime"])
            p["front"] = pareto(p["lt_runs"])
        p.setdefault("title", p.get("lt_title", stem))
        label = p["title"].split("work precision, ")[-1] if "work precision, " in p["title"] else stem
        p["label"] = re.sub(r"\s*\(T = [^)]*\)$", "", label)
        board.append(p)
    return board


# --- figures -----------------------------------------------------------------------------------


def wp_figure(p, out_dir):
    runs = p["runs"]
    methods = sorted(set(r["method"] for r in runs))
    fig, axes = plt.subplots(1, 2, figsize=(11.5, 4.6), sharey=True)
    handles, labels = [], []
    palette = plt.get_cmap("tab20").colors + plt.get_cmap("tab20b").colors  # one colour per method
    for k, m in enumerate(methods):
        rs = sorted((r for r in runs if r["method"] == m and r["state"] == "ok" and r["error"] > 0), key=lambda r: r["steps"])
        if not rs:
            continue
        st = style(k)
        st["color"] = palette[k % len(palette)]
        e = np.array([r["error"] for r in rs])
        (h,) = axes[0].loglog([r["evals"] for r in rs], e, **st)
        lo = np.array([r["wall_min"] for r in rs])
        hi = np.array([r["wall_max"] for r in rs])
        axes[1].errorbar(lo, e, xerr=[np.zeros_like(lo), hi - lo], capsize=2, **st)
        handles.append(h)
        labels.append(m + (" (*)" if m in p["notes"] else ""))
    floor = min((r["floor"] for r in runs), default=0.0)
    for ax, xl in ((axes[0], "cost: vector-field evaluations"),
                   (axes[1], "cost: wall time of the integration, minimum of the repetitions (s);\nbar: to the maximum")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xl)
        ax.grid(True, which="major", alpha=0.3)
        for lv in LEVELS:
            ax.axhline(lv, color="0.6", lw=0.6, ls=":")
    if floor > 0:  # after every series: the band spans the final (shared) y range
        lo, hi = axes[0].get_ylim()
        for ax in axes:
            ax.axhspan(min(lo, floor), floor, color="0.85", zorder=0)
        axes[0].set_ylim(min(lo, floor), hi)
    axes[0].set_ylabel("relative error at T against the reference")
    fig.suptitle(f"{p['label']}: work precision of every applicable method")
    side_legend(fig, handles, labels)
    notes = ["each point: one fixed-step run (study = timing); failed and unresolved runs are not drawn"]
    if floor > 0:
        notes.append(f"grey: below 10 x the reference's certified error ({floor:.1e} relative), not resolved")
    if p["notes"]:
        notes.append("(*) " + "; ".join(p["notes"].values()))
    footnote(fig, notes)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{p['stem']}_work_precision.png")
    fig.savefig(path, bbox_inches="tight", pad_inches=0.15, dpi=110)
    plt.close(fig)
    return path


def longtime_figure(p, out_dir):
    """Maximum energy error against cost, every long-time run; the front joined; law as marker."""
    runs = [r for r in p["lt_runs"] if r["ok"] and r["max"] > 0]
    if not runs:
        return None
    marker = {"bounded": "o", "sqrt(t)": "s", "linear": "^"}
    fig, ax = plt.subplots(figsize=(8.5, 4.8))
    methods = sorted(set(r["method"] for r in runs))
    handles, labels = [], []
    palette = plt.get_cmap("tab20").colors + plt.get_cmap("tab20b").colors  # one colour per method
    for k, m in enumerate(methods):
        st = dict(color=palette[k % len(palette)])
        hmax = max(x["h"] for x in runs)
        for r in (r for r in runs if r["method"] == m):
            mk = marker.get(r["law"], "x")
            filled = r["h"] == hmax or mk == "x"  # an x has no face: always drawn in colour
            ax.scatter(r["evals"], r["max"], marker=mk, s=36, edgecolors=st["color"] if mk != "x" else None,
                       color=st["color"] if mk == "x" else None, facecolors=st["color"] if filled and mk != "x" else "none",
                       linewidths=1.2)
        handles.append(matplotlib.lines.Line2D([], [], color=st["color"], marker="s", ls=""))
        labels.append(m)
    front = p["front"]
    ax.plot([r["evals"] for r in front], [r["max"] for r in front], color="k", lw=0.8, ls="--", zorder=0)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cost: vector-field evaluations over [0, T]")
    ax.set_ylabel("max relative energy error over [0, T]")
    ax.grid(True, alpha=0.3)
    fig.suptitle(f"{p['label']}: long-time energy error against cost")
    side_legend(fig, handles, labels)
    hs = sorted(set(r["h"] for r in runs), reverse=True)
    footnote(fig, ["marker: growth law of the energy error (o bounded, square sqrt(t), triangle linear, x other); "
                   f"filled h = {hs[0]:g}" + (f", open h = {', '.join(f'{h:g}' for h in hs[1:])}" if len(hs) > 1 else ""),
                   "dashed: the runs no other run beats on both cost and energy error"])
    path = os.path.join(out_dir, f"{p['stem']}_longtime.png")
    fig.savefig(path, bbox_inches="tight", pad_inches=0.15, dpi=110)
    plt.close(fig)
    return path


# --- tables ------------------------------------------------------------------------------------


def board_rows(board):
    """One row per problem, level and criterion (the CSV)."""
    rows = []
    for p in board:
        if not p["runs"]:
            continue
        for lv in LEVELS:
            for key, word in (("evals", "evaluations"), ("wall_min", "time")):
                what, r = cell(p["runs"], lv, key)
                rows.append(dict(problem=p["stem"], level=lv, criterion=word, method=what if r else "",
                                 result="reached" if r else what, steps=r["steps"] if r else "",
                                 rhs_evaluations=r["evals"] if r else "", wall_min=r["wall_min"] if r else "",
                                 wall_median=r["wall_median"] if r else "", wall_max=r["wall_max"] if r else "",
                                 relative_error=r["error"] if r else "",
                                 note=p["notes"].get(r["method"], "") if r else ""))
    return rows


def write_csv(board, path):
    rows = board_rows(board)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()) if rows else ["problem"])
        w.writeheader()
        w.writerows(rows)


def md_cell(runs, lv, key, notes):
    what, r = cell(runs, lv, key)
    if not r:
        return f"*{what}*"
    c = f"{r['evals']:,}" if key == "evals" else f"{r['wall_min']:.1e} s"
    return f"{what}{' (*)' if what in notes else ''}: {c}"


def write_md(board, path):
    out = ["# Benchmark scoreboard", "",
           "Written by `scripts/scoreboard.py` from the benchmark's HDF5 files (`scripts/benchmark.sh`). "
           "Accuracy: relative error at T against a reference certified by an independent route. "
           "A cell names the cheapest *measured* run reaching the level (no interpolation): by vector-field "
           "evaluations, and by wall time (minimum over repetitions, each run repeated until 0.2 s and 3 times, "
           "1 rank x 1 thread). *beyond the reference*: the level lies below 10 x the reference's certified error. "
           "Runs that evaluate no vector field (the splittings on the force-free rigid body) are ranked by time only. "
           "(*): the method's step is slower than a hand-written loop of the same arithmetic (see the problem's page).", ""]
    for key, word in (("evals", "vector-field evaluations"), ("wall_min", "wall time")):
        out += [f"## Cheapest method to reach each accuracy, by {word}", "",
                "| problem | " + " | ".join(level_text(lv) for lv in LEVELS) + " |",
                "|---|" + "---|" * len(LEVELS)]
        for p in board:
            if p["runs"]:
                out.append(f"| {p['label']} | " + " | ".join(md_cell(p["runs"], lv, key, p["notes"]) for lv in LEVELS) + " |")
        out.append("")
    out += ["## Best long-time energy behaviour at equal cost", "",
            "The long-time runs no other run beats on both cost and maximum relative energy error (cheapest first), "
            "with the growth law of the energy error.", "",
            "| problem | method | h | evaluations | max rel. energy error | growth law |", "|---|---|--:|--:|--:|---|"]
    for p in board:
        for r in p["front"]:
            out.append(f"| {p['label']} | {r['method']} | {r['h']:g} | {r['evals']:,} | {r['max']:.2e} | {r['law']} |")
    notes = {n for p in board for n in p["notes"].values()}
    if notes:
        out += ["", "(*) " + "; ".join(sorted(notes))]
    open(path, "w").write("\n".join(out) + "\n")


def tex_escape(s):
    return str(s).replace("\\", "\\textbackslash{}").replace("_", "\\_").replace("%", "\\%").replace("&", "\\&") \
        .replace("#", "\\#").replace("^", "\\^{}").replace("*", "$^*$")


def tex_method(name):
    """A method name for a table cell; a composition's spec (composition:kahan_li6@rotor_exact) on
    two lines, broken before its base, so that the tables keep to the text width."""
    head, at, tail = str(name).partition("@")
    if not at:
        return tex_escape(name)
    return f"\\begin{{tabular}}[t]{{@{{}}l@{{}}}}{tex_escape(head)}\\\\ {tex_escape(at + tail)}\\end{{tabular}}"


def write_tex(board, path):
    out = ["% scripts/scoreboard.py: \\input{} it into a document whose preamble has \\usepackage{booktabs}"]
    for lv in LEVELS:
        out += ["\\begin{table}[htbp]", "\\centering",
                f"\\caption{{Benchmark scoreboard: the cheapest measured run reaching relative error {tex_escape(level_text(lv))} "
                "at $T$, by vector-field evaluations and by wall time (minimum of $\\geq 3$ repetitions, 1 rank $\\times$ 1 thread)}",
                "\\footnotesize\\setlength{\\tabcolsep}{3pt}", "\\begin{tabular}{llrlr}", "\\toprule",
                "problem & \\multicolumn{2}{l}{by evaluations} & \\multicolumn{2}{l}{by wall time} \\\\", "\\midrule"]
        for p in board:
            if not p["runs"]:
                continue
            cells = []
            for key in ("evals", "wall_min"):
                what, r = cell(p["runs"], lv, key)
                name = tex_method(what) + (tex_escape(" *") if r and what in p["notes"] else "")
                cost = (f"{r['evals']}" if key == "evals" else f"{r['wall_min']:.1e} s") if r else "--"
                cells += [name, cost]
            out.append(f"{tex_escape(p['stem'])} & " + " & ".join(cells) + " \\\\")
        out += ["\\bottomrule", "\\end{tabular}", "\\end{table}", ""]
    out += ["\\begin{table}[htbp]", "\\centering",
            "\\caption{Long-time energy behaviour: the runs no other run beats on both cost and maximum relative energy error}",
            "\\footnotesize\\setlength{\\tabcolsep}{2pt}", "\\begin{tabular}{llrrrl}", "\\toprule",
            "problem & method & $h$ & evaluations & max $|\\mathrm{d}H/H_0|$ & growth \\\\", "\\midrule"]
    for p in board:
        for r in p["front"]:
            out.append(f"{tex_escape(p['stem'])} & {tex_method(r['method'])} & {r['h']:g} & {r['evals']} & "
                       f"{r['max']:.2e} & {tex_escape(r['law'])} \\\\")
    out += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    open(path, "w").write("\n".join(out) + "\n")


# --- HTML --------------------------------------------------------------------------------------

CSS = """body{font-family:sans-serif;max-width:80em;margin:1em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #bbb;padding:2px 6px;font-size:90%}
th{background:#eee}td.num{text-align:right}.none{color:#888;font-style:italic}img{max-width:100%}
.note{color:#555;font-size:90%}"""


def page(title, body):
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body>\n{body}\n</body></html>\n")


def html_table(header, rows, numeric=()):
    h = "<tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in header) + "</tr>"
    body = []
    for row in rows:
        cells = []
        for j, c in enumerate(row):
            cls = " class=\"num\"" if j in numeric else ""
            cells.append(f"<td{cls}>{c}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return "<table>" + h + "".join(body) + "</table>"


def html_cell(runs, lv, key, notes):
    what, r = cell(runs, lv, key)
    if not r:
        return f"<span class=\"none\">{html.escape(what)}</span>"
    c = f"{r['evals']:,} evaluations" if key == "evals" else f"{r['wall_min']:.2e} s"
    return f"{html.escape(what)}{' (*)' if what in notes else ''}<br><span class=\"note\">{c}</span>"


def problem_page(p, figs, out_dir):
    b = [f"<p><a href=\"index.html\">scoreboard</a></p><h1>{html.escape(p['label'])}</h1>"]
    decks = ", ".join(f"<code>experiments/benchmark/{k}_{p['stem']}.cfg</code>" for k in KINDS if k in p["files"])
    b.append(f"<p>Decks: {decks}.</p>")
    if p["runs"]:
        ref = p["runs"][0]["reference"]
        floor = min(r["floor"] for r in p["runs"])
        b.append(f"<h2>Work precision</h2><p>{html.escape(p['title'])}. Reference: {html.escape(ref)}; resolved down to "
                 f"relative error {floor:.1e} (10 x its certified error).</p>")
        if figs.get("wp"):
            b.append(f"<img src=\"figures/{os.path.basename(figs['wp'])}\" alt=\"work precision of {html.escape(p['label'])}\">")
        methods = sorted(set(r["method"] for r in p["runs"]))
        rows = []
        for m in methods:
            rs = [r for r in p["runs"] if r["method"] == m]
            best = min((r["achieved"] for r in rs if r["achieved"] is not None), default=None)
            row = [html.escape(m) + (" (*)" if m in p["notes"] else ""), sci(best)]
            for lv in LEVELS:
                r = cheapest(rs, lv, "evals")
                row.append(f"{r['evals']:,} / {r['wall_min']:.1e} s" if r else "<span class=\"none\">-</span>")
            failed = [r for r in rs if r["state"] == "failed"]
            row.append(html.escape("; ".join(f"{r['steps']} steps: {r['status'][:90]}" for r in failed[:2])
                                   + (f"; {len(failed) - 2} more" if len(failed) > 2 else "")))
            rows.append(row)
        b.append("<h3>Every applicable method</h3><p>Best relative error reached, and the least evaluations / minimum "
                 "wall time of a run reaching each level.</p>")
        b.append(html_table(["method", "best error"] + [f"to {level_text(lv)}" for lv in LEVELS] + ["failed runs"],
                            rows, numeric=(1, 2, 3, 4, 5)))
        if p["notes"]:
            b.append("<p class=\"note\">(*) " + html.escape("; ".join(p["notes"].values())) + "</p>")
    if p["lt_runs"]:
        b.append(f"<h2>Long-time energy behaviour</h2><p>{html.escape(p['lt_title'])}. Energy: "
                 f"<code>{html.escape(p['energy'] or '-')}</code>.</p>")
        if figs.get("longtime"):
            b.append(f"<img src=\"figures/{os.path.basename(figs['longtime'])}\" alt=\"long-time energy of {html.escape(p['label'])}\">")
        front = {(r["method"], r["h"]) for r in p["front"]}
        rows = [[html.escape(r["method"]) + (" (front)" if (r["method"], r["h"]) in front else ""), f"{r['h']:g}",
                 f"{r['evals']:,}", sci(r["max"], 2), sci(r["drift"], 2),
                 f"{r['growth']:.2f}" if r["growth"] is not None and np.isfinite(r["growth"]) else "-",
                 html.escape(r["law"] if r["ok"] else r["status"][:100])]
                for r in sorted(p["lt_runs"], key=lambda r: (r["method"], -r["h"]))]
        b.append(html_table(["method", "h", "evaluations", "max rel. error", "drift (per unit time)", "growth exponent",
                             "law"], rows, numeric=(1, 2, 3, 4, 5)))
    if "tolerance" in p["files"]:
        b.append("<h2>Tolerance proportionality</h2><p>Every embedded pair x controller: "
                 f"<code>liebench report {html.escape(os.path.relpath(p['files']['tolerance']))} --table tolerance</code> "
                 "(committed as <code>results/tables/benchmark_tolerance_" + html.escape(p["stem"]) + ".md</code>).</p>")
        if figs.get("tolerance"):
            b.append(f"<img src=\"figures/{os.path.basename(figs['tolerance'])}\" alt=\"error against tolerance\">")
        tol_csv = os.path.join(os.path.dirname(p["files"]["tolerance"]), "tables",
                               f"benchmark_tolerance_{p['stem']}.tolerance.csv")
        if os.path.exists(tol_csv):  # `liebench report FILE --table tolerance --format csv`, as written
            rows = list(csv.reader(open(tol_csv, newline="")))
            if rows:
                b.append("<p>Slope b of log10(error) against log10(tol) (1: the error follows the tolerance), its "
                         "scatter (decades), and how far and how often the error exceeds the tolerance:</p>")
                b.append(html_table(rows[0], [[html.escape(c) for c in r] for r in rows[1:]],
                                    numeric=tuple(range(2, len(rows[0])))))
    open(os.path.join(out_dir, f"{p['stem']}.html"), "w").write(page(p["label"], "\n".join(b)))


def index_page(board, out_dir):
    b = ["<h1>Lie group integrators: benchmark scoreboard</h1>",
         "<p>Written by <code>scripts/scoreboard.py</code> from the HDF5 files of <code>scripts/benchmark.sh</code> "
         "(decks: <code>experiments/benchmark/</code>). Accuracy: the relative error at T against a reference certified "
         "by an independent route. A cell names the cheapest <em>measured</em> run that reaches the level: by "
         "vector-field evaluations, and by wall time (minimum over repetitions; each run repeated until 0.2 s and at "
         "least 3 times, 1 rank x 1 thread). <em>beyond the reference</em>: the level lies below 10 x the reference's "
         "certified error. Runs that evaluate no vector field (the splittings on the force-free rigid body) are ranked "
         "by time only. Tables: <a href=\"scoreboard.md\">Markdown</a>, <a href=\"scoreboard.tex\">LaTeX</a>, "
         "<a href=\"scoreboard.csv\">CSV</a>.</p>"]
    for key, word in (("evals", "vector-field evaluations"), ("wall_min", "wall time")):
        rows = [[f"<a href=\"{p['stem']}.html\">{html.escape(p['label'])}</a>"]
                + [html_cell(p["runs"], lv, key, p["notes"]) for lv in LEVELS] for p in board if p["runs"]]
        b.append(f"<h2>Cheapest method to reach each accuracy, by {word}</h2>")
        b.append(html_table(["problem"] + [level_text(lv) for lv in LEVELS], rows))
    rows = [[f"<a href=\"{p['stem']}.html\">{html.escape(p['label'])}</a>", html.escape(r["method"]), f"{r['h']:g}",
             f"{r['evals']:,}", f"{r['max']:.2e}", html.escape(r["law"])] for p in board for r in p["front"]]
    b.append("<h2>Best long-time energy behaviour at equal cost</h2><p>The long-time runs that no other run beats on "
             "both cost and maximum relative energy error, cheapest first, with the growth law of the energy error.</p>")
    b.append(html_table(["problem", "method", "h", "evaluations", "max rel. energy error", "growth law"], rows,
                        numeric=(2, 3, 4)))
    b.append("<h2>Problems</h2><ul>" + "".join(f"<li><a href=\"{p['stem']}.html\">{html.escape(p['label'])}</a></li>"
                                               for p in board) + "</ul>")
    notes = sorted({n for p in board for n in p["notes"].values()})
    if notes:
        b.append("<p class=\"note\">(*) " + html.escape("; ".join(notes)) + "</p>")
    open(os.path.join(out_dir, "index.html"), "w").write(page("Benchmark scoreboard", "\n".join(b)))


def tolerance_figure(p, results, fig_dir):
    """The error-against-tolerance plot of plot_study.py, when it is present beside the results."""
    src = os.path.join(results, "plots", f"benchmark_tolerance_{p['stem']}_error_vs_tol.png")
    if not os.path.exists(src):
        return None
    return shutil.copyfile(src, os.path.join(fig_dir, f"{p['stem']}_error_vs_tol.png"))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(root, "results"))
    ap.add_argument("--out", default=None, help="default: RESULTS/benchmark")
    ap.add_argument("--performance", default=os.path.join(root, "docs", "performance.md"))
    a = ap.parse_args()
    out = a.out or os.path.join(a.results, "benchmark")
    board = build(a.results, a.performance)
    if not board:
        sys.exit(f"scoreboard: no benchmark_*.h5 files in {a.results}; run scripts/benchmark.sh first")
    fig_dir = os.path.join(out, "figures")
    os.makedirs(fig_dir, exist_ok=True)
    for p in board:
        figs = {}
        if p["runs"]:
            figs["wp"] = wp_figure(p, fig_dir)
        if p["lt_runs"]:
            figs["longtime"] = longtime_figure(p, fig_dir)
        if "tolerance" in p["files"]:
            figs["tolerance"] = tolerance_figure(p, a.results, fig_dir)
        problem_page(p, figs, out)
    index_page(board, out)
    write_md(board, os.path.join(out, "scoreboard.md"))
    write_tex(board, os.path.join(out, "scoreboard.tex"))
    write_csv(board, os.path.join(out, "scoreboard.csv"))
    print(os.path.join(out, "index.html"))


if __name__ == "__main__":
    main()
