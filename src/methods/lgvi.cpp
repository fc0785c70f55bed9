#include "methods/lgvi.hpp"

#include <Eigen/LU>
#include "groups/maps.hpp"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "groups/so3.hpp"
#include "methods/stoppable_lu.hpp"

namespace lie {

namespace {

const bool kLgviKeys = declare_options({
    {"lgvi.solver", OptionType::Choice, "newton",
     "solver of the implicit LGVI equation [L] (28): newton (exact Jacobian) or fixed_point (A(f_m) f_{m+1} = d)",
     {"newton", "fixed_point"}, "method"},
    {"lgvi.tol", OptionType::PositiveReal, "1e-13",
     "relative tolerance of the LGVI iteration: stop when |df|_inf <= tol |f|_inf, or at the round-off floor (the "
     "update stops decreasing once below sqrt(tol) |f|_inf)", {}, "method"},
    {"lgvi.max_iter", OptionType::PositiveInt, "50",
     "iteration limit of the LGVI solver; exceeding it is a NumericalError", {}, "method"},
});

}  // namespace

LgviStepper::LgviStepper(MethodInfo info, bool explicit_form, ImplicitSolveOptions opt)
    : info_(std::move(info)), explicit_(explicit_form), opt_(opt) {}

void LgviStepper::bind(Model& model, par::Context& ctx) {
  lag_ = dynamic_cast<SphereLagrangian*>(&model);
  if (lag_ == nullptr || !model.capabilities().sphere_lagrangian)
    throw UsageError("method '" + info_.name + "' needs a Lagrangian on (S^2)^n; model '" + model.name() +
                     "' does not provide one");
  const auto& blocks = model.space().blocks();
  if (blocks.size() != 1 || blocks[0].kind != FactorKind::SE3OnTS2)
    throw UsageError("method '" + info_.name + "' expects the state of model '" + model.name() +
                     "' to be one block of (q, w) in TS^2 (factor se3_on_ts2)");
  n_ = lag_->sphere_count();
  ctx_ = &ctx;
  const std::size_t local = blocks[0].count;
  offset_ = 0;
  distributed_ = explicit_ && lag_->distributed_gradient();
  if (explicit_ && !lag_->diagonal_inertia())
    throw UsageError("method '" + info_.name + "' ([L] Corollary 3) needs a diagonal inertia M_ij = 0 (i != j); model '" +
                     model.name() + "' couples the spheres through the kinetic energy: use method lgvi");
  if (distributed_) {
    // [L] (29)-(30) update each sphere from its own dV/dq_i: every rank steps its own spheres.
    offset_ = model.global_offset();
    n_ = local;
    active_ = true;
  } else {
    const double holders = ctx.sum(local > 0 ? 1.0 : 0.0);
    if (!(local == 0 || local == n_) || holders != 1.0) {
      std::ostringstream os;
      os << "method '" << info_.name << "' needs all " << n_ << " spheres of model '" << model.name()
         << "' on one rank (it solves dense 3n x 3n systems), but they are split over " << holders
         << " of " << ctx.size() << " ranks; run it with 1 rank";
      throw UsageError(os.str());
    }
    active_ = local == n_;
  }
  // The dense n x n inertia only on one rank (a distributed model may be large: diagonal only).
  M_.assign(distributed_ ? 0 : n_ * n_, 0.0);
  Mdiag_.assign(n_, 0.0);
  for (std::size_t i = 0; i < n_; ++i) {
    Mdiag_[i] = lag_->inertia(offset_ + i, offset_ + i);
    if (!distributed_)
      for (std::size_t j = 0; j < n_; ++j) M_[i * n_ + j] = lag_->inertia(i, j);
  }
  for (auto* v : {&q_, &w_, &q1_, &w1_, &g_, &g1_, &d_, &f_, &q_cached_}) v->assign(3 * n_, 0.0);
  grad_valid_ = false;
}

void LgviStepper::gradient(const std::vector<double>& q, std::vector<double>& g) {
  if (distributed_) lag_->local_potential_gradient(q.data(), g.data());  // collective
  else lag_->potential_gradient(q.data(), g.data());
  ++counters_.rhs;
}

void LgviStepper::fail(const std::string& why, double t, double h, long iter, double upd) const {
  std::ostringstream os;
  os << "method '" << info_.name << "' (" << (opt_.kind == ImplicitSolveOptions::Kind::Newton ? "newton" : "fixed_point")
     << "): " << why << " at t = " << t << ", h = " << h << " after " << iter << " iterations (last update " << upd
     << ", tolerance lgvi.tol = " << opt_.tol << ", lgvi.max_iter = " << opt_.max_iter
     << "); reduce the step size, raise lgvi.max_iter or loosen lgvi.tol";
  throw NumericalError(os.str());
}

void LgviStepper::rebuild_cache(double t, const double* y) {
  // dV/dq at q_k as the uninterrupted run holds it (checkpoint restart; not counted again).
  (void)t;
  grad_valid_ = true;  // an idle rank caches nothing: valid as the active rank's (cache_valid agrees)
  if (!active_) return;
  for (std::size_t i = 0; i < n_; ++i)
    for (int c = 0; c < 3; ++c) q_cached_[3 * i + c] = y[6 * i + c];
  if (distributed_) lag_->local_potential_gradient(q_cached_.data(), g_.data());  // collective
  else lag_->potential_gradient(q_cached_.data(), g_.data());
  grad_valid_ = true;
}

void LgviStepper::step(double t, double h, double* y) {
  if (!distributed_) {
    // All spheres on one rank. The implicit form solves dense 3n x 3n systems: seconds to
    // minutes for large n. A stop request inside (core/stop.hpp) abandons the step before y or
    // the cached gradient change; the counters are put back, and every rank (the others idle
    // in this step) learns of it here, so the run stands at the start of the step everywhere.
    // The idle ranks take the active rank's counts too (the result file's counters are the
    // same on every rank; on 2 ranks they had rhs = iterations = 0).
    const StepCounters before = counters_;
    int stop = 0;
    try {
      step_active(t, h, y);
    } catch (const StopInStep& e) {
      stop = e.signal();
    }
    if (ctx_->size() > 1) {
      double v[3] = {static_cast<double>(stop), static_cast<double>(counters_.rhs),
                     static_cast<double>(counters_.iterations)};  // counts stay far below 2^53
      MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_MAX, ctx_->comm());
      stop = static_cast<int>(v[0]);
      counters_.rhs = static_cast<std::uint64_t>(v[1]);
      counters_.iterations = static_cast<std::uint64_t>(v[2]);
    }
    if (stop) {
      counters_ = before;
      throw StopInStep(stop);
    }
    return;
  }
  step_active(t, h, y);
}

void LgviStepper::step_active(double t, double h, double* y) {
  ++counters_.steps;
  if (!active_) {
    grad_valid_ = true;  // as rebuild_cache: a checkpoint's cache_valid is the min over the ranks
    return;
  }
  for (std::size_t i = 0; i < n_; ++i)
    for (int c = 0; c < 3; ++c) {
      q_[3 * i + c] = y[6 * i + c];
      w_[3 * i + c] = y[6 * i + 3 + c];
    }
  // dV/dq at q_k: reuse the value computed at the end of the previous step.
  bool reuse = grad_valid_ && std::memcmp(q_.data(), q_cached_.data(), q_.size() * sizeof(double)) == 0;
  if (distributed_) reuse = ctx_->min(reuse ? 1.0 : 0.0) == 1.0;  // the gradient is collective: decide together
  if (!reuse) gradient(q_, g_);
  if (explicit_) step_explicit(t, h);
  else step_implicit(t, h);
  q_cached_ = q1_;
  g_.swap(g1_);
  grad_valid_ = true;
  for (std::size_t i = 0; i < n_; ++i)
    for (int c = 0; c < 3; ++c) {
      y[6 * i + c] = q1_[3 * i + c];
      y[6 * i + 3 + c] = w1_[3 * i + c];
    }
}

void LgviStepper::step_explicit(double t, double h) {
  double bad = std::numeric_limits<double>::infinity(), bad_norm = 0.0;  // first sphere with |a_i| > 1
  for (std::size_t i = 0; i < n_; ++i) {
    const double Mii = Mdiag_[i];
    const Vec3 q = CMap3(&q_[3 * i]), w = CMap3(&w_[3 * i]), dV = CMap3(&g_[3 * i]);
    const Vec3 a = h * w - (h * h / (2.0 * Mii)) * q.cross(dV);  // (29)
    const double aa = a.squaredNorm();
    if (!(aa <= 1.0)) {
      if (std::isinf(bad)) bad = static_cast<double>(offset_ + i), bad_norm = std::sqrt(aa);
      continue;
    }
    Map3{&q1_[3 * i]} = a.cross(q) + std::sqrt(1.0 - aa) * q;
  }
  if (distributed_) {  // agree before the collective gradient, so that every rank stops together
    const double first = ctx_->min(bad);
    if (first != bad) bad_norm = std::numeric_limits<double>::quiet_NaN();
    bad = first;
  }
  if (!std::isinf(bad)) {
    std::ostringstream os;
    os << "method '" << info_.name << "': |h w - h^2/(2 M) q x dV/dq| ";
    if (std::isnan(bad_norm)) os << "> 1";  // the sphere is on another rank
    else os << "= " << bad_norm << " > 1";
    os << " for sphere " << static_cast<std::size_t>(bad) << " at t = " << t << ", h = " << h
       << " ([L] (29) has no solution); reduce the step size";
    throw NumericalError(os.str());
  }
  gradient(q1_, g1_);
  for (std::size_t i = 0; i < n_; ++i) {
    const double c = h / (2.0 * Mdiag_[i]);
    const Vec3 q = CMap3(&q_[3 * i]), q1 = CMap3(&q1_[3 * i]);
    Map3{&w1_[3 * i]} =
        CMap3(&w_[3 * i]) - c * q.cross(CMap3(&g_[3 * i])) - c * q1.cross(CMap3(&g1_[3 * i]));  // (30)
  }
}

void LgviStepper::step_implicit(double t, double h) {
  const std::size_t n = n_;
  // (22): right-hand side d_i
  for (std::size_t i = 0; i < n; ++i) {
    stop_point();
    const Vec3 qi = CMap3(&q_[3 * i]);
    Vec3 coup = Vec3::Zero();
    for (std::size_t j = 0; j < n; ++j)
      if (j != i) coup += M_[i * n + j] * CMap3(&q_[3 * j]).cross(h * CMap3(&w_[3 * j]));
    Map3{&d_[3 * i]} = h * M_[i * n + i] * CMap3(&w_[3 * i]) - qi.cross(coup) - 0.5 * h * h * qi.cross(CMap3(&g_[3 * i]));
  }
  // (28) for the Cayley coordinates f
  if (opt_.kind == ImplicitSolveOptions::Kind::Newton) solve_cayley_newton(t, h);
  else solve_cayley_fixed_point(t, h);
  // (23), (27): q_{k+1} = cay(f) q_k (the full Cayley matrix: orthogonal for any f)
  for (std::size_t i = 0; i < n; ++i) Map3{&q1_[3 * i]} = so3::cayley(CMap3(&f_[3 * i])) * CMap3(&q_[3 * i]);
  gradient(q1_, g1_);
  // (25): dense solve for w_{k+1}
  const Eigen::Index N = static_cast<Eigen::Index>(3 * n);
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(N, N);
  Eigen::VectorXd b(N);
  for (std::size_t i = 0; i < n; ++i) {
    stop_point();
    const Vec3 qi = CMap3(&q1_[3 * i]);
    const Mat3 Qi = so3::hat(qi);
    Vec3 s = Vec3::Zero();
    for (std::size_t j = 0; j < n; ++j) {
      const double Mij = M_[i * n + j];
      s += Mij * (CMap3(&q1_[3 * j]) - CMap3(&q_[3 * j]));
      const auto bi = static_cast<Eigen::Index>(3 * i), bj = static_cast<Eigen::Index>(3 * j);
      if (i == j) A.block<3, 3>(bi, bj) = Mij * Mat3::Identity();
      else if (Mij != 0.0) A.block<3, 3>(bi, bj) = -Mij * Qi * so3::hat(CMap3(&q1_[3 * j]));
    }
    b.segment<3>(static_cast<Eigen::Index>(3 * i)) = qi.cross(s) / h - 0.5 * h * qi.cross(CMap3(&g1_[3 * i]));
  }
  const Eigen::VectorXd w1 = StoppableLU().factor(A).solve(b);
  for (Eigen::Index k = 0; k < N; ++k) w1_[static_cast<std::size_t>(k)] = w1[k];
}

// A(f) of (28) (fixed_point == true), or the Jacobian dG/df of G(f) = A(f) f (Newton); also G(f).
namespace {
void cayley_system(const std::vector<double>& M, std::size_t n, const std::vector<double>& q,
                   const std::vector<double>& f, bool jacobian, Eigen::MatrixXd& A, Eigen::VectorXd& G) {
  const Eigen::Index N = static_cast<Eigen::Index>(3 * n);
  A.setZero(N, N);
  G.setZero(N);
  for (std::size_t j = 0; j < n; ++j) {
    stop_point();
    const Vec3 fj = CMap3(&f[3 * j]), qj = CMap3(&q[3 * j]);
    const double s = fj.squaredNorm(), den = 1.0 + s;
    const Mat3 Qj = so3::hat(qj);
    const Vec3 vj = Qj * fj + s * qj;  // q_j x f_j + |f_j|^2 q_j
    // d v_j / d f_j (1 + s) - v_j 2 f_j^T, over (1 + s)^2
    const Mat3 dvj = ((Qj + 2.0 * qj * fj.transpose()) * den - 2.0 * vj * fj.transpose()) / (den * den);
    for (std::size_t i = 0; i < n; ++i) {
      const double Mij = M[i * n + j];
      const auto bi = static_cast<Eigen::Index>(3 * i), bj = static_cast<Eigen::Index>(3 * j);
      if (i == j) {
        G.segment<3>(bi) += 2.0 * Mij * fj / den;
        A.block<3, 3>(bi, bj) = jacobian ? Mat3(2.0 * Mij * (den * Mat3::Identity() - 2.0 * fj * fj.transpose()) / (den * den))
                                         : Mat3(2.0 * Mij / den * Mat3::Identity());
      } else if (Mij != 0.0) {
        const Mat3 Qi = so3::hat(CMap3(&q[3 * i]));
        G.segment<3>(bi) -= 2.0 * Mij / den * (Qi * vj);
        A.block<3, 3>(bi, bj) = jacobian ? Mat3(-2.0 * Mij * Qi * dvj)
                                         : Mat3(-2.0 * Mij / den * Qi * (Qj + qj * fj.transpose()));
      }
    }
  }
}
}  // namespace

bool LgviStepper::converged(double upd, double prev, double f_norm) const {
  // |df| <= tol |f|; or the round-off floor: the update no longer decreases although it is
  // already below sqrt(tol) |f| (Newton contracts quadratically, the fixed point linearly: an
  // update that does not shrink there is round-off in d - G amplified by A^-1, about
  // eps cond(A) |f|, which can exceed tol |f| for a long chain; more iterations only cycle)
  return upd <= opt_.tol * f_norm || (upd >= prev && upd <= std::sqrt(opt_.tol) * f_norm);
}

void LgviStepper::solve_cayley_newton(double t, double h) {
  const Eigen::Index N = static_cast<Eigen::Index>(3 * n_);
  Eigen::Map<const Eigen::VectorXd> d(d_.data(), N);
  Eigen::MatrixXd A;
  Eigen::VectorXd G;
  // Initial guess: the linearisation at f = 0, A(0) f = d.
  std::fill(f_.begin(), f_.end(), 0.0);
  cayley_system(M_, n_, q_, f_, false, A, G);
  Eigen::Map<Eigen::VectorXd> f(f_.data(), N);
  StoppableLU lu;
  f = lu.factor(A).solve(d);
  double upd = 0.0, prev = std::numeric_limits<double>::infinity();
  for (long it = 1; it <= opt_.max_iter; ++it) {
    cayley_system(M_, n_, q_, f_, true, A, G);
    const Eigen::VectorXd df = lu.factor(A).solve(d - G);
    f += df;
    ++counters_.iterations;
    bool finite = df.allFinite() && f.allFinite();
    upd = df.lpNorm<Eigen::Infinity>();
    if (!finite) fail("non-finite iterate", t, h, it, upd);
    if (converged(upd, prev, f.lpNorm<Eigen::Infinity>())) return;
    prev = upd;
  }
  fail("Newton iteration for the Cayley coordinates ([L] (28)) did not converge", t, h, opt_.max_iter, upd);
}

void LgviStepper::solve_cayley_fixed_point(double t, double h) {
  const Eigen::Index N = static_cast<Eigen::Index>(3 * n_);
  Eigen::Map<const Eigen::VectorXd> d(d_.data(), N);
  Eigen::MatrixXd A;
  Eigen::VectorXd G;
  std::fill(f_.begin(), f_.end(), 0.0);
  Eigen::Map<Eigen::VectorXd> f(f_.data(), N);
  double upd = 0.0, prev = std::numeric_limits<double>::infinity();
  StoppableLU lu;
  for (long it = 1; it <= opt_.max_iter; ++it) {
    cayley_system(M_, n_, q_, f_, false, A, G);
    const Eigen::VectorXd fn = lu.factor(A).solve(d);
    upd = (fn - f).lpNorm<Eigen::Infinity>();
    f = fn;
    ++counters_.iterations;
    bool finite = true;
    max_abs_checked(f_.data(), f_.size(), finite);
    if (!finite || !std::isfinite(upd)) fail("non-finite iterate", t, h, it, upd);
    if (converged(upd, prev, f.lpNorm<Eigen::Infinity>())) return;
    prev = upd;
  }
  fail("fixed-point iteration for the Cayley coordinates ([L] (28)) did not converge", t, h, opt_.max_iter, upd);
}

// ---------------------------------------------------------------- registration
namespace {

MethodInfo lgvi_info(const std::string& name, bool is_explicit, const std::string& desc, const std::string& source) {
  MethodInfo m;
  m.name = name;
  m.family = "lgvi";
  m.order = 2;
  m.stages = 1;
  m.exps_per_step = 1;
  m.is_explicit = is_explicit;
  m.description = desc;
  m.source = source;
  m.needs = "sphere_lagrangian";
  m.time_symmetric = true;  // [L] (13): L_d(q_{k+1}, q_k, -h) = -L_d(q_k, q_{k+1}, h), a self-adjoint L_d
  return m;
}

const MethodInfo kLgviInfo = lgvi_info(
    "lgvi", false, "variational integrator on (S^2)^n, implicit form with Cayley coordinates (keys lgvi.*)",
    "[L] 3.1-3.3 eqs. (22)-(28)");
const MethodInfo kLgviExplicitInfo = lgvi_info(
    "lgvi_explicit", true, "variational integrator on (S^2)^n, explicit form for diagonal inertia",
    "[L] Corollary 3 eqs. (29)-(30)");

}  // namespace

LIEBENCH_REGISTER(MethodEntry, MethodEntry{"lgvi", kLgviInfo,
                                           [](const MethodOptions& o) {
                                             return std::make_unique<LgviStepper>(
                                                 kLgviInfo, false, options_as<ImplicitSolveOptions>(o));
                                           },
                                           // <edge>
                                           [](const Config& cfg) {
                                             return MethodOptions(implicit_solve_options(cfg, "lgvi"));
                                           }
                                           // </edge>
                                           })
LIEBENCH_REGISTER(MethodEntry, MethodEntry{"lgvi_explicit", kLgviExplicitInfo, [](const MethodOptions&) {
                                             return std::make_unique<LgviStepper>(kLgviExplicitInfo, true,
                                                                                  ImplicitSolveOptions{});
                                           }})

}  // namespace lie
