#!/usr/bin/env python3
"""Compares regenerated tables with the committed ones (scripts/check_tables.sh).

    compare_tables.py COMMITTED_DIR REGENERATED_DIR

Every table file of REGENERATED_DIR (md, tex, csv of `liebench report`, the work-precision CSVs
of plot_study.py, the .paper tables) must exist in COMMITTED_DIR with the same content, except
timing columns (CSV columns named wall_seconds or ending in [s]); README.md (the index, with
wall times) and timings.tsv are not compared, nor scaling_* tables (timings only), nor the md/tex
of the benchmark's work-precision decks benchmark_wp_* (wall times in every row; their CSVs are
compared without the timing columns and the repetition count, which follows the wall time). Exit 0 when
all are equal, 1 otherwise (each difference named on stderr).
"""
import csv
import io
import os
import re
import sys
if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):  # the docstring is the usage
    print(__doc__.strip())
    sys.exit(0)

TIMING_COLUMN = re.compile(r"^(wall_seconds|repeats|.*\[s\])$")  # repeats: until a wall time
SKIPPED = re.compile(r"^(README\.md|timings\.tsv|scaling_.*|benchmark_wp_.*\.(md|tex))$")


def normalised(path):
    with open(path, newline="") as f:
        text = f.read()
    if not path.endswith(".csv"):
        return text.splitlines()
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return []
    keep = [i for i, h in enumerate(rows[0]) if not TIMING_COLUMN.match(h.strip())]
    return [",".join(r[i] if i < len(r) else "" for i in keep) for r in rows]


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    committed, regenerated = argv[1], argv[2]
    names = sorted(n for n in os.listdir(regenerated) if not SKIPPED.match(n))
    if not names:
        print(f"compare_tables: no tables in {regenerated}", file=sys.stderr)
        return 1
    bad = 0
    for n in names:
        mine = os.path.join(committed, n)
        if not os.path.exists(mine):
            print(f"compare_tables: {n}: written by the code but not committed", file=sys.stderr)
            bad += 1
            continue
        a, b = normalised(mine), normalised(os.path.join(regenerated, n))
        if a != b:
            line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            old = a[line] if line < len(a) else "<end of file>"
            new = b[line] if line < len(b) else "<end of file>"
            print(f"compare_tables: {n} differs at line {line + 1}:\n  committed:   {old[:200]}\n  regenerated: {new[:200]}",
                  file=sys.stderr)
            bad += 1
    # committed tables of the same experiments that the code no longer writes
    stems = [n[:-3] for n in names if n.endswith(".md") and not n.endswith(".paper.md")]
    for n in sorted(os.listdir(committed)):
        if any(n.startswith(s + ".") for s in stems) and not SKIPPED.match(n) and n not in names:
            print(f"compare_tables: {n}: committed but no longer written", file=sys.stderr)
            bad += 1
    print(f"compare_tables: {len(names) - bad} of {len(names)} tables as committed" +
          ("" if not bad else f", {bad} differ (regenerate: bash scripts/reproduce_results.sh PATTERN)"),
          file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
