// Variational integrators on (S^2)^n [L] 3: the implicit form (lgvi, Cayley coordinates, Newton
// or fixed point) on a coupled double spherical pendulum (a test-only SphereLagrangian with
// M_12 != 0), the explicit form (lgvi_explicit) on the spring-connected pendula of [L] Example 3;
// orders, energy without drift over 10^5 steps, unit length, and failure modes.
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <random>
#include <vector>

#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/heavy_top.hpp"
#include "models/spring_pendula.hpp"
#include "unit/fixed_step_testing.hpp"

using namespace lie;
using namespace lie::fixed_step_testing;

namespace {

// Double spherical pendulum [L] Example 1 / [P] 5.2: q1 pivot -> first mass, q2 first -> second
// mass, e3 the direction of gravity. Test-only model; its vector field is the dense form of [L]
// (11), fine for n = 2.
class DoubleSphericalPendulum final : public Model, public SphereLagrangian {
 public:
  DoubleSphericalPendulum(double m1, double m2, double l1, double l2, double g, std::array<Vec3, 2> q0,
                          std::array<Vec3, 2> w0)
      : m1_(m1), m2_(m2), l1_(l1), l2_(l2), g_(g), q0_(q0), w0_(w0) {
    space_.add(FactorKind::SE3OnTS2, 2, "links");
  }
  std::string name() const override { return "double_spherical_pendulum_test"; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return 2; }
  int state_dim_per_component() const override { return 6; }
  ModelCapabilities capabilities() const override {
    ModelCapabilities c;
    c.sphere_lagrangian = true;
    return c;
  }
  void initial_state(double* y) const override {
    for (int i = 0; i < 2; ++i) {
      Eigen::Map<Vec3>(y + 6 * i) = q0_[static_cast<std::size_t>(i)];
      Eigen::Map<Vec3>(y + 6 * i + 3) = w0_[static_cast<std::size_t>(i)];
    }
  }
  void vector_field(double, const double* y, double* xi) override {
    ++n_rhs_;
    Vec3 q[2], w[2];
    for (int i = 0; i < 2; ++i) q[i] = Eigen::Map<const Vec3>(y + 6 * i), w[i] = Eigen::Map<const Vec3>(y + 6 * i + 3);
    double qa[6] = {q[0].x(), q[0].y(), q[0].z(), q[1].x(), q[1].y(), q[1].z()}, dV[6];
    potential_gradient(qa, dV);
    // [L] (11): [M_ii I, -M_ij q_i^ q_j^] w' = [sum_j M_ij |w_j|^2 q_i x q_j - q_i x dV/dq_i]
    Eigen::Matrix<double, 6, 6> A;
    Eigen::Matrix<double, 6, 1> b;
    for (int i = 0; i < 2; ++i) {
      const int j = 1 - i;
      A.block<3, 3>(3 * i, 3 * i) = inertia(i, i) * Mat3::Identity();
      A.block<3, 3>(3 * i, 3 * j) = -inertia(i, j) * so3::hat(q[i]) * so3::hat(q[j]);
      b.segment<3>(3 * i) = inertia(i, j) * w[j].squaredNorm() * q[i].cross(q[j]) - q[i].cross(Eigen::Map<Vec3>(dV + 3 * i));
    }
    const Eigen::Matrix<double, 6, 1> dw = A.partialPivLu().solve(b);
    for (int i = 0; i < 2; ++i) {
      Eigen::Map<Vec3>(xi + 6 * i) = w[i];                                    // q' = w x q
      Eigen::Map<Vec3>(xi + 6 * i + 3) = q[i].cross(Vec3(dw.segment<3>(3 * i)));  // w' = (q x w') x q
    }
  }
  void observables(double, const double* y, Observables& out) override { out.set("total_energy", energy(y)); }
  std::vector<std::string> observable_names() const override { return {"total_energy"}; }

  std::size_t sphere_count() const override { return 2; }
  double inertia(std::size_t i, std::size_t j) const override {
    if (i != j) return m2_ * l1_ * l2_;
    return i == 0 ? (m1_ + m2_) * l1_ * l1_ : m2_ * l2_ * l2_;
  }
  bool diagonal_inertia() const override { return false; }
  double potential(const double* q) const override { return -(m1_ + m2_) * g_ * l1_ * q[2] - m2_ * g_ * l2_ * q[5]; }
  void potential_gradient(const double*, double* d) const override {
    for (int k = 0; k < 6; ++k) d[k] = 0.0;
    d[2] = -(m1_ + m2_) * g_ * l1_;
    d[5] = -m2_ * g_ * l2_;
  }
  double energy(const double* y) const {
    double T = 0.0;
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 2; ++j)
        T += 0.5 * inertia(i, j) *
             Eigen::Map<const Vec3>(y + 6 * i + 3).cross(Eigen::Map<const Vec3>(y + 6 * i)).dot(
                 Eigen::Map<const Vec3>(y + 6 * j + 3).cross(Eigen::Map<const Vec3>(y + 6 * j)));
    const double q[6] = {y[0], y[1], y[2], y[6], y[7], y[8]};
    return T + potential(q);
  }

 private:
  double m1_, m2_, l1_, l2_, g_;
  std::array<Vec3, 2> q0_, w0_;
  Space space_;
};

// m = 1, l = 9.81, g = 9.81 ([L] Example 1) with a genuinely 3-D random initial state.
DoubleSphericalPendulum random_double_pendulum(std::uint64_t seed, double speed = 0.6) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n01(0.0, 1.0);
  std::array<Vec3, 2> q, w;
  for (int i = 0; i < 2; ++i) {
    q[static_cast<std::size_t>(i)] = (Vec3(0, 0, 1) + 0.8 * Vec3(n01(rng), n01(rng), n01(rng))).normalized();
    Vec3 v = speed * Vec3(n01(rng), n01(rng), n01(rng));
    w[static_cast<std::size_t>(i)] = v - v.dot(q[static_cast<std::size_t>(i)]) * q[static_cast<std::size_t>(i)];
  }
  return DoubleSphericalPendulum(1.0, 1.0, 9.81, 9.81, 9.81, q, w);
}

// Energy error over [0, T/2] and [T/2, T] along a fixed-step run.
struct EnergyHalves {
  double first = 0.0, second = 0.0;
  double unit = 0.0;
};
template <class EnergyFn>
EnergyHalves energy_halves(Model& model, const std::string& method, double h, long steps, EnergyFn energy) {
  std::vector<double> y0(model.space().state_size());
  model.initial_state(y0.data());
  const double E0 = energy(y0.data());
  EnergyHalves r;
  run(model, method, Config::from_pairs({}), h * static_cast<double>(steps), steps,
      [&](double, const double* y, std::uint64_t n) {
        const double dE = std::fabs(energy(y) - E0);
        double& m = n <= static_cast<std::uint64_t>(steps / 2) ? r.first : r.second;
        m = std::max(m, dE);
        if (n % 1000 == 0)
          for (std::size_t i = 0; i < y0.size(); i += 6)
            r.unit = std::max(r.unit, std::fabs(1.0 - Eigen::Map<const Vec3>(y + i).norm()));
      });
  return r;
}

}  // namespace

// The test model itself: its vector field ([L] (11)) conserves its energy under tiny-step RKMK5
// (an error in the coupling terms would not).
TEST(LgviSpheres, TestDoublePendulumIsConsistent) {
  auto m = random_double_pendulum(2, 1.0);
  std::vector<double> y0(12);
  m.initial_state(y0.data());
  const auto y = run(m, "rkmk5", Config::from_pairs({}), 5.0, 5000);
  EXPECT_NEAR(m.energy(y.data()), m.energy(y0.data()), 1e-9 * std::fabs(m.energy(y0.data())));
  EXPECT_GT(dist(y, y0), 0.1);
}

// [L] (34)-(35) and dV/dq of the spring-connected pendula against direct formulas and finite
// differences, at a random 3-D state; RKMK5 conserves the energy.
TEST(LgviSpheres, SpringPendulaModelIsConsistent) {
  par::Context ctx(MPI_COMM_SELF);
  auto cfg = Config::from_pairs({{"model", "spring_pendula"}, {"spring_pendula.initial", "random"}});
  auto model = make_model(cfg, ctx);
  auto& sp = dynamic_cast<SpringPendula&>(*model);
  std::vector<double> y(24), dy(24), q(12), g(12);
  model->initial_state(y.data());
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) q[static_cast<std::size_t>(3 * i + c)] = y[static_cast<std::size_t>(6 * i + c)];
  sp.potential_gradient(q.data(), g.data());
  for (std::size_t k = 0; k < 12; ++k) {
    auto qp = q, qm = q;
    qp[k] += 1e-6, qm[k] -= 1e-6;
    EXPECT_NEAR(g[k], (sp.potential(qp.data()) - sp.potential(qm.data())) / 2e-6, 1e-7);
  }
  model->ambient_field(0.0, y.data(), dy.data());
  const double M = 0.1 * 0.1 * 0.1;
  for (std::size_t i = 0; i < 4; ++i) {
    const Vec3 qi = Eigen::Map<const Vec3>(&y[6 * i]), wi = Eigen::Map<const Vec3>(&y[6 * i + 3]);
    EXPECT_LT((Eigen::Map<const Vec3>(&dy[6 * i]) - wi.cross(qi)).norm(), 1e-14);                               // (35)
    EXPECT_LT((Eigen::Map<const Vec3>(&dy[6 * i + 3]) + qi.cross(Eigen::Map<const Vec3>(&g[3 * i])) / M).norm(),
              1e-11);  // (34)
  }
  Observables o0, o1;
  model->observables(0.0, y.data(), o0);
  const auto y1 = run(*model, "rkmk5", Config::from_pairs({}), 1.0, 4000);
  model->observables(0.0, y1.data(), o1);
  EXPECT_NEAR(o1.get("total_energy"), o0.get("total_energy"), 1e-11);
  EXPECT_GT(std::fabs(o1.get("kinetic_energy") - o0.get("kinetic_energy")), 1e-4);
}

// Implicit LGVI on the coupled double pendulum: order 2 against RKMK5, with both solvers.
TEST(LgviSpheres, ImplicitFormConvergesAtOrderTwo) {
  auto model = random_double_pendulum(5);
  const double T = 3.0;
  const auto ref = run(model, "rkmk5", Config::from_pairs({}), T, 1 << 14);
  for (const char* solver : {"newton", "fixed_point"}) {
    std::vector<double> hs, errs;
    for (long n : {100L, 200L, 400L, 800L}) {
      const auto y = run(model, "lgvi", Config::from_pairs({{"lgvi.solver", solver}}), T, n);
      hs.push_back(T / static_cast<double>(n));
      errs.push_back(dist(y, ref));
      EXPECT_LT(unit_error(y), 1e-14);
    }
    const double p = slope(hs, errs);
    std::printf("[ order ] lgvi (%s) double pendulum: errors %.3e %.3e %.3e %.3e  slope %.3f\n", solver, errs[0],
                errs[1], errs[2], errs[3], p);
    EXPECT_NEAR(p, 2.0, 0.2) << solver;
  }
}

// Explicit LGVI on [L] Example 3 (paper data): order 2 against RKMK5.
TEST(LgviSpheres, ExplicitFormConvergesAtOrderTwo) {
  SpringPendula model{SpringPendulaParameters{}};
  const double T = 1.0;
  const auto ref = run(model, "rkmk5", Config::from_pairs({}), T, 1 << 14);
  std::vector<double> hs, errs;
  for (long n : {200L, 400L, 800L, 1600L}) {
    const auto y = run(model, "lgvi_explicit", Config::from_pairs({}), T, n);
    hs.push_back(T / static_cast<double>(n));
    errs.push_back(dist(y, ref));
    EXPECT_LT(unit_error(y), 1e-14);
  }
  const double p = slope(hs, errs);
  std::printf("[ order ] lgvi_explicit spring pendula: errors %.3e %.3e %.3e %.3e  slope %.3f\n", errs[0], errs[1],
              errs[2], errs[3], p);
  EXPECT_NEAR(p, 2.0, 0.2);
}

// For diagonal inertia (22)-(25) and (29)-(30) are the same map: the implicit solvers must
// reproduce the explicit form to round-off in one step (20 random states), and stay within
// accumulated round-off over 200 steps.
TEST(LgviSpheres, ImplicitFormEqualsExplicitFormForDiagonalInertia) {
  par::Context ctx(MPI_COMM_SELF);
  double worst_step = 0.0;
  for (int seed = 1; seed <= 20; ++seed) {
    auto model = make_model(Config::from_pairs({{"model", "spring_pendula"}, {"spring_pendula.initial", "random"},
                                                {"spring_pendula.seed", std::to_string(seed)}}),
                            ctx);
    std::vector<double> y0(24);
    model->initial_state(y0.data());
    double scale = 0.0;
    for (double v : y0) scale = std::max(scale, std::fabs(v));
    const auto b = run(*model, "lgvi_explicit", Config::from_pairs({}), 0.01, 1);
    for (const char* solver : {"newton", "fixed_point"}) {
      const auto a = run(*model, "lgvi", Config::from_pairs({{"lgvi.solver", solver}}), 0.01, 1);
      worst_step = std::max(worst_step, dist(a, b) / scale);
    }
    if (seed == 3) {
      const auto a = run(*model, "lgvi", Config::from_pairs({}), 0.5, 200);
      const auto e = run(*model, "lgvi_explicit", Config::from_pairs({}), 0.5, 200);
      EXPECT_LT(dist(a, e), 1e-11 * scale);
    }
  }
  std::printf("[ lgvi ] implicit vs explicit form, one step: max relative difference %.2e\n", worst_step);
  EXPECT_LT(worst_step, 5e-14);
}

// "Done when": bounded energy error (no drift) over 10^5 steps on conservative (S^2)^n problems:
// the maximum energy error over the second half is not larger than twice that over the first.
TEST(LgviSpheres, EnergyErrorWithoutDriftOver1e5Steps) {
  {
    SpringPendula model{SpringPendulaParameters{}};
    const auto r = energy_halves(model, "lgvi_explicit", 1e-3, 100000, [&](const double* y) {
      Observables o;
      model.observables(0.0, y, o);
      return o.get("total_energy");
    });
    std::printf("[ energy ] lgvi_explicit spring pendula, h = 1e-3, 1e5 steps: max|dE| %.3e / %.3e (first/second "
                "half), unit length error %.1e\n",
                r.first, r.second, r.unit);
    EXPECT_LE(r.second, 2.0 * r.first);
    EXPECT_LT(r.unit, 1e-13);
  }
  {
    auto model = random_double_pendulum(9);
    const auto r = energy_halves(model, "lgvi", 0.01, 100000, [&](const double* y) { return model.energy(y); });
    std::printf("[ energy ] lgvi double pendulum, h = 0.01, 1e5 steps: max|dE| %.3e / %.3e (first/second half), "
                "unit length error %.1e\n",
                r.first, r.second, r.unit);
    EXPECT_LE(r.second, 2.0 * r.first);
    EXPECT_LT(r.unit, 1e-13);
  }
}

TEST(LgviSpheres, ClearErrors) {
  par::Context ctx(MPI_COMM_SELF);
  auto dp = random_double_pendulum(1);
  auto ex = make_stepper("lgvi_explicit", Config::from_pairs({}), dp);
  EXPECT_THROW(ex->bind(dp, ctx), UsageError);  // coupled inertia: explicit form does not apply
  HeavyTop top(HeavyTopParameters{}, HeavyTopFormulation::TstarSO3);
  EXPECT_THROW(make_stepper("lgvi", Config::from_pairs({}), top), UsageError);  // not on (S^2)^n
  // absurd step, tiny iteration limit: NumericalError, never a silent wrong answer
  EXPECT_THROW(run(dp, "lgvi", Config::from_pairs({{"lgvi.max_iter", "1"}}), 3.0, 1), NumericalError);
  EXPECT_THROW(run(dp, "lgvi", Config::from_pairs({{"lgvi.solver", "fixed_point"}, {"lgvi.max_iter", "2"}}), 3.0, 1),
               NumericalError);
  SpringPendula sp{SpringPendulaParameters{}};
  EXPECT_THROW(run(sp, "lgvi_explicit", Config::from_pairs({}), 2.0, 1), NumericalError);  // |a| > 1
  EXPECT_THROW(Config::from_pairs({{"lgvi.tol", "-1"}}), UsageError);
}
