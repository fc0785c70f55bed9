#include "parallel/pair_plan.hpp"

#include <omp.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "parallel/loops.hpp"

namespace lie::par {

std::uint64_t morton2(std::uint32_t I, std::uint32_t J) {
  auto spread = [](std::uint64_t v) {  // bit k of v -> bit 2k
    v &= 0xffffffffULL;
    v = (v | (v << 16)) & 0x0000ffff0000ffffULL;
    v = (v | (v << 8)) & 0x00ff00ff00ff00ffULL;
    v = (v | (v << 4)) & 0x0f0f0f0f0f0f0f0fULL;
    v = (v | (v << 2)) & 0x3333333333333333ULL;
    v = (v | (v << 1)) & 0x5555555555555555ULL;
    return v;
  };
  return (spread(I) << 1) | spread(J);
}

namespace {

// Levels of the fixed tree over `tiles` partner tiles (root 0): recursion depth bound.
std::size_t tree_depth(std::size_t tiles) {
  std::size_t depth = 1;
  for (std::size_t w = 1; w < tiles; w *= 2) ++depth;
  return depth;
}

// The tree sums of pack() and finish() take an OpenMP team only where each thread gets at least
// this many additions (about 10 us): a team's start and join cost about 1-2 us, and pack's
// team allocates its scratch. [K]'s N = 100 (two tiles of 64 bodies, 2 x 896 additions per
// evaluation) ran slower on one rank with two threads than with one before this rule (1.13
// against 0.87 s for 10^4 RKMK4 steps in one sitting); with it 0.92x the time of the two threads
// without it (medians of 5 alternating runs on a noisy machine, 1.00 against 1.08 s).
constexpr std::size_t kThreadedTreeAdds = 1 << 15;
bool threaded_tree(std::size_t nodes, std::size_t adds_per_node) {
  return use_threads(nodes, 2) &&
         nodes * adds_per_node >= kThreadedTreeAdds * static_cast<std::size_t>(omp_get_max_threads());
}

// fn(k, scratch) for k = 0 .. count - 1: on an OpenMP team where the trees hold enough additions
// (threaded_tree; each thread its own scratch of scratch_size doubles), else one after another
// with `serial` (grown to scratch_size once: no allocation per call). pack, finish, sum_local.
template <class Fn>
void for_each_tree(std::size_t count, std::size_t adds_per_node, std::size_t scratch_size,
                   std::vector<double>& serial, Fn&& fn) {
  if (threaded_tree(count, adds_per_node)) {
#pragma omp parallel
    {
      std::vector<double> scratch(scratch_size);
#pragma omp for schedule(dynamic, 1)
      for (std::size_t k = 0; k < count; ++k) fn(k, scratch);
    }
  } else {  // no parallel region (parallel/loops.hpp)
    serial.resize(std::max(serial.size(), scratch_size));
    for (std::size_t k = 0; k < count; ++k) fn(k, serial);
  }
}

}  // namespace

PairPlan::PairPlan(std::size_t n, std::size_t tile, int fields, int ranks, int rank, Messages messages, Owners owners)
    : n_(n), tile_(tile), fields_(fields), ranks_(ranks), rank_(rank) {
  if (n == 0 || tile == 0 || fields <= 0 || ranks < 1 || rank < 0 || rank >= ranks)
    throw std::invalid_argument("PairPlan: bad arguments");
  tiles_ = (n + tile - 1) / tile;
  if (tiles_ > 0xffffu) throw std::invalid_argument("PairPlan: too many tiles");
  const std::size_t T = tiles_;
  const auto T32 = static_cast<std::uint32_t>(T);

  // All tile pairs in Z order, each with its weight (ordered pair interactions).
  struct Item {
    std::uint64_t key;
    std::uint32_t I, J;
  };
  std::vector<Item> items;
  items.reserve(T * (T + 1) / 2);
  for (std::uint32_t I = 0; I < T32; ++I)
    for (std::uint32_t J = I; J < T32; ++J) items.push_back({morton2(I, J), I, J});
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.key < b.key; });
  auto weight = [&](std::uint32_t I, std::uint32_t J) -> std::uint64_t {
    const std::uint64_t ni = tile_range(I).size(), nj = tile_range(J).size();
    return I == J ? ni * (ni - 1) : 2 * ni * nj;
  };
  unsigned __int128 total = 0;
  for (const Item& it : items) total += weight(it.I, it.J);
  // Pair k goes to the rank whose share [r W / P, (r + 1) W / P) holds its weight's midpoint.
  std::vector<int> by_z(items.size(), 0);  // owner of items[k]
  unsigned __int128 cum = 0;
  for (std::size_t k = 0; k < items.size(); ++k) {
    const std::uint64_t w = weight(items[k].I, items[k].J);
    int r = 0;
    if (total > 0) {
      const unsigned __int128 mid2 = 2 * cum + w;  // twice the midpoint
      r = static_cast<int>(std::min<unsigned __int128>(static_cast<unsigned __int128>(ranks - 1),
                                                       mid2 * static_cast<unsigned>(ranks) / (2 * total)));
    }
    cum += w;
    by_z[k] = r;
  }
  // With at most two tile pairs per rank the contiguous Z-order cut can be far from even. Then the
  // costliest pairs first, each to the least loaded rank (ties: the lower rank), if that lowers the
  // largest load. Cost, not count: a diagonal tile pair's ordered interactions weigh kDiagonalCost
  // (7/5) times those off the diagonal -- its rows are shorter and each starts with a masked
  // block (measured on [K]'s N = 100, tiles of 64 and 36, one core: 3.42-3.57 ns per pair on (0,0),
  // 4.05-4.33 on (1,1), 2.56-2.62 on (0,1)). There the count-balanced split 4608 | 4032 + 1260
  // (53.5 %) computed for 9.5-9.9 us on its busier rank, the Z-order cut 4032 | 4608 + 1260 for
  // 8.5-8.7 us, which the costs keep. Only for a few ranks (kLptRanks): on many the Z order's compact
  // patches keep the messages few. A function of (n, tile, P) alone on every rank, and any
  // assignment gives the same bits (header); scripts/smpi/pair_plan.py mirrors it.
  constexpr int kLptRanks = 8;
  constexpr std::uint64_t kDiagonalCost = 7, kOffDiagonalCost = 5;
  auto cost = [&](std::size_t k) {
    return weight(items[k].I, items[k].J) * (items[k].I == items[k].J ? kDiagonalCost : kOffDiagonalCost);
  };
  const bool few_pairs = ranks <= kLptRanks && items.size() <= 2 * static_cast<std::size_t>(ranks);
  std::vector<int> item_owner = by_z;
  if (few_pairs) {
    std::vector<std::uint64_t> cost_z(static_cast<std::size_t>(ranks), 0);
    for (std::size_t k = 0; k < items.size(); ++k) cost_z[static_cast<std::size_t>(by_z[k])] += cost(k);
    std::vector<std::size_t> order(items.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cost(a) > cost(b); });
    std::vector<int> lpt(items.size(), 0);
    std::vector<std::uint64_t> load(static_cast<std::size_t>(ranks), 0);
    for (std::size_t k : order) {
      const auto r = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      lpt[k] = static_cast<int>(r);
      load[r] += cost(k);
    }
    if (*std::max_element(load.begin(), load.end()) < *std::max_element(cost_z.begin(), cost_z.end())) item_owner = lpt;
  }
  // The bodies' owners: balanced ranges, except where every rank can own one whole tile (T = P,
  // among few tile pairs: N = 65 ... 256 on two ranks, 257 ... 384 on three) and that lowers the
  // estimated cost of the busiest rank, its tile pairs' cost above plus kBodyCost per owned body
  // (the body's stage and vector field, about 30 ns per evaluation of RKMK4 on one core, against
  // about 0.25 ns per unit of pair cost, [K]'s N = 100). A rank owning its tile pairs' only tile
  // neither receives its positions nor sends its sums: [K]'s N = 100 on two ranks (tiles 0..63 |
  // 64..99; the balanced ranges 0..49 | 50..99 had the busier rank, tile pairs (0,1) and (1,1),
  // also receive sums of tile 0 and send positions of 50..63) took 0.86-1.00x the time per RKMK4
  // step in one process alternating both (median of six sittings 0.89x; null test 0.95-1.04x).
  // Any owners give the same bits (the trees do not depend on them); scripts/smpi/pair_plan.py
  // mirrors the rule. Owners::balanced (dipolar.pair_owners = balanced) keeps the balanced ranges.
  constexpr std::uint64_t kBodyCost = 120;
  bounds_.resize(static_cast<std::size_t>(ranks) + 1);
  for (int r = 0; r < ranks; ++r) bounds_[static_cast<std::size_t>(r)] = balanced_range(n, ranks, r).begin;
  bounds_.back() = n;
  if (owners == Owners::automatic && few_pairs && ranks > 1 && T == static_cast<std::size_t>(ranks)) {
    std::vector<std::uint64_t> pair_cost(static_cast<std::size_t>(ranks), 0);
    for (std::size_t k = 0; k < items.size(); ++k) pair_cost[static_cast<std::size_t>(item_owner[k])] += cost(k);
    auto busiest = [&](auto&& bodies_of) {
      std::uint64_t most = 0;
      for (int r = 0; r < ranks; ++r)
        most = std::max(most, pair_cost[static_cast<std::size_t>(r)] + kBodyCost * bodies_of(r));
      return most;
    };
    const std::uint64_t balanced = busiest([&](int r) { return owned(r).size(); });  // bounds_ so far
    const std::uint64_t whole_tiles = busiest([&](int r) { return tile_range(static_cast<std::size_t>(r)).size(); });
    if (whole_tiles < balanced)
      for (int r = 0; r < ranks; ++r) bounds_[static_cast<std::size_t>(r)] = tile_range(static_cast<std::size_t>(r)).begin;
  }
  const Range mine = owned(rank);
  std::vector<int> owner(T * T, -1);  // owner of leaf (I, t)
  for (std::size_t k = 0; k < items.size(); ++k) {
    const Item& it = items[k];
    const int r = item_owner[k];
    owner[it.I * T + it.J] = r;
    owner[it.J * T + it.I] = r;
    if (r == rank) {
      pairs_.push_back({it.I, it.J});
      interactions_ += static_cast<double>(weight(it.I, it.J));
    }
  }
  leaf_index_.assign(T * T, -1);
  for (std::size_t I = 0; I < T; ++I)
    for (std::size_t t = 0; t < T; ++t)
      if (owner[I * T + t] == rank) leaf_index_[I * T + t] = static_cast<std::int64_t>(leaf_count_++);

  // Maximal single-owner nodes of every row tile, in increasing lo: (owner, lo, hi).
  struct Node {
    int owner;
    std::uint32_t lo, hi;
  };
  auto decompose = [&](std::size_t I, std::vector<Node>& out) {
    out.clear();
    const int* row = &owner[I * T];
    auto rec = [&](auto&& self, std::uint32_t lo, std::uint32_t hi) -> void {
      bool uniform = true;
      for (std::uint32_t t = lo + 1; t < hi && uniform; ++t) uniform = row[t] == row[lo];
      if (uniform) {
        out.push_back({row[lo], lo, hi});
        return;
      }
      const std::uint32_t mid = split(lo, hi);
      self(self, lo, mid);
      self(self, mid, hi);
    };
    rec(rec, 0, T32);
  };
  // The ranks reading each tile (owners of a tile pair in its row or column).
  std::vector<std::vector<int>> needers(T);
  for (std::size_t I = 0; I < T; ++I)
    for (std::size_t J = I; J < T; ++J) {
      const int r = owner[I * T + J];
      needers[I].push_back(r);
      needers[J].push_back(r);
    }
  for (auto& v : needers) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  const std::size_t t_first = mine.size() == 0 ? 0 : mine.begin / tile;
  const std::size_t t_end = mine.size() == 0 ? 0 : (mine.end - 1) / tile + 1;  // tiles holding my bodies
  for (std::uint32_t t = 0; t < T32; ++t)
    if (std::binary_search(needers[t].begin(), needers[t].end(), rank)) needed_tiles_.push_back(t);

  // The owners' pieces of tile t: visit(d, b0, b1) for every rank d holding bodies [b0, b1) of t.
  auto owners_of = [&](std::size_t t, auto&& visit) {
    const Range bodies = tile_range(t);
    const int d0 = body_owner(bodies.begin), d1 = body_owner(bodies.end - 1);
    for (int d = d0; d <= d1; ++d) {
      const Range rd = owned(d);
      const std::size_t b0 = std::max(rd.begin, bodies.begin), b1 = std::min(rd.end, bodies.end);
      if (b0 < b1) visit(d, b0, b1);
    }
  };
  // The scheme (header: "Two schemes"). Automatic: direct where its busiest rank posts no more
  // position messages than the two levels' busiest ranks in their two rounds together, on at
  // most kDirectRanks ranks; the sums mirror the positions (sum_up ~ pos_down, sum_down ~ pos_up).
  constexpr int kDirectRanks = 8;
  if (messages == Messages::automatic) {
    messages = Messages::two_level;
    if (ranks > 1 && ranks <= kDirectRanks) {
      const auto R = static_cast<std::size_t>(ranks);
      // distinct peers (self excluded) per rank, sends and receives apart: [rank][peer]
      using Peers = std::vector<std::vector<char>>;
      Peers direct_send(R, std::vector<char>(R, 0)), direct_recv = direct_send, up_send = direct_send,
          up_recv = direct_send, down_send = direct_send, down_recv = direct_send;
      for (std::size_t t = 0; t < T; ++t) {
        if (needers[t].empty()) continue;
        const int root_t = tile_root(t);
        owners_of(t, [&](int d, std::size_t, std::size_t) {
          for (int r : needers[t]) direct_send[d][r] = direct_recv[r][d] = 1;
          up_send[d][root_t] = up_recv[root_t][d] = 1;
        });
        for (int r : needers[t]) down_send[root_t][r] = down_recv[r][root_t] = 1;
      }
      auto busiest = [&](const Peers& sends, const Peers& recvs) {
        std::size_t most = 0;
        for (std::size_t r = 0; r < R; ++r) {
          std::size_t c = 0;
          for (std::size_t q = 0; q < R; ++q) c += (q != r && sends[r][q]) + (q != r && recvs[r][q]);
          most = std::max(most, c);
        }
        return most;
      };
      if (busiest(direct_send, direct_recv) <= busiest(up_send, up_recv) + busiest(down_send, down_recv))
        messages = Messages::direct;
    }
  }
  messages_ = messages;
  // The segments of tile t (header): visit(root, b0, b1).
  auto segments_of = [&](std::size_t t, auto&& visit) {
    if (messages_ == Messages::direct) {
      owners_of(t, visit);
    } else {
      visit(tile_root(t), tile_range(t).begin, tile_range(t).end);
    }
  };
  for (std::uint32_t t = 0; t < T32; ++t)
    segments_of(t, [&](int root, std::size_t b0, std::size_t b1) {
      if (root == rank) rooted_.push_back({t, b0, b1});
    });

  // Messages of one phase, aggregated per peer (std::map: peers in rank order).
  struct Builder {
    std::map<int, Peer> sends, recvs;
    std::size_t per_body;
    void add(std::map<int, Peer>& m, int peer, const Block& b) {
      Peer& p = m[peer];
      p.rank = peer;
      p.blocks.push_back(b);
      p.values += b.bodies() * per_body;
    }
    Phase done() {
      Phase ph;
      for (auto& [r, p] : sends) ph.sends.push_back(std::move(p));
      for (auto& [r, p] : recvs) ph.recvs.push_back(std::move(p));
      return ph;
    }
  };
  const auto PV = static_cast<std::size_t>(kPositionValues), F = static_cast<std::size_t>(fields);
  {  // pos_up: my bodies of each read tile to the root of their segment; the roots' receipts from the owners
    Builder b{{}, {}, PV};
    for (std::size_t t = t_first; t < t_end; ++t) {
      const std::size_t b0 = std::max(mine.begin, tile_range(t).begin), b1 = std::min(mine.end, tile_range(t).end);
      if (b0 < b1 && !needers[t].empty()) b.add(b.sends, root_of(b0), {static_cast<std::uint32_t>(t), 0, 0, b0, b1});
    }
    for (const Segment& s : rooted_)
      if (!needers[s.tile].empty())
        owners_of(s.tile, [&](int d, std::size_t b0, std::size_t b1) {
          if (b0 >= s.begin && b1 <= s.end) b.add(b.recvs, d, {s.tile, 0, 0, b0, b1});
        });
    pos_up_ = b.done();
  }
  {  // pos_down: whole segments from their roots to the ranks reading their tiles
    Builder b{{}, {}, PV};
    for (const Segment& s : rooted_)
      for (int r : needers[s.tile]) b.add(b.sends, r, {s.tile, 0, 0, s.begin, s.end});
    for (std::uint32_t t : needed_tiles_)
      segments_of(t, [&](int root, std::size_t b0, std::size_t b1) { b.add(b.recvs, root, {t, 0, 0, b0, b1}); });
    pos_down_ = b.done();
  }
  {  // sum_up: my maximal nodes, the bodies of each segment of their row tile to its root; the roots' receipts
    Builder b{{}, {}, F};
    std::map<int, std::vector<std::size_t>> send_emit;
    std::vector<Node> nodes;
    for (std::uint32_t I = 0; I < T32; ++I) {
      decompose(I, nodes);
      for (const Node& nd : nodes) {
        if (nd.owner == rank) emits_.push_back({I, nd.lo, nd.hi});
        segments_of(I, [&](int root, std::size_t b0, std::size_t b1) {
          const Block blk{I, nd.lo, nd.hi, b0, b1};
          if (nd.owner == rank) {
            b.add(b.sends, root, blk);
            send_emit[root].push_back(emits_.size() - 1);
          }
          if (root == rank) b.add(b.recvs, nd.owner, blk);
        });
      }
    }
    sum_up_ = b.done();
    for (const Peer& p : sum_up_.sends) send_emit_.push_back(std::move(send_emit[p.rank]));
  }
  {  // sum_down: finished sums from the roots to the owners
    Builder b{{}, {}, F};
    for (const Segment& s : rooted_)
      owners_of(s.tile, [&](int d, std::size_t b0, std::size_t b1) {
        if (b0 >= s.begin && b1 <= s.end) b.add(b.sends, d, {s.tile, 0, 0, b0, b1});
      });
    for (std::size_t I = t_first; I < t_end; ++I) {
      const std::size_t b0 = std::max(mine.begin, tile_range(I).begin), b1 = std::min(mine.end, tile_range(I).end);
      if (b0 < b1) b.add(b.recvs, root_of(b0), {static_cast<std::uint32_t>(I), 0, 0, b0, b1});
    }
    sum_down_ = b.done();
  }
  // where finish() finds each received node
  received_.resize(rooted_.size());
  for (std::size_t k = 0; k < sum_up_.recvs.size(); ++k) {
    std::size_t pos = 0;
    for (const Block& blk : sum_up_.recvs[k].blocks) {
      received_[rooted_slot(blk.tile)].push_back({blk.lo, blk.hi, k, pos});
      pos += blk.bodies() * F;
    }
  }
  for (auto& g : received_)
    std::sort(g.begin(), g.end(), [](const Received& a, const Received& b) { return a.lo < b.lo; });
}

int PairPlan::tile_root(std::size_t t) const { return body_owner(tile_range(t).begin); }

int PairPlan::root_of(std::size_t body) const {
  return messages_ == Messages::direct ? body_owner(body) : tile_root(body / tile_);
}

int PairPlan::body_owner(std::size_t body) const {
  // the last rank whose first body is <= body (ranks without bodies share their successor's bound)
  return static_cast<int>(std::upper_bound(bounds_.begin(), bounds_.end() - 1, body) - bounds_.begin()) - 1;
}

std::size_t PairPlan::rooted_slot(std::size_t tile) const {
  const auto it = std::lower_bound(rooted_.begin(), rooted_.end(), tile,
                                   [](const Segment& s, std::size_t t) { return s.tile < t; });
  return static_cast<std::size_t>(it - rooted_.begin());
}

std::size_t PairPlan::Phase::send_values(bool include_self, int self) const {
  std::size_t v = 0;
  for (const Peer& p : sends)
    if (include_self || p.rank != self) v += p.values;
  return v;
}

bool PairPlan::Phase::self_only(int self) const {
  auto self_peer = [self](const Peer& p) { return p.rank == self; };
  return std::all_of(sends.begin(), sends.end(), self_peer) && std::all_of(recvs.begin(), recvs.end(), self_peer);
}

std::size_t PairPlan::Phase::recv_values(bool include_self, int self) const {
  std::size_t v = 0;
  for (const Peer& p : recvs)
    if (include_self || p.rank != self) v += p.values;
  return v;
}

// Node [lo, hi) of row tile I for all bodies of the tile from this rank's leaves:
// out[b * F + f] (b: body within the tile). scratch holds one array per tree depth below.
void PairPlan::node_from_leaves(std::uint32_t I, std::uint32_t lo, std::uint32_t hi, const double* leaves,
                                double* out, std::vector<double>& scratch, std::size_t depth) const {
  const std::size_t count = tile_range(I).size() * static_cast<std::size_t>(fields_);
  if (hi - lo == 1) {
    const double* leaf = leaves + leaf_offset(I, lo);
    std::copy(leaf, leaf + count, out);
    return;
  }
  const std::size_t stride = tile_ * static_cast<std::size_t>(fields_);
  if (scratch.size() < (depth + 1) * stride) scratch.resize((depth + 1) * stride);
  const std::uint32_t mid = split(lo, hi);
  node_from_leaves(I, lo, mid, leaves, out, scratch, depth + 1);
  node_from_leaves(I, mid, hi, leaves, scratch.data() + depth * stride, scratch, depth + 1);
  const double* right = scratch.data() + depth * stride;  // (resize above happens before use)
  for (std::size_t k = 0; k < count; ++k) out[k] = out[k] + right[k];  // node = left + right
}

void PairPlan::pack(const double* leaves, std::vector<std::vector<double>>& buffers) const {
  const std::size_t stride = tile_ * static_cast<std::size_t>(fields_);
  values_.resize(emits_.size() * stride);
  double* values = values_.data();
  // scratch deep enough for the whole tree: no resize (no reallocation) inside the recursion
  const std::size_t scratch_size = (tree_depth(tiles_) + 1) * stride;
  auto node = [&](std::size_t e, std::vector<double>& scratch) {
    node_from_leaves(emits_[e].tile, emits_[e].lo, emits_[e].hi, leaves, values + e * stride, scratch, 0);
  };
  for_each_tree(emits_.size(), stride * tiles_, scratch_size, scratch_, node);
  const auto& sends = sum_up_.sends;
  buffers.resize(sends.size());
  const auto F = static_cast<std::size_t>(fields_);
  for (std::size_t k = 0; k < sends.size(); ++k) {
    std::vector<double>& buf = buffers[k];
    buf.resize(sends[k].values);
    std::size_t pos = 0;
    for (std::size_t b = 0; b < sends[k].blocks.size(); ++b) {
      const Block& blk = sends[k].blocks[b];
      const double* src = values + send_emit_[k][b] * stride + (blk.body_begin - blk.tile * tile_) * F;
      const std::size_t len = blk.bodies() * F;
      std::copy(src, src + len, buf.data() + pos);
      pos += len;
    }
  }
}

void PairPlan::sum_local(const double* leaves, double* sums) const {
  if (ranks_ != 1) throw std::logic_error("PairPlan::sum_local: one rank only");
  const std::size_t stride = tile_ * static_cast<std::size_t>(fields_);
  const std::size_t scratch_size = (tree_depth(tiles_) + 1) * stride;
  // pack's emits on one rank are the whole trees [0, tiles) of every tile, which finish copies
  // and scatter places at the tile's first body
  auto tree = [&](std::size_t I, std::vector<double>& scratch) {
    node_from_leaves(static_cast<std::uint32_t>(I), 0, static_cast<std::uint32_t>(tiles_), leaves,
                     sums + tile_range(I).begin * static_cast<std::size_t>(fields_), scratch, 0);
  };
  for_each_tree(tiles_, stride * tiles_, scratch_size, scratch_, tree);
}

void PairPlan::finish(const std::vector<std::vector<double>>& buffers, std::vector<std::vector<double>>& out) const {
  const auto F = static_cast<std::size_t>(fields_);
  const std::size_t stride = tile_ * F;
  sums_.resize(rooted_.size() * stride);
  // the tree of rooted tile k from the received nodes
  auto finish_tile = [&](std::size_t k, std::vector<double>& scratch) {
    const std::vector<Received>& g = received_[k];
    const std::size_t count = (rooted_[k].end - rooted_[k].begin) * F;
    if (scratch.size() < (tree_depth(tiles_) + 1) * count) scratch.resize((tree_depth(tiles_) + 1) * count);
    auto rec = [&](auto&& self, std::uint32_t lo, std::uint32_t hi, double* dst, std::size_t depth) -> void {
      const auto it =
          std::lower_bound(g.begin(), g.end(), lo, [](const Received& a, std::uint32_t v) { return a.lo < v; });
      if (it != g.end() && it->lo == lo && it->hi == hi) {
        const double* src = buffers[it->message].data() + it->offset;
        std::copy(src, src + count, dst);
        return;
      }
      if (hi - lo < 2) throw std::logic_error("PairPlan::finish: a leaf was not received");
      const std::uint32_t mid = split(lo, hi);
      self(self, lo, mid, dst, depth + 1);
      double* right = scratch.data() + depth * count;
      self(self, mid, hi, right, depth + 1);
      for (std::size_t q = 0; q < count; ++q) dst[q] = dst[q] + right[q];  // node = left + right
    };
    rec(rec, 0, static_cast<std::uint32_t>(tiles_), sums_.data() + k * stride, 0);
  };
  for_each_tree(rooted_.size(), stride * tiles_, 0, scratch_, finish_tile);  // finish_tile sizes its scratch
  const auto& sends = sum_down_.sends;
  out.resize(sends.size());
  for (std::size_t k = 0; k < sends.size(); ++k) {
    out[k].resize(sends[k].values);
    double* dst = out[k].data();
    for (const Block& blk : sends[k].blocks) {
      const std::size_t k = rooted_slot(blk.tile);
      const double* src = sums_.data() + k * stride + (blk.body_begin - rooted_[k].begin) * F;
      dst = std::copy(src, src + blk.bodies() * F, dst);
    }
  }
}

void PairPlan::scatter(const std::vector<std::vector<double>>& buffers, double* sums) const {
  const auto F = static_cast<std::size_t>(fields_);
  const std::size_t first = owned(rank_).begin;
  for (std::size_t k = 0; k < sum_down_.recvs.size(); ++k) {
    const double* src = buffers[k].data();
    for (const Block& blk : sum_down_.recvs[k].blocks) {
      std::copy(src, src + blk.bodies() * F, sums + (blk.body_begin - first) * F);
      src += blk.bodies() * F;
    }
  }
}

}  // namespace lie::par
