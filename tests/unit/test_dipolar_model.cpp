// Dipolar soft spheres [K] 3.2: forces and torques against finite differences of V, the
// vector field against [K] eq. (3.4) written with rot(Q^T dV/dQ), momentum conservation by the
// exact flow, the fast (Newton's third law) mode against the ordered one, initial states,
// configuration errors. Integration tests (orders, invariants, 2-D, HDF5) are in
// test_dipolar_integration.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "groups/so3.hpp"
#include "models/dipolar.hpp"

using namespace lie;

namespace {

using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

DipolarParams small_params(std::size_t n, double spread, std::uint64_t seed = 7) {
  DipolarParams p;
  p.n = n;
  p.spread = spread;
  p.seed = seed;
  p.dipole = {0.3, 1.0, 0.8};
  p.dipole_strength = 1.3;
  p.epsilon = 0.9;
  p.sigma = 0.8;
  p.mass = 1.7;
  p.inertia = {1.0, 1.88, 2.88};
  return p;
}

// A genuinely 3-D state: the seeded initial state plus random momenta.
std::vector<double> random_state(Dipolar& model, double momentum, std::uint64_t seed = 3) {
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  std::mt19937_64 g(seed);
  std::normal_distribution<double> n01(0.0, 1.0);
  for (std::size_t i = 0; i < model.local_bodies(); ++i) {
    double* s = &y[18 * i];
    for (int k = 0; k < 3; ++k) s[3 + k] = momentum * n01(g);
    for (int k = 0; k < 3; ++k) s[15 + k] = momentum * n01(g);
  }
  return y;
}

double min_distance(const std::vector<double>& y, std::size_t n) {
  double d = 1e300;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      double r2 = 0;
      for (int k = 0; k < 3; ++k) r2 += (y[18 * i + k] - y[18 * j + k]) * (y[18 * i + k] - y[18 * j + k]);
      d = std::min(d, std::sqrt(r2));
    }
  return d;
}

// Checks f against central differences of V: F_i = -dV/dq_i and the torque term
// alpha_i = -d/de V(Q_i exp(e e_k)) (left-trivialised derivative).
void check_against_fd(const DipolarParams& params, double tol) {
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(params, ctx);
  std::vector<double> y = random_state(model, 0.4);
  const std::size_t n = params.n;
  ASSERT_GT(min_distance(y, n), 0.7 * params.sigma) << "test configuration too dense";
  std::vector<double> f(model.space().alg_size());
  model.vector_field(0.0, y.data(), f.data());
  double fscale = 0.0;
  for (double v : f) fscale = std::max(fscale, std::fabs(v));
  ASSERT_GT(fscale, 1e-3) << "forces too weak to test";
  const double h = 1e-5;
  for (std::size_t i = 0; i < n; ++i) {
    double* s = &y[18 * i];
    for (int k = 0; k < 3; ++k) {
      const double q0 = s[k];
      s[k] = q0 + h;
      const double vp = model.potential_energy(y.data());
      s[k] = q0 - h;
      const double vm = model.potential_energy(y.data());
      s[k] = q0;
      EXPECT_NEAR(f[12 * i + 3 + k], -(vp - vm) / (2 * h), tol * fscale) << "force body " << i << " comp " << k;
    }
    const Mat3 Q = Eigen::Map<const RowMat3>(s + 6);
    for (int k = 0; k < 3; ++k) {
      const Vec3 e = h * Vec3::Unit(k);
      Eigen::Map<RowMat3>(s + 6) = Q * so3::exp(e);
      const double vp = model.potential_energy(y.data());
      Eigen::Map<RowMat3>(s + 6) = Q * so3::exp(-e);
      const double vm = model.potential_energy(y.data());
      Eigen::Map<RowMat3>(s + 6) = Q;
      EXPECT_NEAR(f[12 * i + 9 + k], -(vp - vm) / (2 * h), tol * fscale) << "torque body " << i << " comp " << k;
    }
    for (int k = 0; k < 3; ++k) {
      EXPECT_DOUBLE_EQ(f[12 * i + k], s[3 + k] / params.mass);
      EXPECT_DOUBLE_EQ(f[12 * i + 6 + k], s[15 + k] / params.inertia[static_cast<std::size_t>(k)]);
    }
  }
}

}  // namespace

TEST(DipolarModel, ForcesAndTorquesMatchFiniteDifferences) {
  check_against_fd(small_params(7, 3.0), 2e-7);
}

TEST(DipolarModel, LennardJonesAttractionMatchesFiniteDifferences) {
  DipolarParams p = small_params(7, 3.0, 11);
  p.lj_attraction = true;
  check_against_fd(p, 2e-7);
}

TEST(DipolarModel, PureDipolesAndPureSoftSpheres) {
  DipolarParams p = small_params(6, 3.0, 5);
  p.epsilon = 0.0;
  check_against_fd(p, 2e-7);
  p.epsilon = 1.0;
  p.dipole_strength = 0.0;
  check_against_fd(p, 2e-7);
}

TEST(DipolarModel, CutoffMatchesFiniteDifferencesOfTruncatedV) {
  DipolarParams p = small_params(8, 3.0, 13);
  // Put the cutoff in the middle of the largest gap between pair distances, so that no pair
  // crosses it under the finite-difference steps.
  par::Context ctx(MPI_COMM_SELF);
  Dipolar probe(p, ctx);
  std::vector<double> y = random_state(probe, 0.4);
  std::vector<double> d;
  for (std::size_t i = 0; i < p.n; ++i)
    for (std::size_t j = i + 1; j < p.n; ++j) {
      double r2 = 0;
      for (int k = 0; k < 3; ++k) r2 += (y[18 * i + k] - y[18 * j + k]) * (y[18 * i + k] - y[18 * j + k]);
      d.push_back(std::sqrt(r2));
    }
  std::sort(d.begin(), d.end());
  std::size_t best = d.size() / 4;
  for (std::size_t k = d.size() / 4; k + 1 < 3 * d.size() / 4; ++k)
    if (d[k + 1] - d[k] > d[best + 1] - d[best]) best = k;
  p.cutoff = 0.5 * (d[best] + d[best + 1]);
  check_against_fd(p, 2e-7);
  // And the cutoff really removes pairs: V differs from the all-pairs V.
  DipolarParams all = p;
  all.cutoff = 0.0;
  Dipolar a(all, ctx), c(p, ctx);
  EXPECT_GT(std::fabs(a.potential_energy(y.data()) - c.potential_energy(y.data())), 1e-6);
}

// [K] eq. (3.4) literally: Q' = Q hat(I^-1 m), m' = m x I^-1 m - rot(Q^T dV/dQ), with dV/dQ the
// 3x3 matrix of partial derivatives of V in the entries of Q (finite differences) and
// rot(A) = (a32 - a23, a13 - a31, a21 - a12). Checks that psi_*(f) of factor rigid_body_left is
// this vector field.
TEST(DipolarModel, GeneratorOfFIsKjerEquation34) {
  const DipolarParams p = small_params(5, 2.6, 21);
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(p, ctx);
  std::vector<double> y = random_state(model, 0.7);
  std::vector<double> dy(y.size());
  model.ambient_field(0.0, y.data(), dy.data());
  const double h = 1e-6;
  for (std::size_t i = 0; i < p.n; ++i) {
    double* s = &y[18 * i];
    const Vec3 m(s[15], s[16], s[17]);
    const Vec3 w(m.x() / p.inertia[0], m.y() / p.inertia[1], m.z() / p.inertia[2]);
    const Mat3 Q = Eigen::Map<const RowMat3>(s + 6);
    Mat3 dVdQ;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        double& entry = s[6 + 3 * a + b];
        const double e0 = entry;
        entry = e0 + h;
        const double vp = model.potential_energy(y.data());
        entry = e0 - h;
        const double vm = model.potential_energy(y.data());
        entry = e0;
        dVdQ(a, b) = (vp - vm) / (2 * h);
      }
    const Mat3 A = Q.transpose() * dVdQ;
    const Vec3 rot(A(2, 1) - A(1, 2), A(0, 2) - A(2, 0), A(1, 0) - A(0, 1));
    const Vec3 mdot = m.cross(w) - rot;
    const Mat3 Qdot = Q * so3::hat(w);
    for (int k = 0; k < 3; ++k) {
      EXPECT_DOUBLE_EQ(dy[18 * i + k], s[3 + k] / p.mass);
      EXPECT_NEAR(dy[18 * i + 15 + k], mdot(k), 1e-7 * (1.0 + mdot.norm())) << "m' body " << i;
    }
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) EXPECT_NEAR(dy[18 * i + 6 + 3 * a + b], Qdot(a, b), 1e-15);
  }
}

// The exact flow conserves P = sum p_i and L = sum q_i x p_i + Q_i m_i: their time derivatives
// along the vector field, sum F_i and sum q_i x F_i + Q_i alpha_i (the p x p and
// Q (w x m + m x w) terms vanish identically), are zero up to rounding.
TEST(DipolarModel, ExactFlowConservesLinearAndAngularMomentum) {
  DipolarParams p = small_params(12, 3.5, 17);
  p.lj_attraction = true;
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(p, ctx);
  std::vector<double> y = random_state(model, 0.5);
  std::vector<double> f(model.space().alg_size()), dy(y.size());
  model.vector_field(0.0, y.data(), f.data());
  model.ambient_field(0.0, y.data(), dy.data());
  Vec3 dP = Vec3::Zero(), dL = Vec3::Zero();
  double scale = 0.0;
  for (std::size_t i = 0; i < p.n; ++i) {
    const double* s = &y[18 * i];
    const Vec3 q(s[0], s[1], s[2]), pm(s[3], s[4], s[5]);
    const Vec3 F(f[12 * i + 3], f[12 * i + 4], f[12 * i + 5]);
    const Mat3 Q = Eigen::Map<const RowMat3>(s + 6);
    const Mat3 Qdot = Eigen::Map<const RowMat3>(&dy[18 * i + 6]);
    const Vec3 m(s[15], s[16], s[17]), mdot(dy[18 * i + 15], dy[18 * i + 16], dy[18 * i + 17]);
    const Vec3 qdot(dy[18 * i], dy[18 * i + 1], dy[18 * i + 2]);
    dP += F;
    dL += qdot.cross(pm) + q.cross(F) + Qdot * m + Q * mdot;  // d/dt (q x p + Q m)
    scale = std::max({scale, F.norm() * (1.0 + q.norm()), mdot.norm()});
  }
  ASSERT_GT(scale, 1e-3);
  EXPECT_LT(dP.norm(), 1e-14 * scale * p.n);
  EXPECT_LT(dL.norm(), 1e-14 * scale * p.n);
  // Mutation check of the test itself: dropping the torques breaks it.
  Vec3 dL_no_torque = Vec3::Zero();
  for (std::size_t i = 0; i < p.n; ++i) {
    const double* s = &y[18 * i];
    dL_no_torque += Vec3(s[0], s[1], s[2]).cross(Vec3(f[12 * i + 3], f[12 * i + 4], f[12 * i + 5]));
  }
  EXPECT_GT(dL_no_torque.norm(), 1e-6 * scale);
}

// deterministic = false changes only the observables' global reductions: the pair sums take
// the same tiled path (bitwise equal fields), the energies agree to rounding.
TEST(DipolarModel, FastModeSharesThePairPathAndAgreesWithExactReductions) {
  DipolarParams p = small_params(37, 6.0, 23);
  p.lj_attraction = true;
  par::Context ordered(MPI_COMM_SELF, true), fast(MPI_COMM_SELF, false);
  Dipolar a(p, ordered), b(p, fast);
  ASSERT_TRUE(a.ordered_sums());
  ASSERT_FALSE(b.ordered_sums());
  std::vector<double> y = random_state(a, 0.5);
  std::vector<double> fa(a.space().alg_size()), fb(fa.size());
  a.vector_field(0.0, y.data(), fa.data());
  b.vector_field(0.0, y.data(), fb.data());
  double scale = 0.0, diff = 0.0;
  for (std::size_t k = 0; k < fa.size(); ++k) {
    scale = std::max(scale, std::fabs(fa[k]));
    diff = std::max(diff, std::fabs(fa[k] - fb[k]));
  }
  EXPECT_GT(scale, 0.0);
  EXPECT_EQ(diff, 0.0) << "both modes compute the pair sums in the same fixed tiles";
  EXPECT_NEAR(a.potential_energy(y.data()), b.potential_energy(y.data()), 1e-13 * std::fabs(a.potential_energy(y.data())));
}

TEST(DipolarModel, RandomInitialStateFollowsKjer) {
  DipolarParams p;  // [K] 3.2.2 defaults: N = 100, mubar = (0, 1, 1), spread = N
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(p, ctx);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  double qmax = 0.0, ortho = 0.0, momenta = 0.0, det_min = 10.0;
  double mean[3] = {0, 0, 0};
  for (std::size_t i = 0; i < p.n; ++i) {
    const double* s = &y[18 * i];
    for (int k = 0; k < 3; ++k) {
      qmax = std::max(qmax, std::fabs(s[k]));
      mean[k] += s[k] / static_cast<double>(p.n);
      momenta = std::max({momenta, std::fabs(s[3 + k]), std::fabs(s[15 + k])});
    }
    const Mat3 Q = Eigen::Map<const RowMat3>(s + 6);
    ortho = std::max(ortho, so3::orthogonality_error(Q));
    det_min = std::min(det_min, Q.determinant());
  }
  EXPECT_EQ(qmax, 100.0);  // largest component exactly at +-N
  EXPECT_LT(ortho, 1e-14);  // a few ulps per entry
  EXPECT_GT(det_min, 0.999);
  EXPECT_EQ(momenta, 0.0);
  for (double m : mean) EXPECT_LT(std::fabs(m), 15.0);  // centred Gaussian
  // Reproducible, and the seed matters.
  Dipolar again(p, ctx);
  std::vector<double> y2(y.size());
  again.initial_state(y2.data());
  EXPECT_EQ(y, y2);
  p.seed = 2;
  Dipolar other(p, ctx);
  other.initial_state(y2.data());
  EXPECT_NE(y, y2);
}

TEST(DipolarModel, ConfigErrorsNameTheKey) {
  auto make = [](std::vector<std::pair<std::string, std::string>> kv) {
    kv.emplace_back("model", "dipolar");
    par::Context ctx(MPI_COMM_SELF);
    return make_model(Config::from_pairs(kv), ctx);
  };
  EXPECT_NO_THROW(make({{"dipolar.N", "5"}}));
  auto expect_usage = [&](std::vector<std::pair<std::string, std::string>> kv, const std::string& key) {
    try {
      make(kv);
      ADD_FAILURE() << "no error for " << key;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  expect_usage({{"dipolar.inertia", "1, 2"}}, "dipolar.inertia");
  expect_usage({{"dipolar.dipole", "1, 1"}}, "dipolar.dipole");
  expect_usage({{"dipolar.initial", "random2d"}, {"dipolar.dipole", "1, 0, 1"}}, "dipolar.dipole");
  expect_usage({{"dipolar.initial", "file"}}, "dipolar.file");
  expect_usage({{"dipolar.initial", "file"}, {"dipolar.file", "/nonexistent/x.h5"}}, "dipolar.file");
  expect_usage({{"dipolar.initial", "cubic"}}, "dipolar.initial");
  // the lattice start (issue 28): its site counts, N, and the box it fills
  expect_usage({{"dipolar.initial", "lattice"}}, "dipolar.lattice");
  expect_usage({{"dipolar.initial", "lattice"}, {"dipolar.lattice", "4, 4"}}, "dipolar.lattice");
  expect_usage({{"dipolar.initial", "lattice"}, {"dipolar.lattice", "4, 4, 2.5"}}, "dipolar.lattice");
  expect_usage({{"dipolar.initial", "lattice"}, {"dipolar.lattice", "4, 4, 4"}, {"dipolar.N", "60"}}, "dipolar.N");
  expect_usage({{"dipolar.initial", "lattice"}, {"dipolar.lattice", "4, 4, 4"}}, "dipolar.box");
  EXPECT_NO_THROW(make({{"dipolar.initial", "lattice"}, {"dipolar.lattice", "4, 4, 4"}, {"dipolar.box", "5, 5, 5"},
                        {"dipolar.cutoff", "2"}}));
}

// The cutoff path bins bodies into cells; it must find exactly the pairs within the cutoff:
// compare with the masked all-pairs kernel run directly on all bodies.
TEST(DipolarModel, CellListFindsAllPairsWithinCutoff) {
  DipolarParams p = small_params(300, 9.0, 31);
  p.cutoff = 2.2;
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(p, ctx);
  std::vector<double> y = random_state(model, 0.3);
  std::vector<double> f(model.space().alg_size());
  model.vector_field(0.0, y.data(), f.data());
  dipolar::PartnerSoA all;
  all.resize(p.n);
  std::vector<double> mu(3 * p.n);
  for (std::size_t j = 0; j < p.n; ++j) {
    const double* s = &y[18 * j];
    for (int a = 0; a < 3; ++a)
      mu[3 * j + a] = s[6 + 3 * a] * p.dipole[0] + s[7 + 3 * a] * p.dipole[1] + s[8 + 3 * a] * p.dipole[2];
    const double km[3] = {p.dipole_strength * mu[3 * j], p.dipole_strength * mu[3 * j + 1], p.dipole_strength * mu[3 * j + 2]};
    all.set(j, s, km);
  }
  dipolar::PairParams pp;
  pp.eps = p.epsilon;
  pp.sigma = p.sigma;
  pp.cutoff2 = p.cutoff * p.cutoff;
  double scale = 0.0, diff = 0.0;
  std::size_t interacting = 0;
  for (std::size_t i = 0; i < p.n; ++i) {
    dipolar::RowSums r;
    dipolar::ordered_row(all, 0, p.n, i, &y[18 * i], &mu[3 * i], pp, false, r);
    if (r.s != 0.0) ++interacting;
    for (int k = 0; k < 3; ++k) {
      const double F = r.force[k] + r.s * mu[3 * i + k];
      scale = std::max(scale, std::fabs(F));
      diff = std::max(diff, std::fabs(F - f[12 * i + 3 + k]));
    }
  }
  EXPECT_GT(interacting, p.n / 4) << "too few pairs within the cutoff to test";
  EXPECT_LT(interacting, p.n) << "some bodies should have no partner within the cutoff";
  EXPECT_LT(diff, 1e-13 * scale);
}
