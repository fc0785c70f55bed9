#pragma once
// Distributed tridiagonal solve A x = r by the partition (SPIKE / Wang) method over the
// virtual blocks of a BlockLayout, with results that do not depend on ranks or threads.
//
// Rows: the last row of every block but the last is a *separator*; the other rows of block b
// (its *interior*, never empty) couple only to the separators sigma_{b-1} (through the lower
// coefficient of the block's first row) and sigma_b (through the upper coefficient of its
// last interior row). With the interior matrix A_b:
//   A_b y_b = r_b,  A_b u_b = e_first,  A_b v_b = e_last          (one Thomas sweep, 3 rhs)
//   x_b = y_b - (l_first sigma_{b-1}) u_b - (u_last sigma_b) v_b.
// Substituting the first and last interior values into the separator rows gives a
// tridiagonal system of size B-1 for the sigmas (the Schur complement of the interiors;
// symmetric positive definite and diagonally dominant whenever A is). Every block sends a
// record of 12 numbers; all ranks gather the B records (MPI_Allgatherv, O(B) numbers per
// solve, independent of n) and solve the reduced system redundantly, in the same order.
//
// Each block's arithmetic is the same whatever rank or thread runs it, so x is bitwise
// identical for every P <= B and every number of threads. Cost about 20 flops per row.
// Stability: no pivoting; intended for diagonally dominant or SPD matrices (the chain's
// tension matrix of models/nfold_pendulum is both).
#include <cstddef>
#include <vector>

#include "parallel/block_layout.hpp"
#include "parallel/context.hpp"

namespace lie::par {

/// Coefficients of one row i: lower = A(i, i-1), diag = A(i, i), upper = A(i, i+1), rhs = r_i.
struct TridiagonalRow {
  double lower = 0.0, diag = 0.0, upper = 0.0, rhs = 0.0;
};

class PartitionedTridiagonal {
 public:
  PartitionedTridiagonal() = default;
  /// Every block but the last needs at least 2 rows (a separator and a non-empty interior):
  /// throws std::invalid_argument otherwise (blocks == 1 or 2 * blocks <= n is enough).
  explicit PartitionedTridiagonal(const BlockLayout& layout);

  const BlockLayout& layout() const { return layout_; }

  /// Solves A x = r. row(i) returns the coefficients of local row i (global row
  /// layout().local_items().begin + i); it is called once per local row, concurrently from
  /// OpenMP threads. lower of global row 0 and upper of global row n-1 are ignored.
  /// x receives the local rows. Collective.
  template <class RowFn>
  void solve(const Context& ctx, RowFn&& row, double* x);

  /// After solve(): x in the global rows just before and just after this rank's rows
  /// (0 outside the matrix), computed from the gathered records without communication and
  /// bitwise equal to what the owning rank holds.
  double before() const { return before_; }
  double after() const { return after_; }

  /// Record layout per block (see the header comment).
  enum Rec : int { kY0, kYl, kU0, kUl, kV0, kVl, kLowerFirst, kUpperLast, kSepLower, kSepDiag, kSepUpper, kSepRhs, kRec };

  /// x_b at an interior row from y, u, v and the separator terms (one formula everywhere).
  static double combine(double y, double u, double v, double alpha, double beta) { return (y - alpha * u) - beta * v; }

 private:
  void reduce(const Context& ctx);  // gathers the records, solves for the separators
  std::size_t interior_end(std::size_t b) const {
    const Range r = layout_.block(b);
    return b + 1 == layout_.blocks() ? r.end : r.end - 1;
  }

  BlockLayout layout_;
  bool threaded_ = false;
  std::vector<double> cp_, u_, v_;   // per local row
  std::vector<double> local_rec_;    // local blocks x kRec
  std::vector<double> all_rec_;      // blocks x kRec
  std::vector<double> sep_;          // blocks - 1 separator values
  std::vector<double> rc_, rr_;      // reduced Thomas scratch
  double before_ = 0.0, after_ = 0.0;
};

template <class RowFn>
void PartitionedTridiagonal::solve(const Context& ctx, RowFn&& row, double* x) {
  const Range lb = layout_.local_blocks();
  const std::size_t off = layout_.local_items().begin;
  const std::size_t B = layout_.blocks();
  const long nb = static_cast<long>(lb.size());

  // Phase 1: per block, Thomas forward sweep on the interior with the three right-hand
  // sides r, e_first, e_last, back substitution, and the block record.
#pragma omp parallel for schedule(static) if (threaded_)
  for (long k = 0; k < nb; ++k) {
    const std::size_t b = lb.begin + static_cast<std::size_t>(k);
    const std::size_t s = layout_.block(b).begin, z = interior_end(b);
    double* rec = &local_rec_[static_cast<std::size_t>(k) * kRec];
    double cprev = 0.0, yprev = 0.0, uprev = 0.0;
    for (std::size_t i = s; i < z; ++i) {
      const std::size_t li = i - off;
      const TridiagonalRow R = row(li);
      const double lo = i == s ? 0.0 : R.lower;
      const double inv = 1.0 / (R.diag - lo * cprev);
      cprev = R.upper * inv;
      yprev = (R.rhs - lo * yprev) * inv;
      uprev = ((i == s ? 1.0 : 0.0) - lo * uprev) * inv;
      cp_[li] = cprev;
      x[li] = yprev;
      u_[li] = uprev;
      v_[li] = i + 1 == z ? inv : 0.0;
      if (i == s) rec[kLowerFirst] = b == 0 ? 0.0 : R.lower;
      if (i + 1 == z) rec[kUpperLast] = b + 1 == B ? 0.0 : R.upper;
    }
    for (std::size_t i = z - 1; i-- > s;) {
      const std::size_t li = i - off;
      x[li] -= cp_[li] * x[li + 1];
      u_[li] -= cp_[li] * u_[li + 1];
      v_[li] -= cp_[li] * v_[li + 1];
    }
    rec[kY0] = x[s - off];
    rec[kYl] = x[z - 1 - off];
    rec[kU0] = u_[s - off];
    rec[kUl] = u_[z - 1 - off];
    rec[kV0] = v_[s - off];
    rec[kVl] = v_[z - 1 - off];
    if (b + 1 < B) {
      const TridiagonalRow S = row(z - off);
      rec[kSepLower] = S.lower;
      rec[kSepDiag] = S.diag;
      rec[kSepUpper] = S.upper;
      rec[kSepRhs] = S.rhs;
    } else {
      rec[kSepLower] = rec[kSepDiag] = rec[kSepUpper] = rec[kSepRhs] = 0.0;
    }
  }

  // Phase 2: the reduced system for the separators (every rank, same order).
  reduce(ctx);

  // Phase 3: interior values from the separators.
#pragma omp parallel for schedule(static) if (threaded_)
  for (long k = 0; k < nb; ++k) {
    const std::size_t b = lb.begin + static_cast<std::size_t>(k);
    const std::size_t s = layout_.block(b).begin, z = interior_end(b);
    const double* rec = &local_rec_[static_cast<std::size_t>(k) * kRec];
    const double alpha = b == 0 ? 0.0 : rec[kLowerFirst] * sep_[b - 1];
    const double beta = b + 1 == B ? 0.0 : rec[kUpperLast] * sep_[b];
    for (std::size_t i = s; i < z; ++i) {
      const std::size_t li = i - off;
      x[li] = combine(x[li], u_[li], v_[li], alpha, beta);
    }
    if (b + 1 < B) x[z - off] = sep_[b];
  }
}

}  // namespace lie::par
