#!/usr/bin/python3
"""The index of the experiment files: experiments/README.md, one row per deck of experiments/
(the decks of the sources at the top, examples/ and scaling/ below it) with its source, study
kind, what it shows and how long it takes.

    /usr/bin/python3 scripts/experiments_index.py            write experiments/README.md
    /usr/bin/python3 scripts/experiments_index.py --check    exit 1 if it is not what this writes
    /usr/bin/python3 scripts/experiments_index.py --measure build/liebench
                                        time the decks that have no time yet (2 MPI ranks)

Read from each deck: the source is the citation that opens its first comment line ("[P] Fig 5",
"[L] 3.5, Example 1 (Fig. 1)"), else the one that opens its title; an example has none), the study kind is the key `study`, what it
shows is the key `title`. The time is the wall time of its last run on 2 MPI ranks:
results/tables/timings.tsv for the decks scripts/reproduce_results.sh runs (scaling/NAME.cfg as
scaling_NAME), else experiments/timings.tsv (by the deck's path, examples/NAME), measured once
with --measure. A deck without a
title or a time is refused naming the deck and the fix (exit 2); scripts/reproduce_results.sh
rewrites the index after it has regenerated results/, tests/cli/experiments_index.sh checks it.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTIONS = [("", "The experiments of the sources",
             "One file per figure or table of [P], [K] and [L] (README.md, \"Sources\"); "
             "`bash scripts/reproduce_results.sh` runs them all and writes results/tables/."),
            ("benchmark", "The benchmark: every family on one problem",
             "The question the sources leave open, which integrator suits which problem (issue 25): every "
             "method that runs on a problem, side by side (long-time energy growth law, ...); "
             "`bash scripts/reproduce_results.sh 'benchmark_*'` runs them (results/tables/benchmark_*)."),
            ("examples", "Examples: one per study kind",
             "Small decks to start from (README.md, docs/studies.md); not part of results/."),
            ("scaling", "Scaling studies",
             "`scripts/run_layouts.sh DECK OUT.h5` runs one job per layout and merges them "
             "(docs/scaling.md); `scripts/reproduce_results.sh` runs these after the experiments.")]


def decks(root):
    out = []
    for sub, _, _ in SECTIONS:
        d = os.path.join(root, "experiments", sub)
        out += [os.path.join(sub, f) if sub else f for f in sorted(os.listdir(d)) if f.endswith(".cfg")]
    return out


def timing_name(deck):
    stem = os.path.basename(deck)[:-4]
    for sub in ("scaling", "benchmark"):
        if deck.startswith(sub + "/"):
            return sub + "_" + stem
    return stem


def read_times(path):
    times = {}
    if os.path.exists(path):
        for line in open(path):
            name, _, sec = line.rstrip("\n").partition("\t")
            if name and sec:
                times[name] = sec
    return times


def describe(root, deck):
    key = {}
    first = ""
    for line in open(os.path.join(root, "experiments", deck)):
        if line.startswith("["):
            break  # a model's section: the deck's own keys are above it
        if line.startswith("#"):
            first = first or line[1:].strip()
            continue
        m = re.match(r"\s*([a-z_.]+)\s*=\s*(.*?)\s*$", line)
        if m:
            key[m.group(1)] = m.group(2)
    title = key.get("title", "")
    src = re.match(r"(\[[A-Z]\][^:]*):", first) or re.match(r"(\[[A-Z]\][^:]*):", title)
    # the title repeats the source ("[P] Fig 5: convergence ..."): what it shows is the rest
    shows = re.sub(r"^\[[A-Z]\][^:]*:\s*", "", title)
    return (src.group(1) if src else "-"), key.get("study", "-"), shows, title


def cell(text):
    return text.replace("|", "\\|")


def index(root):
    committed = read_times(os.path.join(root, "results", "tables", "timings.tsv"))
    measured = read_times(os.path.join(root, "experiments", "timings.tsv"))
    problems, lines = [], ["# Experiments", "",
                           "Written by `scripts/experiments_index.py` from the decks' header comments, their keys "
                           "`title` and `study`, and the wall times of their last run on 2 MPI ranks "
                           "(`results/tables/timings.tsv`, else `experiments/timings.tsv`); "
                           "`tests/cli/experiments_index.sh` fails when it is stale.", ""]
    all_decks = decks(root)
    for sub, head, text in SECTIONS:
        rows = [d for d in all_decks if os.path.dirname(d) == sub]
        lines += ["## " + head, "", text, "",
                  "| deck | source | study | what it shows | time (s) |", "|---|---|---|---|--:|"]
        for d in rows:
            src, study, shows, title = describe(root, d)
            t = committed.get(timing_name(d)) or measured.get(d[:-4])
            if not title:
                problems.append(f"experiments/{d} has no key 'title' (what it shows): add one")
            if not t:
                problems.append(f"experiments/{d} has no recorded time: run scripts/reproduce_results.sh on it, "
                                "or scripts/experiments_index.py --measure LIEBENCH")
            lines.append(f"| [`{d}`]({d}) | {cell(src)} | {study} | {cell(shows)} | {t or '?'} |")
        lines.append("")
    return "\n".join(lines), problems


def measure(root, liebench):
    path = os.path.join(root, "experiments", "timings.tsv")
    committed = read_times(os.path.join(root, "results", "tables", "timings.tsv"))
    times = read_times(path)
    liebench = os.path.abspath(liebench)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    for d in decks(root):
        if timing_name(d) in committed or d[:-4] in times:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            deck, out = os.path.join(root, "experiments", d), os.path.join(tmp, "x.h5")
            if describe(root, d)[1] == "scaling":  # one job per layout, merged
                env["LIEBENCH"] = liebench
                cmd = ["bash", os.path.join(root, "scripts", "run_layouts.sh"), deck, out]
            else:
                cmd = ["mpirun", "-n", "2", liebench, "run", deck, "--output", out, "--force", "--quiet"]
            start = time.monotonic()
            st = subprocess.run(cmd, env=env, cwd=tmp, stdout=subprocess.DEVNULL).returncode
            if st not in (0, 3):
                sys.exit(f"experiments_index: {' '.join(cmd)} failed with status {st}")
            times[d[:-4]] = f"{time.monotonic() - start:.1f}"
            print(f"{d}: {times[d[:-4]]} s", file=sys.stderr)
    with open(path, "w") as f:
        f.writelines(f"{k}\t{v}\n" for k, v in sorted(times.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=ROOT, help="the repository (default: this script's)")
    ap.add_argument("--check", action="store_true", help="compare with experiments/README.md, write nothing")
    ap.add_argument("--measure", metavar="LIEBENCH", help="time the decks without a recorded time first")
    a = ap.parse_args()
    if a.measure:
        measure(a.root, a.measure)
    text, problems = index(a.root)
    for p in problems:
        print("experiments_index: " + p, file=sys.stderr)
    if problems:
        return 2
    path = os.path.join(a.root, "experiments", "README.md")
    if a.check:
        old = open(path).read() if os.path.exists(path) else ""
        if old != text:
            print("experiments_index: experiments/README.md is stale (a deck added, removed or changed, or new "
                  "times): run /usr/bin/python3 scripts/experiments_index.py", file=sys.stderr)
            return 1
        return 0
    with open(path, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
