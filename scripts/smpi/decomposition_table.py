#!/usr/bin/env python3
"""The particles' decomposition before/after table (scripts/smpi/README.md, "The particles'
decomposition"): reads summary lines of scripts/smpi/run.sh (one run per line) from
results/smpi/particles{N}_{before,after}.txt and writes results/smpi/particles_decomposition.md.
Parallel efficiency = T_1 / (P T_P), T_1 the 1-rank run of the same file and platform.
  /usr/bin/python3 scripts/smpi/decomposition_table.py
"""
import os
import sys
if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):  # the docstring is the usage
    print(__doc__.strip())
    sys.exit(0)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RES = os.path.join(ROOT, "results", "smpi")


def read(path):
    runs = {}
    if not os.path.exists(path):
        return runs
    for line in open(path):
        kv = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if "s_per_step" not in kv:
            continue
        runs[(kv["platform"], int(kv["ranks"]))] = float(kv["s_per_step"])
    return runs


def main():
    out = ["| N | platform | ranks | before: s/step | before: efficiency | after: s/step | after: efficiency |",
           "|---|---|---|---|---|---|---|"]
    for n in (64000, 4000):
        before = read(os.path.join(RES, f"particles{n}_before.txt"))
        after = read(os.path.join(RES, f"particles{n}_after.txt"))
        for plat in ("ib", "eth"):
            for p in (1, 16, 64, 256, 1024):
                cells = []
                for runs in (before, after):
                    t1, tp = runs.get((plat, 1)), runs.get((plat, p))
                    if tp is None or t1 is None:
                        cells += ["not run", ""]
                    else:
                        cells += [f"{tp:.4g}", f"{100 * t1 / (p * tp):.0f} %"]
                if cells[0] == "not run" and cells[2] == "not run":
                    continue
                out.append(f"| {n} | {plat} | {p} | " + " | ".join(cells) + " |")
    path = os.path.join(RES, "particles_decomposition.md")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
