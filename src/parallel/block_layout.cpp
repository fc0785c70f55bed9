#include "parallel/block_layout.hpp"

#include <algorithm>
#include <stdexcept>

namespace lie::par {

BlockLayout::BlockLayout(std::size_t n, std::size_t blocks, int ranks, int rank)
    : n_(n), blocks_(blocks), ranks_(ranks), rank_(rank) {
  if (blocks == 0 || blocks > n)
    throw std::invalid_argument(std::to_string(blocks) + " blocks for " + std::to_string(n) +
                                " items; need 1 <= blocks <= items");
  if (ranks < 1 || static_cast<std::size_t>(ranks) > blocks)
    throw std::invalid_argument(std::to_string(ranks) + " ranks for " + std::to_string(blocks) +
                                " blocks; every rank needs at least one block");
  local_blocks_ = rank_blocks(rank);
  local_items_ = rank_items(rank);
}

Range BlockLayout::rank_items(int r) const {
  const Range rb = rank_blocks(r);
  return {block(rb.begin).begin, block(rb.end - 1).end};
}

void BlockLayout::allgather(const Context& ctx, const double* local, int width, double* all) const {
  const std::size_t w = static_cast<std::size_t>(width);
  if (ranks_ == 1) {
    std::copy_n(local, blocks_ * w, all);
    return;
  }
  std::vector<int> counts(static_cast<std::size_t>(ranks_)), displs(static_cast<std::size_t>(ranks_));
  for (int r = 0; r < ranks_; ++r) {
    const Range rb = rank_blocks(r);
    counts[static_cast<std::size_t>(r)] = static_cast<int>(rb.size() * w);
    displs[static_cast<std::size_t>(r)] = static_cast<int>(rb.begin * w);
  }
  MPI_Allgatherv(local, static_cast<int>(local_blocks_.size() * w), MPI_DOUBLE, all, counts.data(), displs.data(),
                 MPI_DOUBLE, ctx.comm());
}

}  // namespace lie::par
