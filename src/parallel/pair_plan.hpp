#pragma once
// Pair decomposition with a fixed summation tree (issue 17): who computes which tile pair,
// and how positions reach the pair kernels and partial sums reach the owners of the bodies,
// with results bitwise independent of the ranks x threads layout.
//
// n bodies are cut into T tiles of `tile` consecutive indices (a function of n only). A tile
// pair (I, J), I <= J, computed once, yields the leaf (I, J) -- the row partials of the bodies
// of I over the partners of J -- and, if I < J, the leaf (J, I). A body i of tile I thus has
// exactly one leaf (I, t) for every partner tile t = 0..T-1, and its total is the sum of these
// leaves over a FIXED binary tree on [0, T): node [lo, hi) = node [lo, mid) + node [mid, hi),
// mid = (lo + hi) / 2, leaf [t, t + 1) = leaf (I, t). The tree depends on T alone.
//
// Work: the tile pairs are ordered along a Z-order (Morton) curve of (I, J) and cut into P
// contiguous pieces of balanced weight (ordered pair interactions), so a rank's pairs form a
// compact 2-D patch of the upper triangle (few row and column tiles, as in Plimpton's force
// decomposition). Any assignment gives the same bits; this one moves little. On at most 8 ranks
// with at most two tile pairs per rank the costliest pairs go first to the least loaded rank where
// that evens the estimated cost better (a diagonal tile pair's interactions cost 7/5 of the
// others': pair_plan.cpp; [K]'s N = 100 on two ranks keeps the Z-order cut (0,0) | (0,1), (1,1),
// 8.5-8.7 us on the busier rank against 9.5-9.9 us for the count-balanced 53.5 %).
//
// Owners: rank k owns a contiguous range of bodies, owned(k): par::balanced_range(n, P, k),
// except where every rank can own one whole tile (T = P among few tile pairs) and the estimated
// cost of the busiest rank is lower so (pair_plan.cpp: [K]'s N = 100 on two ranks owns 0..63 |
// 64..99). The model's state follows the plan's owners (Dipolar); the bits do not depend on them.
//
// Communication in two levels through the root of each tile, root(t) = the owner of the
// tile's first body. With more ranks than tiles a tile's
// bodies lie on several ranks and dozens of ranks read it; sending through its root turns
// owners x readers messages into owners + readers (n = 64000 on 1024 ranks: ~67000 messages per
// exchange direct, ~12000 in two levels). Per evaluation, four point-to-point phases:
//   pos_up    every owner sends its bodies of a needed tile t to root(t) (6 doubles per body);
//   pos_down  root(t) sends the whole tile t to every rank whose tile pairs read it
//             (need(r) = { I, J : (I, J) a tile pair of r });
//   [the tile pairs, then for every row tile I the MAXIMAL tree nodes whose leaves (I, t) are
//    all this rank's, summed over the tree (the nodes of all ranks partition [0, T))]
//   sum_up    every such node of the bodies of I goes to root(I) (fields doubles per body);
//             root(I) finishes the tree: node = the received value if a rank sent it, else
//             left + right -- the same expression of the same leaves on every layout;
//   sum_down  root(I) sends the finished sums of I's bodies to their owners.
// A message is aggregated per (sender, receiver) and holds its blocks in increasing tile order.
// The lists include messages to self (the caller copies those). The plan is built once from
// (n, tile, P) (Dipolar::compute_tiles and exchange_positions use it).
//
// Two schemes. The above, two_level, cuts messages on many ranks but costs four rounds per
// evaluation. direct roots every owner's piece of a tile (a segment) at its owner: pos_up and
// sum_down become copies to self, pos_down goes from the owners straight to the readers and
// sum_up from the leaves' ranks straight to the owners, who finish their bodies' trees -- two
// rounds ([K]'s N = 100 on 2 ranks: 4 x 4 message rounds per RKMK4 step become 4 x 2). Both
// finish every tree with the same expression of the same leaves: the same bits. automatic
// takes direct on at most 8 ranks where its busiest rank posts no more position messages than
// the two levels' busiest ranks of both rounds together (scripts/smpi/pair_plan.py mirrors it;
// the sums' messages mirror the positions'), else two_level.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "parallel/context.hpp"

namespace lie::par {

class PairPlan {
 public:
  /// Part of a message: bodies [body_begin, body_end) of tile `tile` (fields or 6 doubles per
  /// body, consecutive, in body order); for the sum_up phase also the tree node [lo, hi).
  struct Block {
    std::uint32_t tile = 0, lo = 0, hi = 0;
    std::size_t body_begin = 0, body_end = 0;
    std::size_t bodies() const { return body_end - body_begin; }
  };
  /// Messages to or from one peer rank: blocks in a fixed order (tile, lo).
  struct Peer {
    int rank = 0;
    std::vector<Block> blocks;
    std::size_t values = 0;  // doubles in the message
  };
  /// One phase seen from this rank: its sends and receives, peers in rank order (self included).
  struct Phase {
    std::vector<Peer> sends, recvs;
    std::size_t send_values(bool include_self, int self) const;
    /// No message to or from another rank (direct scheme: pos_up and sum_down; one rank: all).
    bool self_only(int self) const;
    std::size_t recv_values(bool include_self, int self) const;
  };
  static constexpr int kPositionValues = 6;  // q (3), mu (3) per body
  /// How positions and sums travel (header: "Two schemes"); automatic: the plan's choice.
  enum class Messages { automatic, two_level, direct };
  /// Who owns the bodies (header: "Owners"): the plan's rule, or balanced ranges always.
  enum class Owners { automatic, balanced };

  PairPlan() = default;
  /// n bodies in tiles of `tile` bodies, `fields` doubles per body and leaf, over `ranks`
  /// ranks; this process is `rank`. The weight of tile pair (I, J) is its number of ordered
  /// pair interactions, 2 n_I n_J off the diagonal, n_I (n_I - 1) on it. Every rank builds
  /// the whole assignment (O(T^2 log T) work, T = tiles) and keeps its own part.
  PairPlan(std::size_t n, std::size_t tile, int fields, int ranks, int rank, Messages messages = Messages::automatic,
           Owners owners = Owners::automatic);

  std::size_t bodies() const { return n_; }
  /// The bodies rank r owns (contiguous; header: "Owners").
  Range owned(int r) const { return {bounds_[static_cast<std::size_t>(r)], bounds_[static_cast<std::size_t>(r) + 1]}; }
  std::size_t tile() const { return tile_; }
  std::size_t tiles() const { return tiles_; }
  int fields() const { return fields_; }
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  /// Global bodies [begin, end) of tile t.
  Range tile_range(std::size_t t) const { return {t * tile_, std::min(n_, (t + 1) * tile_)}; }
  /// The scheme in use (two_level or direct, never automatic).
  Messages messages() const { return messages_; }
  /// The root of a body's segment: the rank that gathers its position and finishes its trees
  /// (two levels: the owner of its tile's first body; direct: its owner).
  int root_of(std::size_t body) const;

  /// This rank's tile pairs (I, J), I <= J, in Z order.
  const std::vector<std::pair<std::uint32_t, std::uint32_t>>& tile_pairs() const { return pairs_; }
  /// Ordered pair interactions of this rank's tile pairs.
  double interactions() const { return interactions_; }
  /// Storage of this rank's leaves: leaf (I, t) is at leaves + leaf_offset(I, t), tile x fields
  /// doubles, body b of tile I at + (b - I * tile) * fields. -1 if this rank has no such leaf.
  std::ptrdiff_t leaf_offset(std::size_t I, std::size_t t) const {
    const std::int64_t k = leaf_index_[I * tiles_ + t];
    return k < 0 ? -1 : static_cast<std::ptrdiff_t>(k) * static_cast<std::ptrdiff_t>(tile_ * fields_);
  }
  std::size_t leaf_values() const { return leaf_count_ * tile_ * static_cast<std::size_t>(fields_); }
  /// The tiles whose bodies this rank's tile pairs read (increasing).
  const std::vector<std::uint32_t>& needed_tiles() const { return needed_tiles_; }

  /// The four phases of one evaluation (see the header comment).
  const Phase& pos_up() const { return pos_up_; }
  const Phase& pos_down() const { return pos_down_; }
  const Phase& sum_up() const { return sum_up_; }
  const Phase& sum_down() const { return sum_down_; }

  /// sum_up messages from the leaves (the maximal owned nodes, summed over the tree):
  /// buffers[k] is the message of sum_up().sends[k] (resized). Parallel over the nodes (OpenMP) where they hold enough work (pair_plan.cpp).
  void pack(const double* leaves, std::vector<std::vector<double>>& buffers) const;
  /// At the roots: finishes the tree of every body of every tile rooted here from the received
  /// sum_up messages (buffers[k] of sum_up().recvs[k]) and fills the sum_down messages
  /// (out[k] of sum_down().sends[k], resized).
  void finish(const std::vector<std::vector<double>>& buffers, std::vector<std::vector<double>>& out) const;
  /// Copies the received sum_down messages (buffers[k] of sum_down().recvs[k]) into
  /// sums[(i - begin) * fields + f] for the local bodies i (owned(rank)).
  void scatter(const std::vector<std::vector<double>>& buffers, double* sums) const;

  /// On one rank (ranks() == 1), pack + finish + scatter in one: every tile's tree from the
  /// leaves straight into sums[i * fields + f] (the same nodes in the same order, so the same
  /// bits, without the four copies through the rounds' buffers).
  void sum_local(const double* leaves, double* sums) const;

  /// The tree's split of node [lo, hi) (hi - lo >= 2).
  static std::uint32_t split(std::uint32_t lo, std::uint32_t hi) { return lo + (hi - lo) / 2; }

 private:
  struct Emit {  // a maximal owned node of row tile `tile`
    std::uint32_t tile, lo, hi;
  };
  void node_from_leaves(std::uint32_t I, std::uint32_t lo, std::uint32_t hi, const double* leaves, double* out,
                        std::vector<double>& scratch, std::size_t depth) const;

  std::size_t n_ = 0, tile_ = 0, tiles_ = 0;
  int fields_ = 0, ranks_ = 1, rank_ = 0;
  std::vector<std::size_t> bounds_;  // rank r owns bodies [bounds_[r], bounds_[r + 1])
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs_;
  double interactions_ = 0.0;
  std::vector<std::int64_t> leaf_index_;  // [I * T + t]
  std::size_t leaf_count_ = 0;
  std::vector<std::uint32_t> needed_tiles_;
  struct Segment {  // bodies [begin, end) of tile `tile` with one root
    std::uint32_t tile;
    std::size_t begin, end;
  };
  std::size_t rooted_slot(std::size_t tile) const;  // index in rooted_ of the segment of `tile`
  int tile_root(std::size_t t) const;  // the two levels' root of tile t: the owner of its first body
  int body_owner(std::size_t body) const;  // the rank owning global body `body`
  Messages messages_ = Messages::two_level;
  std::vector<Segment> rooted_;  // segments rooted here, at most one per tile (increasing tile)
  std::vector<Emit> emits_;
  // per sum_up send peer and block: index of the emit it comes from
  std::vector<std::vector<std::size_t>> send_emit_;
  Phase pos_up_, pos_down_, sum_up_, sum_down_;
  // finish(): per rooted tile the received nodes sorted by lo (message k, offset in it), fixed
  // at construction; work arrays reused across evaluations (one caller at a time)
  struct Received {
    std::uint32_t lo, hi;
    std::size_t message, offset;
  };
  std::vector<std::vector<Received>> received_;
  mutable std::vector<double> values_, sums_, scratch_;  // scratch_: the serial pack and finish
};

/// Morton (Z-order) key of (I, J): the bits of I and J interleaved.
std::uint64_t morton2(std::uint32_t I, std::uint32_t J);

}  // namespace lie::par
