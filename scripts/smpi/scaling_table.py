#!/usr/bin/python3
"""Tables and plot of a simulated scaling study from the rank-0 summary lines of
scripts/smpi/scaling.sh, in the suite's formats:

usage: scaling_table.py SUMMARIES.txt OUT_PREFIX [--kind strong|weak]
  -> OUT_PREFIX.h5   the scaling-study file (import_summaries.py: simulated runs + cost model)
     OUT_PREFIX.md   `liebench report OUT_PREFIX.h5 --table scaling` (markdown)
     OUT_PREFIX.csv  the same table as CSV (--format csv)
     OUT_PREFIX.png  parallel efficiency against ranks, simulation solid, model dashed
     OUT_PREFIX_efficiency.md  the compact table of docs/scaling.md: efficiency per case and platform at
                     each simulated rank count, the model's in parentheses, * where the report
                     flags the run (|model - sim| / sim > 20 % of the seconds per step)
The liebench of the regular build: $LIEBENCH_BUILD_DIR/liebench (default <source>/build).
Exit 1 (and no table) if two layouts of one case ended in different final states; bad input:
exit 2 with one line.
"""
import os
import subprocess
import sys
if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):  # the docstring is the usage
    print(__doc__.strip())
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))


def compact(csv_path, md_path):
    import csv
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    ranks = sorted({int(r["cores"]) for r in rows if int(r["cores"]) > 1})
    groups = {}
    for r in rows:
        groups.setdefault((r["case"], r.get("N", ""), r["platform"]), {})[int(r["cores"])] = r
    head = "| parallel efficiency, simulated (model) | " + " | ".join(str(p) for p in ranks) + " ranks |"
    lines = [head, "|---" * (len(ranks) + 1) + "|"]
    for (case, n, plat), by in sorted(groups.items()):
        cells = []
        for p in ranks:
            r = by.get(p)
            if r is None:
                cells.append("")
                continue
            flag = " *" if r["flag"].strip() else ""
            cells.append(f"{100 * float(r['efficiency']):.0f} % ({100 * float(r['model efficiency']):.0f} %){flag}")
        label = f"{case}" + (f" N = {n}" if n else "") + f", `{plat}`"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    with open(md_path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv):
    if len(argv) < 2 or argv[0].startswith("--") or argv[1].startswith("--"):
        print("usage: scaling_table.py SUMMARIES.txt OUT_PREFIX [--kind strong|weak]", file=sys.stderr)
        return 2
    src, out, rest = argv[0], argv[1], argv[2:]
    build = os.environ.get("LIEBENCH_BUILD_DIR") or os.path.join(HERE, "..", "..", "build")
    liebench = os.path.join(build, "liebench")
    if not os.access(liebench, os.X_OK):
        print(f"scaling_table.py: '{liebench}' not found: build the regular variant (scripts/setup.sh) or set "
              "LIEBENCH_BUILD_DIR", file=sys.stderr)
        return 2
    st = subprocess.call([sys.executable, os.path.join(HERE, "import_summaries.py"), src, out + ".h5",
                          "--plot", out + ".png"] + rest)
    if st != 0:
        return st
    for fmt, ext in (("md", ".md"), ("csv", ".csv")):
        text = subprocess.run([liebench, "report", out + ".h5", "--table", "scaling", "--format", fmt],
                              check=True, capture_output=True, text=True).stdout
        with open(out + ext, "w") as f:
            f.write(text)
    with open(out + ".md") as f:
        sys.stdout.write(f.read())
    compact(out + ".csv", out + "_efficiency.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
