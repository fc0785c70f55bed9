#pragma once
// Virtual blocks: a fixed split of n items (links of a chain) into B contiguous blocks that
// depends only on n and B -- never on the number of ranks P or threads T. Ranks own
// contiguous, balanced ranges of whole blocks; threads loop over a rank's blocks. Any
// computation done block by block, with per-block partial results combined in block order
// on every rank, therefore gives bitwise the same numbers for every P <= B and every T
// (see /work/shared/notes/PLATFORM.md, "Reproducible sums").
//
// Used by the partitioned tridiagonal solver (tridiagonal.hpp) and by the chain's prefix sums
// (bob positions and velocities of models/nfold_pendulum).
#include <cstddef>
#include <string>
#include <vector>

#include "parallel/context.hpp"

namespace lie::par {

class BlockLayout {
 public:
  BlockLayout() = default;
  /// n items in `blocks` blocks over `ranks` ranks; this process is `rank`. Throws
  /// std::invalid_argument if blocks == 0, blocks > n or ranks > blocks (callers turn that
  /// into a UsageError naming their key).
  BlockLayout(std::size_t n, std::size_t blocks, int ranks, int rank);

  std::size_t items() const { return n_; }
  std::size_t blocks() const { return blocks_; }
  int ranks() const { return ranks_; }
  int rank() const { return rank_; }

  /// Global items [begin, end) of block b.
  Range block(std::size_t b) const { return balanced_range(n_, static_cast<int>(blocks_), static_cast<int>(b)); }
  /// Blocks [begin, end) owned by rank r, and items [begin, end) owned by rank r.
  Range rank_blocks(int r) const { return balanced_range(blocks_, ranks_, r); }
  Range rank_items(int r) const;

  /// This rank's blocks and items.
  Range local_blocks() const { return local_blocks_; }
  Range local_items() const { return local_items_; }
  std::size_t local_size() const { return local_items_.size(); }

  /// Gathers `width` doubles per block from every rank: `local` holds this rank's blocks
  /// (local_blocks().size() x width), `all` receives blocks() x width values in block order.
  /// Collective (MPI_Allgatherv); a plain copy on one rank.
  void allgather(const Context& ctx, const double* local, int width, double* all) const;

 private:
  std::size_t n_ = 0, blocks_ = 0;
  int ranks_ = 1, rank_ = 0;
  Range local_blocks_, local_items_;
};

}  // namespace lie::par
