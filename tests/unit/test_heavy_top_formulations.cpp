// Heavy top [P] 3.4: the three formulations, their vector fields against the equations of [P],
// the Hamiltonian map (14) against finite differences of H, agreement of the formulations on
// the same initial state, and Casimirs under the coadjoint RKMK integration.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "heavy_top_testing.hpp"
#include "models/heavy_top.hpp"

using namespace lie;
using lie::heavy_top_testing::random_parameters;

namespace {

using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;
using F = HeavyTopFormulation;


std::vector<double> integrate(HeavyTop& model, const std::string& method, double T, int steps) {
  par::Context ctx(MPI_COMM_SELF);
  auto st = make_stepper(method, Config::from_pairs({}), model);
  st->bind(model, ctx);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  FixedStepOptions opt;
  opt.h = T / steps;
  opt.steps = static_cast<std::uint64_t>(steps);
  integrate_fixed(*st, y.data(), opt, nullptr);
  return y;
}

}  // namespace

// psi_*(f(y))|_y equals the right-hand sides of [P] (21)-(22), (23)-(24), (29)-(32), and (19)-(20)
// after the change of variables, at random states (not the planar data of the paper).
TEST(HeavyTopFormulations, VectorFieldsReproduceTheEquationsOfP) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const HeavyTopParameters p = random_parameters(seed);
    const double Ml = p.mass * p.length;
    std::mt19937_64 rng(100 + seed);
    std::normal_distribution<double> n01(0.0, 1.0);
    const Mat3 Q = so3::exp(Vec3(n01(rng), n01(rng), n01(rng)));
    const Vec3 pi(n01(rng), n01(rng), n01(rng)), pq(n01(rng), n01(rng), n01(rng)), qq(n01(rng), n01(rng), n01(rng));
    const Vec3 Iinv = p.inertia.cwiseInverse();
    const Vec3 w = Q * Iinv.cwiseProduct(Q.transpose() * pi);
    const Vec3 Pi = Q.transpose() * pi, Gamma = Q.transpose() * p.gamma0, Omega = Iinv.cwiseProduct(Pi);
    {  // T*SO(3), (21)-(22), and (19)-(20) through Pi = Q^T pi
      HeavyTop m(p, F::TstarSO3);
      std::vector<double> y(12), dy(12);
      Eigen::Map<RowMat3>(y.data()) = Q;
      Eigen::Map<Vec3>(y.data() + 9) = pi;
      m.ambient_field(0.0, y.data(), dy.data());
      const Mat3 dQ = Eigen::Map<RowMat3>(dy.data());
      const Vec3 dpi = Eigen::Map<Vec3>(dy.data() + 9);
      EXPECT_LT((dQ - so3::hat(w) * Q).norm(), 1e-13);
      EXPECT_LT((dpi - Ml * p.gamma0.cross(Q * p.com_direction)).norm(), 1e-12);
      const Vec3 dPi = dQ.transpose() * pi + Q.transpose() * dpi;
      EXPECT_LT((dPi - (Pi.cross(Omega) + Ml * Gamma.cross(p.com_direction))).norm(), 1e-12);  // (19)
      EXPECT_LT((dQ - Q * so3::hat(Omega)).norm(), 1e-13);                                      // (20)
    }
    {  // Lie-Poisson on se(3)*, (23)-(24)
      HeavyTop m(p, F::LiePoisson);
      std::vector<double> y(6), dy(6);
      Eigen::Map<Vec3>(y.data()) = Pi;
      Eigen::Map<Vec3>(y.data() + 3) = Gamma;
      m.ambient_field(0.0, y.data(), dy.data());
      EXPECT_LT((Eigen::Map<Vec3>(dy.data()) - (Pi.cross(Omega) + Ml * Gamma.cross(p.com_direction))).norm(), 1e-12);
      EXPECT_LT((Eigen::Map<Vec3>(dy.data() + 3) - Gamma.cross(Omega)).norm(), 1e-12);
    }
    {  // quadratic Hamiltonian, (29)-(32) at a generic p (not only p = -M l X)
      HeavyTop m(p, F::Quadratic);
      std::vector<double> y(18), dy(18);
      Eigen::Map<RowMat3>(y.data()) = Q;
      Eigen::Map<Vec3>(y.data() + 9) = pi;
      Eigen::Map<Vec3>(y.data() + 12) = qq;
      Eigen::Map<Vec3>(y.data() + 15) = pq;
      m.ambient_field(0.0, y.data(), dy.data());
      EXPECT_LT((Mat3(Eigen::Map<RowMat3>(dy.data())) - so3::hat(w) * Q).norm(), 1e-13);
      EXPECT_LT((Eigen::Map<Vec3>(dy.data() + 9) + p.gamma0.cross(Q * pq)).norm(), 1e-12);           // (29)
      EXPECT_LT((Eigen::Map<Vec3>(dy.data() + 12) - (pq - Q.transpose() * p.gamma0)).norm(), 1e-13);  // (32)
      EXPECT_LT(Eigen::Map<Vec3>(dy.data() + 15).norm(), 1e-15);                                       // (31)
    }
  }
}

// f = (dH/dmu, -R_g^* dH/dg) of [P] eq. (14), against central differences of H, for both
// cotangent formulations.
TEST(HeavyTopFormulations, HamiltonianMapIsTheRightTrivialisedGradient) {
  for (F form : {F::TstarSO3, F::Quadratic}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      HeavyTop m(random_parameters(seed), form);
      const CotangentGroup G = m.cotangent_group();
      std::vector<double> y(static_cast<std::size_t>(m.state_dim_per_component()));
      m.initial_state(y.data());
      if (form == F::Quadratic) y[15] += 0.3, y[16] -= 0.2, y[13] = 0.7;  // generic p, q
      std::vector<double> g(G.group_size()), mu(G.algebra_size()), f1(mu.size()), f2(mu.size());
      m.split_state(y.data(), g.data(), mu.data());
      m.hamiltonian_map(0.0, g.data(), mu.data(), f1.data(), f2.data());
      const double e = 1e-6;
      for (std::size_t k = 0; k < mu.size(); ++k) {
        auto mp = mu, mm = mu;
        mp[k] += e, mm[k] -= e;
        const double dH = (m.hamiltonian(g.data(), mp.data()) - m.hamiltonian(g.data(), mm.data())) / (2 * e);
        EXPECT_NEAR(f1[k], dH, 1e-7 * std::max(1.0, std::fabs(dH))) << "dH/dmu_" << k;
        // right-trivialised derivative along eta = e_k: exp(e eta) g
        auto gp = g, gm = g;
        if (k < 3) {
          Vec3 eta = Vec3::Zero();
          eta[static_cast<int>(k)] = 1.0;
          const Mat3 Q = Eigen::Map<const RowMat3>(g.data());
          Eigen::Map<RowMat3>(gp.data()) = so3::exp(e * eta) * Q;
          Eigen::Map<RowMat3>(gm.data()) = so3::exp(-e * eta) * Q;
        } else {
          gp[9 + k - 3] += e, gm[9 + k - 3] -= e;
        }
        const double dHg = (m.hamiltonian(gp.data(), mu.data()) - m.hamiltonian(gm.data(), mu.data())) / (2 * e);
        EXPECT_NEAR(-f2[k], dHg, 1e-7 * std::max(1.0, std::fabs(dHg))) << "R^* dH/dg_" << k;
      }
    }
  }
}

// Same initial state, three formulations, RKMK5: (Pi, Gamma) agree to the integration error;
// (Q, pi) of T*SO(3) and of the quadratic formulation agree as well. Paper data and random data.
TEST(HeavyTopFormulations, FormulationsAgreeOnTheSameInitialState) {
  for (int variant = 0; variant < 2; ++variant) {
    const HeavyTopParameters p = variant == 0 ? HeavyTopParameters{} : random_parameters(11);
    const double T = variant == 0 ? 0.5 : 2.0;
    HeavyTop ts(p, F::TstarSO3), lp(p, F::LiePoisson), qu(p, F::Quadratic);
    const int N = 4000;
    const auto yt = integrate(ts, "rkmk5", T, N), yl = integrate(lp, "rkmk5", T, N), yq = integrate(qu, "rkmk5", T, N);
    // integration error estimate: the same formulation with half the steps
    const auto yt2 = integrate(ts, "rkmk5", T, N / 2);
    Vec3 Pt, Gt, Pl, Gl, Pq, Gq, Pt2, Gt2;
    ts.body_variables(yt.data(), Pt, Gt);
    lp.body_variables(yl.data(), Pl, Gl);
    qu.body_variables(yq.data(), Pq, Gq);
    ts.body_variables(yt2.data(), Pt2, Gt2);
    const double est = (Pt - Pt2).norm() + (Gt - Gt2).norm();
    const double scale = Pt.norm() + Gt.norm();
    const double tol = std::max(est, 1e-13 * scale);
    EXPECT_LT((Pt - Pl).norm() + (Gt - Gl).norm(), tol) << "tstar vs lie_poisson, variant " << variant;
    EXPECT_LT((Pt - Pq).norm() + (Gt - Gq).norm(), tol) << "tstar vs quadratic, variant " << variant;
    double dq = 0.0;
    for (int i = 0; i < 12; ++i) dq = std::max(dq, std::fabs(yt[static_cast<std::size_t>(i)] - yq[static_cast<std::size_t>(i)]));
    EXPECT_LT(dq, tol) << "(Q, pi): tstar vs quadratic";
    // and the solution moved: the test is not vacuous
    Vec3 P0, G0;
    std::vector<double> y0(12);
    ts.initial_state(y0.data());
    ts.body_variables(y0.data(), P0, G0);
    EXPECT_GT((Pt - P0).norm() + (Gt - G0).norm(), 1e3 * tol);
    std::printf("[ formulations ] variant %d: |tstar - lie_poisson| = %.2e, |tstar - quadratic| = %.2e, rkmk5 error est %.2e\n",
                variant, (Pt - Pl).norm() + (Gt - Gl).norm(), (Pt - Pq).norm() + (Gt - Gq).norm(), est);
  }
}

// The coadjoint action keeps (Pi, Gamma) on its orbit: |Gamma| and Pi.Gamma are preserved to
// round-off by the Lie group methods (RKMK, commutator-free), while the energy is not (the method is not symplectic).
TEST(HeavyTopFormulations, CoadjointLieMethodsPreserveCasimirsToRoundOff) {
  for (const std::string method : {"rkmk4", "rkmk4_co", "cf4", "lie_euler_heun"})
  for (const HeavyTopParameters& p : {HeavyTopParameters{}, random_parameters(5)}) {
    HeavyTop m(p, F::LiePoisson);
    par::Context ctx(MPI_COMM_SELF);
    auto st = make_stepper(method, Config::from_pairs({}), m);
    st->bind(m, ctx);
    std::vector<double> y(6);
    m.initial_state(y.data());
    Observables o0, o;
    m.observables(0.0, y.data(), o0);
    double dg = 0.0, dpg = 0.0, dE = 0.0;
    for (int n = 0; n < 2000; ++n) {
      st->step(n * 0.005, 0.005, y.data());
      m.observables(0.0, y.data(), o);
      dg = std::max(dg, std::fabs(o.get("casimir_gamma_norm") - o0.get("casimir_gamma_norm")));
      dpg = std::max(dpg, std::fabs(o.get("casimir_pi_dot_gamma") - o0.get("casimir_pi_dot_gamma")));
      dE = std::max(dE, std::fabs(o.get("total_energy") - o0.get("total_energy")));
    }
    Vec3 Pi, Gamma;
    m.body_variables(y.data(), Pi, Gamma);
    EXPECT_LT(dg, 1e-13 * Gamma.norm()) << method;
    EXPECT_LT(dpg, 1e-12 * Pi.norm() * Gamma.norm()) << method;
    EXPECT_GT(dE, 1e3 * 1e-13 * std::fabs(o0.get("total_energy")));  // a real integration error exists
    std::printf("[ casimirs ] %s on se(3)*: max |d|Gamma|| = %.2e, max |d(Pi.Gamma)| = %.2e, max |dH| = %.2e\n",
                method.c_str(), dg, dpg, dE);
  }
}

TEST(HeavyTopFormulations, ConfigurationAndErrors) {
  par::Context ctx(MPI_COMM_SELF);
  auto cfg = Config::from_pairs({{"model", "heavy_top"}, {"heavy_top.formulation", "quadratic"}});
  auto m = make_model(cfg, ctx);
  EXPECT_EQ(m->space().state_size(), 18u);
  EXPECT_TRUE(m->capabilities().cotangent_hamiltonian);
  auto lp = make_model(cfg.with({{"heavy_top.formulation", "lie_poisson"}}), ctx);
  EXPECT_FALSE(lp->capabilities().cotangent_hamiltonian);
  EXPECT_THROW(make_stepper("slgi", cfg, *lp), UsageError);
  EXPECT_THROW(make_model(cfg.with({{"heavy_top.com_direction", "0, 2, 0"}}), ctx), UsageError);
  EXPECT_THROW(make_model(cfg.with({{"heavy_top.inertia", "1, 2"}}), ctx), UsageError);
  EXPECT_THROW(Config::from_pairs({{"heavy_top.formulation", "euler"}}), UsageError);
  // The paper's data: pi(0) = I (0, 150, -4.61538), Q(0) = I
  HeavyTop ts(HeavyTopParameters{}, F::TstarSO3);
  std::vector<double> y(12);
  ts.initial_state(y.data());
  EXPECT_DOUBLE_EQ(y[10], 0.46875 * 150);
  EXPECT_DOUBLE_EQ(y[11], 0.234375 * -4.61538);
}
