#!/usr/bin/python3
"""The suite's energy and unit-length errors beside the numbers a paper reports.

    /usr/bin/python3 studies/paper_table.py EXPERIMENT.cfg RESULT.h5 > results/tables/NAME.paper.md

The experiment file states the paper's numbers in comment lines (one per method and step):
    # paper: METHOD | STEP | MEAN_ENERGY_ERROR | MEAN_UNIT_ERROR
(STEP = h of a fixed-step run or the tolerance of an adaptive one, '-' when the paper gives none;
a value '-' when the paper reports none). For every run of RESULT.h5 (/runs/run_*), from its
sampled time series (/runs/run_*/observables):
  mean |E - E0|      the mean over the samples of the absolute total-energy error, in the model's
                     units ([L] reports "mean total energy variation" in Nm, absolute);
  mean unit error    the mean over the samples of max_i |1 - |q_i|^2| (observable unit_norm_error;
                     ~ 2 |1 - |q_i||, [L]'s "unit length error" is not defined more precisely).
The paper's row is matched by method and step (or by method alone when its STEP is '-').
"""
import sys

import h5py
import numpy as np


def paper_rows(cfg_path):
    rows = []
    with open(cfg_path) as f:
        for line in f:
            s = line.strip()
            if s.startswith("# paper:"):
                parts = [p.strip() for p in s[len("# paper:"):].split("|")]
                if len(parts) != 4:
                    sys.exit(f"paper_table: line '{s}' in {cfg_path} needs 4 fields: METHOD | STEP | ENERGY | UNIT")
                rows.append(parts)
    return rows


def fmt(v):
    return "-" if v is None else f"{v:.4e}"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: paper_table.py EXPERIMENT.cfg RESULT.h5")
    cfg_path, h5_path = sys.argv[1], sys.argv[2]
    paper = paper_rows(cfg_path)
    title = ""
    with open(cfg_path) as f:
        for line in f:
            if line.startswith("title"):
                title = line.split("=", 1)[1].strip()
                break
    out = [f"# {title}: the suite beside the paper", "",
           "| method | h / tol | steps (accepted) | samples | mean \\|E - E0\\| | paper | mean unit error | paper |",
           "|:--|--:|--:|--:|--:|--:|--:|--:|"]
    with h5py.File(h5_path, "r") as f:
        for name in sorted(f["runs"].keys()):
            run = f["runs"][name]
            a = run.attrs
            method = a["method"].decode() if isinstance(a["method"], bytes) else str(a["method"])
            status = a["status"].decode() if isinstance(a["status"], bytes) else str(a["status"])
            if status != "ok":
                out.append(f"| {method} | - | - | - | failed | | | |")
                continue
            step = float(a["h"]) if "h" in a else float(a["tol"])
            steps = int(a["steps"]) if "steps" in a else int(a["accepted"])
            E = run["observables/total_energy/value"][:]
            U = run["observables/unit_norm_error/value"][:]
            dE = float(np.mean(np.abs(E - E[0])))
            du = float(np.mean(U))
            pe = pu = None
            for m, st, e, u in paper:
                if m == method and (st == "-" or np.isclose(float(st), step, rtol=1e-9)):
                    pe = None if e == "-" else float(e)
                    pu = None if u == "-" else float(u)
            out.append(f"| {method} | {step:.1e} | {steps} | {len(E)} | {fmt(dE)} | {fmt(pe)} | {fmt(du)} | {fmt(pu)} |")
    out += ["", "mean \\|E - E0\\|: mean over the samples of the absolute total-energy error (the paper's units); "
            "mean unit error: mean over the samples of max_i \\|1 - \\|q_i\\|^2\\| (observable unit_norm_error). "
            "Written by studies/paper_table.py from the HDF5 file and the '# paper:' lines of the experiment file."]
    print("\n".join(out))


if __name__ == "__main__":
    main()
