// Distributed pair machinery of the (S^2)^n particle models; see sphere_pairs.hpp.
#include "models/sphere_pairs.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <cmath>

#include "core/numeric.hpp"
#include "groups/maps.hpp"
#include "parallel/exact_sum.hpp"

namespace lie {

namespace pairs {

AllGather::AllGather(std::size_t n, int width, const par::Context& ctx)
    : ctx_(ctx), range_(par::balanced_range(n, ctx.size(), ctx.rank())) {
  counts_.resize(static_cast<std::size_t>(ctx.size()));
  displs_.resize(counts_.size());
  for (int r = 0; r < ctx.size(); ++r) {
    const par::Range rr = par::balanced_range(n, ctx.size(), r);
    counts_[static_cast<std::size_t>(r)] = static_cast<int>(static_cast<std::size_t>(width) * rr.size());
    displs_[static_cast<std::size_t>(r)] = static_cast<int>(static_cast<std::size_t>(width) * rr.begin);
  }
  send_.assign(static_cast<std::size_t>(width) * range_.size(), 0.0);
  recv_.assign(static_cast<std::size_t>(width) * n, 0.0);
}

void AllGather::gather() {
  if (ctx_.size() > 1)
    MPI_Allgatherv(send_.data(), static_cast<int>(send_.size()), MPI_DOUBLE, recv_.data(), counts_.data(),
                   displs_.data(), MPI_DOUBLE, ctx_.comm());
  else
    std::copy(send_.begin(), send_.end(), recv_.begin());
}

}  // namespace pairs

SpherePairModel::SpherePairModel(std::size_t n, double inertia, par::Context& ctx)
    : n_(n), inertia_(inertia), ctx_(ctx), range_(par::balanced_range(n, ctx.size(), ctx.rank())),
      gather_(n, 3, ctx) {
  space_.add(FactorKind::SE3OnTS2, range_.size(), "spheres");
  grad_.assign(3 * range_.size(), 0.0);
}

ModelCapabilities SpherePairModel::capabilities() const {
  ModelCapabilities c;
  c.sphere_lagrangian = true;
  return c;
}

void SpherePairModel::initial_state(double* y) const {
  std::copy(y0_all_.begin() + static_cast<std::ptrdiff_t>(6 * range_.begin),
            y0_all_.begin() + static_cast<std::ptrdiff_t>(6 * range_.end), y);
}

double SpherePairModel::potential(const double* q) const {
  par::ExactSum v;
  for (std::size_t i = 0; i < n_; ++i) {
    double g[3], e = 0.0;
    pair_row(i, q, g, e);
    v.add(e);
  }
  return v.value();
}

void SpherePairModel::potential_gradient(const double* q, double* dVdq) const {
  for (std::size_t i = 0; i < n_; ++i) {
    double e = 0.0;
    pair_row(i, q, dVdq + 3 * i, e);
  }
}

void SpherePairModel::local_rows(const double* q_local, double* grad, par::ExactSum* energy) {
  const std::size_t nl = range_.size();
  std::copy(q_local, q_local + 3 * nl, gather_.local());
  {
    par::ScopedTimer timer(ctx_.timers(), "comm");
    gather_.gather();
  }
  const double* q_all = gather_.all();
  const std::size_t b = range_.begin;
  std::vector<double> rows(energy ? nl : 0);
  // Threads over rows (each row's sum is ordered, so threads change no bit); small systems
  // (n^2 < 2^14 pairs) stay on one thread, where a parallel region costs more than the work.
#pragma omp parallel for schedule(static) if (nl * n_ >= (1u << 14))
  for (std::size_t li = 0; li < nl; ++li) {
    double e = 0.0;
    pair_row(b + li, q_all, grad + 3 * li, e);
    if (energy) rows[li] = e;
  }
  if (energy)
    for (double e : rows) energy->add(e);
}

void SpherePairModel::local_potential_gradient(const double* q_local, double* dVdq_local) {
  local_rows(q_local, dVdq_local, nullptr);
}

void SpherePairModel::vector_field(double, const double* y, double* xi) {
  ++n_rhs_;
  par::ScopedTimer timer(ctx_.timers(), "rhs");
  const std::size_t nl = range_.size();
  std::vector<double> q(3 * nl);
  for (std::size_t i = 0; i < nl; ++i)
    for (int c = 0; c < 3; ++c) q[3 * i + c] = y[6 * i + c];
  local_rows(q.data(), grad_.data(), nullptr);
  const double inv = 1.0 / inertia_;
  for (std::size_t i = 0; i < nl; ++i)
    for (int c = 0; c < 3; ++c) {
      xi[6 * i + c] = y[6 * i + 3 + c];        // u = w: q' = w x q
      xi[6 * i + 3 + c] = grad_[3 * i + c] * inv;  // v x q = -q x dV/dq / M_ii
    }
}

void SpherePairModel::observables(double, const double* y, Observables& out) {
  par::ScopedTimer timer(ctx_.timers(), "reduce");
  const std::size_t nl = range_.size();
  std::vector<double> q(3 * nl);
  for (std::size_t i = 0; i < nl; ++i)
    for (int c = 0; c < 3; ++c) q[3 * i + c] = y[6 * i + c];
  std::array<par::ExactSum, 5> sums;  // potential, kinetic, angular momentum (3)
  local_rows(q.data(), grad_.data(), &sums[0]);
  double unit = 0.0, tang = 0.0;
  for (std::size_t i = 0; i < nl; ++i) {
    const Vec3 qi = CMap3(y + 6 * i), wi = CMap3(y + 6 * i + 3);
    const Vec3 qdot = wi.cross(qi);
    sums[1].add(0.5 * inertia_ * qdot.squaredNorm());
    const Vec3 L = inertia_ * qi.cross(qdot);  // M_ii q_i x q_i'
    for (int c = 0; c < 3; ++c) sums[2 + static_cast<std::size_t>(c)].add(L[c]);
    unit = nan_max(unit, std::fabs(1.0 - qi.squaredNorm()));
    tang = nan_max(tang, std::fabs(qi.dot(wi)));
  }
  ctx_.allreduce(std::span<par::ExactSum>(sums.data(), sums.size()));
  const double V = sums[0].value(), T = sums[1].value();
  out.set("total_energy", T + V);
  out.set("kinetic_energy", T);
  out.set("potential_energy", V);
  out.set("unit_norm_error", ctx_.max(unit));
  out.set("tangency_error", ctx_.max(tang));
  if (rotation_invariant()) {
    out.set("angular_momentum_x", sums[2].value());
    out.set("angular_momentum_y", sums[3].value());
    out.set("angular_momentum_z", sums[4].value());
  }
}

std::vector<std::string> SpherePairModel::observable_names() const {
  std::vector<std::string> names{"total_energy", "kinetic_energy", "potential_energy", "unit_norm_error",
                                 "tangency_error"};
  if (rotation_invariant())
    for (const char* c : {"angular_momentum_x", "angular_momentum_y", "angular_momentum_z"}) names.push_back(c);
  return names;
}

}  // namespace lie
