#!/usr/bin/python3
"""Simulated runs in the suite's formats: rank-0 summary lines of liebench_steps (SMPI build,
scripts/smpi/run.sh) -> a scaling-study HDF5 file (liebench-study/1, kind scaling: what
`liebench run` of experiments/scaling writes and `liebench report FILE --table scaling` reads),
with the cost model's prediction of every run beside it (cost_model.py), and optionally a plot
of parallel efficiency against ranks (simulation solid, model dashed).

usage: import_summaries.py SUMMARIES.txt OUT.h5 [--kind strong|weak] [--plot OUT.png]
                           [--calibration FILE] [--pair-scheme rows|tiles|tree|two_level|direct]
  Lines: one run each, key=value pairs (unknown keys are kept as text columns, "na" = missing).
  Needed: case, model, N, ranks, platform, steps, seconds, s_per_step. --kind keeps the lines
  with kind=KIND (lines without kind= count as strong). Per-phase simulated seconds t_NAME=
  become the run's timings/NAME (the scaling table's "NAME [s]" columns).
  Every run of one (case, N) must end in the same final state (state_hash): else exit 1.
  --pair-scheme: the particles' pair decomposition the model assumes (cost_model.py (C7) rows,
  (C8) tiles, (C10) tree, (C10') direct) for every particle line; default: the line's pair_scheme=, else tree
  (the code of this tree: par::PairPlan; the strong-scaling lines of
  results/smpi/strong_summaries.txt predate it: rows).
  Bad input: one line on stderr naming the value, exit 2; OUT.h5 is written to a temporary
  name and renamed, so a failed import leaves no file and damages none.
"""
import collections
import datetime
import os
import sys

import numpy as np
if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):  # the docstring is the usage
    print(__doc__.strip())
    sys.exit(0)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cost_model  # noqa: E402

NEEDED = ("case", "model", "N", "ranks", "platform", "steps", "seconds", "s_per_step")
INT_COLUMNS = {"N": "N", "ranks": "ranks", "threads": "threads", "steps": "steps", "rejected": "rejected",
               "rhs": "rhs_evaluations", "blocks": "blocks"}
REAL_COLUMNS = {"dt": "h", "tol": "tol", "wall_seconds": "simulator_wall_seconds", "energy0": "energy0",
                "energy": "energy"}
SKIP = {"build", "seconds", "s_per_step", "comm_seconds", "cpu_seconds", "simulated", "method"}
FLAG = 0.20  # the report flags |model - sim| / sim > 20 % of the seconds per step


class Usage(Exception):
    pass


def parse_args(argv):
    opts = {"kind": "strong", "plot": None, "calibration": os.path.join(cost_model.HERE, "calibration.env"),
            "pair_scheme": None}
    pos = []
    it = iter(argv)
    for a in it:
        if a.startswith("--"):
            name, eq, val = a[2:].partition("=")
            name = name.replace("-", "_")
            if name not in opts:
                raise Usage(f"option '{a}' unknown; usage: import_summaries.py SUMMARIES.txt OUT.h5 "
                            "[--kind strong|weak] [--plot OUT.png] [--calibration FILE] [--pair-scheme rows|tiles|tree|two_level|direct]")
            opts[name] = val if eq else next(it, None)
            if opts[name] is None:
                raise Usage(f"option '{a}' needs a value")
        else:
            pos.append(a)
    if len(pos) != 2:
        raise Usage("usage: import_summaries.py SUMMARIES.txt OUT.h5 [--kind strong|weak] [--plot OUT.png]")
    if opts["kind"] not in ("strong", "weak"):
        raise Usage(f"option --kind has value '{opts['kind']}'; expected strong or weak")
    return pos[0], pos[1], opts


def number(row, key, conv):
    v = row.get(key, "na")
    try:
        return conv(v)
    except ValueError:
        raise Usage(f"key {key} has value '{v}' (case={row.get('case', '?')} ranks={row.get('ranks', '?')}); "
                    "expected a number") from None


def load_rows(path, kind):
    try:
        with open(path) as f:
            rows = cost_model.parse_lines(f, path)
    except OSError as e:
        raise Usage(f"summary file '{path}': {e.strerror}") from None
    rows = [r for r in rows if r.get("kind", "strong") == kind]
    if not rows:
        raise Usage(f"summary file '{path}' has no line of kind {kind}; expected liebench_steps summary lines")
    for r in rows:
        for k in NEEDED:
            if r.get(k, "na") in ("", "na"):
                raise Usage(f"a line of '{path}' has no {k}= (case={r.get('case', '?')} ranks={r.get('ranks', '?')}); "
                            f"every line needs {', '.join(NEEDED)}")
        for k in ("N", "ranks", "steps"):
            if number(r, k, int) < 1:
                raise Usage(f"key {k} has value '{r[k]}'; expected a positive integer")
        for k in ("seconds", "s_per_step"):
            if not number(r, k, float) > 0:
                raise Usage(f"key {k} has value '{r[k]}' (case={r['case']} ranks={r['ranks']}); expected seconds > 0")
    return rows


def check_hashes(rows):
    hashes = collections.defaultdict(set)
    for r in rows:
        if r.get("state_hash", "na") != "na":
            hashes[(r["case"], r["N"])].add(r["state_hash"])
    bad = sorted(k for k, h in hashes.items() if len(h) > 1)
    if bad:
        print(f"import_summaries.py: different final states (state_hash) across layouts of {bad}", file=sys.stderr)
        sys.exit(1)


def efficiency(rows, key, kind):
    """Parallel efficiency by the report's rule: baseline = the run of fewest ranks in the same
    (case, platform[, N]) group; strong T_b P_b / (T P), weak T_b / T."""
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["case"], r["platform"]) + ((r["N"],) if kind == "strong" else ())].append(r)
    out = {}
    for g, rs in groups.items():
        base = min(rs, key=lambda r: int(r["ranks"]))
        tb, pb = float(base[key]), int(base["ranks"])
        out[g] = sorted((int(r["ranks"]), tb * pb / (float(r[key]) * int(r["ranks"])) if kind == "strong"
                         else tb / float(r[key])) for r in rs)
    return out


def write_h5(rows, out, kind, cal_path, cal):
    import h5py
    n = len(rows)
    rows = sorted(rows, key=lambda r: (r["case"], r["platform"], int(r["N"]), int(r["ranks"])))
    cols = collections.OrderedDict()
    cols["run_index"] = np.arange(n, dtype=np.int64)
    cols["run_id"] = [f"run_{i:05d}" for i in range(n)]
    cols["case"] = [r["case"] for r in rows]
    cols["platform"] = [r["platform"] for r in rows]
    cols["layout"] = [f"{r['ranks']}x{r.get('threads', '1')}" for r in rows]
    cols["method"] = [r.get("method", "na") for r in rows]
    for src, name in INT_COLUMNS.items():
        if any(r.get(src, "na") not in ("", "na") for r in rows):
            cols[name] = np.array([number(r, src, int) if r.get(src, "na") not in ("", "na") else -1 for r in rows],
                                  np.int64)
    for src, name in REAL_COLUMNS.items():
        if any(r.get(src, "na") not in ("", "na", "none") for r in rows):
            cols[name] = np.array([number(r, src, float) if r.get(src, "na") not in ("", "na", "none") else np.nan
                                   for r in rows])
    cols["cores"] = np.array([int(r["ranks"]) * int(r.get("threads", "1")) for r in rows], np.int64)
    cols["components"] = np.array([int(r["N"]) for r in rows], np.int64)
    cols["status"] = ["ok"] * n
    preds = [cost_model.predict(r, cal) for r in rows]
    cols["model_per_step"] = np.array([p[0] for p in preds])
    for term in sorted({t for p in preds for t in p[1]}):
        cols["model_" + term] = np.array([p[1].get(term, 0.0) for p in preds])
    known = set(INT_COLUMNS) | set(REAL_COLUMNS) | SKIP | {"case", "platform", "N", "ranks", "threads"}
    for k in sorted({k for r in rows for k in r} - known):
        if not k.startswith("t_") and k not in cols:
            cols[k] = [r.get(k, "na") for r in rows]
    key_columns = ["case", "platform"] + (["N"] if kind == "strong" else []) + ["layout", "method", "steps"]
    descr = {"case": "simulated case (scripts/smpi/scaling.sh)", "platform": "simulated cluster (scripts/smpi/platforms)",
             "model_per_step": "cost model: predicted seconds per step (scripts/smpi/cost_model.py; README 'Cost model')",
             "simulator_wall_seconds": "wall time of the simulation on this machine"}
    tmp = out + ".tmp"
    try:
        write_file(h5py, tmp, rows, cols, key_columns, descr, kind, cal_path, cal)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    os.replace(tmp, out)


def write_file(h5py, tmp, rows, cols, key_columns, descr, kind, cal_path, cal):
    n = len(rows)
    with h5py.File(tmp, "w") as f:
        f.attrs["liebench_format"] = "liebench-study/1"
        f.attrs["layout_documentation"] = "results/README.md of the liebench sources"
        f.attrs["study"] = "scaling"
        f.attrs["title"] = f"{kind} scaling on simulated clusters (SimGrid SMPI)"
        f.attrs["run_count"] = np.int64(n)
        f.attrs["runs_in_file"] = np.int64(n)
        st = f.create_group("study")
        st.attrs["kind"] = "scaling"
        st.attrs["model"] = ", ".join(sorted({r["model"] for r in rows}))
        st.attrs["run_count"] = np.int64(n)
        st.attrs["key_columns"] = np.array(key_columns, dtype=h5py.string_dtype())
        st.attrs["t0"] = 0.0
        st.attrs["t_final"] = float("nan")
        p = f.create_group("parameters")
        p.attrs["study"] = "scaling"
        p.attrs["scaling.mode"] = kind
        p.attrs["description"] = "simulated runs imported by scripts/smpi/import_summaries.py"
        p.attrs["cost_model.calibration"] = os.path.abspath(cal_path)
        for k, v in cal.items():
            p.attrs["cost_model." + k] = repr(v)
        p.attrs["cost_model.flag"] = f"|model - sim| / sim > {FLAG:g} of the seconds per step"
        prov = f.create_group("provenance")
        prov.attrs["imported_at"] = datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ")
        prov.attrs["imported_by"] = "scripts/smpi/import_summaries.py"
        s = f.create_group("summary")
        s.attrs["columns"] = np.array(list(cols), dtype=h5py.string_dtype())
        s.attrs["rows"] = np.int64(n)
        s.attrs["description"] = "one row per simulated run (ordered by run_index); report tables are computed from these columns"
        for name, v in cols.items():
            if isinstance(v, list):
                v = np.array([x.encode() for x in v], dtype=f"S{max(1, max(len(x) for x in v))}")
            d = s.create_dataset(name, data=v)
            if name in descr:
                d.attrs["description"] = descr[name]
        runs = f.create_group("runs")
        for i, r in enumerate(rows):
            g = runs.create_group(f"run_{i:05d}")
            g.attrs["run_index"] = np.int64(i)
            t = g.create_group("timings")
            t.attrs["description"] = ("simulated seconds per phase (rank-0 summary: max over ranks); integrate = the "
                                      "stepping loop")
            phases = {"integrate": float(r["seconds"])}
            for k, v in r.items():
                if k.startswith("t_") and v not in ("", "na"):
                    phases[k[2:]] = number(r, k, float)
            for name, v in phases.items():
                d = t.create_dataset(name, data=np.array([v]))
                d.attrs["unit"] = np.bytes_(b"s")


def plot(rows, kind, path):
    """One panel per platform: simulated efficiency solid, the model's dashed, one colour per case."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    for r in rows:
        r["model_s"] = r["_model"]
    sim = efficiency(rows, "seconds", kind)
    mod = efficiency(rows, "model_s", kind)
    platforms = sorted({g[1] for g in sim})
    cases = sorted({(g[0],) + g[2:] for g in sim})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    legend_rows = -(-len(cases) // 4)  # one legend under the panels: a colour per case
    fig, axes = plt.subplots(1, len(platforms), figsize=(5.5 * len(platforms), 4.5 + 0.22 * legend_rows),
                             squeeze=False, sharey=True)
    ticks = sorted({int(r["ranks"]) for r in rows})
    handles = {}
    for ax, plat in zip(axes[0], platforms):
        for i, c in enumerate(cases):
            g = (c[0], plat) + c[1:]
            if g not in sim:
                continue
            label = c[0] + (f" N={c[1]}" if len(c) > 1 else "")
            ps, es = zip(*sim[g])
            handles[label], = ax.plot(ps, [100 * e for e in es], marker="o", color=colors[i % len(colors)])
            ps, es = zip(*mod[g])
            ax.plot(ps, [100 * e for e in es], linestyle="--", marker="x", color=colors[i % len(colors)])
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(t) for t in ticks])
        ax.set_xlabel("simulated ranks (16 per node)")
        ax.set_ylim(0, 115)
        ax.grid(True, alpha=0.3)
        ax.set_title(f"platform {plat}")
    axes[0][0].set_ylabel("parallel efficiency [%]" + (" T1 / (P TP)" if kind == "strong" else " T1 / TP"))
    fig.suptitle(f"{kind} scaling on simulated clusters: SimGrid SMPI (solid, o), cost model (dashed, x)")
    labels = sorted(handles)
    fig.legend([handles[k] for k in labels], labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.055 * legend_rows, 1, 1))
    fig.savefig(path, dpi=110)


def main(argv):
    src, out, opts = parse_args(argv)
    if not out.endswith(".h5"):
        raise Usage(f"output '{out}' should end in .h5 (a liebench study file)")
    cal = cost_model.load_calibration(opts["calibration"])
    rows = load_rows(src, opts["kind"])
    for r in rows:
        if r["model"] == "particles":  # the pair decomposition the model assumes (a column of the file)
            r["pair_scheme"] = opts["pair_scheme"] or r.get("pair_scheme", "tree")
        r["_model"] = cost_model.predict(r, cal)[0]
    check_hashes(rows)
    write_h5([{k: v for k, v in r.items() if not k.startswith("_")} for r in rows], out, opts["kind"],
             opts["calibration"], cal)
    if opts["plot"]:
        plot(rows, opts["kind"], opts["plot"])


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except (Usage, cost_model.InputError) as e:
        print(f"import_summaries.py: {e}", file=sys.stderr)
        sys.exit(2)
