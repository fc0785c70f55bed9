#pragma once
// Pair decomposition with a fixed summation tree (issue 17): who computes which tile pair,
// and how the partial sums reach the owners of the bodies, with results bitwise independent
// of the ranks x threads layout.
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
// decomposition). Any assignment gives the same bits; this one moves little.
//
// Exchange: for every row tile I, rank r holds the leaves (I, t), t in S_r(I); it sums, per
// body, every MAXIMAL tree node whose leaves all lie in S_r(I) (the nodes of all ranks
// partition [0, T)), and sends each such node of the bodies of I to the ranks owning them
// (bodies: par::balanced_range(n, P, k)). The owner finishes the tree: node = the received
// value if a rank sent it, else left + right. Every node value is therefore the same
// expression of the same leaves on every layout. The plan (peers, blocks and their order) is
// built once from (n, tile, P); per evaluation it costs one point-to-point exchange with the
// peers listed (Dipolar::compute_tiles).
//
// Positions: a rank needs the bodies of the tiles its tile pairs touch (rows I and columns J
// of its patch), not all n. need(r) = { I, J : (I, J) a tile pair of r }; the owner d of a body
// of a needed tile sends it to r, one message d -> r per evaluation holding, for every t in
// need(r) in increasing order, the bodies tile_range(t) ∩ balanced_range(n, P, d) in index
// order (body_sends / body_recvs; own bodies are copied, not sent). This replaces an allgather
// of all n bodies: at n = 64000 on 1024 ranks a rank receives ~3000 bodies instead of 64000.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "parallel/context.hpp"

namespace lie::par {

class PairPlan {
 public:
  /// One tree node of one row tile, for the global bodies [body_begin, body_end) of that tile
  /// (fields doubles per body, consecutive in a message in body order).
  struct Block {
    std::uint32_t tile = 0, lo = 0, hi = 0;
    std::size_t body_begin = 0, body_end = 0;
  };
  /// Messages to or from one peer rank: blocks in a fixed order (tile, lo).
  struct Peer {
    int rank = 0;
    std::vector<Block> blocks;
    std::size_t values = 0;  // doubles in the message (sum of blocks' bodies x fields)
  };

  /// Bodies to or from one peer rank: global index ranges in a fixed order (tile, index).
  struct BodyPeer {
    int rank = 0;
    std::vector<Range> ranges;
    std::size_t bodies = 0;  // sum of the ranges' sizes
  };

  PairPlan() = default;
  /// n bodies in tiles of `tile` bodies, `fields` doubles per body and leaf, over `ranks`
  /// ranks; this process is `rank`. The weight of tile pair (I, J) is its number of ordered
  /// pair interactions, 2 n_I n_J off the diagonal, n_I (n_I - 1) on it. Every rank builds
  /// the whole assignment (O(T^2 log T) work, T = tiles) and keeps its own part.
  PairPlan(std::size_t n, std::size_t tile, int fields, int ranks, int rank);

  std::size_t bodies() const { return n_; }
  std::size_t tile() const { return tile_; }
  std::size_t tiles() const { return tiles_; }
  int fields() const { return fields_; }
  /// Global bodies [begin, end) of tile t.
  Range tile_range(std::size_t t) const { return {t * tile_, std::min(n_, (t + 1) * tile_)}; }

  /// This rank's tile pairs (I, J), I <= J, in Z order.
  const std::vector<std::pair<std::uint32_t, std::uint32_t>>& tile_pairs() const { return pairs_; }
  /// Ordered pair interactions of this rank's tile pairs, and of all.
  double interactions() const { return interactions_; }
  /// Storage of this rank's leaves: leaf (I, t) is at leaves + leaf_offset(I, t), tile x fields
  /// doubles, body b of tile I at + (b - I * tile) * fields. -1 if this rank has no such leaf.
  std::ptrdiff_t leaf_offset(std::size_t I, std::size_t t) const {
    const std::int64_t k = leaf_index_[I * tiles_ + t];
    return k < 0 ? -1 : static_cast<std::ptrdiff_t>(k) * static_cast<std::ptrdiff_t>(tile_ * fields_);
  }
  std::size_t leaf_values() const { return leaf_count_ * tile_ * static_cast<std::size_t>(fields_); }

  /// Sends and receives of one evaluation, peers in rank order (self included).
  const std::vector<Peer>& sends() const { return sends_; }
  const std::vector<Peer>& recvs() const { return recvs_; }
  std::size_t send_values() const;
  std::size_t recv_values() const;

  /// Positions of one evaluation: what this rank sends to and receives from each peer (peers in
  /// rank order, self excluded), and the ranges of its own bodies that it needs itself.
  const std::vector<BodyPeer>& body_sends() const { return body_sends_; }
  const std::vector<BodyPeer>& body_recvs() const { return body_recvs_; }
  const std::vector<Range>& body_own() const { return body_own_; }
  /// The tiles whose bodies this rank's tile pairs read (increasing).
  const std::vector<std::uint32_t>& needed_tiles() const { return needed_tiles_; }

  /// Fills each send message from the leaves (the maximal owned nodes, summed over the tree).
  /// buffers[k]: message of sends()[k] (resized). Parallel over the emitted nodes (OpenMP).
  void pack(const double* leaves, std::vector<std::vector<double>>& buffers) const;
  /// Finishes the tree of every local body (bodies balanced_range(n, P, rank)) from the
  /// received messages (buffers[k] of recvs()[k]) into out[(i - begin) * fields + f].
  void finish(const std::vector<std::vector<double>>& buffers, double* out) const;

  /// The tree's split of node [lo, hi) (hi - lo >= 2).
  static std::uint32_t split(std::uint32_t lo, std::uint32_t hi) { return lo + (hi - lo) / 2; }

 private:
  struct Emit {  // a maximal owned node of row tile `tile` and where its bodies go
    std::uint32_t tile, lo, hi;
  };
  void node_from_leaves(std::uint32_t I, std::uint32_t lo, std::uint32_t hi, const double* leaves, double* out,
                        std::vector<double>& scratch, std::size_t depth) const;

  std::size_t n_ = 0, tile_ = 0, tiles_ = 0;
  int fields_ = 0, ranks_ = 1, rank_ = 0;
  Range mine_{};
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs_;
  double interactions_ = 0.0;
  std::vector<std::int64_t> leaf_index_;  // [I * T + t]
  std::size_t leaf_count_ = 0;
  std::vector<Emit> emits_;
  std::vector<Peer> sends_, recvs_;
  std::vector<BodyPeer> body_sends_, body_recvs_;
  std::vector<Range> body_own_;
  std::vector<std::uint32_t> needed_tiles_;
  // per send peer and block: index of the emit it comes from
  std::vector<std::vector<std::size_t>> send_emit_;
};

/// Morton (Z-order) key of (I, J): the bits of I and J interleaved.
std::uint64_t morton2(std::uint32_t I, std::uint32_t J);

}  // namespace lie::par
