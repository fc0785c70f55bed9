#include "parallel/tridiagonal.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lie::par {

namespace {
// Rows per rank before the block loops use an OpenMP team (below, thread start-up costs more
// than the work). Has no influence on the results.
constexpr std::size_t kThreadedRows = 512;
}  // namespace

PartitionedTridiagonal::PartitionedTridiagonal(const BlockLayout& layout, bool symmetric)
    : layout_(layout), symmetric_(symmetric) {
  const std::size_t B = layout_.blocks();
  for (std::size_t b = 0; b + 1 < B; ++b)
    if (layout_.block(b).size() < 2)
      throw std::invalid_argument("partitioned tridiagonal solve: block " + std::to_string(b) + " has " +
                                  std::to_string(layout_.block(b).size()) +
                                  " row(s); every block but the last needs 2 (use at most n/2 blocks)");
  const std::size_t n = layout_.local_size();
  std::size_t largest = 0;
  for (std::size_t b = layout_.local_blocks().begin; b < layout_.local_blocks().end; ++b)
    largest = std::max(largest, layout_.block(b).size());
  stride_ = largest + 2;
  local_rec_.assign(layout_.local_blocks().size() * kRec, 0.0);
  all_rec_.assign(B * kRec, 0.0);
  sep_.assign(B > 0 ? B - 1 : 0, 0.0);
  rc_.assign(sep_.size(), 0.0);
  rr_.assign(sep_.size(), 0.0);
  threaded_ = use_threads(n, kThreadedRows) && layout_.local_blocks().size() >= 2;
}

void PartitionedTridiagonal::reduce(const Context& ctx) {
  const std::size_t B = layout_.blocks();
  const Range lb = layout_.local_blocks();
  before_ = after_ = 0.0;
  if (B == 1) return;
  {
    ScopedTimer timer(ctx.timers(), "comm");
    layout_.allgather(ctx, local_rec_.data(), kRec, all_rec_.data());
  }
  ScopedTimer timer(ctx.timers(), "solve");  // the reduced system, the same on every rank
  auto rec = [&](std::size_t b) { return &all_rec_[b * kRec]; };

  // Separator j (last row of block j) couples sigma_{j-1}, sigma_j, sigma_{j+1} through the
  // last interior row of block j and the first interior row of block j+1:
  //   l_j sigma_{j-1} + d_j sigma_j + u_j sigma_{j+1} = g_j.
  // Thomas without pivoting, forward then backward, identical on every rank.
  const std::size_t m = B - 1;
  double cprev = 0.0, gprev = 0.0;
  for (std::size_t j = 0; j < m; ++j) {
    const double* Rj = rec(j);
    const double* Rn = rec(j + 1);
    const double d = (Rj[kSepDiag] - (Rj[kSepLower] * Rj[kUpperLast]) * Rj[kVl]) -
                     (Rj[kSepUpper] * Rn[kLowerFirst]) * Rn[kU0];
    const double l = j == 0 ? 0.0 : -(Rj[kSepLower] * Rj[kLowerFirst]) * Rj[kUl];
    const double u = j + 1 == m ? 0.0 : -(Rj[kSepUpper] * Rn[kUpperLast]) * Rn[kV0];
    const double g = (Rj[kSepRhs] - Rj[kSepLower] * Rj[kYl]) - Rj[kSepUpper] * Rn[kY0];
    const double inv = 1.0 / (d - l * cprev);
    cprev = u * inv;
    gprev = (g - l * gprev) * inv;
    rc_[j] = cprev;
    rr_[j] = gprev;
  }
  sep_[m - 1] = rr_[m - 1];
  for (std::size_t j = m - 1; j-- > 0;) sep_[j] = rr_[j] - rc_[j] * sep_[j + 1];

  if (lb.begin > 0) before_ = sep_[lb.begin - 1];
  if (lb.end < B) after_ = first_interior(lb.end);
}

void PartitionedTridiagonal::separator_terms(const double* rec, std::size_t b, double& alpha, double& beta) const {
  alpha = b == 0 ? 0.0 : rec[kLowerFirst] * sep_[b - 1];
  beta = b + 1 == layout_.blocks() ? 0.0 : rec[kUpperLast] * sep_[b];
}

double PartitionedTridiagonal::first_interior(std::size_t b) const {
  const double* R = &all_rec_[b * kRec];
  double alpha, beta;
  separator_terms(R, b, alpha, beta);
  return combine(R[kY0], R[kU0], R[kV0], alpha, beta);
}

}  // namespace lie::par
