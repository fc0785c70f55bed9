// Elastic rod, [L] Example 4 (src/models/elastic_rod.hpp): the inertia matrix as printed (and
// its eq. (36)), positive definite; the physical alternative against the kinetic energy of a
// chain of uniform rods; the gradient against finite differences of an independent potential;
// both formulations against an independent implementation of (36); energy of a tight reference;
// order 2 and round-off unit length of the implicit variational integrator; [L]'s VI numbers.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <cmath>
#include <cstdio>
#include <vector>

#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/elastic_rod.hpp"
#include "unit/fixed_step_testing.hpp"

using namespace lie;
using namespace lie::fixed_step_testing;

namespace {

using V3 = Eigen::Vector3d;

std::unique_ptr<Model> make(par::Context& ctx, std::vector<std::pair<std::string, std::string>> kv) {
  kv.insert(kv.begin(), {"model", "elastic_rod"});
  return make_model(Config::from_pairs(kv), ctx);
}

// [L] Example 4's potential, written out here: elements 0..n (0 clamped along q0), e3 along gravity.
double paper_potential(const std::vector<V3>& q, const V3& q0, double m, double l, double kappa, double g) {
  const std::size_t n = q.size();
  const double me = m / static_cast<double>(n + 1), le = l / static_cast<double>(n + 1);
  double V = 0.0;
  for (std::size_t i = 1; i <= n; ++i) {
    V3 c = 0.5 * le * q[i - 1];
    for (std::size_t j = 1; j < i; ++j) c += le * q[j - 1];
    const V3& prev = i == 1 ? q0 : q[i - 2];
    V += -me * g * c.z() + 0.5 * kappa * std::pow(1.0 - prev.dot(q[i - 1]), 2);
  }
  return V;
}

}  // namespace

// M_ij as printed in [L] Example 4 (sums written out) and the entries of (36); positive definite.
TEST(ElasticRod, InertiaMatrixAsPrintedAndPositiveDefinite) {
  par::Context ctx(MPI_COMM_SELF);
  for (int n : {2, 5, 10, 30}) {
    auto model = make(ctx, {{"elastic_rod.n", std::to_string(n)}, {"elastic_rod.initial", "random"}});
    const auto& rod = dynamic_cast<ElasticRod&>(*model);
    const double m = 0.055, l = 1.1, mi = m / (n + 1), li = l / (n + 1);
    Eigen::MatrixXd printed(n, n);
    for (int i = 1; i <= n; ++i)
      for (int j = 1; j <= n; ++j) {
        double s = 0.0;
        if (i == j) {
          s = mi * li * li / 3.0;
          for (int k = i + 1; k <= n; ++k) s += mi * li * li;
        } else {
          for (int k = std::max(i, j); k <= n; ++k) s += 0.5 * mi * li * li;
        }
        printed(i - 1, j - 1) = s;
      }
    EXPECT_LT((rod.inertia_matrix() - printed).norm(), 1e-15 * printed.norm()) << n;
    // (36): (n - 2/3), (n - 5/3), ..., 1/3 on the diagonal, (n - 1)/2 and 1/2 in the first row, times m l^2/(n+1)^3
    const double u = m * l * l / std::pow(n + 1, 3);
    EXPECT_NEAR(printed(0, 0), (n - 2.0 / 3.0) * u, 1e-15);
    EXPECT_NEAR(printed(n - 1, n - 1), u / 3.0, 1e-15);
    EXPECT_NEAR(printed(0, 1), (n - 1) / 2.0 * u, 1e-15);
    EXPECT_NEAR(printed(0, n - 1), 0.5 * u, 1e-15);
    if (n > 2) {
      EXPECT_NEAR(printed(1, 1), (n - 5.0 / 3.0) * u, 1e-15);
    }
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(rod.inertia_matrix());
    std::printf("[ inertia ] n = %d: eigenvalues of M / (m_e l_e^2) in [%.4f, %.4f]\n", n,
                eig.eigenvalues().minCoeff() / (mi * li * li), eig.eigenvalues().maxCoeff() / (mi * li * li));
    EXPECT_GT(eig.eigenvalues().minCoeff(), 0.0) << n;
  }
}

// elastic_rod.inertia = physical: 1/2 sum M_ij q_i'.q_j' is the kinetic energy of n uniform rods
// hinged end to end (centre velocity + rotation about the centre), computed here directly.
TEST(ElasticRod, PhysicalInertiaIsTheKineticEnergyOfTheChain) {
  par::Context ctx(MPI_COMM_SELF);
  auto model = make(ctx, {{"elastic_rod.inertia", "physical"}, {"elastic_rod.initial", "random"}});
  const int n = 10;
  std::vector<double> y(60);
  model->initial_state(y.data());
  const double me = 0.055 / 11, le = 1.1 / 11;
  double T = 0.0;
  V3 tip_velocity = V3::Zero();  // velocity of the start of element i
  for (int i = 0; i < n; ++i) {
    const V3 q = Eigen::Map<const V3>(&y[6 * i]), w = Eigen::Map<const V3>(&y[6 * i + 3]);
    const V3 qdot = w.cross(q);
    const V3 centre = tip_velocity + 0.5 * le * qdot;
    T += 0.5 * me * centre.squaredNorm() + 0.5 * (me * le * le / 12.0) * qdot.squaredNorm();
    tip_velocity += le * qdot;
  }
  EXPECT_NEAR(get(*model, y.data(), "kinetic_energy"), T, 1e-14 * T);
}

TEST(ElasticRod, GradientMatchesFiniteDifferencesOfThePaperPotential) {
  par::Context ctx(MPI_COMM_SELF);
  auto model = make(ctx, {{"elastic_rod.initial", "random"}, {"elastic_rod.seed", "3"},
                          {"elastic_rod.wall", "0.6, 0, 0.8"}, {"elastic_rod.stiffness", "7"}});
  auto& rod = dynamic_cast<ElasticRod&>(*model);
  std::vector<double> y(60), q(30), g(30);
  model->initial_state(y.data());
  std::vector<V3> qv(10);
  for (int i = 0; i < 10; ++i) {
    qv[static_cast<std::size_t>(i)] = Eigen::Map<const V3>(&y[static_cast<std::size_t>(6 * i)]);
    for (int c = 0; c < 3; ++c) q[static_cast<std::size_t>(3 * i + c)] = y[static_cast<std::size_t>(6 * i + c)];
  }
  const V3 wall(0.6, 0, 0.8);
  EXPECT_NEAR(rod.potential(q.data()), paper_potential(qv, wall, 0.055, 1.1, 7.0, 9.81), 1e-14);
  rod.potential_gradient(q.data(), g.data());
  double worst = 0.0;
  for (std::size_t k = 0; k < 30; ++k) {
    auto qp = qv, qm = qv;
    qp[k / 3][static_cast<Eigen::Index>(k % 3)] += 1e-6;
    qm[k / 3][static_cast<Eigen::Index>(k % 3)] -= 1e-6;
    const double fd = (paper_potential(qp, wall, 0.055, 1.1, 7.0, 9.81) - paper_potential(qm, wall, 0.055, 1.1, 7.0, 9.81)) / 2e-6;
    worst = std::max(worst, std::fabs(g[k] - fd));
  }
  EXPECT_LT(worst, 1e-8);
}

// Both formulations against (36) written out here: on T(S^2)^n, q'' = w' x q + w x q' from
// (10)-(11) equals q'' of (36); second_order's f is (q', q'') of (36) at any q (off the sphere too).
TEST(ElasticRod, VectorFieldsArePaperEquation36) {
  par::Context ctx(MPI_COMM_SELF);
  for (int seed = 1; seed <= 3; ++seed) {
    auto model = make(ctx, {{"elastic_rod.initial", "random"}, {"elastic_rod.seed", std::to_string(seed)}});
    auto second = make(ctx, {{"elastic_rod.initial", "random"}, {"elastic_rod.seed", std::to_string(seed)},
                             {"elastic_rod.formulation", "second_order"}});
    auto& rod = dynamic_cast<ElasticRod&>(*model);
    const int n = 10;
    std::vector<double> y(60), dy(60), z(60), dz(60), q(30), g(30);
    model->initial_state(y.data());
    second->initial_state(z.data());
    for (double& v : z) v *= 1.01;  // off the sphere and the tangent bundle: (36) still
    for (int i = 0; i < 3 * n; ++i) q[static_cast<std::size_t>(i)] = z[static_cast<std::size_t>(6 * (i / 3) + i % 3)];
    rod.potential_gradient(q.data(), g.data());
    auto eq36 = [&](const double* state) {  // (36) with M as printed: the rows of [L]
      const double u = 0.055 * 1.1 * 1.1 / std::pow(n + 1, 3);
      Eigen::MatrixXd A(3 * n, 3 * n);
      Eigen::VectorXd b(3 * n);
      std::vector<double> qq(30), gg(30);
      for (int i = 0; i < 3 * n; ++i) qq[static_cast<std::size_t>(i)] = state[6 * (i / 3) + i % 3];
      rod.potential_gradient(qq.data(), gg.data());
      for (int i = 0; i < n; ++i) {
        const V3 qi = Eigen::Map<const V3>(state + 6 * i), vi = Eigen::Map<const V3>(state + 6 * i + 3);
        const Mat3 h2 = so3::hat(qi) * so3::hat(qi);
        const double cii = (n - i - 2.0 / 3.0) * u;  // (n - 2/3), (n - 5/3), ..., 1/3 (0-based i)
        for (int j = 0; j < n; ++j)
          A.block<3, 3>(3 * i, 3 * j) = i == j ? Mat3(cii * Mat3::Identity()) : Mat3(-(n - std::max(i, j)) / 2.0 * u * h2);
        b.segment<3>(3 * i) = -cii * vi.squaredNorm() * qi + h2 * Eigen::Map<const V3>(&gg[static_cast<std::size_t>(3 * i)]);
      }
      return Eigen::VectorXd(A.partialPivLu().solve(b));
    };
    // angular-velocity form on the sphere
    std::vector<double> yv(60);
    for (std::size_t k = 0; k < 60; k += 6) {
      const V3 qk = Eigen::Map<const V3>(&y[k]), wk = Eigen::Map<const V3>(&y[k + 3]);
      const V3 vk = wk.cross(qk);
      for (std::size_t c = 0; c < 3; ++c) yv[k + c] = qk[static_cast<Eigen::Index>(c)], yv[k + 3 + c] = vk[static_cast<Eigen::Index>(c)];
    }
    const Eigen::VectorXd acc = eq36(yv.data());
    model->ambient_field(0.0, y.data(), dy.data());
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(6 * i);
      const V3 qi = Eigen::Map<const V3>(&y[k]), wi = Eigen::Map<const V3>(&y[k + 3]);
      const V3 dw = Eigen::Map<const V3>(&dy[k + 3]);
      const V3 a = acc.segment<3>(3 * i);
      EXPECT_LT((dw.cross(qi) + wi.cross(wi.cross(qi)) - a).norm(), 1e-11 * (1.0 + acc.norm())) << seed << " " << i;
    }
    // second-order form anywhere
    const Eigen::VectorXd acc2 = eq36(z.data());
    second->ambient_field(0.0, z.data(), dz.data());
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(6 * i);
      EXPECT_EQ(Eigen::Map<const V3>(&dz[k]), Eigen::Map<const V3>(&z[k + 3]));
      EXPECT_LT((Eigen::Map<const V3>(&dz[k + 3]) - acc2.segment<3>(3 * i)).norm(), 1e-12 * (1.0 + acc2.norm()));
    }
  }
}

// A tight RKMK5 run conserves the energy of the paper's state (an error in the coupling of
// (11) would not), and the rod moves.
TEST(ElasticRod, TightReferenceConservesEnergy) {
  par::Context ctx(MPI_COMM_SELF);
  auto model = make(ctx, {});
  std::vector<double> y0(60);
  model->initial_state(y0.data());
  const double E0 = get(*model, y0.data(), "total_energy");
  const auto y = run(*model, "rkmk5", 0.2, 10000);
  std::printf("[ rod ] rkmk5 h = 2e-5, T = 0.2: |dE| = %.2e (E0 = %.5f)\n", std::fabs(get(*model, y.data(), "total_energy") - E0), E0);
  EXPECT_NEAR(get(*model, y.data(), "total_energy"), E0, 1e-11);
  EXPECT_GT(std::fabs(get(*model, y.data(), "potential_energy") - get(*model, y0.data(), "potential_energy")), 1e-4);
}

// Order 2 of the implicit variational integrator ([L] (22)-(28)) with both solvers; the unit
// length at round-off; the explicit form refuses the dense inertia.
TEST(ElasticRod, ImplicitIntegratorConvergesAtOrderTwo) {
  par::Context ctx(MPI_COMM_SELF);
  auto model = make(ctx, {});
  const double T = 0.05;  // h = 5e-4 .. 6.25e-5 (the joints oscillate with periods of a few ms)
  const auto ref = run(*model, "rkmk5", T, 1 << 13);
  std::vector<double> hs, errs;
  for (long n : {100L, 200L, 400L, 800L}) {
    const auto y = run(*model, "lgvi", T, n);
    hs.push_back(T / static_cast<double>(n));
    errs.push_back(dist(y, ref));
    EXPECT_LT(get(*model, y.data(), "unit_norm_error"), static_cast<double>(n) * 2.2e-16);  // round-off, N eps
  }
  const double p = slope(hs, errs);
  std::printf("[ order ] lgvi elastic_rod: errors %.3e %.3e %.3e %.3e  slope %.3f\n", errs[0], errs[1], errs[2], errs[3], p);
  EXPECT_NEAR(p, 2.0, 0.1);
  EXPECT_THROW(make_stepper("lgvi_explicit", Config::from_pairs({}), *model)->bind(*model, ctx), UsageError);
}

// [L] Example 4 text: the VI (h = 1e-4, T = 3) has a mean total energy variation of 1.4310e-6 Nm
// and a mean unit length error of 2.9747e-14; measured as the mean over every step of
// |E_k - E_0| (absolute) and of max_i |1 - |q_i|^2|.
TEST(ElasticRod, PaperEnergyVariationOfTheImplicitIntegrator) {
  par::Context ctx(MPI_COMM_SELF);
  auto model = make(ctx, {});
  std::vector<double> y0(60);
  model->initial_state(y0.data());
  const double E0 = get(*model, y0.data(), "total_energy");
  double sum_dE = 0.0, sum_unit = 0.0;
  long samples = 0;
  run(*model, "lgvi", 3.0, 30000, [&](double, const double* y, std::uint64_t) {
    Observables o;
    model->observables(0.0, y, o);
    sum_dE += std::fabs(o.get("total_energy") - E0);
    sum_unit += o.get("unit_norm_error");
    ++samples;
  });
  const double mean_dE = sum_dE / static_cast<double>(samples), mean_unit = sum_unit / static_cast<double>(samples);
  std::printf("[ paper ] elastic_rod lgvi h = 1e-4, T = 3: mean |dE| %.4e Nm ([L] 1.4310e-6), mean unit length error "
              "%.3e ([L] 2.9747e-14)\n",
              mean_dE, mean_unit);
  EXPECT_NEAR(mean_dE / 1.4310e-6, 1.0, 0.1);
  EXPECT_LT(mean_unit, 3e4 * 2.2e-16);  // round-off over 3 x 10^4 steps
}

TEST(ElasticRod, ClearErrors) {
  par::Context ctx(MPI_COMM_SELF);
  EXPECT_THROW(make(ctx, {{"elastic_rod.n", "3"}}), UsageError);  // the paper's kick is on element 5
  EXPECT_THROW(make(ctx, {{"elastic_rod.wall", "1, 1, 0"}}), UsageError);
  EXPECT_THROW(make(ctx, {{"elastic_rod.wall", "1, 0"}}), UsageError);
  EXPECT_THROW(make(ctx, {{"elastic_rod.inertia", "exact"}}), UsageError);
}
