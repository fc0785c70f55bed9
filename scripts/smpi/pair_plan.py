#!/usr/bin/python3
"""A replica of par::PairPlan (src/parallel/pair_plan.{hpp,cpp}) for the cost model (C10):
who computes which tile pair, and the messages of one field evaluation of the particles'
all-pairs path in TWO LEVELS through the root of each tile (positions up to the roots and down
to the readers before the pair kernel; the maximal owned subtrees up to the roots and the
finished sums down to the owners after it), or on a few ranks DIRECT (expand from the owners to
the readers, subtrees from the computing ranks to the owners: two rounds instead of four) --
for every rank at once. The direct scheme's expand and exchange also model earlier runs
(pair_scheme=direct).

usage: pair_plan.py N P [--check | --dump | --dump-expand | --dump-phases | --counts
                         | --messages pos_up|pos_down|sum_up|sum_down|expand|exchange]
                        [--scheme two_level|direct]
  prints the plan's per-rank extremes; --check: the internal consistency checks (exit 1 on a
  failure); --dump: one line per rank, "rank R interactions X tile_pairs K leaves L";
  --dump-phases: four lines per rank, one per phase in the order pos_up pos_down sum_up
  sum_down, "rank R PHASE sends PEER:VALUES:BLOCKS... recvs PEER:VALUES:BLOCKS..." (doubles and
  blocks per message, peers in rank order, self excluded): the form scripts/smpi/plan_dump.cpp
  prints from the C++ PairPlan (cli.smpi_model compares them live); --dump-expand: the same,
  pos_up and pos_down lines only; --counts: messages per phase (self excluded) and the most
  one rank posts (sends + receives), direct and two levels, and the scheme the plan takes;
  --messages PHASE: the messages of one phase, "SRC DST BYTES" a line, self excluded
  (phase_check.c reads them); --scheme: the phases of that scheme instead of the plan's own.

The rules, as in the C++ (the comments there say why):
* tiles of dipolar::tile_size_for(N) bodies (64 up to N = 128, else the smallest multiple of 128
  with ceil(N / tile) <= 16, at most 256), T = ceil(N / tile);
* tile pairs (I, J), I <= J, sorted by their Morton key (bits of I and J interleaved, I's bit
  above J's), weight = ordered pair interactions: 2 n_I n_J off the diagonal, n_I (n_I - 1) on
  it; pair k goes to rank min(P - 1, floor(mid2 P / (2 W))), mid2 = twice the midpoint of its
  weight in the running sum, W the total (integer arithmetic); on P <= 8 ranks with at most 2 P
  tile pairs, the costliest pairs first (cost = weight x 7 on the diagonal, x 5 off it; stable:
  Z order among equals), each to the least loaded rank (the lowest among equals), where that
  lowers the largest cost;
* leaf (I, t) belongs to the owner of the pair {I, t}; for every row tile I the maximal nodes of
  the fixed tree on [0, T) (node [lo, hi) splits at lo + (hi - lo) // 2) whose leaves have one
  owner are emitted by that owner;
* need(r) = the tiles that appear as I or J in rank r's tile pairs, needers(t) = {r : t in
  need(r)}; root(t) = the owner of tile t's first body; the owners: par::balanced_range, or
  where T = P among the few tile pairs above one whole tile per rank if that lowers the largest
  of (r's pairs' cost + 120 per owned body) (PairPlan's "Owners"); the four phases
  (a message per (sender, receiver), blocks in increasing tile order, one block per tile (sum_up:
  per node)):
    pos_up    every owner d of bodies of a tile t with needers sends them to root(t), 6 doubles
              (position, dipole) per body;
    pos_down  root(t) sends all bodies of t (6 doubles each) to every r in needers(t);
    sum_up    every emitted node (I, lo, hi) goes from its owner to root(I), 7 doubles
              (dipolar::kSlotFields) per body of I;
    sum_down  root(I) sends the finished sums of the bodies of I that d owns to d, 7 doubles per body.
  Direct scheme: expand, d -> r the bodies of d in need(r); exchange, every emitted node of I
  from its owner to every owner of bodies of I. PairPlan runs it in the four phases (every
  owner's piece of a tile is its own root: pos_up and sum_down stay home, pos_down = expand,
  sum_up = exchange, a block per piece) where it takes it: on 2 to 8 ranks when the busiest
  rank of the expand posts (sends + receives) no more messages than the busiest ranks of
  pos_up and pos_down together (header of pair_plan.hpp, "Two schemes").
Self messages are kept in the send and receive lists (as the C++ lists have them) and left out
of the dumps and byte matrices (a local copy, no message).
"""
import sys

import numpy as np
if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):  # the docstring is the usage
    print(__doc__.strip())
    sys.exit(0)

FIELDS_LEAF = 7        # dipolar::kSlotFields: force (3), field (3), energy
FIELDS_EXPAND = 6      # position (3) and dipole (3) per body (PairPlan::kPositionValues)
PHASES = ("pos_up", "pos_down", "sum_up", "sum_down")  # the two-level scheme, in order
DIRECT = ("expand", "exchange")                       # the direct scheme before it
K_BODY_COST = 120     # PairPlan's kBodyCost: a body's cost per evaluation in units of pair cost
K_MIN_TILE, K_SMALL_TILE, K_MAX_TILES, K_MAX_TILE = 128, 64, 16, 256  # dipolar_kernel.hpp


def tile_size_for(n):
    """dipolar::tile_size_for."""
    if n <= K_MIN_TILE:
        return K_SMALL_TILE
    tile = K_MIN_TILE
    while -(-n // tile) > K_MAX_TILES and tile < K_MAX_TILE:
        tile += K_MIN_TILE
    return tile


def balanced_begin(n, P):
    """par::balanced_range(n, P, r).begin for r = 0..P (the last entry is n)."""
    q, rem = divmod(n, P)
    r = np.arange(P + 1, dtype=np.int64)
    return r * q + np.minimum(r, rem)


def morton2(I, J):
    """par::morton2 for arrays of tile indices (< 2^16)."""
    def spread(v):
        v = v.astype(np.uint64) & np.uint64(0xFFFFFFFF)
        for shift, mask in ((16, 0x0000FFFF0000FFFF), (8, 0x00FF00FF00FF00FF), (4, 0x0F0F0F0F0F0F0F0F),
                            (2, 0x3333333333333333), (1, 0x5555555555555555)):
            v = (v | (v << np.uint64(shift))) & np.uint64(mask)
        return v
    return (spread(I) << np.uint64(1)) | spread(J)


def split(lo, hi):
    return lo + (hi - lo) // 2


class Plan:
    """Every rank's part of PairPlan(n, tile_size_for(n), 7, P, .), plus the expand.

    Attributes (numpy arrays, index = rank unless said):
      tile, tiles, sizes[t]
      pairs_I, pairs_J, pairs_owner, pairs_weight: all tile pairs in Z order
      interactions[r]  ordered pair interactions of r's tile pairs (PairPlan::interactions())
      tile_pairs[r]    number of r's tile pairs;  leaves[r]  leaf count (leaf_values / (tile x 7))
      owner[I, t]      owner of leaf (I, t)
      leaf_values[s, d]   doubles of the exchange message s -> d (diagonal: self, no message)
      leaf_blocks[s, d]   blocks (tree nodes x body ranges) in it
      expand_bodies[s, d] bodies of the expand message s -> d (diagonal: own bodies needed)
    sends(r) / recvs(r): the exchange's peers of rank r as PairPlan::sends()/recvs() list them,
    [(peer, values, blocks)] in peer order, self included.
    """

    def __init__(self, n, P):
        if n < 1 or P < 1:
            raise ValueError(f"PairPlan: n = {n}, P = {P}: expected positive integers")
        self.n, self.P = n, P
        tile = self.tile = tile_size_for(n)
        T = self.tiles = -(-n // tile)
        if T > 0xFFFF:
            raise ValueError(f"PairPlan: {T} tiles (n = {n}): too many")
        starts = np.arange(T, dtype=np.int64) * tile
        self.sizes = np.minimum(starts + tile, n) - starts
        I, J = np.triu_indices(T)
        order = np.argsort(morton2(I, J), kind="stable")  # keys are distinct
        I, J = I[order].astype(np.int64), J[order].astype(np.int64)
        nI, nJ = self.sizes[I], self.sizes[J]
        w = np.where(I == J, nI * (nI - 1), 2 * nI * nJ)
        total = int(w.sum())
        if total > 0 and 2 * total * P >= 2 ** 62:  # int64 products below; Python ints beyond
            cum = [0] * len(w)
            run = 0
            for k, wk in enumerate(w.tolist()):
                cum[k], run = run, run + wk
            owner = np.array([min(P - 1, (2 * c + wk) * P // (2 * total)) for c, wk in zip(cum, w.tolist())])
        elif total > 0:
            cum = np.cumsum(w) - w
            owner = np.minimum(P - 1, (2 * cum + w) * P // (2 * total))
        else:
            owner = np.zeros(len(w), dtype=np.int64)
        if P <= 8 and len(w) <= 2 * P:  # few tile pairs: costliest first to the least loaded rank
            cost = [int(wk) * (7 if i == j else 5) for wk, i, j in zip(w.tolist(), I.tolist(), J.tolist())]
            cost_z = [0] * P
            for k, r in enumerate(owner.tolist()):
                cost_z[r] += cost[k]
            load = [0] * P
            lpt = np.zeros(len(w), dtype=np.int64)
            for k in sorted(range(len(cost)), key=lambda k: -cost[k]):  # stable: Z order among equals
                r = load.index(min(load))
                lpt[k] = r
                load[r] += cost[k]
            if max(load) < max(cost_z):
                owner = lpt
                self.lpt = True
        self.pairs_I, self.pairs_J, self.pairs_owner, self.pairs_weight = I, J, owner, w
        self.total = total
        self.interactions = np.bincount(owner, weights=w.astype(np.float64), minlength=P)
        self.tile_pairs = np.bincount(owner, minlength=P)
        self.leaves = np.bincount(owner, weights=np.where(I == J, 1, 2), minlength=P).astype(np.int64)
        own = np.full((T, T), -1, dtype=np.int64)
        own[I, J] = owner
        own[J, I] = owner
        self.owner = own
        self.body_begin = balanced_begin(n, P)
        if P <= 8 and len(w) <= 2 * P and P > 1 and T == P:  # PairPlan's owners: one whole tile each?
            pair_cost = [0] * P
            for k, r in enumerate(owner.tolist()):
                pair_cost[r] += int(w[k]) * (7 if I[k] == J[k] else 5)
            def busiest(bodies):
                return max(pair_cost[r] + K_BODY_COST * int(bodies[r]) for r in range(P))
            if busiest(self.sizes) < busiest(np.diff(self.body_begin)):
                self.body_begin = np.append(starts, n)
        self._exchange()
        self._expand()
        self.two_level_phases = self._phases(direct=False)
        self.direct_phases = self._phases(direct=True)
        self.scheme = self._choose()
        self.phases = self.direct_phases if self.scheme == "direct" else self.two_level_phases

    # -- the exchange of maximal owned subtrees ------------------------------------------------
    def row_nodes(self, I):
        """Maximal single-owner nodes of row tile I in increasing lo: [(owner, lo, hi)]."""
        row = self.owner[I]
        T = self.tiles
        # run_end[t]: first index after t where the owner changes (uniform [lo, hi) <=> run_end[lo] >= hi)
        change = np.flatnonzero(row[1:] != row[:-1]) + 1
        ends = np.append(change, T)
        run_end = np.repeat(ends, np.diff(np.concatenate(([0], ends))))
        out = []
        stack = [(0, T)]
        while stack:
            lo, hi = stack.pop()
            if run_end[lo] >= hi:
                out.append((int(row[lo]), lo, hi))
            else:
                mid = split(lo, hi)
                stack.append((mid, hi))
                stack.append((lo, mid))
        return out

    def tile_owners(self, I):
        """[(rank, bodies)] of the body owners of tile I (PairPlan::owned), in rank order."""
        b0, b1 = I * self.tile, min(self.n, (I + 1) * self.tile)
        beg = self.body_begin
        d0 = int(np.searchsorted(beg, b0, side="right")) - 1
        out = []
        d = d0
        while d < self.P and beg[d] < b1:
            c = min(b1, beg[d + 1]) - max(b0, beg[d])
            if c > 0:
                out.append((d, int(c)))
            d += 1
        return out

    def _exchange(self):
        P, T = self.P, self.tiles
        values = {}  # (src, dst) -> [values, blocks]
        self.nodes = []  # (I, owner, lo, hi) of every row tile
        for I in range(T):
            dests = self.tile_owners(I)
            for o, lo, hi in self.row_nodes(I):
                self.nodes.append((I, o, lo, hi))
                for d, c in dests:
                    e = values.setdefault((o, d), [0, 0])
                    e[0] += c * FIELDS_LEAF
                    e[1] += 1
        self._send_map = values
        lv = np.zeros((P, P), dtype=np.int64) if P <= 4096 else None
        lb = np.zeros((P, P), dtype=np.int64) if P <= 4096 else None
        if lv is not None:
            for (s, d), (v, b) in values.items():
                lv[s, d] = v
                lb[s, d] = b
        self.leaf_values, self.leaf_blocks = lv, lb

    def sends(self, r):
        """PairPlan::sends() of rank r: [(peer, values, blocks)], peers in rank order, self included."""
        if not hasattr(self, "_by_sender"):
            self._by_sender = {}
            for (s, d), (v, b) in self._send_map.items():
                self._by_sender.setdefault(s, []).append((d, v, b))
        return sorted(self._by_sender.get(r, []))

    def recvs(self, r):
        """PairPlan::recvs() of rank r, computed from the receiver's side as the C++ does (for each
        tile holding some of r's bodies, every maximal node of the row, from its owner)."""
        b0, b1 = int(self.body_begin[r]), int(self.body_begin[r + 1])
        got = {}
        if b1 > b0:
            for I in range(b0 // self.tile, (b1 - 1) // self.tile + 1):
                c = min(b1, (I + 1) * self.tile) - max(b0, I * self.tile)
                for o, lo, hi in self.row_nodes(I):
                    e = got.setdefault(o, [0, 0])
                    e[0] += c * FIELDS_LEAF
                    e[1] += 1
        return sorted((o, v, b) for o, (v, b) in got.items())

    # -- the expand of positions and dipoles ---------------------------------------------------
    def _expand(self):
        P, T = self.P, self.tiles
        need = np.zeros((P, T), dtype=np.int64)
        need[self.pairs_owner, self.pairs_I] = 1
        need[self.pairs_owner, self.pairs_J] = 1
        self.need = need
        # overlap[t, d] = |tile_range(t) & owned(d)|
        starts = np.arange(T, dtype=np.int64) * self.tile
        ends = np.minimum(starts + self.tile, self.n)
        lo = np.maximum(starts[:, None], self.body_begin[None, :-1])
        hi = np.minimum(ends[:, None], self.body_begin[None, 1:])
        overlap = np.maximum(0, hi - lo)
        # expand_bodies[d, r]: bodies d sends r = sum over t in need(r) of overlap[t, d]
        # (in doubles: BLAS; every count is an integer far below 2^53, so exact)
        self.expand_bodies = np.rint(need.astype(np.float64) @ overlap.astype(np.float64)).astype(np.int64).T

    # -- the four phases of a scheme: two levels through the tiles' roots, or direct ------------
    def _phases(self, direct):
        """{phase: {(src, dst): [values, blocks]}} of the two-level scheme or (direct) of the
        direct one, where every owner's piece of a tile is its own root (PairPlan's segments)."""
        T = self.tiles
        starts = np.arange(T, dtype=np.int64) * self.tile
        # root(t) = body_owner(tile_range(t).begin): the last rank whose range begins at or before it
        self.root = np.searchsorted(self.body_begin, starts, side="right") - 1
        needers = [np.flatnonzero(self.need[:, t]) for t in range(T)]
        owners = [self.tile_owners(t) for t in range(T)]
        phases = {name: {} for name in PHASES}

        def add(name, s, d, values):
            e = phases[name].setdefault((int(s), int(d)), [0, 0])
            e[0] += values
            e[1] += 1

        def segments(t):  # (root, bodies) of tile t's segments
            return owners[t] if direct else [(int(self.root[t]), int(self.sizes[t]))]
        # tile order is block order: every map gets its blocks in increasing tile (then lo)
        for t in range(T):
            if len(needers[t]):
                for d, c in owners[t]:
                    add("pos_up", d, d if direct else self.root[t], FIELDS_EXPAND * c)
            for root, c in segments(t):
                for r in needers[t]:
                    add("pos_down", root, r, FIELDS_EXPAND * c)
        for I, o, lo, hi in self.nodes:  # by row tile, then lo
            for root, c in segments(I):
                add("sum_up", o, root, FIELDS_LEAF * c)
        for I in range(T):
            for d, c in owners[I]:
                add("sum_down", d if direct else self.root[I], d, FIELDS_LEAF * c)
        return phases

    def _choose(self):
        """PairPlan's automatic scheme: direct on 2 to 8 ranks where its busiest rank posts no more
        position messages (sends + receives, self excluded) than the two levels' busiest ranks of
        pos_up and pos_down together."""
        if not 1 < self.P <= 8:
            return "two_level"
        two = self.busiest("pos_up", "two_level") + self.busiest("pos_down", "two_level")
        return "direct" if self.busiest("pos_down", "direct") <= two else "two_level"

    def busiest(self, name, scheme=None):
        """The most messages one rank posts (sends + receives, self excluded) in one phase."""
        src, dst, _ = self.phase_messages(name, scheme)
        per_rank = np.bincount(src, minlength=self.P) + np.bincount(dst, minlength=self.P)
        return int(per_rank.max()) if len(src) else 0

    def phase_peers(self, name, r, scheme=None):
        """Sends and receives of rank r in one phase of the plan's scheme (or `scheme`):
        ([(peer, values, blocks)], [...]), peers in rank order, self included (as PairPlan's Phase
        lists)."""
        scheme = scheme or self.scheme
        if not hasattr(self, "_peers"):
            self._peers = {}
            for sch, phases in (("two_level", self.two_level_phases), ("direct", self.direct_phases)):
                for ph, m in phases.items():
                    by_s, by_d = {}, {}
                    for (s, d), (v, b) in m.items():
                        by_s.setdefault(s, []).append((d, v, b))
                        by_d.setdefault(d, []).append((s, v, b))
                    self._peers[sch, ph] = (by_s, by_d)
        by_s, by_d = self._peers[scheme, name]
        return sorted(by_s.get(r, [])), sorted(by_d.get(r, []))

    def phase_messages(self, name, scheme=None):
        """Arrays (src, dst, bytes) of one phase of the plan's scheme (or `scheme`), self excluded."""
        if name == "expand":
            m = self.expand_bytes()
        elif name == "exchange":
            m = self.exchange_bytes()
        else:
            phases = {"two_level": self.two_level_phases, "direct": self.direct_phases}[scheme or self.scheme]
            items = [(s, d, 8 * v) for (s, d), (v, _) in phases[name].items() if s != d]
            items.sort()
            a = np.array(items, dtype=np.int64).reshape(-1, 3)
            return a[:, 0], a[:, 1], a[:, 2]
        src, dst = np.nonzero(m)
        return src, dst, m[src, dst]

    def phase_bytes(self, name, scheme=None):
        """P x P byte matrix [sender, receiver] of one phase, diagonal (self) zero."""
        m = np.zeros((self.P, self.P), dtype=np.int64)
        src, dst, b = self.phase_messages(name, scheme)
        m[src, dst] = b
        return m

    # -- byte matrices of the two phases (self excluded) ---------------------------------------
    def expand_bytes(self):
        m = self.expand_bodies * (8 * FIELDS_EXPAND)
        np.fill_diagonal(m, 0)
        return m

    def exchange_bytes(self):
        m = self.leaf_values * 8
        np.fill_diagonal(m, 0)
        return m


def check(plan):
    """Internal consistency; returns a list of failures (empty: consistent)."""
    bad = []
    T, P = plan.tiles, plan.P
    keys = set(zip(plan.pairs_I.tolist(), plan.pairs_J.tolist()))
    if len(keys) != T * (T + 1) // 2 or len(plan.pairs_I) != len(keys):
        bad.append("tile pairs: not every pair exactly once")
    if (plan.owner < 0).any():
        bad.append("a leaf without owner")
    if int(plan.interactions.sum()) != plan.n * (plan.n - 1):
        bad.append(f"interactions sum {plan.interactions.sum()} != N (N - 1) = {plan.n * (plan.n - 1)}")
    if int(plan.leaves.sum()) != T * T:
        bad.append(f"leaves sum {plan.leaves.sum()} != T^2")
    if not getattr(plan, "lpt", False) and (np.diff(plan.pairs_owner) < 0).any():  # (LPT: any order)
        bad.append("owners not monotone along the Z order")
    one_pair = 2 * plan.tile * plan.tile
    if plan.total > 0 and np.abs(plan.interactions - plan.total / P).max() > one_pair:
        bad.append("a rank more than one tile pair from W / P")
    # every row's nodes tile [0, T) and each has one owner
    for I in range(T):
        pos = 0
        for o, lo, hi in plan.row_nodes(I):
            if lo != pos or (plan.owner[I, lo:hi] != o).any():
                bad.append(f"row {I}: nodes do not partition [0, T) by owner")
                break
            pos = hi
        if pos != T:
            bad.append(f"row {I}: nodes end at {pos}")
    # sends == recvs transposed; every body receives T leaves' worth (7 T doubles per body in nodes)
    for r in range(P):
        for o, v, b in plan.recvs(r):
            if plan.leaf_values[o, r] != v or plan.leaf_blocks[o, r] != b:
                bad.append(f"recv {o} -> {r}: {v} values, {b} blocks; the sender says {plan.leaf_values[o, r]}")
        if sum(v for _, v, _ in plan.recvs(r)) != plan.leaf_values[:, r].sum():
            bad.append(f"rank {r}: receives differ from the senders' total")
    if int(plan.leaf_values.sum()) != sum(FIELDS_LEAF * int(plan.sizes[I]) for I, _, _, _ in plan.nodes):
        bad.append("exchange total != 7 x bodies of every node")
    # expand: every rank gets exactly the bodies of its needed tiles, once
    got = plan.expand_bodies.sum(axis=0)
    want = plan.need @ plan.sizes
    if (got != want).any():
        bad.append("expand: a rank does not receive the bodies of its needed tiles")
    # two levels: what every rank receives in each phase (self included), from the definitions
    rooted = [np.flatnonzero(plan.root == r) for r in range(P)]
    nodes_of = np.bincount([I for I, _, _, _ in plan.nodes], minlength=T)
    own = np.diff(plan.body_begin)
    needed = plan.need.any(axis=0)
    for r in range(P):
        got = {ph: sum(v for _, v, _ in plan.phase_peers(ph, r, "two_level")[1]) for ph in PHASES}
        want = {"pos_up": FIELDS_EXPAND * int((plan.sizes[rooted[r]] * needed[rooted[r]]).sum()),
                "pos_down": FIELDS_EXPAND * int(plan.need[r] @ plan.sizes),
                "sum_up": FIELDS_LEAF * int((plan.sizes[rooted[r]] * nodes_of[rooted[r]]).sum()),
                "sum_down": FIELDS_LEAF * int(own[r])}
        for ph in PHASES:
            if got[ph] != want[ph]:
                bad.append(f"rank {r} {ph}: receives {got[ph]} doubles, expected {want[ph]}")
        blocks = sum(b for _, _, b in plan.phase_peers("sum_up", r, "two_level")[1])
        if blocks != int(nodes_of[rooted[r]].sum()):
            bad.append(f"rank {r} sum_up: {blocks} blocks, expected the {nodes_of[rooted[r]].sum()} nodes of its tiles")
    for t in range(T):
        if plan.root[t] != plan.tile_owners(t)[0][0]:
            bad.append(f"tile {t}: root {plan.root[t]} is not the owner of its first body")
    # direct: pos_down and sum_up are the expand and the exchange; pos_up and sum_down stay home
    for ph, m in (("pos_down", plan.expand_bytes()), ("sum_up", plan.exchange_bytes())):
        if (plan.phase_bytes(ph, "direct") != m).any():
            bad.append(f"direct {ph} differs from the {'expand' if ph == 'pos_down' else 'exchange'}")
    for ph in ("pos_up", "sum_down"):
        if len(plan.phase_messages(ph, "direct")[0]):
            bad.append(f"direct {ph}: a message to another rank")
    return bad


def counts(plan):
    """Per phase (self excluded), the direct scheme's and the two levels': (messages, the most
    messages one rank posts (sends + receives))."""
    return {ph: (len(plan.phase_messages(ph, "two_level")[0]), plan.busiest(ph, "two_level")) for ph in DIRECT + PHASES}


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = [a for a in argv if a.startswith("--")]
    phase = scheme = None
    if "--messages" in argv:
        k = argv.index("--messages")
        phase = argv[k + 1] if k + 1 < len(argv) else ""
        if phase in args:
            args.remove(phase)
    if "--scheme" in argv:
        k = argv.index("--scheme")
        scheme = argv[k + 1] if k + 1 < len(argv) else ""
        if scheme in args:
            args.remove(scheme)
    usage = ("usage: pair_plan.py N P [--check | --dump | --dump-expand | --dump-phases | --counts "
             "| --messages pos_up|pos_down|sum_up|sum_down|expand|exchange] [--scheme two_level|direct]")
    if (len(args) != 2 or not all(a.isdigit() and int(a) > 0 for a in args)
            or not set(opts) <= {"--check", "--dump", "--dump-expand", "--dump-phases", "--counts", "--messages",
                                 "--scheme"}
            or phase not in (None,) + PHASES + DIRECT or scheme not in (None, "two_level", "direct")):
        print(f"pair_plan.py: arguments '{' '.join(argv)}': {usage}", file=sys.stderr)
        return 2
    n, P = int(args[0]), int(args[1])
    plan = Plan(n, P)
    if phase:
        for s, d, b in zip(*plan.phase_messages(phase, scheme)):
            print(s, d, b)
        return 0
    if "--dump-expand" in opts or "--dump-phases" in opts:
        names = PHASES if "--dump-phases" in opts else PHASES[:2]
        fmt = lambda r, peers: "".join(f" {p}:{v}:{b}" for p, v, b in peers if p != r)  # noqa: E731
        for r in range(P):
            for ph in names:
                snd, rcv = plan.phase_peers(ph, r, scheme)
                print(f"rank {r} {ph} sends{fmt(r, snd)} recvs{fmt(r, rcv)}")
        return 0
    if "--dump" in opts:
        for r in range(P):
            print(f"rank {r} interactions {int(plan.interactions[r])} tile_pairs {int(plan.tile_pairs[r])} "
                  f"leaves {int(plan.leaves[r])}")
        return 0
    if "--counts" in opts:
        c = counts(plan)
        print(f"N={n} P={P} tiles={plan.tiles} messages per phase (self excluded; /the most one rank posts): "
              "direct " + " ".join(f"{ph}={c[ph][0]}/{c[ph][1]}" for ph in DIRECT) + " two_level "
              + " ".join(f"{ph}={c[ph][0]}/{c[ph][1]}" for ph in PHASES) + f" scheme={plan.scheme}")
        return 0
    ex, lf, lv = plan.expand_bytes(), plan.exchange_bytes(), plan.leaf_values
    peers = max((lv > 0).sum(axis=1).max(), (lv > 0).sum(axis=0).max())
    print(f"N={n} P={P} tile={plan.tile} tiles={plan.tiles} tile_pairs={len(plan.pairs_I)} "
          f"interactions_max={int(plan.interactions.max())} interactions_min={int(plan.interactions.min())} "
          f"leaves_max={int(plan.leaves.max())} exchange_send_values_max={int(lv.sum(axis=1).max())} "
          f"exchange_recv_values_max={int(lv.sum(axis=0).max())} exchange_peers_max={int(peers)} "
          f"exchange_bytes_total={int(lf.sum())} expand_recv_bytes_max={int(ex.sum(axis=0).max())} "
          f"expand_send_bytes_max={int(ex.sum(axis=1).max())} expand_bytes_total={int(ex.sum())}")
    if "--check" in opts:
        bad = check(plan)
        for b in bad:
            print("FAIL", b)
        print("consistent" if not bad else f"{len(bad)} failures")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
