#include "methods/slgi.hpp"

#include <mpi.h>

#include <Eigen/LU>
#include "groups/maps.hpp"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "groups/so3.hpp"

namespace lie {

namespace {

const bool kSlgiKeys = declare_options({
    {"slgi.theta", OptionType::Real, "0.5",
     "theta of the symplectic Lie group integrators [P] eqs. (15)-(17), in [0, 1] (order 2 for 1/2, else 1)", {},
     "method"},
    {"slgi.solver", OptionType::Choice, "newton",
     "nonlinear solver of [P] eqs. (15)-(16): newton (simplified, finite-difference Jacobian) or fixed_point",
     {"newton", "fixed_point"}, "method"},
    {"slgi.tol", OptionType::PositiveReal, "1e-13",
     "relative tolerance of the SLGI iteration: stop when |dz|_inf <= tol |z|_inf", {}, "method"},
    {"slgi.max_iter", OptionType::PositiveInt, "30",
     "iteration limit of the SLGI solver; exceeding it is a NumericalError", {}, "method"},
});

// Simplified Newton: the Jacobian is recomputed when an update shrank by less than this factor.
constexpr double kJacobianRefreshRate = 0.1;

}  // namespace

SlgiStepper::SlgiStepper(MethodInfo info, double theta, ImplicitSolveOptions opt, bool requires_translations)
    : info_(std::move(info)), theta_(theta), opt_(opt), requires_translations_(requires_translations) {
  if (!(theta_ >= 0.0 && theta_ <= 1.0)) {
    std::ostringstream os;
    os << "key 'slgi.theta' has value '" << theta_ << "'; allowed: a number in [0, 1]";
    throw UsageError(os.str());
  }
  info_.order = theta_ == 0.5 ? 2 : 1;
  info_.time_symmetric = theta_ == 0.5;  // the midpoint member of the family
}

void SlgiStepper::bind(Model& model, par::Context& ctx) {
  model_ = &model;
  ctx_ = &ctx;
  ham_ = dynamic_cast<CotangentHamiltonian*>(&model);
  if (ham_ == nullptr || !model.capabilities().cotangent_hamiltonian)
    throw UsageError("method '" + info_.name + "' needs a Hamiltonian on a cotangent bundle T*G; model '" +
                     model.name() + "' does not provide one");
  grp_ = ham_->cotangent_group();
  if (requires_translations_ && ctx.max(static_cast<double>(grp_.translations)) == 0.0)
    throw UsageError("method '" + info_.name + "' is SLGI(theta = 1/2) on the quadratic-Hamiltonian formulation "
                     "T*(SO(3) x R^3) of [P] eqs. (29)-(32); model '" + model.name() +
                     "' has no R^n factor (use heavy_top.formulation = quadratic, or method slgi)");
  d_ = grp_.algebra_size();
  nz_ = 2 * d_;
  ncols_ = static_cast<std::size_t>(ctx.max(static_cast<double>(nz_)));
  g0_.assign(grp_.group_size(), 0.0);
  gt_.assign(grp_.group_size(), 0.0);
  mu0_.assign(d_, 0.0);
  mt_.assign(d_, 0.0);
  f1_.assign(d_, 0.0);
  f2_.assign(d_, 0.0);
  for (auto* v : {&z_, &r_, &zp_, &rp_}) v->assign(nz_, 0.0);
  jac_.assign(nz_ * nz_, 0.0);
  y_last_.assign(model.space().state_size(), 0.0);
  warm_ = false;
}

void SlgiStepper::phi(double t, double h, const double* z, double* out) {
  const std::size_t r = grp_.rotations, nt = grp_.translations;
  const double* xi = z;
  const double* nb = z + d_;
  for (std::size_t b = 0; b < r; ++b) {
    const Vec3 x = CMap3(xi + 3 * b), n = CMap3(nb + 3 * b), mu = CMap3(mu0_.data() + 3 * b);
    // g_theta = exp(theta xi) g0
    MapQ{gt_.data() + 9 * b} = so3::exp(theta_ * x) * Mat3(CMapQ(g0_.data() + 9 * b));
    // Ad*_{exp(theta xi)} nbar = exp(-theta xi) nbar;  dexp*_{-a} = J_l(a)
    const Vec3 adn = so3::exp_apply(-theta_ * x, n);
    Map3{mt_.data() + 3 * b} = so3::dexp(x, mu + adn) - theta_ * so3::dexp(theta_ * x, adn);
  }
  for (std::size_t i = 0; i < nt; ++i) {
    gt_[9 * r + i] = g0_[9 * r + i] + theta_ * xi[3 * r + i];
    mt_[3 * r + i] = mu0_[3 * r + i] + (1.0 - theta_) * nb[3 * r + i];
  }
  ham_->hamiltonian_map(t + theta_ * h, gt_.data(), mt_.data(), f1_.data(), f2_.data());
  ++counters_.rhs;
  counters_.exp += 1;
  for (std::size_t i = 0; i < d_; ++i) {
    out[i] = h * f1_[i];
    out[d_ + i] = h * f2_[i];
  }
}

void SlgiStepper::fail(const std::string& why, double t, double h, long iter, double upd) const {
  std::ostringstream os;
  os << "method '" << info_.name << "' (theta = " << theta_ << ", "
     << (opt_.kind == ImplicitSolveOptions::Kind::Newton ? "newton" : "fixed_point") << "): " << why << " at t = " << t
     << ", h = " << h << " after " << iter << " iterations (last update " << upd << ", tolerance slgi.tol = " << opt_.tol
     << ", slgi.max_iter = " << opt_.max_iter << "); reduce the step size, raise slgi.max_iter or loosen slgi.tol";
  throw NumericalError(os.str());
}

void SlgiStepper::solve_fixed_point(double t, double h) {
  double upd = 0.0;
  for (long it = 1; it <= opt_.max_iter; ++it) {
    phi(t, h, z_.data(), zp_.data());
    for (std::size_t i = 0; i < nz_; ++i) r_[i] = zp_[i] - z_[i];
    z_.swap(zp_);
    ++counters_.iterations;
    bool finite = true;
    upd = ctx_->max(max_abs_checked(r_.data(), nz_, finite));
    const double zn = ctx_->max(max_abs_checked(z_.data(), nz_, finite));
    if (ctx_->max(finite ? 0.0 : 1.0) > 0.0) fail("non-finite iterate", t, h, it, upd);
    if (upd <= opt_.tol * zn) return;
  }
  fail("fixed-point iteration did not converge", t, h, opt_.max_iter, upd);
}

void SlgiStepper::solve_newton(double t, double h) {
  // R(z) = z - phi(z); J = I - D phi by forward differences (column count agreed over ranks so
  // that every rank makes the same number of collective f evaluations).
  auto residual = [&](const std::vector<double>& z, std::vector<double>& r) {
    phi(t, h, z.data(), r.data());
    for (std::size_t i = 0; i < nz_; ++i) r[i] = z[i] - r[i];
  };
  Eigen::PartialPivLU<Eigen::MatrixXd>& lu = lu_;
  bool& have_jac = jac_valid_;  // kept from the previous step on a warm start
  double upd = 0.0, upd_prev = 0.0;
  residual(z_, r_);
  for (long it = 1; it <= opt_.max_iter; ++it) {
    bool finite = true;
    const double zn = ctx_->max(max_abs_checked(z_.data(), nz_, finite));
    max_abs_checked(r_.data(), nz_, finite);
    if (ctx_->max(finite ? 0.0 : 1.0) > 0.0) fail("non-finite iterate", t, h, it, upd);
    if (!have_jac || upd > kJacobianRefreshRate * upd_prev) {
      Eigen::Map<Eigen::MatrixXd> J(jac_.data(), static_cast<Eigen::Index>(nz_), static_cast<Eigen::Index>(nz_));
      for (std::size_t j = 0; j < ncols_; ++j) {
        zp_ = z_;
        double eps = 0.0;
        if (j < nz_) {
          eps = 1.4901161193847656e-08 * std::max({std::fabs(z_[j]), zn, 1e-300});
          zp_[j] += eps;
          eps = zp_[j] - z_[j];
        }
        residual(zp_, rp_);
        if (j < nz_)
          for (std::size_t i = 0; i < nz_; ++i)
            J(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = (rp_[i] - r_[i]) / eps;
      }
      if (nz_ > 0) lu.compute(J);
      have_jac = true;
    }
    Eigen::VectorXd dz = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(nz_));
    if (nz_ > 0) dz = -lu.solve(Eigen::Map<const Eigen::VectorXd>(r_.data(), static_cast<Eigen::Index>(nz_)));
    for (std::size_t i = 0; i < nz_; ++i) z_[i] += dz[static_cast<Eigen::Index>(i)];
    ++counters_.iterations;
    upd_prev = it == 1 ? std::numeric_limits<double>::infinity() : upd;
    finite = true;
    upd = ctx_->max(max_abs_checked(dz.data(), nz_, finite));
    const double zn1 = ctx_->max(max_abs_checked(z_.data(), nz_, finite));
    if (ctx_->max(finite ? 0.0 : 1.0) > 0.0) fail("non-finite iterate", t, h, it, upd);
    if (upd <= opt_.tol * zn1) return;
    residual(z_, r_);
  }
  fail("Newton iteration did not converge", t, h, opt_.max_iter, upd);
}

void SlgiStepper::step(double t, double h, double* y) {
  const std::size_t ns = y_last_.size();
  ham_->split_state(y, g0_.data(), mu0_.data());
  const bool warm = warm_ && h == h_last_ && std::memcmp(y, y_last_.data(), ns * sizeof(double)) == 0;
  if (!ctx_->min(warm ? 1.0 : 0.0)) {
    jac_valid_ = false;
    // Initial guess: (xi, nbar) = h f(g0, mu0).
    ham_->hamiltonian_map(t, g0_.data(), mu0_.data(), f1_.data(), f2_.data());
    ++counters_.rhs;
    for (std::size_t i = 0; i < d_; ++i) {
      z_[i] = h * f1_[i];
      z_[d_ + i] = h * f2_[i];
    }
  }
  if (opt_.kind == ImplicitSolveOptions::Kind::Newton) solve_newton(t, h);
  else solve_fixed_point(t, h);
  // (17): g1 = exp(xi) g0, mu1 = exp((1 - theta) xi) nbar + exp(xi) mu0 (SO(3)); translations add.
  const std::size_t r = grp_.rotations, nt = grp_.translations;
  for (std::size_t b = 0; b < r; ++b) {
    const Vec3 x = CMap3(z_.data() + 3 * b), n = CMap3(z_.data() + d_ + 3 * b);
    const Vec3 mu = CMap3(mu0_.data() + 3 * b);
    MapQ{g0_.data() + 9 * b} = so3::exp(x) * Mat3(CMapQ(g0_.data() + 9 * b));
    Map3{mu0_.data() + 3 * b} = so3::exp_apply((1.0 - theta_) * x, n) + so3::exp_apply(x, mu);
  }
  for (std::size_t i = 0; i < nt; ++i) {
    g0_[9 * r + i] += z_[3 * r + i];
    mu0_[3 * r + i] += z_[d_ + 3 * r + i];
  }
  counters_.exp += 1;
  ham_->join_state(g0_.data(), mu0_.data(), y);
  std::copy(y, y + ns, y_last_.begin());
  h_last_ = h;
  warm_ = true;
  ++counters_.steps;
}

// ---------------------------------------------------------------- checkpoints
namespace {
constexpr std::size_t kResumeHeader = 5;  // warm, jac_valid, h_last, nz, ns
}

std::vector<double> SlgiStepper::resume_state() const {
  // The unknowns live on one rank (rank-0-owned models); the others hold nz_ = 0. Its copy
  // goes to every rank, so that the state is the same everywhere.
  const double holders = ctx_->sum(nz_ > 0 ? 1.0 : 0.0);
  if (holders > 1.0)
    throw UsageError("method '" + info_.name + "' cannot checkpoint model '" + model_->name() +
                     "': its unknowns are split over ranks (run without checkpoints)");
  const int owner = static_cast<int>(ctx_->max(nz_ > 0 ? static_cast<double>(ctx_->rank()) : 0.0));
  std::vector<double> s = {warm_ ? 1.0 : 0.0, jac_valid_ ? 1.0 : 0.0, h_last_, static_cast<double>(nz_),
                           static_cast<double>(y_last_.size())};
  s.insert(s.end(), z_.begin(), z_.end());
  s.insert(s.end(), jac_.begin(), jac_.end());
  s.insert(s.end(), y_last_.begin(), y_last_.end());
  std::uint64_t n = s.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, owner, ctx_->comm());
  s.resize(n);
  MPI_Bcast(s.data(), static_cast<int>(n), MPI_DOUBLE, owner, ctx_->comm());
  return s;
}

void SlgiStepper::restore_resume_state(const std::vector<double>& s, const double* y) {
  (void)y;  // the warm-start test compares the next y with y_last_, restored as it was
  auto refuse = [&](const std::string& why) {
    throw UsageError("the checkpoint's solver state of method '" + info_.name + "' is " + why +
                     "; remove the checkpoint to start over");
  };
  if (s.size() < kResumeHeader) refuse(s.empty() ? "missing" : "incomplete");
  const auto nz = static_cast<std::size_t>(s[3]), ns = static_cast<std::size_t>(s[4]);
  if (s[3] != static_cast<double>(nz) || s[4] != static_cast<double>(ns) ||
      s.size() != kResumeHeader + nz + nz * nz + ns)
    refuse("inconsistent");
  warm_ = s[0] != 0.0;
  jac_valid_ = s[1] != 0.0;
  h_last_ = s[2];
  if (nz_ == 0) return;  // a rank without unknowns keeps only the flags
  if (nz != nz_ || ns != y_last_.size()) refuse("of another model size");
  const auto z = s.begin() + kResumeHeader;
  const auto jac = z + static_cast<std::ptrdiff_t>(nz);
  const auto yl = jac + static_cast<std::ptrdiff_t>(nz * nz);
  std::copy(z, jac, z_.begin());
  std::copy(jac, yl, jac_.begin());
  std::copy(yl, s.end(), y_last_.begin());
  if (jac_valid_) {
    Eigen::Map<Eigen::MatrixXd> J(jac_.data(), static_cast<Eigen::Index>(nz_), static_cast<Eigen::Index>(nz_));
    lu_.compute(J);  // the same matrix as before: the same factors
  }
}

// ---------------------------------------------------------------- registration
namespace {

MethodInfo slgi_info(const std::string& name, const std::string& desc, const std::string& source) {
  MethodInfo m;
  m.name = name;
  m.family = "slgi";
  m.order = 2;
  m.stages = 1;
  m.exps_per_step = 2;
  m.is_explicit = false;
  m.description = desc;
  m.source = source;
  m.needs = "cotangent_hamiltonian";
  m.time_symmetric = true;  // at theta = 1/2 (the default; SlgiStepper sets it from theta)
  return m;
}

const MethodInfo kSlgiInfo =
    slgi_info("slgi", "symplectic Lie group integrator on T*G, theta-family (key slgi.theta; order 2 at 1/2, else 1)",
              "[P] 3.2 eqs. (14)-(17)");
const MethodInfo kSlgiKkInfo = slgi_info(
    "slgi_kk", "SLGI theta = 1/2 on the quadratic-Hamiltonian formulation T*(SO(3) x R^3) (SLGIKK)",
    "[P] 3.4.3-3.4.4 eqs. (29)-(32)");

}  // namespace

LIEBENCH_REGISTER(MethodEntry, MethodEntry{"slgi", kSlgiInfo,
                                           [](const MethodOptions& o) {
                                             const auto opt = options_as<SlgiOptions>(o);
                                             return std::make_unique<SlgiStepper>(kSlgiInfo, opt.theta, opt.solve, false);
                                           },
                                           // <edge>
                                           [](const Config& cfg) {
                                             return MethodOptions(SlgiOptions{cfg.get_double("slgi.theta"),
                                                                              implicit_solve_options(cfg, "slgi")});
                                           }
                                           // </edge>
                                           })
LIEBENCH_REGISTER(MethodEntry, MethodEntry{"slgi_kk", kSlgiKkInfo,
                                           [](const MethodOptions& o) {
                                             return std::make_unique<SlgiStepper>(
                                                 kSlgiKkInfo, 0.5, options_as<SlgiOptions>(o).solve, true);
                                           },
                                           // <edge>
                                           [](const Config& cfg) {
                                             return MethodOptions(SlgiOptions{0.5, implicit_solve_options(cfg, "slgi")});
                                           }
                                           // </edge>
                                           })

}  // namespace lie
