// The exact free-rigid-body solution (Jacobi elliptic functions + elliptic integral of the third
// kind for the attitude) against tiny-step RKMK5 integrations, over inertia orderings, both
// regimes, the separatrix, symmetric bodies, equilibria and sign patterns.
#include <gtest/gtest.h>

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/free_rigid_body.hpp"

using namespace lie;

namespace {

using Regime = RigidBodyExact::Regime;

std::vector<double> integrate_rkmk5(FreeRigidBody& model, double T, int steps) {
  par::Context ctx(MPI_COMM_SELF);
  auto st = make_stepper("rkmk5", Config::from_pairs({}), model);
  st->bind(model, ctx);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  FixedStepOptions opt;
  opt.h = T / steps;
  opt.steps = static_cast<std::uint64_t>(steps);
  integrate_fixed(*st, y.data(), opt, nullptr);
  return y;
}

struct Case {
  std::array<double, 3> I;
  Vec3 m;
};

// All orderings of a generic inertia, symmetric bodies, near-symmetric bodies, random momenta
// with random signs, the exact separatrix and the equilibria.
std::vector<Case> cases() {
  std::vector<Case> out;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> n01(0.0, 1.0);
  const std::vector<std::array<double, 3>> inertias = {
      {1.0, 1.88, 2.88}, {1.88, 1.0, 2.88}, {2.88, 1.88, 1.0}, {1.0, 2.88, 1.88}, {2.88, 1.0, 1.88},
      {1.88, 2.88, 1.0}, {0.7, 0.7, 1.9},   {1.9, 0.7, 0.7},   {0.7, 1.9, 1.9},   {1.3, 1.3, 1.3},
      {1.0, 1.0 + 1e-7, 2.0}, {0.3, 5.0, 5.2}};
  for (const auto& I : inertias)
    for (int r = 0; r < 4; ++r) out.push_back({I, Vec3(n01(rng), n01(rng), n01(rng))});
  // Separatrix: with I = (1, 1.5, 3), S = m3^2/2 - m1^2/2 = 0 exactly for |m1| = |m3| = 0.5.
  for (double s1 : {1.0, -1.0})
    for (double s3 : {1.0, -1.0}) {
      out.push_back({{1.0, 1.5, 3.0}, Vec3(0.5 * s1, 0.3, 0.5 * s3)});
      out.push_back({{3.0, 1.0, 1.5}, Vec3(0.5 * s3, -0.5 * s1, 0.3)});  // permuted axes
    }
  // Equilibria: principal axes (including the unstable middle one) and an eigenspace.
  out.push_back({{1.0, 2.0, 3.0}, Vec3(0.0, 1.2, 0.0)});
  out.push_back({{1.0, 2.0, 3.0}, Vec3(0.0, 0.0, -0.8)});
  out.push_back({{1.0, 1.0, 3.0}, Vec3(0.6, -0.4, 0.0)});
  return out;
}

double max_abs_diff(const double* a, const double* b, int n) {
  double d = 0.0;
  for (int i = 0; i < n; ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

}  // namespace

TEST(RigidExact, MatchesTinyStepRkmk5ForAllOrderingsRegimesAndSigns) {
  const double T = 2.0;
  std::map<Regime, int> seen;
  double worst = 0.0;
  for (const Case& c : cases()) {
    FreeRigidBody model(c.I, {c.m.x(), c.m.y(), c.m.z()}, true);
    const RigidBodyExact ex(c.I, c.m);
    ++seen[ex.regime()];
    const auto ref = integrate_rkmk5(model, T, 2000);
    std::vector<double> y(12);
    model.exact_solution(T, y.data());
    const double scale = std::max(1.0, c.m.norm());
    worst = std::max(worst, max_abs_diff(y.data(), ref.data(), 12) / scale);
    EXPECT_LT(max_abs_diff(y.data(), ref.data(), 3), 1e-11 * scale)
        << "momentum, I = " << c.I[0] << "," << c.I[1] << "," << c.I[2] << " m0 = " << c.m.transpose()
        << " regime " << static_cast<int>(ex.regime());
    EXPECT_LT(max_abs_diff(y.data() + 3, ref.data() + 3, 9), 1e-11 * scale)
        << "attitude, I = " << c.I[0] << "," << c.I[1] << "," << c.I[2] << " m0 = " << c.m.transpose()
        << " regime " << static_cast<int>(ex.regime());
  }
  std::printf("[ exact ] %zu cases: max |exact - rkmk5(h = 1e-3)| / max(1, |m|) = %.2e over (m, Q) at T = %.0f\n",
              cases().size(), worst, T);
  EXPECT_GE(seen[Regime::AboutLargestAxis], 5);
  EXPECT_GE(seen[Regime::AboutSmallestAxis], 5);
  EXPECT_GE(seen[Regime::Separatrix], 8);
  EXPECT_GE(seen[Regime::Equilibrium], 3);
}

TEST(RigidExact, HamiltonianCasimirAndSpatialMomentumAreConstant) {
  for (const Case& c : cases()) {
    const RigidBodyExact ex(c.I, c.m);
    auto H = [&](const Vec3& m) { return 0.5 * (m.x() * m.x() / c.I[0] + m.y() * m.y() / c.I[1] + m.z() * m.z() / c.I[2]); };
    const double H0 = H(c.m), C0 = 0.5 * c.m.squaredNorm();
    for (double t : {0.37, 2.5, 11.0, 47.3}) {
      const Vec3 m = ex.momentum(t);
      const Mat3 Q = ex.attitude(t);
      EXPECT_NEAR(H(m), H0, 2e-15 * std::max(1.0, H0)) << "t = " << t;
      EXPECT_NEAR(0.5 * m.squaredNorm(), C0, 2e-15 * std::max(1.0, C0)) << "t = " << t;
      EXPECT_LT((Q * m - c.m).norm(), 1e-13 * std::max(1.0, c.m.norm())) << "t = " << t;
      EXPECT_LT(so3::orthogonality_error(Q), 1e-14);
    }
  }
}

TEST(RigidExact, InitialValueIsReproduced) {
  for (const Case& c : cases()) {
    const RigidBodyExact ex(c.I, c.m);
    EXPECT_LT((ex.momentum(0.0) - c.m).norm(), 1e-15 * std::max(1.0, c.m.norm()) * 4);
    EXPECT_LT((ex.attitude(0.0) - Mat3::Identity()).norm(), 1e-14);
  }
}

// The precession angle in closed form (elliptic integral of the third kind, Boost.Math) against
// adaptive Gauss-Kronrod quadrature of its rate, over several periods, in both regimes.
TEST(RigidExact, PrecessionAngleMatchesQuadrature) {
  int checked = 0;
  for (const Case& c : cases()) {
    const RigidBodyExact ex(c.I, c.m);
    if (ex.regime() == Regime::Equilibrium) continue;
    auto rate = [&](double t) { return ex.precession_rate(t); };
    double t_prev = 0.0, acc = 0.0;
    for (double t : {0.9, 4.0, 13.0}) {
      // 61-point Gauss-Kronrod rule on pieces of length <= 0.2 (the rate is analytic)
      const int pieces = static_cast<int>(std::ceil((t - t_prev) / 0.2));
      for (int p = 0; p < pieces; ++p) {
        const double a = t_prev + (t - t_prev) * p / pieces, b = t_prev + (t - t_prev) * (p + 1) / pieces;
        acc += boost::math::quadrature::gauss_kronrod<double, 61>::integrate(rate, a, b, 0);
      }
      t_prev = t;
      EXPECT_NEAR(ex.precession_angle(t), acc, 1e-12 * std::max(1.0, std::fabs(acc)))
          << "t = " << t << " I = " << c.I[0] << "," << c.I[1] << "," << c.I[2] << " m0 = " << c.m.transpose();
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);  // over several periods: lambda T ~ 10
}

TEST(RigidExact, ModelAdvertisesExactSolution) {
  FreeRigidBody model({1.0, 2.0, 3.0}, {0.1, 0.2, 0.3}, false);
  EXPECT_TRUE(model.capabilities().exact_solution);
  std::vector<double> y(3);
  model.exact_solution(0.0, y.data());
  EXPECT_DOUBLE_EQ(y[1], 0.2);
}

// The exact solution as the reference of a convergence test: RKMK orders 1..5 on (m, Q), fitted
// on the errors above 1e-12 (below that round-off takes over).
TEST(RigidExact, ServesAsReferenceForRkmkOrders) {
  FreeRigidBody model({2.88, 1.0, 1.88}, {0.3, -0.8, 0.52}, true);
  const double T = 2.0;
  std::vector<double> exact(12);
  model.exact_solution(T, exact.data());
  for (auto [method, order] : std::vector<std::pair<std::string, double>>{
           {"lie_euler", 1}, {"lie_euler_heun", 2}, {"rkmk3", 3}, {"rkmk4", 4}, {"rkmk5", 5}}) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;
    for (int n : {10, 14, 20, 28, 40, 57, 80, 113, 160}) {
      par::Context ctx(MPI_COMM_SELF);
      auto st = make_stepper(method, Config::from_pairs({}), model);
      st->bind(model, ctx);
      std::vector<double> y(12);
      model.initial_state(y.data());
      FixedStepOptions opt;
      opt.h = T / n;
      opt.steps = static_cast<std::uint64_t>(n);
      integrate_fixed(*st, y.data(), opt, nullptr);
      const double err = model.state_distance(y.data(), exact.data(), ctx);
      if (err < 1e-12) continue;
      const double x = std::log(T / n), e = std::log(err);
      sx += x, sy += e, sxx += x * x, sxy += x * e, k += 1;
    }
    ASSERT_GE(k, 4) << method;
    const double p = (k * sxy - sx * sy) / (k * sxx - sx * sx);
    std::printf("[ order ] %s vs the exact free rigid body: %.3f\n", method.c_str(), p);
    EXPECT_NEAR(p, order, 0.2) << method;
  }
}
