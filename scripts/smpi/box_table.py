#!/usr/bin/python3
"""The cutoff path's decomposition on simulated clusters (issue 28): one table of the box cases
of results/smpi/{strong,weak}_summaries.txt (scaling.sh: box_2e21, the real path; box_2e21_replay
and box_weak, the replay from the geometry) with the traffic per rank and the cost model (C11)
beside, written to results/smpi/box_scaling.md.
  /usr/bin/python3 scripts/smpi/box_table.py [--calibration FILE]   (LIEBENCH_SMPI_RESULTS: another results directory)
Efficiency: strong T_1 / (P T_P), weak T_1 / T_P (the 1-rank run of the same case and platform),
for the simulation and the model alike. Bad input: one line on stderr, exit 2.
"""
import os
import sys

import cost_model
if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):  # the docstring is the usage
    print(__doc__.strip())
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))
RES = os.environ.get("LIEBENCH_SMPI_RESULTS") or os.path.join(os.path.dirname(os.path.dirname(HERE)), "results", "smpi")
CASES = (("box_2e21", "strong", "real decomposition and pair work"),
         ("box_2e21_replay", "strong", "replayed from the geometry"),
         ("box_weak", "weak", "replayed, 2^17 bodies per rank"))


def mb(v):
    return f"{float(v) / 1e6:.3g} MB"


def main(argv):
    cal_path = os.path.join(HERE, "calibration.env")
    if len(argv) == 2 and argv[0] == "--calibration":
        cal_path = argv[1]
    elif argv:
        print(f"box_table.py: unknown arguments {' '.join(argv)}; expected [--calibration FILE]", file=sys.stderr)
        return 2
    try:
        cal = cost_model.load_calibration(cal_path)
        rows = []
        for kind in ("strong", "weak"):
            path = os.path.join(RES, f"{kind}_summaries.txt")
            if os.path.exists(path):
                with open(path) as f:
                    rows += cost_model.parse_lines(f, path)
        out = ["| case | what | platform | ranks | bodies | s per step | efficiency | model s per step | model efficiency "
               "| memory per rank (max) | bytes sent per rank per evaluation (max) | messages per rank per evaluation (max / mean) "
               "| state hash |",
               "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for case, kind, what in CASES:
            mine = sorted((r for r in rows if r.get("case") == case), key=lambda r: (r["platform"], int(r["ranks"])))
            base = {}
            for r in mine:
                model, _ = cost_model.predict(r, cal)
                P, t = int(r["ranks"]), float(r["s_per_step"])
                if P == 1:
                    base[r["platform"]] = (t, model)
                t1, m1 = base.get(r["platform"], (None, None))
                scale = P if kind == "strong" else 1
                eff = f"{100 * t1 / (scale * t):.0f} %" if t1 else "no 1-rank run"
                meff = f"{100 * m1 / (scale * model):.0f} %" if m1 else ""
                out.append(f"| {case} | {what} | {r['platform']} | {P} | {int(r['N'])} | {t:.4g} | {eff} | {model:.4g} | {meff} "
                           f"| {mb(r['domain_bytes_held_max'])} | {float(r['domain_bytes_eval_max']) / 1e3:.4g} kB "
                           f"| {r['domain_messages_eval_max']} / {float(r['domain_messages_eval_mean']):.1f} | {r['state_hash']} |")
    except cost_model.InputError as e:
        print(f"box_table.py: {e}", file=sys.stderr)
        return 2
    except KeyError as e:
        print(f"box_table.py: a box line without {e.args[0]}=; rerun it with this liebench_steps", file=sys.stderr)
        return 2
    path = os.path.join(RES, "box_scaling.md")
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(out) + "\n")
    os.replace(path + ".tmp", path)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
