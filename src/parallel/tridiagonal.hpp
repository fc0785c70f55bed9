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
// identical for every P <= B and every number of threads. Cost about 20 flops per row;
// solve_blocks sweeps every block twice (about 35) and stores nothing per row: a thread keeps
// kLanes blocks' sweeps (3 doubles per row) while it hands them to the caller.
// Stability: no pivoting; intended for diagonally dominant or SPD matrices (the chain's
// tension matrix of models/nfold_pendulum is both).
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "core/lanes.hpp"
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
  /// symmetric: the caller promises lower(i) == upper(i - 1) bit for bit (the same expression,
  /// as the chain's tension matrix); the sweeps then take a row's lower from the row before and
  /// ask row(i, skip_lower = true) there (the same values, one product fewer per row).
  explicit PartitionedTridiagonal(const BlockLayout& layout, bool symmetric = false);

  const BlockLayout& layout() const { return layout_; }

  /// Solves A x = r. row(i) returns the coefficients of local row i (global row
  /// layout().local_items().begin + i); it is called up to twice per local row (solve_blocks),
  /// concurrently from OpenMP threads. lower of global row 0 and upper of global row n-1 are
  /// ignored. x receives the local rows. Collective.
  template <class RowFn>
  void solve(const Context& ctx, RowFn&& row, double* x);

  /// The same solve without an array of x: consume(b, xb) is called once per local block b
  /// (global block index, from OpenMP threads, blocks in any order) with xb[k] = x at global row
  /// layout().block(b).begin + k for k = -1 ... size (the rows just outside the block included,
  /// 0 beyond the matrix), valid during the call. Each block's sweep runs twice (once for the
  /// separators, once for its x, while the block is in cache): no per-row storage (issue 27,
  /// the chain's memory per link). row may take (i, skip_lower): skip_lower is true where the
  /// solver does not read `lower` (a block's first row in the second sweep), so that a consume
  /// that overwrites its own block's inputs does not race with the next block's second sweep;
  /// row must return the same coefficients (all it is asked for) in both sweeps. The same bits
  /// as solve() on every layout.
  template <class RowFn, class ConsumeFn>
  void solve_blocks(const Context& ctx, RowFn&& row, ConsumeFn&& consume);

  /// After solve(): x in the global rows just before and just after this rank's rows
  /// (0 outside the matrix), computed from the gathered records without communication and
  /// bitwise equal to what the owning rank holds.
  double before() const { return before_; }
  double after() const { return after_; }

  /// Blocks swept together in phase 1 (independent recurrences overlap in the CPU).
  static constexpr int kLanes = 4;
  /// Record layout per block (see the header comment).
  enum Rec : int { kY0, kYl, kU0, kUl, kV0, kVl, kLowerFirst, kUpperLast, kSepLower, kSepDiag, kSepUpper, kSepRhs, kRec };

  /// The unrolled middle of a sweep over kLanes blocks (rows that are neither a lane's first nor
  /// its last interior row), for a row object that sweeps them itself with the lanes in one
  /// vector (row.sweep_lanes(LaneSweep&), symmetric solves only; the chain's rows in
  /// models/nfold_pendulum.cpp, compiled for AVX2 / AVX-512 by target_clones). State in and out:
  /// c, y, u and upper of the row before `begin` per lane; steps begin .. end - 1 are written to
  /// cv, ys, us at [step] (the lanes' work arrays). sweep_lanes_symmetric below is the arithmetic.
  struct LaneSweep {
    std::size_t row[kLanes];  // local row of each lane at step 0
    double c[kLanes], y[kLanes], u[kLanes], upper[kLanes];
    double *cv[kLanes], *ys[kLanes], *us[kLanes];
    std::size_t begin = 0, end = 0;
  };
  /// The kLanes lanes in one vector (core/lanes.hpp: the same IEEE operations lane by lane).
  using Lanes = lanes::V4;
  static_assert(kLanes == 4, "one V4 per sweep");
  /// The middle rows of the unrolled symmetric sweep with the lanes in vectors: rows(step, diag,
  /// upper, rhs) gives the lanes' coefficients of row `step`; lower is the previous row's upper.
  /// The operations of sweep_group's scalar lanes, in the same order per lane (the same bits).
  /// Inline it into a function compiled for the wider ISA.
  template <class Rows>
  [[gnu::always_inline]] static inline void sweep_lanes_symmetric(LaneSweep& s, Rows&& rows) {
    Lanes c, y, u, up;
    for (int l = 0; l < kLanes; ++l) c[l] = s.c[l], y[l] = s.y[l], u[l] = s.u[l], up[l] = s.upper[l];
    const Lanes zero = {0.0, 0.0, 0.0, 0.0}, one = {1.0, 1.0, 1.0, 1.0};
    for (std::size_t step = s.begin; step < s.end; ++step) {
      Lanes diag, upper, rhs;
      rows(step, diag, upper, rhs);
      const Lanes lower = up;
      up = upper;
      const Lanes inv = one / (diag - lower * c);
      c = upper * inv;
      y = (rhs - lower * y) * inv;
      u = (zero - lower * u) * inv;
      for (int l = 0; l < kLanes; ++l) s.cv[l][step] = c[l], s.ys[l][step] = y[l], s.us[l][step] = u[l];
    }
    for (int l = 0; l < kLanes; ++l) s.c[l] = c[l], s.y[l] = y[l], s.u[l] = u[l], s.upper[l] = up[l];
  }

  /// x_b at an interior row from y, u, v and the separator terms (one formula everywhere).
  static double combine(double y, double u, double v, double alpha, double beta) { return (y - alpha * u) - beta * v; }

 private:
  void reduce(const Context& ctx);  // gathers the records, solves for the separators
  std::size_t interior_end(std::size_t b) const {
    const Range r = layout_.block(b);
    return b + 1 == layout_.blocks() ? r.end : r.end - 1;
  }
  // The separators' terms of block b's interior values, alpha = lower_first sigma_{b-1} and
  // beta = upper_last sigma_b (0 at the ends), from its record rec (after reduce()).
  void separator_terms(const double* rec, std::size_t b, double& alpha, double& beta) const;
  // x at the first interior row of block b from the gathered records (after reduce()).
  double first_interior(std::size_t b) const;
  // A thread's sweep arrays of one lane: y (later x), u and cv, each stride_ long, row i of the
  // lane's block at [i - begin] (index -1 and size: the rows outside the block).
  struct LaneArrays {
    double *y, *u, *cv;
  };
  LaneArrays lane_work(int lane);
  template <class RowFn>
  static TridiagonalRow row_of(RowFn& row, std::size_t li, bool skip_lower) {
    if constexpr (std::is_invocable_r_v<TridiagonalRow, RowFn&, std::size_t, bool>)
      return row(li, skip_lower);
    else
      return row(li);
  }
  // Forward sweep and back substitution of the interiors of local blocks k0 .. k0 + lanes - 1
  // into lane_work; with `records`, also their records (phase 1).
  // Phase 3 (records false): x of the interiors into the lanes' y arrays, with the lanes' separator
  // terms alpha, beta.
  template <class RowFn>
  void sweep_group(long k0, int lanes, RowFn& row, bool records, const double* alpha = nullptr,
                   const double* beta = nullptr);

  BlockLayout layout_;
  bool threaded_ = false;
  bool symmetric_ = false;  // lower(i) == upper(i - 1) bit for bit (the constructor's promise)
  std::size_t stride_ = 0;                 // max block size + 2
  std::vector<std::vector<double>> work_;  // per thread: kLanes x 3 x stride_
  std::vector<double> local_rec_;    // local blocks x kRec
  std::vector<double> all_rec_;      // blocks x kRec
  std::vector<double> sep_;          // blocks - 1 separator values
  std::vector<double> rc_, rr_;      // reduced Thomas scratch
  double before_ = 0.0, after_ = 0.0;
};

inline PartitionedTridiagonal::LaneArrays PartitionedTridiagonal::lane_work(int lane) {
  std::vector<double>& w = work_[static_cast<std::size_t>(omp_get_thread_num())];
  if (w.size() < kLanes * 3 * stride_) w.resize(kLanes * 3 * stride_);  // once per thread
  double* p = w.data() + static_cast<std::size_t>(lane) * 3 * stride_ + 1;
  return {p, p + stride_, p + 2 * stride_};
}

template <class RowFn>
void PartitionedTridiagonal::sweep_group(long k0, int lanes, RowFn& row, bool records, const double* alpha,
                                         const double* beta) {
  const std::size_t off = layout_.local_items().begin;
  const std::size_t B = layout_.blocks();
  const Range lb = layout_.local_blocks();
  std::size_t bs[kLanes], ss[kLanes], zs[kLanes], len = 0;
  double cprev[kLanes], yprev[kLanes], uprev[kLanes];
  double *Y[kLanes], *U[kLanes], *CV[kLanes];  // at index i - s: row i
  double* recs[kLanes];
  for (int l = 0; l < lanes; ++l) {
    bs[l] = lb.begin + static_cast<std::size_t>(k0 + l);
    ss[l] = layout_.block(bs[l]).begin;
    zs[l] = interior_end(bs[l]);
    len = std::max(len, zs[l] - ss[l]);
    cprev[l] = yprev[l] = uprev[l] = 0.0;
    const LaneArrays w = lane_work(l);
    Y[l] = w.y, U[l] = w.u, CV[l] = w.cv;
    recs[l] = &local_rec_[static_cast<std::size_t>(k0 + l) * kRec];
  }
  double upper0[kLanes] = {};  // step 0's upper per lane (= step 1's lower if symmetric_)
  auto step_lanes = [&](std::size_t step) {  // one row of every lane, lane after lane
    for (int l = 0; l < lanes; ++l) {
      const std::size_t s = ss[l], z = zs[l], i = s + step, b = bs[l];
      if (i >= z) continue;
      const TridiagonalRow R = row_of(row, i - off, !records && i == s);
      const double lo = i == s ? 0.0 : R.lower;
      if (step == 0) upper0[l] = R.upper;
      const double inv = 1.0 / (R.diag - lo * cprev[l]);
      cprev[l] = R.upper * inv;
      yprev[l] = (R.rhs - lo * yprev[l]) * inv;
      uprev[l] = ((i == s ? 1.0 : 0.0) - lo * uprev[l]) * inv;
      CV[l][step] = i + 1 == z ? inv : cprev[l];  // v of the last interior row is 1/d'
      Y[l][step] = yprev[l];
      U[l][step] = uprev[l];
      if (records && i == s) recs[l][kLowerFirst] = b == 0 ? 0.0 : R.lower;
      if (records && i + 1 == z) recs[l][kUpperLast] = b + 1 == B ? 0.0 : R.upper;
    }
  };
  std::size_t shortest = len;
  for (int l = 0; l < lanes; ++l) shortest = std::min(shortest, zs[l] - ss[l]);
  step_lanes(0);
  std::size_t step = 1;
  if (lanes == kLanes) {
    // Rows that are neither a lane's first nor its last interior row: the kLanes recurrences
    // unrolled side by side with their state in registers (c, y, u below are not seen by
    // step_lanes), so that the independent chains of divisions overlap; the same operations per
    // lane as step_lanes (symmetric_: lower is the previous row's upper, the same value).
    double c[kLanes], yv[kLanes], uv[kLanes], up[kLanes];
    for (int l = 0; l < kLanes; ++l) c[l] = cprev[l], yv[l] = yprev[l], uv[l] = uprev[l], up[l] = upper0[l];
    if constexpr (requires(LaneSweep& ls) { row.sweep_lanes(ls); }) {
      if (symmetric_ && step + 1 < shortest) {  // the row object's vector sweep (LaneSweep)
        LaneSweep ls;
        for (int l = 0; l < kLanes; ++l) {
          ls.row[l] = ss[l] - off;
          ls.c[l] = c[l], ls.y[l] = yv[l], ls.u[l] = uv[l], ls.upper[l] = up[l];
          ls.cv[l] = CV[l], ls.ys[l] = Y[l], ls.us[l] = U[l];
        }
        ls.begin = step;
        ls.end = shortest - 1;
        row.sweep_lanes(ls);
        for (int l = 0; l < kLanes; ++l) c[l] = ls.c[l], yv[l] = ls.y[l], uv[l] = ls.u[l], up[l] = ls.upper[l];
        step = ls.end;
      }
    }
    for (; step + 1 < shortest; ++step) {
#pragma GCC unroll 4
      for (int l = 0; l < kLanes; ++l) {
        const TridiagonalRow R = row_of(row, ss[l] + step - off, symmetric_);
        const double lower = symmetric_ ? up[l] : R.lower;
        up[l] = R.upper;
        const double inv = 1.0 / (R.diag - lower * c[l]);
        c[l] = R.upper * inv;
        yv[l] = (R.rhs - lower * yv[l]) * inv;
        uv[l] = (0.0 - lower * uv[l]) * inv;
        CV[l][step] = c[l];
        Y[l][step] = yv[l];
        U[l][step] = uv[l];
      }
    }
    for (int l = 0; l < kLanes; ++l) cprev[l] = c[l], yprev[l] = yv[l], uprev[l] = uv[l];
  }
  for (; step < len; ++step) step_lanes(step);
  // Back substitution, rows z-2, z-3, ..., s: y_i -= c'_i y_{i+1}, u_i -= c'_i u_{i+1},
  // v_i = 0 - c'_i v_{i+1}, with row i+1's values carried in registers. Phase 1 keeps only row s's
  // (the record); phase 3 stores x_i = combine(y_i, u_i, v_i, alpha, beta) in Y (no other pass).
  double yc[kLanes], uc[kLanes], vc[kLanes];
  for (int l = 0; l < lanes; ++l) {
    const std::size_t k = zs[l] - ss[l] - 1;  // the last interior row
    yc[l] = Y[l][k], uc[l] = U[l][k], vc[l] = CV[l][k];
    if (records) {
      double* rec = recs[l];
      rec[kYl] = yc[l], rec[kUl] = uc[l], rec[kVl] = vc[l];
    } else {
      Y[l][k] = combine(yc[l], uc[l], vc[l], alpha[l], beta[l]);
    }
  }
  for (std::size_t step = 1; step < len; ++step)
    for (int l = 0; l < lanes; ++l) {
      if (zs[l] - ss[l] <= step) continue;
      const std::size_t k = zs[l] - ss[l] - 1 - step;
      const double cp = CV[l][k];
      yc[l] = Y[l][k] - cp * yc[l];
      uc[l] = U[l][k] - cp * uc[l];
      vc[l] = 0.0 - cp * vc[l];
      if (!records) Y[l][k] = combine(yc[l], uc[l], vc[l], alpha[l], beta[l]);
    }
  if (!records) return;
  for (int l = 0; l < lanes; ++l) {
    const std::size_t z = zs[l], b = bs[l];
    double* rec = recs[l];
    rec[kY0] = yc[l];
    rec[kU0] = uc[l];
    rec[kV0] = vc[l];
    if (b + 1 < B) {
      const TridiagonalRow S = row_of(row, z - off, false);
      rec[kSepLower] = S.lower;
      rec[kSepDiag] = S.diag;
      rec[kSepUpper] = S.upper;
      rec[kSepRhs] = S.rhs;
    } else {
      rec[kSepLower] = rec[kSepDiag] = rec[kSepUpper] = rec[kSepRhs] = 0.0;
    }
  }
}

template <class RowFn, class ConsumeFn>
void PartitionedTridiagonal::solve_blocks(const Context& ctx, RowFn&& row, ConsumeFn&& consume) {
  const Range lb = layout_.local_blocks();
  const std::size_t B = layout_.blocks();
  const long nb = static_cast<long>(lb.size());
  if (work_.size() < static_cast<std::size_t>(omp_get_max_threads()))
    work_.resize(static_cast<std::size_t>(omp_get_max_threads()));

  if (B == 1) {
    // One block (small systems: the chain below 17 links): no separators, so x is the sweep's
    // y (phase 3's combine(y, u, v, 0, 0) is y bit for bit); the r sweep alone, the arithmetic
    // of phase 1's y, without u, v, the records and the reduced system.
    before_ = after_ = 0.0;
    if (nb != 1) return;
    const std::size_t n = layout_.local_size();
    const LaneArrays w = lane_work(0);
    double *x = w.y, *cv = w.cv;
    double cprev = 0.0, yprev = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const TridiagonalRow R = row_of(row, i, i == 0);
      const double lo = i == 0 ? 0.0 : R.lower;
      const double inv = 1.0 / (R.diag - lo * cprev);
      cprev = R.upper * inv;
      yprev = (R.rhs - lo * yprev) * inv;
      cv[i] = cprev;
      x[i] = yprev;
    }
    for (std::size_t i = n; i-- > 1;) x[i - 1] -= cv[i - 1] * x[i];
    x[-1] = x[n] = 0.0;
    consume(std::size_t{0}, static_cast<const double*>(x));
    return;
  }

  // Phase 1: per block, Thomas forward sweep on the interior with the three right-hand
  // sides r, e_first, e_last, back substitution, and the block record. The sweeps are chains
  // of dependent divisions (latency-bound): kLanes consecutive blocks are swept together, row
  // by row, so that their independent chains overlap. Each block's arithmetic is unchanged.
  const long ng = (nb + kLanes - 1) / kLanes;
  auto lanes_of = [&](long g) { return static_cast<int>(std::min<long>(kLanes, nb - g * kLanes)); };
  for_each_index(ng, threaded_, [&](long g) { sweep_group(g * kLanes, lanes_of(g), row, true); });

  // Phase 2: the reduced system for the separators (every rank, same order).
  reduce(ctx);

  // Phase 3: the same sweeps again (the same values), the interior values from the separators,
  // and the blocks handed to consume with their neighbouring rows.
  for_each_index(ng, threaded_, [&](long g) {
    const int lanes = lanes_of(g);
    double alpha[kLanes] = {}, beta[kLanes] = {};  // (initialized: GCC 12 -Wmaybe-uninitialized beyond `lanes`)
    for (int l = 0; l < lanes; ++l) {
      const std::size_t k = static_cast<std::size_t>(g * kLanes + l);
      separator_terms(&local_rec_[k * kRec], lb.begin + k, alpha[l], beta[l]);
    }
    sweep_group(g * kLanes, lanes, row, false, alpha, beta);  // x of the interiors in the lanes' y
    for (int l = 0; l < lanes; ++l) {
      const std::size_t k = static_cast<std::size_t>(g * kLanes + l), b = lb.begin + k;
      const Range r = layout_.block(b);
      const std::size_t s = r.begin, z = interior_end(b);
      double* x = lane_work(l).y;
      if (b + 1 < B) x[z - s] = sep_[b];
      x[-1] = b == 0 ? 0.0 : sep_[b - 1];
      x[r.size()] = b + 1 == B ? 0.0 : first_interior(b + 1);
      consume(b, static_cast<const double*>(x));
    }
  });
}

template <class RowFn>
void PartitionedTridiagonal::solve(const Context& ctx, RowFn&& row, double* x) {
  const std::size_t off = layout_.local_items().begin;
  solve_blocks(ctx, row, [&](std::size_t b, const double* xb) {
    const Range r = layout_.block(b);
    std::copy(xb, xb + r.size(), x + (r.begin - off));
  });
}

}  // namespace lie::par
