#!/usr/bin/python3
"""Strong-scaling table and plot from the rank-0 summary lines of scripts/smpi/scaling.sh.

usage: scaling_table.py SUMMARIES.txt OUT_PREFIX  -> OUT_PREFIX.md, .csv, .png
Efficiency of P ranks: T_1 / (P T_P) with T the simulated seconds per step; T_1 is the
fastest 1-rank run of the case over the platforms (one rank does not touch the network, so its
runs differ only by the noise of the measured compute, ~10 % on a loaded machine). Exit 1 (and no table) if two layouts of one case ended in different final states.
"""
import collections
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: scaling_table.py SUMMARIES.txt OUT_PREFIX")
    rows = []
    with open(sys.argv[1]) as f:
        for line in f:
            if line.startswith("case="):
                rows.append(dict(kv.split("=", 1) for kv in line.split()))
    groups = collections.defaultdict(dict)
    hashes = collections.defaultdict(set)
    for r in rows:
        groups[(r["case"], r["N"], r["platform"])][int(r["ranks"])] = r
        hashes[(r["case"], r["N"])].add(r["state_hash"])
    bad = [k for k, h in hashes.items() if len(h) != 1]
    if bad:
        sys.exit(f"scaling_table.py: different final states across layouts for {bad}")
    out = sys.argv[2]
    md = ["| case | N | platform | ranks | simulated s/step | speedup | efficiency | simulator wall s | final-state hash |",
          "|---|---|---|---|---|---|---|---|---|"]
    csv = ["case,N,platform,ranks,s_per_step,speedup,efficiency,wall_seconds,state_hash"]
    fig, ax = plt.subplots(figsize=(6, 4))
    t1_of = {}
    for (case, n, plat), by_p in groups.items():
        if 1 in by_p:
            t = float(by_p[1]["s_per_step"])
            t1_of[(case, n)] = min(t, t1_of.get((case, n), t))
    for (case, n, plat), by_p in sorted(groups.items()):
        if (case, n) not in t1_of:
            continue
        t1 = t1_of[(case, n)]
        ps, effs = [], []
        for p in sorted(by_p):
            r = by_p[p]
            t = float(r["s_per_step"])
            s = t1 / t
            e = s / p
            ps.append(p)
            effs.append(100 * e)
            md.append(f"| {case} | {n} | {plat} | {p} | {t:.4g} | {s:.1f} | {100 * e:.0f} % | {float(r['wall_seconds']):.0f} | `{r['state_hash']}` |")
            csv.append(f"{case},{n},{plat},{p},{t:.6g},{s:.4g},{e:.4g},{r['wall_seconds']},{r['state_hash']}")
        ax.plot(ps, effs, marker="o", label=f"{case} N={n} ({plat})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("simulated ranks (16 per node)")
    ax.set_ylabel("parallel efficiency T1 / (P TP) [%]")
    ax.set_ylim(0, 110)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("strong scaling, SimGrid SMPI (RKMK4)")
    fig.tight_layout()
    fig.savefig(out + ".png", dpi=120)
    with open(out + ".md", "w") as f:
        f.write("\n".join(md) + "\n")
    with open(out + ".csv", "w") as f:
        f.write("\n".join(csv) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
