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
#include <algorithm>
#include <cstddef>
#include <vector>

#include "parallel/block_layout.hpp"
#include "parallel/context.hpp"
#include "parallel/loops.hpp"

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

  /// Blocks swept together in phase 1 (independent recurrences overlap in the CPU).
  static constexpr int kLanes = 4;
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
  // Per local row: u_ and cv_, which holds the forward sweep's c'_i until the back substitution
  // replaces it by v_i (the last interior row of a block holds v directly). 16 bytes per row.
  std::vector<double> u_, cv_;
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

  if (B == 1) {
    // One block (small systems: the chain below 17 links): no separators, so x is the sweep's
    // y (phase 3's combine(y, u, v, 0, 0) is y bit for bit); the r sweep alone, the arithmetic
    // of phase 1's y, without u, v, the records and the reduced system.
    const std::size_t n = nb == 1 ? layout_.local_size() : 0;
    double cprev = 0.0, yprev = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const TridiagonalRow R = row(i);
      const double lo = i == 0 ? 0.0 : R.lower;
      const double inv = 1.0 / (R.diag - lo * cprev);
      cprev = R.upper * inv;
      yprev = (R.rhs - lo * yprev) * inv;
      cv_[i] = cprev;
      x[i] = yprev;
    }
    for (std::size_t i = n; i-- > 1;) x[i - 1] -= cv_[i - 1] * x[i];
    before_ = after_ = 0.0;
    return;
  }

  // Phase 1: per block, Thomas forward sweep on the interior with the three right-hand
  // sides r, e_first, e_last, back substitution, and the block record. The sweeps are chains
  // of dependent divisions (latency-bound): kLanes consecutive blocks are swept together, row
  // by row, so that their independent chains overlap. Each block's arithmetic is unchanged.
  const long ng = (nb + kLanes - 1) / kLanes;
  for_each_index(ng, threaded_, [&](long g) {
    const long k0 = g * kLanes;
    const int lanes = static_cast<int>(std::min<long>(kLanes, nb - k0));
    std::size_t bs[kLanes], ss[kLanes], zs[kLanes], len = 0;
    double cprev[kLanes], yprev[kLanes], uprev[kLanes];
    double* recs[kLanes];
    for (int l = 0; l < lanes; ++l) {
      bs[l] = lb.begin + static_cast<std::size_t>(k0 + l);
      ss[l] = layout_.block(bs[l]).begin;
      zs[l] = interior_end(bs[l]);
      len = std::max(len, zs[l] - ss[l]);
      cprev[l] = yprev[l] = uprev[l] = 0.0;
      recs[l] = &local_rec_[static_cast<std::size_t>(k0 + l) * kRec];
    }
    for (std::size_t step = 0; step < len; ++step)
      for (int l = 0; l < lanes; ++l) {
        const std::size_t s = ss[l], z = zs[l], i = s + step, b = bs[l];
        if (i >= z) continue;
        const std::size_t li = i - off;
        const TridiagonalRow R = row(li);
        const double lo = i == s ? 0.0 : R.lower;
        const double inv = 1.0 / (R.diag - lo * cprev[l]);
        cprev[l] = R.upper * inv;
        yprev[l] = (R.rhs - lo * yprev[l]) * inv;
        uprev[l] = ((i == s ? 1.0 : 0.0) - lo * uprev[l]) * inv;
        cv_[li] = i + 1 == z ? inv : cprev[l];  // v of the last interior row is 1/d'
        x[li] = yprev[l];
        u_[li] = uprev[l];
        if (i == s) recs[l][kLowerFirst] = b == 0 ? 0.0 : R.lower;
        if (i + 1 == z) recs[l][kUpperLast] = b + 1 == B ? 0.0 : R.upper;
      }
    for (std::size_t step = 1; step < len; ++step)
      for (int l = 0; l < lanes; ++l) {
        if (zs[l] - ss[l] <= step) continue;
        const std::size_t li = zs[l] - 1 - step - off;  // rows z-2, z-3, ..., s
        const double cp = cv_[li];
        x[li] -= cp * x[li + 1];
        u_[li] -= cp * u_[li + 1];
        cv_[li] = 0.0 - cp * cv_[li + 1];  // v_i = 0 - c'_i v_{i+1}
      }
    for (int l = 0; l < lanes; ++l) {
      const std::size_t s = ss[l], z = zs[l], b = bs[l];
      double* rec = recs[l];
      rec[kY0] = x[s - off];
      rec[kYl] = x[z - 1 - off];
      rec[kU0] = u_[s - off];
      rec[kUl] = u_[z - 1 - off];
      rec[kV0] = cv_[s - off];
      rec[kVl] = cv_[z - 1 - off];
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
  });

  // Phase 2: the reduced system for the separators (every rank, same order).
  reduce(ctx);

  // Phase 3: interior values from the separators.
  for_each_index(nb, threaded_, [&](long k) {
    const std::size_t b = lb.begin + static_cast<std::size_t>(k);
    const std::size_t s = layout_.block(b).begin, z = interior_end(b);
    const double* rec = &local_rec_[static_cast<std::size_t>(k) * kRec];
    const double alpha = b == 0 ? 0.0 : rec[kLowerFirst] * sep_[b - 1];
    const double beta = b + 1 == B ? 0.0 : rec[kUpperLast] * sep_[b];
    for (std::size_t i = s; i < z; ++i) {
      const std::size_t li = i - off;
      x[li] = combine(x[li], u_[li], cv_[li], alpha, beta);
    }
    if (b + 1 < B) x[z - off] = sep_[b];
  });
}

}  // namespace lie::par
