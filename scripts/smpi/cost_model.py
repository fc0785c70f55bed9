#!/usr/bin/python3
"""The cost model beside the simulated clusters (issue 17): predicted seconds per step of a
liebench_steps run from its case, N, ranks and platform. Formulas and their sources:
scripts/smpi/README.md, section "Cost model" (the equation numbers (C1)-(C10) below are its).

usage: cost_model.py [--calibration FILE] [--explain] [--pair-scheme rows|tiles|tree|two_level|direct] [SUMMARIES.txt | -]
  reads rank-0 summary lines (key=value pairs, e.g. results/smpi/strong_summaries.txt) and
  prints per line: case, platform, ranks, N, model and simulated seconds per step, their
  relative difference (model - sim) / sim and, with --explain, the model's terms per step
  (particles, tree: compute, pos_up, pos_down, sum_up, sum_down; direct: compute, expand,
  exchange). --pair-scheme: the particles' decomposition for every particle line; default: the
  line's pair_scheme=, else tree (the code of this tree, (C10): PairPlan's four phases, in two
  levels or, on 2-8 ranks where the plan takes it, direct (pair_plan.py); direct: the same tile
  pairs with the former direct exchange, for runs made before the two levels; two_level: tree's
  four phases in two levels whatever the plan takes).
Bad input: one line on stderr naming the value, exit 2.

Used as a module by import_summaries.py (predict()).
"""
import math
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np

import pair_plan
if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):  # the docstring is the usage
    print(__doc__.strip())
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))
CORES_PER_NODE = 16  # run.sh places ranks node after node, 16 per node

# SimGrid 3.32's SMPI network model factors (defaults of smpi/bw-factor and smpi/lat-factor,
# read from libsimgrid.so.3.32 of Debian 12): for a message of s bytes, the first row with
# s >= threshold applies. (C1)
BW_FACTOR = [(65472, 0.940694), (15424, 0.697866), (9376, 0.58729), (5776, 1.08739), (3484, 0.77493),
             (1426, 0.608902), (732, 0.341987), (257, 0.338112), (0, 0.812084)]
LAT_FACTOR = [(65472, 11.6436), (15424, 3.48845), (9376, 2.59299), (5776, 2.18796), (3484, 1.88101),
              (1426, 1.61075), (732, 1.9503), (257, 1.95341), (0, 2.01467)]

PLATFORM_FILES = {"ib": "ib64x16.xml", "eth": "eth64x16.xml"}
ALLREDUCE_EXACT_BYTES = 72 * 8  # par::ExactSum: 72 int64 words (parallel/exact_sum.hpp)
# The chain's reduced tridiagonal system, solved by every rank (B - 1 rows per field evaluation),
# with the per-block work of the partitioned solve: nanoseconds per block and evaluation, one core
# here (regular build, thread CPU time, fastest of 3): (cpu(N = 2048, blocks = 1024) - cpu(N = 2048,
# blocks = 1)) / (800 evaluations x 1023) of `liebench_steps --model=chain --N=2048 --blocks=B
# --initial=random --steps=200` = (0.2818 - 0.2322) s / 818400 = 61 ns (2026-11-24, load ~10).
# calibration.env may set CHAIN_REDUCED_ROW_NS instead.
CHAIN_REDUCED_ROW_NS = 61.0
# Bytes per second of the slot array's zero fill (tiled pair path), one core: the suite's
# assumption (a typical single-core memset rate), not measured.
MEMSET_BPS = 10e9


class InputError(Exception):
    """Bad input: the message names the value and the fix."""


def factor(table, nbytes):
    for threshold, value in table:
        if nbytes >= threshold:
            return value
    return table[-1][1]


_UNITS = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def _bandwidth(text):
    """SimGrid bandwidth ('100Gbps', '20GBps') in bytes per second."""
    for suffix, scale in (("bps", 1 / 8), ("Bps", 1.0)):
        if text.endswith(suffix):
            num = text[: -len(suffix)]
            prefix = num[-1] if num and num[-1] in _UNITS and not num[-1].isdigit() else ""
            return float(num[: len(num) - len(prefix)]) * _UNITS[prefix] * scale
    raise InputError(f"bandwidth '{text}' in a platform file: expected e.g. 100Gbps or 20GBps")


def _latency(text):
    for suffix, scale in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * scale
    raise InputError(f"latency '{text}' in a platform file: expected e.g. 0.5us")


class Platform:
    """alpha/beta of a SimGrid <cluster>: node link (lat, bw), backbone (bb_lat, bb_bw),
    loopback (lo_lat, lo_bw) between ranks of one node."""

    def __init__(self, name, lat, bw, bb_lat, bb_bw, lo_lat, lo_bw, nodes):
        self.name, self.lat, self.bw, self.bb_lat, self.bb_bw = name, lat, bw, bb_lat, bb_bw
        self.lo_lat, self.lo_bw, self.nodes = lo_lat, lo_bw, nodes

    @staticmethod
    def load(name):
        if name not in PLATFORM_FILES:
            raise InputError(f"platform '{name}' has no cost model; expected one of {', '.join(PLATFORM_FILES)}")
        root = ET.parse(os.path.join(HERE, "platforms", PLATFORM_FILES[name])).getroot()
        c = root.find(".//cluster")
        lo, hi = c.get("radical").split("-")
        return Platform(name, _latency(c.get("lat")), _bandwidth(c.get("bw")), _latency(c.get("bb_lat")),
                        _bandwidth(c.get("bb_bw")), _latency(c.get("loopback_lat")),
                        _bandwidth(c.get("loopback_bw")), int(hi) - int(lo) + 1)

    def message(self, nbytes, cross_node, flows_per_link=1, flows_total=1):
        """(C2) one message of nbytes: lat_factor x route latency + bytes / rate, the rate
        bw_factor x the smallest of the bandwidth and the fair shares of the node link
        (flows_per_link flows leave one node) and of the backbone (flows_total flows): the
        factor scales the shared rate too (checked with allgather_check.sh --shift)."""
        if nbytes <= 0:
            return 0.0
        if cross_node:
            route_lat = 2 * self.lat + self.bb_lat
            rate = factor(BW_FACTOR, nbytes) * min(self.bw, self.bb_bw, self.bw / flows_per_link,
                                                   self.bb_bw / flows_total)
        else:
            route_lat = self.lo_lat
            rate = factor(BW_FACTOR, nbytes) * self.lo_bw  # loopback: a fat pipe per node
        return factor(LAT_FACTOR, nbytes) * route_lat + nbytes / rate


def _log2ceil(p):
    return max(0, math.ceil(math.log2(p))) if p > 1 else 0


def allgatherv_algorithm(P, total_bytes):
    """SimGrid's `ompi` selector for MPI_Allgatherv (run.sh: --cfg=smpi/allgatherv:ompi), by
    communicator size and bytes per rank (Open MPI 4.x coll/tuned decision tables)."""
    per = total_bytes // P
    if P == 2:
        return "ring" if per < 2048 or 4096 <= per < 8192 else "pair"
    table = [  # (P below, [(per-rank bytes below, algorithm), ...], otherwise)
        (8, [(256, "gb"), (4096, "neighbor"), (8192, "ring"), (16384, "neighbor"), (262144, "bruck")], "neighbor"),
        (16, [(1024, "gb")], "bruck"),
        (32, [(128, "gb"), (262144, "bruck")], "ring"),
        (64, [(256, "gb"), (8192, "bruck")], "ring"),
        (128, [(256, "gb"), (4096, "bruck")], "ring"),
        (256, [(1024, "bruck"), (65536, "neighbor")], "ring"),
        (512, [(1024, "bruck")], "ring"),
        (1024, [(512, "bruck"), (1024, "gb"), (4096, "bruck"), (1048576, "neighbor")], "ring"),
        (1 << 62, [(4096, "bruck")], "neighbor"),
    ]
    for below, rules, otherwise in table:
        if P < below:
            for limit, alg in rules:
                if per < limit:
                    return alg
            return otherwise
    return "neighbor"


def allgatherv(plat, P, total_bytes):
    """(C3) time of MPI_Allgatherv of total_bytes (equal shares m = total/P) on P ranks."""
    if P == 1:
        return 0.0
    m = total_bytes / P
    multi = P > CORES_PER_NODE
    alg = allgatherv_algorithm(P, total_bytes)
    if alg == "bruck":
        # round k: partner at distance d = 2^k, min(d, P - d) shares; min(d, 16) ranks of a
        # node send off the node (all ranks of one node when P <= 16)
        t = 0.0
        for k in range(_log2ceil(P)):
            d = 1 << k
            nb = min(d, P - d) * m
            flows = min(d, CORES_PER_NODE)
            t += plat.message(nb, multi, flows, flows * P / CORES_PER_NODE)
        return t
    if alg == "ring":  # P - 1 rounds of one share; one rank per node sends off the node
        return (P - 1) * plat.message(m, multi, 1, P / CORES_PER_NODE)
    if alg == "neighbor":  # P / 2 rounds, two shares each (first round one)
        return plat.message(m, multi) + (P // 2 - 1) * plat.message(2 * m, multi, 1, P / CORES_PER_NODE)
    if alg == "pair":
        return plat.message(m, multi)
    # gb: linear gather to rank 0 (its link carries P - 1 shares), binomial broadcast of all
    return (plat.message(m, multi) + (P - 2) * m / plat.bw * (1 if multi else plat.bw / plat.lo_bw)
            + _log2ceil(P) * plat.message(total_bytes, multi))


def allreduce_rdb(plat, P, nbytes):
    """(C4) recursive doubling (run.sh: --cfg=smpi/allreduce:rdb): ceil(log2 P) exchanges of the
    whole vector; partners at distance d >= 16 are on another node (16 flows per node link)."""
    t = 0.0
    for k in range(_log2ceil(P)):
        d = 1 << k
        cross = d >= CORES_PER_NODE
        t += plat.message(nbytes, cross, CORES_PER_NODE if cross else 1, P if cross else 1)
    return t


def reduce_scatter_default(plat, P, total_bytes):
    """(C5) MPI_Reduce_scatter under SMPI's default selection (run.sh sets none): a reduce to rank
    0 (SimGrid's reduce__default: a linear ireduce, every rank sends its whole vector to rank 0)
    then a linear scatterv from rank 0. The messages from rank 0's node pass its loopback in
    parallel; those from other nodes share rank 0's node link one after another; the scatterv
    likewise. The time of the reduction operator itself is not counted."""
    if P == 1:
        return 0.0
    multi = P > CORES_PER_NODE
    off_node = P - min(P, CORES_PER_NODE)
    share = total_bytes / P
    reduce = plat.message(total_bytes, multi) + off_node * total_bytes / plat.bw
    scatter = plat.message(share, multi) + off_node * share / plat.bw
    return reduce + scatter


def p2p_phase(plat, src, dst, nbytes, loopback_shared=False):
    """(C10) one phase of point-to-point messages all posted at once (MPI_Irecv / MPI_Isend, then
    MPI_Waitall): arrays of sender, receiver and bytes, self messages left out. A message of s
    bytes loads every link it crosses with s / bw_f(s) (the factor scales the fair share, (C2)).
    Between nodes it crosses the sender node's link out, the backbone and the receiver node's link
    in (full duplex: out and in do not compete); within a node, the node's loopback (SimGrid's
    cluster loopback is a fat pipe: its messages do not share it unless loopback_shared). The
    phase ends with its last message: max over messages of lat_f(s) L + (the largest load of the
    links it crosses) / (their bandwidth), with a lone message's s / (bw_f(s) bw) as the floor."""
    src, dst, nbytes = np.asarray(src), np.asarray(dst), np.asarray(nbytes, dtype=np.float64)
    keep = (src != dst) & (nbytes > 0)
    src, dst, nbytes = src[keep], dst[keep], nbytes[keep]
    if len(nbytes) == 0:
        return 0.0
    thresholds = np.array([t for t, _ in BW_FACTOR], dtype=np.float64)
    row = np.argmax(nbytes[:, None] >= thresholds[None, :], axis=1)  # first row with s >= threshold
    bw_f = np.array([v for _, v in BW_FACTOR])[row]
    lat_f = np.array([v for _, v in LAT_FACTOR])[row]
    eff = nbytes / bw_f
    ns, nd = src // CORES_PER_NODE, dst // CORES_PER_NODE
    cross = ns != nd
    nodes = int(max(ns.max(), nd.max())) + 1
    out_load = np.bincount(ns[cross], weights=eff[cross], minlength=nodes)
    in_load = np.bincount(nd[cross], weights=eff[cross], minlength=nodes)
    bb_load = eff[cross].sum()
    t_cross = (lat_f * (2 * plat.lat + plat.bb_lat)
               + np.maximum(np.maximum(out_load[ns], in_load[nd]) / plat.bw, bb_load / plat.bb_bw))
    if loopback_shared:
        lo_load = np.bincount(ns[~cross], weights=eff[~cross], minlength=nodes)[ns]
    else:
        lo_load = eff
    t_local = lat_f * plat.lo_lat + lo_load / plat.lo_bw
    return float(np.where(cross, t_cross, t_local).max())


def p2p_matrix(plat, nbytes):
    """(C10) p2p_phase of a P x P matrix of bytes (sender, receiver); the diagonal is ignored."""
    src, dst = np.nonzero(nbytes)
    return p2p_phase(plat, src, dst, nbytes[src, dst])


_PLANS = {}


def _plan(n, P):
    """pair_plan.Plan(n, P), kept for the lines of one (N, ranks)."""
    if (n, P) not in _PLANS:
        try:
            _PLANS[(n, P)] = pair_plan.Plan(n, P)
        except ValueError as e:  # more tiles than par::PairPlan takes
            raise InputError(f"N={n} ranks={P}: {e}; the tree scheme's model covers what PairPlan accepts") from None
    return _PLANS[(n, P)]


def load_calibration(path):
    vals = {}
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#") and "=" in line:
                    k, v = line.split("=", 1)
                    vals[k] = v
    except OSError as e:
        raise InputError(f"calibration file '{path}': {e.strerror}; run scripts/smpi/calibrate.sh") from None
    out = {}
    for k in ("PAIR_NS", "CHAIN_LINK_STEP_NS"):
        try:
            out[k] = float(vals[k])
        except (KeyError, ValueError):
            raise InputError(f"calibration file '{path}' has no number {k}=; rerun scripts/smpi/calibrate.sh") from None
    try:
        out["CHAIN_REDUCED_ROW_NS"] = float(vals.get("CHAIN_REDUCED_ROW_NS", CHAIN_REDUCED_ROW_NS))
    except ValueError:
        raise InputError(f"calibration file '{path}': CHAIN_REDUCED_ROW_NS is not a number") from None
    for k in ("BOX_ENTRY_NS", "BOX_BODY_NS"):  # optional: the box's lines need them ((C11))
        if k in vals:
            try:
                out[k] = float(vals[k])
            except ValueError:
                raise InputError(f"calibration file '{path}': {k} is not a number") from None
    return out


def _tile_size(n):  # dipolar::tile_size_for
    if n <= 128:
        return 64
    tile = 128
    while -(-n // tile) > 16:
        tile += 128
    return tile


def busiest_tile_pairs(n, P):
    """Unordered pairs of the busiest rank in the tiled path and the tile count T: tile pairs
    (I, J), I <= J, enumerated I = 0: J = 0..T-1, I = 1, ...; pair (I, J) goes to the rank whose
    equal share [r W/P, (r + 1) W/P) of all W pairs holds the middle of its pairs
    (dipolar::tile_pair_share)."""
    tile = _tile_size(n)
    T = max(1, -(-n // tile))
    size = [min(tile, n - I * tile) for I in range(T)]
    pairs = [size[I] * (size[I] - 1) // 2 if I == J else size[I] * size[J] for I in range(T) for J in range(I, T)]
    total = sum(pairs)
    if P == 1 or total == 0:
        return total, T
    load = [0] * P
    done = 0
    for p in pairs:
        load[min(int((done + 0.5 * p) / total * P), P - 1)] += p
        done += p
    return max(load), T


def predict(line, cal, scheme=None):
    """Seconds per step of one summary line (a dict) and the terms per step (dict). scheme: the
    particles' pair decomposition (rows (C7), tiles (C8), tree (C10), direct (C10')); None: the line's
    pair_scheme=, else tree."""
    def need(key, conv=str):
        v = line.get(key, "na")
        if v in ("", "na"):
            raise InputError(f"summary line without {key}= (case={line.get('case', '?')}); every line needs "
                             "case, model, N, ranks, platform, steps")
        try:
            return conv(v)
        except ValueError:
            raise InputError(f"key {key} has value '{v}'; expected a number") from None

    model = need("model")
    N, P, steps = need("N", int), need("ranks", int), need("steps", int)
    if N < 1 or P < 1 or steps < 1:
        raise InputError(f"N={N} ranks={P} steps={steps}: expected positive integers")
    plat = Platform.load(need("platform"))
    rhs_per_step = float(line["rhs"]) / steps if line.get("rhs", "na") not in ("", "na") else 4.0
    threads = int(line.get("threads", "1")) if line.get("threads", "na") not in ("", "na") else 1
    if threads != 1:
        raise InputError(f"threads={threads}: the cost model covers one thread per rank")
    multi = P > CORES_PER_NODE
    terms = {}
    if model == "chain":
        # (C6) links of the busiest rank: ceil(B/P) blocks of ceil(N/B) links
        B = int(line["blocks"]) if line.get("blocks", "na") not in ("", "na") else 1024
        links = -(-B // P) * -(-N // B) if P > 1 else N
        # c_link is per RKMK4 step (4 evaluations); a method with R evaluations per step does
        # R / 4 of that work per step (stages, their exp and dexpinv)
        terms["compute"] = cal["CHAIN_LINK_STEP_NS"] * 1e-9 * links * rhs_per_step / 4.0
        terms["reduced"] = rhs_per_step * cal["CHAIN_REDUCED_ROW_NS"] * 1e-9 * (B - 1)  # every rank
        halo = 2 * plat.message(24, multi) if P > 1 else 0.0
        records = allgatherv(plat, P, 12 * 8 * B) if P > 1 else 0.0
        terms["halo"] = rhs_per_step * halo
        terms["allgatherv"] = rhs_per_step * records
    elif model == "particles":
        scheme = scheme or line.get("pair_scheme", "tree")
        if scheme in ("", "na"):
            scheme = "tree"
        if scheme == "rows":
            # (C7) ordered rows: ceil(N/P) bodies against all N - 1 partners
            terms["compute"] = rhs_per_step * cal["PAIR_NS"] * 1e-9 * -(-N // P) * (N - 1)
            terms["allgatherv"] = rhs_per_step * allgatherv(plat, P, 6 * 8 * N)
        elif scheme == "tiles":
            # (C8) each pair once in fixed tiles: the busiest rank's tile pairs, twice the cost of
            # an ordered pair; the zero fill and MPI_Reduce_scatter of N x T x 7 doubles
            pairs, T = busiest_tile_pairs(N, P)
            slots = N * T * 7 * 8
            shared = P > 1
            terms["compute"] = rhs_per_step * (2 * cal["PAIR_NS"] * 1e-9 * pairs + (slots / MEMSET_BPS if shared else 0))
            terms["allgatherv"] = rhs_per_step * allgatherv(plat, P, 6 * 8 * N)
            terms["reduce_scatter"] = rhs_per_step * (reduce_scatter_default(plat, P, slots) if shared else 0.0)
        elif scheme in ("tree", "two_level"):
            # (C10) the Z-order patches of par::PairPlan: the busiest rank's ordered pair
            # interactions, then the four point-to-point phases of the two-level exchange
            # through the tiles' roots (pair_plan.py): positions up to the roots and down to the
            # readers before the kernel, subtree sums up to the roots and down to the owners after
            # (on 2-8 ranks the plan may take the direct scheme: pos_up and sum_down then stay home)
            plan = _plan(N, P)
            terms["compute"] = rhs_per_step * cal["PAIR_NS"] * 1e-9 * float(plan.interactions.max())
            for ph in pair_plan.PHASES:
                terms[ph] = rhs_per_step * p2p_phase(plat, *plan.phase_messages(ph, "two_level" if scheme == "two_level" else None))
        elif scheme == "direct":
            # (C10') the direct scheme before the two levels: the expand from the owners to the
            # readers and the exchange from the computing ranks to the owners
            plan = _plan(N, P)
            terms["compute"] = rhs_per_step * cal["PAIR_NS"] * 1e-9 * float(plan.interactions.max())
            terms["expand"] = rhs_per_step * p2p_matrix(plat, plan.expand_bytes())
            terms["exchange"] = rhs_per_step * p2p_matrix(plat, plan.exchange_bytes())
        else:
            raise InputError(f"pair_scheme has value '{scheme}'; expected rows, tiles, tree, two_level or direct")
    elif model == "box":
        # (C11) the cutoff path's spatial decomposition (parallel/spatial_domains.hpp), dlm: per
        # field evaluation the busiest rank's Verlet list entries at BOX_ENTRY_NS, the reduction
        # of needs_rebuild (2 doubles), and two point-to-point phases (positions out, rows back)
        # of the busiest rank's messages and bytes (the line's domain_messages_eval_max and
        # domain_bytes_eval_max, both phases together); per step BOX_BODY_NS per owned body.
        # A phase: lat_f(s) x route latency (per message, posted at once: the slowest) + bytes /
        # (bw_f(s) x rate), s the mean message; beyond one node (P > 16) the rate is the node
        # link shared by its 16 ranks (all bytes assumed to leave the node: an upper bound; the
        # ghost layers of a node's Morton brick are partly its own ranks'), within one node the
        # loopback.
        for key in ("BOX_ENTRY_NS", "BOX_BODY_NS"):
            if key not in cal:
                raise InputError(f"no {key} in the calibration: run scripts/smpi/calibrate.sh --box-only")
        entries = need("domain_entries_max", float)
        msgs, nbytes = need("domain_messages_eval_max", float), need("domain_bytes_eval_max", float)
        terms["compute"] = (rhs_per_step * cal["BOX_ENTRY_NS"] * 1e-9 * entries
                            + cal["BOX_BODY_NS"] * 1e-9 * -(-N // P))
        if P > 1 and msgs > 0:
            mean = nbytes / msgs
            if multi:
                lat = factor(LAT_FACTOR, mean) * (2 * plat.lat + plat.bb_lat)
                rate = factor(BW_FACTOR, mean) * min(plat.bw / CORES_PER_NODE, plat.bb_bw / P)
            else:
                lat = factor(LAT_FACTOR, mean) * plat.lo_lat
                rate = factor(BW_FACTOR, mean) * plat.lo_bw
            terms["exchange"] = rhs_per_step * (2 * lat + nbytes / rate)
            terms["allreduce"] = rhs_per_step * allreduce_rdb(plat, P, 16)
    else:
        raise InputError(f"model '{model}' has no cost model; expected chain, particles or box")
    # (C9) an adaptive run: its error norm is two MPI_Allreduce per trial step (ExactSum words,
    # then the non-finite flag)
    if line.get("tol", "none") not in ("none", "na", ""):
        trials = (steps + int(line.get("rejected", "0") or 0)) / steps
        terms["reductions"] = trials * (allreduce_rdb(plat, P, ALLREDUCE_EXACT_BYTES) + allreduce_rdb(plat, P, 8))
    return sum(terms.values()), terms


def parse_lines(stream, name):
    rows = []
    for no, raw in enumerate(stream, 1):
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        row = {}
        for kv in s.split():
            if "=" not in kv:
                raise InputError(f"{name}:{no}: '{kv}' is not a key=value pair; expected the summary lines of "
                                 "liebench_steps / scripts/smpi/run.sh")
            k, v = kv.split("=", 1)
            row[k] = v
        rows.append(row)
    return rows


def main(argv):
    cal_path = os.path.join(HERE, "calibration.env")
    explain = False
    scheme = None
    args = []
    it = iter(argv)
    for a in it:
        if a == "--calibration":
            cal_path = next(it, "")
        elif a.startswith("--calibration="):
            cal_path = a.split("=", 1)[1]
        elif a == "--explain":
            explain = True
        elif a == "--pair-scheme":
            scheme = next(it, "")
        elif a.startswith("--pair-scheme="):
            scheme = a.split("=", 1)[1]
        elif a.startswith("--"):
            raise InputError(f"option '{a}' unknown; usage: cost_model.py [--calibration FILE] [--explain] "
                             "[--pair-scheme rows|tiles|tree|two_level|direct] [FILE|-]")
        else:
            args.append(a)
    cal = load_calibration(cal_path)
    src = args[0] if args else "-"
    if src == "-":
        rows = parse_lines(sys.stdin, "stdin")
    else:
        try:
            with open(src) as f:
                rows = parse_lines(f, src)
        except OSError as e:
            raise InputError(f"summary file '{src}': {e.strerror}") from None
    preds = [predict(r, cal, scheme if r.get("model") == "particles" else None) for r in rows]  # all lines checked before any output
    print("case platform ranks N model_s_per_step sim_s_per_step diff " + ("terms" if explain else ""))
    for r, (t, terms) in zip(rows, preds):
        sim = r.get("s_per_step", "na")
        try:
            diff = f"{100 * (t - float(sim)) / float(sim):+.0f}%"
        except (ValueError, ZeroDivisionError):
            diff = "na"
        extra = " ".join(f"{k}={v:.3e}" for k, v in terms.items()) if explain else ""
        print(f"{r.get('case', r.get('model'))} {r['platform']} {r['ranks']} {r['N']} {t:.4e} {sim} {diff} {extra}")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except InputError as e:
        print(f"cost_model.py: {e}", file=sys.stderr)
        sys.exit(2)
