#!/usr/bin/python3
"""The suite's energy and unit-length errors beside the numbers a paper prints.

    /usr/bin/python3 scripts/tables/paper_table.py EXPERIMENT.cfg RESULT.h5 OUT_DIR

The paper's numbers are data of the experiment file, in comment lines:
    # paper: METHOD | STEP | STATISTIC | VALUE
    # paper-note: free text (several lines are joined)
STEP is h of a fixed-step run, the tolerance of an adaptive one, or '-' (any run of METHOD).
STATISTIC is one of the statistics below, taken over the sampled observables of a run
(/runs/<id>/observables; every step with sample_every = 1, every accepted step of an adaptive
run), in the model's units (the papers of [L] print absolute energy errors in Nm):
    mean_abs_energy   mean_k |E_k - E_0|               ([L]: "mean total energy variation")
    mean_rel_energy   mean_k |E_k - E_0| / |E_0|
    max_rel_energy    max_k |E_k - E_0| / |E_0|        ([L] Example 2's "total energy error")
    mean_unit         mean_k max_i |1 - |q_i|^2|        ([L]: "mean unit length error"; observable
                                                        unit_norm_error, ~ 2 |1 - |q_i||)
Writes OUT_DIR/NAME.paper.md (the table, what each statistic is, the notes) and
OUT_DIR/NAME.paper.csv (one row per run: every statistic and the paper's value of each, empty
where the paper prints none), NAME = the experiment file's name. A file without '# paper:'
lines writes nothing. Runs that failed get a row saying so.
"""
import csv
import os
import sys

import h5py
import numpy as np
if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):  # the docstring is the usage
    print(__doc__.strip())
    sys.exit(0)

STATISTICS = {
    "mean_abs_energy": "mean \\|E-E0\\|",
    "mean_rel_energy": "mean \\|E-E0\\|/\\|E0\\|",
    "max_rel_energy": "max \\|E-E0\\|/\\|E0\\|",
    "mean_unit": "mean unit length error",
}


def text(v):
    return v.decode() if isinstance(v, (bytes, np.bytes_)) else str(v)


def read_experiment(cfg_path):
    rows, notes, title = [], [], ""
    with open(cfg_path) as f:
        for number, line in enumerate(f, 1):
            s = line.strip()
            if s.startswith("title") and "=" in s and not title:
                title = s.split("=", 1)[1].strip()
            elif s.startswith("# paper-note:"):
                notes.append(s[len("# paper-note:"):].strip())
            elif s.startswith("# paper:"):
                parts = [p.strip() for p in s[len("# paper:"):].split("|")]
                if len(parts) != 4 or parts[2] not in STATISTICS:
                    sys.exit(f"{cfg_path}:{number}: '# paper:' needs METHOD | STEP | STATISTIC | VALUE with STATISTIC "
                             f"one of {', '.join(STATISTICS)}")
                method, step, stat, value = parts
                rows.append((method, None if step == "-" else float(step), stat, float(value)))
    return title, rows, " ".join(notes)


def run_statistics(run):
    a = run.attrs
    out = {"method": text(a["method"]), "status": text(a["status"])}
    params = [p.strip() for p in text(a.get("params", "")).split(";")]
    out["label"] = "; ".join(p for p in params if p and not p.startswith("method="))
    out["step"] = float(a["h"]) if "h" in a else float(a["tol"]) if "tol" in a else None
    out["steps"] = int(a["steps"]) if "steps" in a else int(a["accepted"]) if "accepted" in a else None
    if out["status"] != "ok" or "observables/total_energy" not in run or "observables/unit_norm_error" not in run:
        return out
    E = run["observables/total_energy/value"][:].astype(float)
    U = run["observables/unit_norm_error/value"][:].astype(float)
    dE = np.abs(E - E[0])
    out.update(samples=len(E), E0=float(E[0]), mean_abs_energy=float(dE.mean()),
               mean_rel_energy=float(dE.mean() / abs(E[0])), max_rel_energy=float(dE.max() / abs(E[0])),
               mean_unit=float(U.mean()))
    return out


def paper_values(rows, s):
    vals = {}
    for method, step, stat, value in rows:
        if method == s["method"] and (step is None or s["step"] is not None and abs(s["step"] - step) <= 1e-9 * step):
            vals[stat] = value
    return vals


def main():
    if len(sys.argv) != 4:
        print("usage: paper_table.py EXPERIMENT.cfg RESULT.h5 OUT_DIR (see --help)", file=sys.stderr)
        sys.exit(2)
    cfg_path, h5_path, out_dir = sys.argv[1:]
    title, rows, notes = read_experiment(cfg_path)
    if not rows:
        return
    name = os.path.splitext(os.path.basename(cfg_path))[0]
    with h5py.File(h5_path, "r") as f:
        stats = [run_statistics(f["runs"][r]) for r in sorted(f["runs"])]
    used = [k for k in STATISTICS if any(r[2] == k for r in rows)]
    others = [k for k in STATISTICS if k not in used]
    md = [f"# {title}: the suite beside the paper", "",
          "| method | run | steps | samples | " + " | ".join(STATISTICS[k] + " (paper)" for k in used) + " | " +
          " | ".join(STATISTICS[k] for k in others) + " |",
          "|:--|:--|--:|--:|" + "--:|" * (len(used) + len(others))]
    with open(os.path.join(out_dir, name + ".paper.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["method", "run", "status", "steps", "samples", "E0"] + list(STATISTICS) +
                   ["paper_" + k for k in STATISTICS])
        for s in stats:
            paper = paper_values(rows, s)
            ok = "samples" in s
            w.writerow([s["method"], s["label"], s["status"], s["steps"] if s["steps"] is not None else "",
                        s.get("samples", ""), "%.17g" % s["E0"] if ok else ""] +
                       ["%.17g" % s[k] if ok else "" for k in STATISTICS] +
                       ["%.4e" % paper[k] if k in paper else "" for k in STATISTICS])
            if not ok:
                md.append(f"| {s['method']} | {s['label']} | failed ({s['status']}) | | " +
                          " | ".join("" for _ in STATISTICS) + " |")
                continue
            cells = [("%.4e" % s[k]) + (" (%.4e)" % paper[k] if k in paper else "") for k in used]
            cells += ["%.4e" % s[k] for k in others]
            md.append(f"| {s['method']} | {s['label']} | {s['steps']} | {s['samples']} | " + " | ".join(cells) + " |")
    md += ["", "Statistics over the sampled observables of each run, in the model's units (energy errors "
           "absolute unless marked relative); the paper's number in parentheses where it prints one. "
           "mean unit length error = mean over the samples of max_i \\|1 - \\|q_i\\|^2\\|. Written by "
           "scripts/tables/paper_table.py from the HDF5 file and the '# paper:' lines of "
           f"experiments/{name}.cfg."]
    if notes:
        md += ["", "**Notes.** " + notes]
    with open(os.path.join(out_dir, name + ".paper.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
