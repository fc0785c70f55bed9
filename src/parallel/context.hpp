#pragma once
// The run context: one per run, created by liebench (or a test) and passed down to models,
// integrators and studies. A serial run is P = 1, not a separate code path.
//
// Reductions come in two flavours:
//   deterministic (default): exact superaccumulator sums (exact_sum.hpp) -> bitwise identical
//       results for every ranks x threads layout;
//   fast: plain double partial sums + MPI_Allreduce -> agree to ~1e-15 relative.
// Max/min reductions are exact in both modes.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "parallel/exact_sum.hpp"
#include "parallel/timers.hpp"

namespace lie::par {

/// Contiguous, balanced split of n items into `parts` pieces; piece `index` is [begin, end).
struct Range {
  std::size_t begin = 0, end = 0;
  std::size_t size() const { return end - begin; }
};
Range balanced_range(std::size_t n, int parts, int index);

class Context {
 public:
  /// Wraps `comm` (not owned, not freed). threads = omp_get_max_threads() at construction.
  explicit Context(MPI_Comm comm = MPI_COMM_WORLD, bool deterministic = true);

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int threads() const { return threads_; }
  bool is_root() const { return rank_ == 0; }
  bool deterministic() const { return deterministic_; }
  void set_deterministic(bool d) { deterministic_ = d; }

  /// Global sum over ranks of per-rank partial results given as values to add.
  double sum(std::span<const double> local_terms) const;
  /// Global sum of one scalar contributed per rank (order-independent in deterministic mode).
  double sum(double local) const;
  /// Global max / min of one scalar per rank.
  double max(double local) const;
  double min(double local) const;
  std::uint64_t sum_u64(std::uint64_t local) const;
  /// Global sums of several accumulators at once (element-wise), exact.
  void allreduce(std::span<ExactSum> sums) const;

  /// Sum of squares of x (local array) over all ranks, threaded, exact in deterministic mode.
  double sum_of_squares(const double* x, std::size_t n) const;
  /// Global max |x_i|.
  double max_abs(const double* x, std::size_t n) const;

  void barrier() const { MPI_Barrier(comm_); }

  /// Per-phase timers; mutable through a const Context too, so that collective helpers that
  /// take `const Context&` (parallel/tridiagonal) can time their phases.
  Timers& timers() const { return timers_; }

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1, threads_ = 1;
  bool deterministic_ = true;
  mutable Timers timers_;
};

/// CPUs of this node (std::thread::hardware_concurrency, at least 1).
int node_cores();
/// node_ranks x threads above the node's cores: spinning waits (OpenMP's active policy, a rank
/// polling for a message) then take the cores from the ranks they wait for (50-100x slower runs).
bool ranks_exceed_cores(long node_ranks, long threads);

/// The string of rank `root`, on every rank of `comm` (collective).
std::string broadcast_string(const std::string& s, int root, MPI_Comm comm);

/// Throws std::runtime_error with `what` on every rank if any rank passes ok = false
/// (collective). Used so that a bad input detected on one rank stops all of them cleanly.
void check_all(const Context& ctx, bool ok, const std::string& what);

}  // namespace lie::par
