// Array of magnetic dipoles, [L] Example 5: dV/dq against finite differences of V; V and the
// torque equation (37) against a straightforward independent implementation written from the
// paper; the paper's initial state; energy behaviour and order 2 of the explicit variational
// integrator [L] (29)-(30).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "groups/maps.hpp"
#include "models/magnet_array.hpp"
#include "unit/fixed_step_testing.hpp"

using namespace lie;
using namespace lie::fixed_step_testing;

namespace {

MagnetArrayParameters grid(std::size_t rows, std::size_t cols) {
  MagnetArrayParameters p;
  p.rows = rows, p.cols = cols;
  return p;
}

// Random unit q_i and tangent w_i (|w| ~ 3 rad/s).
std::vector<double> random_state(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n01(0.0, 1.0);
  std::vector<double> y(6 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3 q = Vec3(n01(rng), n01(rng), n01(rng)).normalized();
    Vec3 w = 3.0 * Vec3(n01(rng), n01(rng), n01(rng));
    w -= w.dot(q) * q;
    Map3{&y[6 * i]} = q;
    Map3{&y[6 * i + 3]} = w;
  }
  return y;
}

std::vector<double> positions(const std::vector<double>& y) {
  std::vector<double> q(y.size() / 2);
  for (std::size_t i = 0; i < q.size() / 3; ++i)
    for (int c = 0; c < 3; ++c) q[3 * i + c] = y[6 * i + c];
  return q;
}

// Independent implementation of [L] Example 5, written from the paper: pivots of a rows x cols
// grid of spacing 1.2 l in the e1-e2 plane (row-major), V = 1/2 sum_{i != j} mu nu^2/(4 pi |r|^3)
// [q_i.q_j - 3 (q_i.r)(q_j.r)/|r|^2], and w_i' of (37).
struct PaperMagnets {
  std::size_t rows, cols;
  double m = 0.05, l = 0.02, nu = 0.1, mu = 4e-7 * M_PI;
  Vec3 pivot(std::size_t i) const { return 1.2 * l * Vec3(double(i % cols), double(i / cols), 0.0); }
  double V(const std::vector<double>& q) const {
    const std::size_t n = rows * cols;
    double v = 0.0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        if (i == j) continue;
        const Vec3 r = pivot(j) - pivot(i), qi = CMap3(&q[3 * i]), qj = CMap3(&q[3 * j]);
        const double rn = r.norm();
        v += 0.5 * mu * nu * nu / (4 * M_PI * std::pow(rn, 3)) * (qi.dot(qj) - 3 / (rn * rn) * qi.dot(r) * qj.dot(r));
      }
    return v;
  }
  Vec3 wdot(const std::vector<double>& q, std::size_t i) const {  // (37)
    Vec3 s = Vec3::Zero();
    for (std::size_t j = 0; j < rows * cols; ++j) {
      if (j == i) continue;
      const Vec3 r = pivot(j) - pivot(i), qj = CMap3(&q[3 * j]);
      const double rn = r.norm();
      s += mu * nu * nu / (4 * M_PI * std::pow(rn, 3)) * (qj - 3 / (rn * rn) * r * qj.dot(r));
    }
    return -CMap3(&q[3 * i]).cross(s) / (m * l * l / 12.0);
  }
};

}  // namespace

TEST(MagnetArray, GradientMatchesFiniteDifferences) {
  par::Context ctx(MPI_COMM_SELF);
  MagnetArray model(grid(3, 4), ctx);
  const auto y = random_state(12, 3);
  const auto q = positions(y);
  std::vector<double> g(q.size());
  model.potential_gradient(q.data(), g.data());
  double gmax = 0.0;
  for (double v : g) gmax = std::max(gmax, std::fabs(v));
  for (std::size_t k = 0; k < q.size(); ++k) {
    auto qp = q, qm = q;
    const double d = 1e-5;
    qp[k] += d, qm[k] -= d;
    // V is bilinear in q: the central difference is exact up to round-off
    EXPECT_NEAR(g[k], (model.potential(qp.data()) - model.potential(qm.data())) / (2 * d), 1e-9 * gmax) << k;
  }
}

TEST(MagnetArray, MatchesAnIndependentImplementationOfEq37) {
  par::Context ctx(MPI_COMM_SELF);
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{4, 4}, {3, 5}}) {
    MagnetArray model(grid(rows, cols), ctx);
    PaperMagnets paper{rows, cols};
    const std::size_t n = rows * cols;
    const auto y = random_state(n, 7 + rows);
    const auto q = positions(y);
    const double V = model.potential(q.data());
    EXPECT_NEAR(V, paper.V(q), 1e-12 * std::fabs(V));
    Observables o;
    model.observables(0.0, y.data(), o);
    EXPECT_NEAR(o.get("potential_energy"), paper.V(q), 1e-12 * std::fabs(V));
    std::vector<double> dy(y.size());
    model.ambient_field(0.0, y.data(), dy.data());
    for (std::size_t i = 0; i < n; ++i) {
      const Vec3 qi = CMap3(&y[6 * i]), wi = CMap3(&y[6 * i + 3]);
      EXPECT_LT((CMap3(&dy[6 * i]) - wi.cross(qi)).norm(), 1e-14);  // (38)
      const Vec3 ref = paper.wdot(q, i);
      EXPECT_LT((CMap3(&dy[6 * i + 3]) - ref).norm(), 1e-11 * ref.norm()) << i;  // (37)
    }
  }
}

TEST(MagnetArray, PaperInitialState) {
  par::Context ctx(MPI_COMM_SELF);
  MagnetArray model(grid(4, 4), ctx);
  std::vector<double> y(96);
  model.initial_state(y.data());
  const double printed[3] = {0.3536, 0.3536, -0.8660};
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(y[6 * 15 + c], printed[c], 0.5e-4);  // rounds to the printed q_16
  EXPECT_NEAR(CMap3(&y[90]).norm(), 1.0, 1e-16);
  for (std::size_t i = 0; i < 15; ++i) EXPECT_EQ(CMap3(&y[6 * i]), Vec3(1, 0, 0));
  EXPECT_EQ(CMap3(&y[3]), Vec3(0, 0.5, 0));
  for (std::size_t i = 1; i < 16; ++i) EXPECT_EQ(CMap3(&y[6 * i + 3]), Vec3::Zero());
  EXPECT_DOUBLE_EQ(model.inertia(3, 3), 0.05 * 0.02 * 0.02 / 12.0);
  EXPECT_EQ(model.inertia(3, 4), 0.0);
}

// The explicit VI on the paper's state: energy error bounded without drift (second half of the
// run no worse than the first), quartered when h is halved, unit length to round-off.
TEST(MagnetArray, ExplicitVariationalIntegratorEnergyBehaviour) {
  par::Context ctx(MPI_COMM_SELF);
  MagnetArray model(grid(4, 4), ctx);
  const auto a = energy_run(model, ctx, "lgvi_explicit", 2e-3, 2500);
  const auto b = energy_run(model, ctx, "lgvi_explicit", 1e-3, 5000);
  std::printf("[ energy ] magnet_array lgvi_explicit T = 5: max |dE| %.3e (h = 2e-3), %.3e (h = 1e-3), E0 = %.4e\n",
              std::max(a.first, a.second), std::max(b.first, b.second), a.E0);
  EXPECT_LT(std::max(a.first, a.second), 1e-3 * std::fabs(a.E0));
  EXPECT_LT(a.second, 1.5 * a.first);
  EXPECT_LT(b.second, 1.5 * b.first);
  const double ratio = std::max(a.first, a.second) / std::max(b.first, b.second);
  EXPECT_NEAR(ratio, 4.0, 0.6);
  EXPECT_LT(a.unit, 1e-13);
  EXPECT_LT(b.unit, 1e-13);
}

TEST(MagnetArray, ExplicitVariationalIntegratorIsSecondOrder) {
  par::Context ctx(MPI_COMM_SELF);
  MagnetArray model(grid(4, 4), ctx);
  const double T = 0.5;
  const auto ref = run(model, ctx, "rkmk5", T, 2000);
  std::vector<double> hs, errs;
  for (long n : {100L, 200L, 400L, 800L}) {
    const auto y = run(model, ctx, "lgvi_explicit", T, n);
    hs.push_back(T / double(n));
    errs.push_back(dist(y, ref));
    EXPECT_LT(unit_error(y), 1e-14);
  }
  const double p = slope(hs, errs);
  std::printf("[ order ] lgvi_explicit magnet_array: errors %.3e %.3e %.3e %.3e  slope %.3f\n", errs[0], errs[1],
              errs[2], errs[3], p);
  EXPECT_NEAR(p, 2.0, 0.1);
}

// The classical baseline integrates (37)-(38) in R^96 (ambient field): with projection off, |q_i|
// drifts at the level of its local error (what [L] Fig. 5(c) shows for RK45).
TEST(MagnetArray, ClassicalBaselineLeavesTheSphere) {
  par::Context ctx(MPI_COMM_SELF);
  MagnetArray model(grid(4, 4), ctx);
  const auto y = run(model, ctx, "rk4", 1.0, 100);
  EXPECT_GT(unit_error(y), 1e-12);
  EXPECT_LT(unit_error(y), 1e-3);
}
