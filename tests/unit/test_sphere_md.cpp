// Molecular dynamics on the sphere, [L] Example 6: the icosphere (642 vertices at level 3, 5120
// faces at level 4, unit vertices, closed oriented mesh); the sigma rule; dV/dq against finite
// differences of V; the second-order equation (39) against an independent implementation written
// from the paper; the initial vortices; energy behaviour and order 2 of the explicit variational
// integrator [L] (29)-(30).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "groups/maps.hpp"
#include "models/icosphere.hpp"
#include "models/sphere_md.hpp"
#include "unit/fixed_step_testing.hpp"

using namespace lie;
using namespace lie::fixed_step_testing;

namespace {

SphereMdParameters level(int l) {
  SphereMdParameters p;
  p.level = l;
  return p;
}

std::vector<double> positions(const std::vector<double>& y) {
  std::vector<double> q(y.size() / 2);
  for (std::size_t i = 0; i < q.size() / 3; ++i)
    for (int c = 0; c < 3; ++c) q[3 * i + c] = y[6 * i + c];
  return q;
}

// The initial state moved off the mesh a little (random rotations of each q_i, random tangent w_i).
std::vector<double> perturbed_state(const Model& model, std::uint64_t seed) {
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n01(0.0, 1.0);
  for (std::size_t i = 0; i < y.size() / 6; ++i) {
    const Vec3 q = (CMap3(&y[6 * i]) + 0.02 * Vec3(n01(rng), n01(rng), n01(rng))).normalized();
    Vec3 w = Vec3(n01(rng), n01(rng), n01(rng));
    w -= w.dot(q) * q;
    Map3{&y[6 * i]} = q;
    Map3{&y[6 * i + 3]} = w;
  }
  return y;
}

}  // namespace

TEST(Icosphere, CountsUnitVerticesAndOrientation) {
  for (int L = 0; L <= 4; ++L) {
    const Icosphere s = make_icosphere(L);
    const std::size_t p = std::size_t(1) << (2 * L);  // 4^L
    EXPECT_EQ(s.vertices.size(), 10 * p + 2);
    EXPECT_EQ(s.faces.size(), 20 * p);
    EXPECT_EQ(s.edges().size(), 30 * p);
    // Euler characteristic of the sphere
    EXPECT_EQ(long(s.vertices.size()) - long(s.edges().size()) + long(s.faces.size()), 2);
    for (const Vec3& v : s.vertices) EXPECT_NEAR(v.norm(), 1.0, 4.5e-16);  // 2 ulp
    for (const auto& f : s.faces) {  // outward (counter-clockwise seen from outside)
      const Vec3 a = s.vertices[std::size_t(f[0])], b = s.vertices[std::size_t(f[1])], c = s.vertices[std::size_t(f[2])];
      EXPECT_GT((b - a).cross(c - a).dot(a + b + c), 0.0);
    }
  }
  EXPECT_EQ(make_icosphere(3).vertices.size(), 642u);   // [L] Example 6: the molecules
  EXPECT_EQ(make_icosphere(4).faces.size(), 5120u);     // [L] Fig. 7: the faces
}

// sigma = d_nn / 2^(1/6): the LJ pair force 4 eps (12 s^12/r^13 - 6 s^6/r^7) vanishes at the mean
// neighbour chord distance; the neighbour distances of the mesh spread by a few per cent around it.
TEST(SphereMd, SigmaGivesZeroForceAtTheMeanNeighbourDistance) {
  par::Context ctx(MPI_COMM_SELF);
  SphereMd model(level(3), ctx);
  EXPECT_EQ(model.sphere_count(), 642u);
  const Icosphere s = make_icosphere(3);
  double sum = 0.0, lo = 1e300, hi = 0.0;
  for (const auto& e : s.edges()) {
    const double d = (s.vertices[std::size_t(e[0])] - s.vertices[std::size_t(e[1])]).norm();
    sum += d, lo = std::min(lo, d), hi = std::max(hi, d);
  }
  const double dnn = sum / double(s.edges().size());
  EXPECT_NEAR(model.mean_neighbour_distance(), dnn, 1e-14);  // plain vs exact sum
  const double sg = model.sigma(), r = dnn;
  const double force = 4 * 0.01 * (12 * std::pow(sg, 12) / std::pow(r, 13) - 6 * std::pow(sg, 6) / std::pow(r, 7));
  EXPECT_NEAR(force, 0.0, 1e-12 * 4 * 0.01 * 6 / r);
  std::printf("[ sigma ] d_nn = %.6f (edges %.6f .. %.6f), sigma = %.6f\n", dnn, lo, hi, sg);
  EXPECT_LT(hi / lo, 1.25);
}

TEST(SphereMd, GradientMatchesFiniteDifferences) {
  par::Context ctx(MPI_COMM_SELF);
  SphereMd model(level(2), ctx);
  const auto q = positions(perturbed_state(model, 5));
  std::vector<double> g(q.size());
  model.potential_gradient(q.data(), g.data());
  double gmax = 0.0;
  for (double v : g) gmax = std::max(gmax, std::fabs(v));
  for (std::size_t k = 0; k < q.size(); k += 7) {
    auto qp = q, qm = q;
    const double d = 1e-6;
    qp[k] += d, qm[k] -= d;
    EXPECT_NEAR(g[k], (model.potential(qp.data()) - model.potential(qm.data())) / (2 * d), 1e-6 * gmax) << k;
  }
}

// [L] (39): m q'' = -m (q'.q') q - q x (q x sum_j 4 eps (q - q_j)/|q - q_j| [12 s^12/r^13 - 6 s^6/r^7]),
// computed directly; the model's q'' = d/dt (w x q) = w' x q + w x q' from its ambient field.
TEST(SphereMd, SecondOrderFormMatchesEq39) {
  par::Context ctx(MPI_COMM_SELF);
  SphereMd model(level(2), ctx);
  const auto y = perturbed_state(model, 11);
  const std::size_t n = model.sphere_count();
  std::vector<double> dy(y.size());
  model.ambient_field(0.0, y.data(), dy.data());
  const double eps = 0.01, s = model.sigma(), m = 1.0;
  double worst = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3 qi = CMap3(&y[6 * i]), wi = CMap3(&y[6 * i + 3]);
    const Vec3 qdot = wi.cross(qi);
    Vec3 sum = Vec3::Zero();
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const Vec3 d = qi - CMap3(&y[6 * j]);
      const double r = d.norm();
      sum += 4 * eps * d / r * (12 * std::pow(s, 12) / std::pow(r, 13) - 6 * std::pow(s, 6) / std::pow(r, 7));
    }
    const Vec3 qddot_paper = (-m * qdot.squaredNorm() * qi - qi.cross(qi.cross(sum))) / m;
    const Vec3 qddot_model = CMap3(&dy[6 * i + 3]).cross(qi) + wi.cross(CMap3(&dy[6 * i]));
    EXPECT_LT((CMap3(&dy[6 * i]) - qdot).norm(), 1e-15);
    worst = std::max(worst, (qddot_model - qddot_paper).norm());
    scale = std::max(scale, qddot_paper.norm());
  }
  EXPECT_LT(worst, 1e-12 * scale);
}

// Two vortices 30 degrees apart about (+-sin 15, 0, cos 15), w_i tangent, fastest near the axes.
TEST(SphereMd, InitialVortices) {
  par::Context ctx(MPI_COMM_SELF);
  SphereMd model(level(3), ctx);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  const double h = 15.0 * M_PI / 180.0;
  const Vec3 a1(std::sin(h), 0, std::cos(h)), a2(-std::sin(h), 0, std::cos(h));
  EXPECT_NEAR(std::acos(a1.dot(a2)) * 180 / M_PI, 30.0, 1e-12);
  double far = 0.0, near = 0.0, circulation = 0.0;
  for (std::size_t i = 0; i < 642; ++i) {
    const Vec3 q = CMap3(&y[6 * i]), w = CMap3(&y[6 * i + 3]);
    EXPECT_NEAR(q.dot(w), 0.0, 1e-15);
    const double speed = w.cross(q).norm();
    if (q.z() < 0) {
      far = std::max(far, speed);
    } else {
      near = std::max(near, speed);
    }
    // both vortices turn the same way: (a1 + a2) . (q x q') >= 0 everywhere
    const double c = (a1 + a2).dot(q.cross(w.cross(q)));
    EXPECT_GE(c, -1e-15);
    circulation += c;
  }
  EXPECT_GT(circulation, 1.0);
  EXPECT_LT(far, 1e-3 * near);  // the southern hemisphere is at rest
}

// The explicit VI on the vortex state (level 1, 42 molecules): energy error bounded without
// drift, quartered when h is halved; unit length to round-off.
TEST(SphereMd, ExplicitVariationalIntegratorEnergyBehaviour) {
  par::Context ctx(MPI_COMM_SELF);
  SphereMd model(level(1), ctx);
  const auto a = energy_run(model, ctx, "lgvi_explicit", 0.01, 200);
  const auto b = energy_run(model, ctx, "lgvi_explicit", 0.005, 400);
  std::printf("[ energy ] sphere_md lgvi_explicit T = 2: max |dE| %.3e (h = 0.01), %.3e (h = 0.005), E0 = %.4e\n",
              std::max(a.first, a.second), std::max(b.first, b.second), a.E0);
  EXPECT_LT(a.second, 1.5 * a.first);
  const double ratio = std::max(a.first, a.second) / std::max(b.first, b.second);
  EXPECT_NEAR(ratio, 4.0, 0.6);
  EXPECT_LT(a.unit, 1e-13);
  EXPECT_LT(b.unit, 1e-13);
}

TEST(SphereMd, ExplicitVariationalIntegratorIsSecondOrder) {
  par::Context ctx(MPI_COMM_SELF);
  SphereMd model(level(1), ctx);
  const double T = 0.5;
  const auto ref = run(model, ctx, "rkmk5", T, 2000);
  std::vector<double> hs, errs;
  for (long n : {50L, 100L, 200L, 400L}) {
    const auto y = run(model, ctx, "lgvi_explicit", T, n);
    hs.push_back(T / double(n));
    errs.push_back(dist(y, ref));
    EXPECT_LT(unit_error(y), 1e-13);
  }
  const double p = slope(hs, errs);
  std::printf("[ order ] lgvi_explicit sphere_md: errors %.3e %.3e %.3e %.3e  slope %.3f\n", errs[0], errs[1],
              errs[2], errs[3], p);
  EXPECT_NEAR(p, 2.0, 0.1);
}

// V depends on chord distances only, so the angular momentum sum_i m q_i x q_i' is conserved; the
// variational integrator preserves it to round-off ([L] 3.4: momentum preserving), a classical
// method of the same order (rk2) only to its truncation error.
TEST(SphereMd, ExplicitVariationalIntegratorPreservesAngularMomentum) {
  par::Context ctx(MPI_COMM_SELF);
  SphereMd model(level(1), ctx);
  std::vector<double> y0(model.space().state_size());
  model.initial_state(y0.data());
  Observables o0;
  model.observables(0.0, y0.data(), o0);
  const Vec3 L0(o0.get("angular_momentum_x"), o0.get("angular_momentum_y"), o0.get("angular_momentum_z"));
  EXPECT_GT(L0.norm(), 0.1);
  auto drift = [&](const std::string& method) {
    const auto y = run(model, ctx, method, 2.0, 200);
    Observables o;
    model.observables(2.0, y.data(), o);
    return (Vec3(o.get("angular_momentum_x"), o.get("angular_momentum_y"), o.get("angular_momentum_z")) - L0).norm();
  };
  const double vi = drift("lgvi_explicit"), rk = drift("rk2");
  std::printf("[ momentum ] sphere_md |L - L0| after 200 steps: lgvi_explicit %.2e, rk2 %.2e (|L0| = %.3f)\n", vi, rk,
              L0.norm());
  EXPECT_LT(vi, 1e-13 * L0.norm());
  EXPECT_GT(rk, 1e3 * vi);
}
