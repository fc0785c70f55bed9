#pragma once
// Test-only problems on homogeneous spaces with known solutions, for the method tests
// (tests/unit/test_methods_*.cpp). All initial data are random (seeded) and genuinely 3-D.
//
//   ConstantAlgebraProblem   y' = psi_*(xi)|_y, xi constant per component:  y(t) = exp(t xi) . y0.
//   TwoExponentialProblem    y(t) = exp(phi(t) xi1) exp(t xi2) . y0, i.e. the time-dependent,
//                            non-commuting field f(t) = g' g^-1 = phi'(t) xi1 + Ad_{exp(phi xi1)} xi2
//                            with phi(t) = t + a (tanh((t - t_pulse)/width) + tanh(t_pulse/width)), phi(0) = 0
//                            (a = 0: phi = t).
//   SphericalPendula         independent spherical pendula on TS^2 (SE(3) action, [P] 5.1):
//                            q' = w x q, w' = q x g / L, f(q, w) = (w, -g/L).
//   ZeroField                f = 0 (controller tests).
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "groups/se3.hpp"
#include "groups/so3.hpp"
#include "groups/space.hpp"
#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/model.hpp"

namespace lie::testing {

using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

inline Vec3 random_vec3(std::mt19937_64& rng, double scale = 1.0) {
  std::normal_distribution<double> n01(0.0, 1.0);
  return Vec3(n01(rng), n01(rng), n01(rng)) * scale;
}

/// Random point of the manifold of factor `kind` (SO3OnR3, SO3Left, SO3Right, SE3OnTS2, Translation3).
inline void random_point(FactorKind kind, std::mt19937_64& rng, double* y) {
  switch (kind) {
    case FactorKind::SO3Left:
    case FactorKind::SO3Right: {
      const Mat3 Q = so3::exp(random_vec3(rng, 1.5));
      Eigen::Map<RowMat3>{y} = Q;
      return;
    }
    case FactorKind::SE3OnTS2: {
      const Vec3 q = random_vec3(rng).normalized();
      Vec3 w = random_vec3(rng);
      w -= w.dot(q) * q;
      Eigen::Map<Vec3>{y} = q;
      Eigen::Map<Vec3>{y + 3} = w;
      return;
    }
    default: {
      const FactorInfo& f = factor_info(kind);
      std::normal_distribution<double> n01(0.0, 1.0);
      for (int i = 0; i < f.state_dim; ++i) y[i] = n01(rng);
    }
  }
}

/// Random algebra element of factor `kind` of size ~scale.
inline void random_algebra(FactorKind kind, std::mt19937_64& rng, double scale, double* xi) {
  std::normal_distribution<double> n01(0.0, 1.0);
  for (int i = 0; i < factor_info(kind).alg_dim; ++i) xi[i] = scale * n01(rng);
}

/// Base for the test problems: a Space of (kind, count) blocks and a random initial state.
class TestProblem : public Model {
 public:
  TestProblem(std::string name, const std::vector<std::pair<FactorKind, std::size_t>>& blocks, std::uint64_t seed)
      : name_(std::move(name)), rng_(seed) {
    for (const auto& [k, n] : blocks) space_.add(k, n);
    y0_.resize(space_.state_size());
    for (const Block& b : space_.blocks())
      for (std::size_t i = 0; i < b.count; ++i)
        random_point(b.kind, rng_, y0_.data() + b.state_offset + i * static_cast<std::size_t>(b.state_dim));
  }
  std::string name() const override { return name_; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return 1; }
  int state_dim_per_component() const override { return static_cast<int>(space_.state_size()); }
  void initial_state(double* y) const override { std::copy(y0_.begin(), y0_.end(), y); }
  void observables(double t, const double* y, Observables& out) override {}
  std::vector<std::string> observable_names() const override { return {}; }

 protected:
  // Random algebra element for every component (same layout as the algebra array).
  std::vector<double> random_algebra_array(double scale) {
    std::vector<double> xi(space_.alg_size());
    for (const Block& b : space_.blocks())
      for (std::size_t i = 0; i < b.count; ++i)
        random_algebra(b.kind, rng_, scale, xi.data() + b.alg_offset + i * static_cast<std::size_t>(b.alg_dim));
    return xi;
  }
  std::string name_;
  std::mt19937_64 rng_;
  Space space_;
  std::vector<double> y0_;
};

class ConstantAlgebraProblem final : public TestProblem {
 public:
  ConstantAlgebraProblem(const std::vector<std::pair<FactorKind, std::size_t>>& blocks, std::uint64_t seed,
                         double scale = 1.0)
      : TestProblem("constant_algebra", blocks, seed) {
    xi_ = random_algebra_array(scale);
  }
  void vector_field(double, const double*, double* xi) override {
    ++n_rhs_;
    std::copy(xi_.begin(), xi_.end(), xi);
  }
  ModelCapabilities capabilities() const override { return {true, false, false}; }
  void exact_solution(double t, double* y) const override {
    std::vector<double> u(xi_.size());
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = t * xi_[i];
    space_.exp_act(u.data(), y0_.data(), y);
  }

 private:
  std::vector<double> xi_;
};

/// Factors with a known Ad: SO3OnR3, SO3Left (SO(3): Ad_R x = R x), SE3OnTS2 (SE(3)).
class TwoExponentialProblem final : public TestProblem {
 public:
  TwoExponentialProblem(const std::vector<std::pair<FactorKind, std::size_t>>& blocks, std::uint64_t seed,
                        double pulse_amplitude = 0.0, double pulse_time = 0.0, double pulse_width = 1.0)
      : TestProblem("two_exponentials", blocks, seed), a_(pulse_amplitude), tp_(pulse_time), w_(pulse_width) {
    xi1_ = random_algebra_array(1.0);
    xi2_ = random_algebra_array(1.0);
  }
  double phi(double t) const { return t + a_ * (std::tanh((t - tp_) / w_) + std::tanh(tp_ / w_)); }
  double dphi(double t) const {
    const double c = std::cosh((t - tp_) / w_);
    return 1.0 + a_ / (w_ * c * c);
  }
  void vector_field(double t, const double*, double* xi) override {
    ++n_rhs_;
    const double p = phi(t), dp = dphi(t);
    for (const Block& b : space_.blocks()) {
      for (std::size_t i = 0; i < b.count; ++i) {
        const std::size_t o = b.alg_offset + i * static_cast<std::size_t>(b.alg_dim);
        if (b.alg_dim == 3) {  // SO(3): f = phi' x1 + exp(phi x1) x2
          const Vec3 x1 = Eigen::Map<const Vec3>(xi1_.data() + o), x2 = Eigen::Map<const Vec3>(xi2_.data() + o);
          Eigen::Map<Vec3>{xi + o} = dp * x1 + so3::exp(p * x1) * x2;
        } else {  // SE(3): f = phi' x1 + Ad_{exp(phi x1)} x2
          const Vec6 x1 = Eigen::Map<const Vec6>(xi1_.data() + o), x2 = Eigen::Map<const Vec6>(xi2_.data() + o);
          Eigen::Map<Vec6>{xi + o} = dp * x1 + se3::Ad(se3::exp(p * x1), x2);
        }
      }
    }
  }
  ModelCapabilities capabilities() const override { return {true, false, false}; }
  void exact_solution(double t, double* y) const override {
    std::vector<double> u(xi1_.size());
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = t * xi2_[i];
    space_.exp_act(u.data(), y0_.data(), y);
    const double p = phi(t);
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = p * xi1_[i];
    space_.exp_act(u.data(), y, y);
  }

 private:
  double a_, tp_, w_;
  std::vector<double> xi1_, xi2_;
};

/// n independent spherical pendula (unit mass, length L) on (TS^2)^n under gravity g = (0, 0, -g0).
/// A distributed run holds the pendula [begin, end) of n (the initial data do not depend on the split).
class SphericalPendula final : public TestProblem {
 public:
  SphericalPendula(std::size_t n, std::uint64_t seed, double length = 1.0, double gravity = 9.81)
      : SphericalPendula(n, seed, 0, n, length, gravity) {}
  SphericalPendula(std::size_t n, std::uint64_t seed, std::size_t begin, std::size_t end, double length = 1.0,
                   double gravity = 9.81)
      : TestProblem("spherical_pendula", {{FactorKind::SE3OnTS2, n}}, seed), L_(length), g_(gravity), n_(n),
        begin_(begin) {
    // Angular velocities of order 1-3 (a genuinely 3-D, non-planar motion).
    for (std::size_t i = 0; i < n; ++i) {
      Eigen::Map<Vec3> w(y0_.data() + 6 * i + 3);
      w *= 2.0;
    }
    if (begin != 0 || end != n) {  // keep the local slice only
      std::vector<double> local(y0_.begin() + static_cast<std::ptrdiff_t>(6 * begin),
                                y0_.begin() + static_cast<std::ptrdiff_t>(6 * end));
      y0_ = std::move(local);
      space_ = Space();
      space_.add(FactorKind::SE3OnTS2, end - begin);
    }
  }
  std::size_t global_components() const override { return n_; }
  std::size_t global_offset() const override { return begin_; }
  int state_dim_per_component() const override { return 6; }
  void vector_field(double, const double* y, double* xi) override {
    ++n_rhs_;
    const std::size_t n = space_.state_size() / 6;
    for (std::size_t i = 0; i < n; ++i) {
      for (int k = 0; k < 3; ++k) xi[6 * i + k] = y[6 * i + 3 + k];  // u = w: q' = w x q
      xi[6 * i + 3] = 0.0;                                            // v = -g_vec / L: w' = v x q = q x g_vec / L
      xi[6 * i + 4] = 0.0;
      xi[6 * i + 5] = g_ / L_;
    }
  }
  void observables(double, const double* y, Observables& out) override {
    const std::size_t n = space_.state_size() / 6;
    double unit = 0.0, tang = 0.0, energy = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const Vec3 q = Eigen::Map<const Vec3>(y + 6 * i), w = Eigen::Map<const Vec3>(y + 6 * i + 3);
      unit = std::max(unit, std::fabs(1.0 - q.norm()));
      tang = std::max(tang, std::fabs(q.dot(w)));
      energy += 0.5 * L_ * L_ * w.squaredNorm() + g_ * L_ * q.z();
    }
    out.set("unit_norm_error", unit);
    out.set("tangency_error", tang);
    out.set("total_energy", energy);
  }
  std::vector<std::string> observable_names() const override {
    return {"unit_norm_error", "tangency_error", "total_energy"};
  }

 private:
  double L_, g_;
  std::size_t n_, begin_;
};

class ZeroField final : public TestProblem {
 public:
  explicit ZeroField(std::uint64_t seed) : TestProblem("zero_field", {{FactorKind::SE3OnTS2, 2}}, seed) {}
  void vector_field(double, const double*, double* xi) override {
    ++n_rhs_;
    std::fill(xi, xi + space_.alg_size(), 0.0);
  }
};

// ---------------------------------------------------------------- helpers
inline std::vector<double> run_fixed(Stepper& st, Model& model, double T, long steps, double t0 = 0.0) {
  par::Context ctx(MPI_COMM_SELF);
  st.bind(model, ctx);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  FixedStepOptions opt;
  opt.t0 = t0;
  opt.h = (T - t0) / static_cast<double>(steps);
  opt.steps = static_cast<std::uint64_t>(steps);
  integrate_fixed(st, y.data(), opt, nullptr);
  return y;
}

inline double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s);
}

/// Least-squares slope of log(err) against log(h).
inline double fitted_order(const std::vector<double>& h, const std::vector<double>& err) {
  const double n = static_cast<double>(h.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    const double x = std::log(h[i]), yv = std::log(err[i]);
    sx += x;
    sy += yv;
    sxx += x * x;
    sxy += x * yv;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace lie::testing
