// Symplectic Lie group integrators [P] eqs. (14)-(17) on the heavy top: orders (theta = 1/2: 2;
// theta = 0, 1: 1; SLGIKK: 2), bounded energy error over 6000 steps of h = 0.01 ([P] Fig. 3),
// symplecticity of the step map (finite differences of the right-trivialised form (13)),
// Noether momenta, solver agreement and failure modes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "methods/integrate.hpp"
#include "methods/slgi.hpp"
#include "models/heavy_top.hpp"
#include "unit/fixed_step_testing.hpp"

using namespace lie;
using namespace lie::fixed_step_testing;

namespace {

using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;
using F = HeavyTopFormulation;

HeavyTopParameters random_top(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n01(0.0, 1.0);
  HeavyTopParameters p;
  p.inertia = Vec3(0.8, 1.3, 2.1);
  p.mass = 2.0;
  p.length = 0.7;
  p.com_direction = Vec3(n01(rng), n01(rng), n01(rng)).normalized();
  p.gamma0 = 9.81 * Vec3(n01(rng), n01(rng), n01(rng)).normalized();
  p.attitude0 = so3::exp(Vec3(n01(rng), n01(rng), n01(rng)));
  p.omega0 = 2.0 * Vec3(n01(rng), n01(rng), n01(rng));
  return p;
}

}  // namespace

// Orders on [0, 1] with the test data of [P] 3.4.4 ([P] Fig. 2 right), errors in the ambient
// norm of (Q, pi) (and (q, p)) against RKMK5 with 2^15 steps.
TEST(SlgiHeavyTop, OrdersOnTheDataOfP) {
  const double T = 1.0;
  struct Run {
    std::string method;
    F form;
    std::string theta;
    double order;
  };
  const std::vector<Run> runs = {{"slgi", F::TstarSO3, "0.5", 2.0},
                                 {"slgi", F::TstarSO3, "0", 1.0},
                                 {"slgi", F::TstarSO3, "1", 1.0},
                                 {"slgi_kk", F::Quadratic, "0.5", 2.0}};
  const std::vector<int> steps = {1000, 2000, 4000, 8000};  // h w_y from 0.15 to 0.019
  HeavyTop tstar(HeavyTopParameters{}, F::TstarSO3), quadratic(HeavyTopParameters{}, F::Quadratic);
  const auto ref_tstar = run(tstar, "rkmk5", Config::from_pairs({}), T, 1 << 15);
  const auto ref_quadratic = run(quadratic, "rkmk5", Config::from_pairs({}), T, 1 << 15);
  for (const Run& r : runs) {
    HeavyTop& model = r.form == F::TstarSO3 ? tstar : quadratic;
    const auto& ref = r.form == F::TstarSO3 ? ref_tstar : ref_quadratic;
    std::vector<double> hs, errs;
    for (int n : steps) {
      const auto y = run(model, r.method, Config::from_pairs({{"slgi.theta", r.theta}}), T, n);
      hs.push_back(T / n);
      errs.push_back(dist(y, ref));
    }
    const double p = slope(hs, errs);
    std::printf("[ order ] %s theta=%s: errors", r.method.c_str(), r.theta.c_str());
    for (double e : errs) std::printf(" %.3e", e);
    std::printf("  slope %.3f\n", p);
    EXPECT_NEAR(p, r.order, 0.2) << r.method << " theta = " << r.theta;
  }
}

// [P] Fig. 3: h = 0.01, 6000 steps. The energy error oscillates without drift: its maximum over
// the second half is not larger than twice the maximum over the first half.
TEST(SlgiHeavyTop, EnergyErrorStaysBoundedOver6000Steps) {
  struct Run {
    std::string method;
    F form;
    std::string theta;
  };
  for (const Run& r : std::vector<Run>{{"slgi", F::TstarSO3, "0.5"}, {"slgi", F::TstarSO3, "0"},
                                       {"slgi_kk", F::Quadratic, "0.5"}}) {
    HeavyTop model(HeavyTopParameters{}, r.form);
    std::vector<double> y0(static_cast<std::size_t>(model.state_dim_per_component()));
    model.initial_state(y0.data());
    const double E0 = model.energy(y0.data());
    double first = 0.0, second = 0.0, pg_drift = 0.0, orth = 0.0;
    Vec3 P0, G0;
    model.body_variables(y0.data(), P0, G0);
    const double pg0 = P0.dot(G0);
    run(model, r.method, Config::from_pairs({{"slgi.theta", r.theta}}), 60.0, 6000,
        [&](double, const double* y, std::uint64_t n) {
          const double dE = std::fabs(model.energy(y) - E0);
          (n <= 3000 ? first : second) = std::max(n <= 3000 ? first : second, dE);
          Vec3 P, G;
          model.body_variables(y, P, G);
          pg_drift = std::max(pg_drift, std::fabs(P.dot(G) - pg0));
          orth = std::max(orth, so3::orthogonality_error(model.attitude(y)));
        });
    std::printf("[ energy ] %s theta=%s: max|dH| [0,30] = %.3e, [30,60] = %.3e (H0 = %.1f); max |d(pi.Gamma0)| = %.1e, "
                "max ||Q^TQ-I|| = %.1e\n",
                r.method.c_str(), r.theta.c_str(), first, second, E0, pg_drift, orth);
    EXPECT_LE(second, 2.0 * first) << r.method << " theta = " << r.theta;
    EXPECT_LT(first, 0.05 * std::fabs(E0));
    // Noether: rotations about Gamma0 are a symmetry, pi.Gamma0 = Pi.Gamma is conserved up to the
    // solver tolerance; Q stays orthogonal to round-off.
    EXPECT_LT(pg_drift, 1e-9 * P0.norm() * G0.norm());
    EXPECT_LT(orth, 1e-12);
  }
}

// The step map preserves the right-trivialised symplectic form (13)
//   w_(g,mu)((eta1, nu1), (eta2, nu2)) = <nu2, eta1> - <nu1, eta2> - <mu, [eta1, eta2]>
// checked with central differences of the map in the directions (exp(e eta) g, mu + e nu), at a
// random 3-D state and a large step; RKMK4 at the same step is a non-symplectic control.
TEST(SlgiHeavyTop, StepMapIsSymplectic) {
  HeavyTop model(random_top(3), F::TstarSO3);
  par::Context ctx(MPI_COMM_SELF);
  std::vector<double> y0(12);
  model.initial_state(y0.data());
  const double h = 0.2;
  auto omega = [](const double* y, const Eigen::Matrix<double, 6, 1>& a, const Eigen::Matrix<double, 6, 1>& b) {
    const Vec3 mu = Eigen::Map<const Vec3>(y + 9);
    const Vec3 e1 = a.head<3>(), n1 = a.tail<3>(), e2 = b.head<3>(), n2 = b.tail<3>();
    return n2.dot(e1) - n1.dot(e2) - mu.dot(e1.cross(e2));
  };
  auto defect = [&](const std::string& method, const Config& cfg) {
    auto st = make_stepper(method, cfg, model);
    st->bind(model, ctx);
    auto step = [&](const std::vector<double>& y) {
      std::vector<double> out = y;
      st->invalidate();
      st->step(0.0, h, out.data());
      return out;
    };
    const std::vector<double> y1 = step(y0);
    const Mat3 Q1 = Eigen::Map<const RowMat3>(y1.data());
    Eigen::Matrix<double, 6, 6> D;  // columns: push-forward of the basis vectors
    const double e = 1e-5;
    for (int k = 0; k < 6; ++k) {
      std::vector<double> yp = y0, ym = y0;
      if (k < 3) {
        Vec3 eta = Vec3::Zero();
        eta[k] = 1.0;
        const Mat3 Q0 = Eigen::Map<const RowMat3>(y0.data());
        Eigen::Map<RowMat3>(yp.data()) = so3::exp(e * eta) * Q0;
        Eigen::Map<RowMat3>(ym.data()) = so3::exp(-e * eta) * Q0;
      } else {
        yp[static_cast<std::size_t>(9 + k - 3)] += e;
        ym[static_cast<std::size_t>(9 + k - 3)] -= e;
      }
      const auto a = step(yp), b = step(ym);
      const Mat3 Qa = Eigen::Map<const RowMat3>(a.data()), Qb = Eigen::Map<const RowMat3>(b.data());
      D.col(k).head<3>() = (so3::log(Qa * Q1.transpose()) - so3::log(Qb * Q1.transpose())) / (2 * e);
      D.col(k).tail<3>() = (Eigen::Map<const Vec3>(a.data() + 9) - Eigen::Map<const Vec3>(b.data() + 9)) / (2 * e);
    }
    double worst = 0.0, scale = 0.0;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        const Eigen::Matrix<double, 6, 1> ei = Eigen::Matrix<double, 6, 1>::Unit(i), ej = Eigen::Matrix<double, 6, 1>::Unit(j);
        const double before = omega(y0.data(), ei, ej);
        const double after = omega(y1.data(), D.col(i), D.col(j));
        worst = std::max(worst, std::fabs(after - before));
        scale = std::max(scale, std::fabs(before));
      }
    return worst / scale;
  };
  for (const char* theta : {"0", "0.5", "1", "0.3"}) {
    const double d = defect("slgi", Config::from_pairs({{"slgi.theta", theta}, {"slgi.tol", "1e-15"}}));
    std::printf("[ symplectic ] slgi theta=%s: relative defect %.2e\n", theta, d);
    EXPECT_LT(d, 1e-7) << "theta = " << theta;
  }
  const double d_rk = defect("rkmk4", Config::from_pairs({}));
  std::printf("[ symplectic ] rkmk4 (control): relative defect %.2e\n", d_rk);
  EXPECT_GT(d_rk, 1e-4);
}

// Without gravity (M l = 0) the Hamiltonian is invariant under Q -> R Q, pi -> R pi: the spatial
// momentum pi is conserved by the variational SLGI methods up to the solver tolerance.
TEST(SlgiHeavyTop, ConservesTheSpatialMomentumOfAFreeBody) {
  HeavyTopParameters p = random_top(8);
  p.mass = 0.0;  // free rigid body on T*SO(3)
  for (const char* theta : {"0", "0.5", "1"}) {
    HeavyTop model(p, F::TstarSO3);
    std::vector<double> y0(12);
    model.initial_state(y0.data());
    const auto y = run(model, "slgi", Config::from_pairs({{"slgi.theta", theta}}), 5.0, 100);
    const Vec3 d = Eigen::Map<const Vec3>(y.data() + 9) - Eigen::Map<const Vec3>(y0.data() + 9);
    EXPECT_LT(d.norm(), 1e-12 * Eigen::Map<const Vec3>(y0.data() + 9).norm()) << "theta = " << theta;
  }
}

TEST(SlgiHeavyTop, NewtonAndFixedPointSolveTheSameEquations) {
  for (F form : {F::TstarSO3, F::Quadratic}) {
    HeavyTop model(random_top(4), form);
    const std::string m = form == F::Quadratic ? "slgi_kk" : "slgi";
    const auto a = run(model, m, Config::from_pairs({{"slgi.solver", "newton"}}), 1.0, 50);
    const auto b = run(model, m, Config::from_pairs({{"slgi.solver", "fixed_point"}, {"slgi.max_iter", "200"}}), 1.0, 50);
    EXPECT_LT(dist(a, b), 1e-11);
  }
}

TEST(SlgiHeavyTop, NonConvergenceRaisesNumericalError) {
  HeavyTop model(HeavyTopParameters{}, F::TstarSO3);
  // An absurd step with a tiny iteration limit: never a silent wrong answer.
  EXPECT_THROW(run(model, "slgi", Config::from_pairs({{"slgi.max_iter", "2"}}), 50.0, 1), NumericalError);
  EXPECT_THROW(run(model, "slgi", Config::from_pairs({{"slgi.solver", "fixed_point"}, {"slgi.max_iter", "3"}}), 5.0, 1),
               NumericalError);
  try {
    run(model, "slgi", Config::from_pairs({{"slgi.max_iter", "1"}}), 10.0, 1);
    FAIL() << "expected NumericalError";
  } catch (const NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("did not converge"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("slgi.max_iter"), std::string::npos) << e.what();
  }
}

TEST(SlgiHeavyTop, UsageErrors) {
  HeavyTop ts(HeavyTopParameters{}, F::TstarSO3), lp(HeavyTopParameters{}, F::LiePoisson);
  par::Context ctx(MPI_COMM_SELF);
  EXPECT_THROW(make_stepper("slgi", Config::from_pairs({}), lp), UsageError);  // not a cotangent bundle
  auto kk = make_stepper("slgi_kk", Config::from_pairs({}), ts);
  EXPECT_THROW(kk->bind(ts, ctx), UsageError);  // SLGIKK needs the quadratic formulation
  EXPECT_THROW(make_stepper("slgi", Config::from_pairs({{"slgi.theta", "1.5"}}), ts), UsageError);
  EXPECT_THROW(Config::from_pairs({{"slgi.solver", "broyden"}}), UsageError);
  auto st = make_stepper("slgi", Config::from_pairs({{"slgi.theta", "0"}}), ts);
  EXPECT_EQ(st->info().order, 1);
  EXPECT_EQ(make_stepper("slgi", Config::from_pairs({}), ts)->info().order, 2);
}

// Checkpoint restart (issue 14): the Newton iteration is warm-started from the previous step
// (solution, Jacobian, LU). A fresh stepper that restores resume_state() taken after k steps
// continues bitwise as the uninterrupted stepper; one that does not (cold start) differs, so the
// comparison can fail. Counters continue exactly, too.
TEST(SlgiHeavyTop, RestoredResumeStateContinuesBitwise) {
  struct Run {
    std::string method;
    F form;
    std::string theta, solver;
  };
  for (const Run& r : std::vector<Run>{{"slgi", F::TstarSO3, "0.5", "newton"},
                                       {"slgi", F::TstarSO3, "0", "newton"},
                                       {"slgi", F::TstarSO3, "1", "newton"},
                                       {"slgi_kk", F::Quadratic, "0.5", "newton"},
                                       {"slgi", F::TstarSO3, "0.5", "fixed_point"}}) {
    SCOPED_TRACE(r.method + " theta = " + r.theta + " " + r.solver);
    HeavyTop model(HeavyTopParameters{}, r.form);
    const Config cfg = Config::from_pairs({{"slgi.theta", r.theta}, {"slgi.solver", r.solver}});
    par::Context ctx(MPI_COMM_SELF);
    const std::size_t n = model.space().state_size();
    FixedStepOptions opt;
    opt.h = 0.001;  // the fixed-point iteration does not converge at h = 0.01 on this top
    opt.steps = 60;
    opt.stride = 1;
    // Uninterrupted.
    auto whole = make_stepper(r.method, cfg, model);
    whole->bind(model, ctx);
    std::vector<double> y_whole(n);
    model.initial_state(y_whole.data());
    integrate_fixed(*whole, y_whole.data(), opt, nullptr);
    // 23 steps, then the state a checkpoint stores.
    auto first = make_stepper(r.method, cfg, model);
    first->bind(model, ctx);
    std::vector<double> y(n);
    model.initial_state(y.data());
    FixedStepOptions part = opt;
    part.steps = 23;
    integrate_fixed(*first, y.data(), part, nullptr);
    ASSERT_TRUE(first->has_resume_state());
    const std::vector<double> saved = first->resume_state();
    const StepCounters counters = first->counters();
    // Continued by fresh steppers: with the restored state, and cold.
    auto continue_run = [&](bool restore, StepCounters& c) {
      auto st = make_stepper(r.method, cfg, model);
      st->bind(model, ctx);
      st->invalidate();
      st->set_counters(counters);
      std::vector<double> yc = y;
      if (restore) st->restore_resume_state(saved, yc.data());
      FixedStepOptions rest = opt;
      rest.first = 23;
      integrate_fixed(*st, yc.data(), rest, nullptr);
      c = st->counters();
      return yc;
    };
    StepCounters c_warm, c_cold;
    const auto y_warm = continue_run(true, c_warm);
    const auto y_cold = continue_run(false, c_cold);
    EXPECT_EQ(0, std::memcmp(y_warm.data(), y_whole.data(), n * sizeof(double))) << "restored run differs by "
                                                                                 << dist(y_warm, y_whole);
    EXPECT_EQ(c_warm.rhs, whole->counters().rhs);
    EXPECT_EQ(c_warm.iterations, whole->counters().iterations);
    EXPECT_EQ(c_warm.steps, whole->counters().steps);
    std::printf("[ restart ] %s theta=%s %s: restored |y - y_whole| = %.3e, cold start %.3e\n", r.method.c_str(),
                r.theta.c_str(), r.solver.c_str(), dist(y_warm, y_whole), dist(y_cold, y_whole));
    // Without the restored state the continuation starts cold (initial guess h f, fresh
    // Jacobian) and lands on other bits: the bitwise comparison above can fail.
    EXPECT_NE(0, std::memcmp(y_cold.data(), y_whole.data(), n * sizeof(double)));
  }
}

TEST(SlgiHeavyTop, RestoreRefusesAMissingOrForeignState) {
  HeavyTop top(HeavyTopParameters{}, F::TstarSO3), quadratic(HeavyTopParameters{}, F::Quadratic);
  par::Context ctx(MPI_COMM_SELF);
  auto a = make_stepper("slgi", Config::from_pairs({}), top);
  a->bind(top, ctx);
  std::vector<double> y(top.space().state_size());
  top.initial_state(y.data());
  a->step(0.0, 0.01, y.data());
  const auto s = a->resume_state();
  auto b = make_stepper("slgi_kk", Config::from_pairs({}), quadratic);
  b->bind(quadratic, ctx);
  std::vector<double> yq(quadratic.space().state_size());
  EXPECT_THROW(b->restore_resume_state({}, yq.data()), UsageError);
  EXPECT_THROW(b->restore_resume_state(std::vector<double>(s.begin(), s.end() - 1), yq.data()), UsageError);
  // The state of the T*SO(3) top (6 unknowns) does not fit the quadratic formulation (12).
  ASSERT_NE(quadratic.cotangent_group().algebra_size(), top.cotangent_group().algebra_size());
  EXPECT_THROW(b->restore_resume_state(s, yq.data()), UsageError);
}
