// Step-size control ([P] 4, eq. (33)) and the accept/reject driver: controller formula,
// growth limit, rejections, h_max, output times, h_min underflow, configuration keys, and a
// tolerance sweep on a problem with a known solution and a sharp pulse (so that steps are
// rejected).
#include <gtest/gtest.h>

#include <cstdio>

#include "methods/integrate.hpp"
#include "test_problems.hpp"

using namespace lie;
using namespace lie::testing;

namespace {

// A pulse at t = 0.6 of width 0.04 in phi(t) = t + 0.5 tanh((t - 0.6)/0.04): |f| grows ~13 times.
std::unique_ptr<TwoExponentialProblem> pulse_problem() {
  return std::make_unique<TwoExponentialProblem>(
      std::vector<std::pair<FactorKind, std::size_t>>{{FactorKind::SO3Left, 1}, {FactorKind::SE3OnTS2, 2}}, 31, 0.5,
      0.6, 0.04);
}

struct AdaptiveRun {
  AdaptiveRecord rec;
  std::vector<double> y;
  StepCounters counters;
  std::vector<double> observed_t;
};

AdaptiveRun run_adaptive(const std::string& method, Model& model, const Config& cfg, double T, double tol,
                         double sample_dt = 0.0) {
  par::Context ctx(MPI_COMM_SELF);
  auto st = make_stepper(method, cfg, model);
  st->bind(model, ctx);
  AdaptiveRun r;
  r.y.resize(model.space().state_size());
  model.initial_state(r.y.data());
  AdaptiveOptions opt = adaptive_options(cfg, st->info(), 0.0, T, tol);
  opt.sample_dt = sample_dt;
  r.rec = integrate_adaptive(*st, ctx, r.y.data(), opt,
                             [&](double t, const double*, std::uint64_t) { r.observed_t.push_back(t); },
                             r.y.size());
  r.counters = st->counters();
  return r;
}

const std::vector<std::string> kPairs = {"rkmk54", "cf32a", "cf32b", "cf43", "dopri54", "dopri54_proj"};

}  // namespace

TEST(MethodsController, FormulaOfP33) {
  StepController c = StepController::for_pair(5, 4);
  EXPECT_DOUBLE_EQ(c.alpha, 0.2);  // 1 / (1 + min(p, p~))
  EXPECT_DOUBLE_EQ(StepController::for_pair(3, 2).alpha, 1.0 / 3.0);
  // h_new = theta (tol/e)^alpha h with err = e/tol
  EXPECT_DOUBLE_EQ(c.propose(1.0, 32.0), 0.9 * std::pow(32.0, -0.2));
  EXPECT_DOUBLE_EQ(c.propose(2.0, 0.5), 2.0 * 0.9 * std::pow(0.5, -0.2));
  EXPECT_DOUBLE_EQ(c.propose(1.0, 0.0), c.max_factor);          // growth limit
  EXPECT_DOUBLE_EQ(c.propose(1.0, 1e-300), c.max_factor);
  EXPECT_DOUBLE_EQ(c.propose(1.0, 1e300), c.min_factor);        // shrink limit
  EXPECT_DOUBLE_EQ(c.propose(1.0, INFINITY), c.min_factor);     // non-finite estimate
  c.h_max = 0.3;
  EXPECT_DOUBLE_EQ(c.propose(1.0, 0.5), 0.3);
  EXPECT_TRUE(StepController::accept(1.0));
  EXPECT_FALSE(StepController::accept(1.0 + 1e-15));
}

// y' = 0: every error estimate is exactly 0, so each step grows by exactly max_factor until h_max.
TEST(MethodsController, GrowthLimitedOnZeroField) {
  for (const auto& m : kPairs) {
    ZeroField model(3);
    const Config cfg = Config::from_pairs({{"h0", "1e-6"}, {"max_factor", "4"}, {"h_max", "0.2"}});
    const AdaptiveRun r = run_adaptive(m, model, cfg, 2.0, 1e-8);
    ASSERT_GT(r.rec.h.size(), 10u) << m;
    EXPECT_EQ(r.rec.rejected, 0u) << m;
    for (std::size_t i = 0; i + 1 < r.rec.h.size(); ++i) {
      EXPECT_EQ(r.rec.err[i], 0.0) << m;
      const double expected = std::min(4.0 * r.rec.h[i], 0.2);
      if (i + 2 < r.rec.h.size()) {  // the last step is clipped to T
        EXPECT_DOUBLE_EQ(r.rec.h[i + 1], expected) << m << " step " << i;
      }
      EXPECT_LE(r.rec.h[i + 1], expected * (1 + 1e-15)) << m;
    }
  }
}

// Every rejected trial is retried from the same t with a smaller step.
TEST(MethodsController, RejectionShrinksTheStep) {
  for (const auto& m : kPairs) {
    auto model = pulse_problem();
    const Config cfg = Config::from_pairs({{"h0", "0.5"}});
    const AdaptiveRun r = run_adaptive(m, *model, cfg, 1.2, 1e-6);
    ASSERT_GT(r.rec.rejected, 0u) << m;
    EXPECT_EQ(r.counters.rejected, r.rec.rejected) << m;
    EXPECT_EQ(r.counters.steps, r.rec.accepted) << m;
    EXPECT_EQ(r.rec.rejected_t.front(), 0.0) << m << ": h0 = 0.5 is far too large";
    for (std::size_t i = 0; i < r.rec.rejected_t.size(); ++i) {
      const double t = r.rec.rejected_t[i], h = r.rec.rejected_h[i];
      // next trial from t: another rejection at t, or the accepted step that starts at t
      if (i + 1 < r.rec.rejected_t.size() && r.rec.rejected_t[i + 1] == t) {
        EXPECT_LT(r.rec.rejected_h[i + 1], h) << m;
        continue;
      }
      bool found = false;
      for (std::size_t k = 0; k < r.rec.t.size(); ++k) {
        const double start = k == 0 ? 0.0 : r.rec.t[k - 1];
        if (start == t) {
          EXPECT_LT(r.rec.h[k], h) << m;
          found = true;
          break;
        }
      }
      EXPECT_TRUE(found) << m << ": no accepted step from t = " << t;
    }
  }
}

TEST(MethodsController, HmaxRespectedAndOutputTimesHitExactly) {
  for (const auto& m : kPairs) {
    auto model = pulse_problem();
    const Config cfg = Config::from_pairs({{"h_max", "0.03"}, {"h0", "0.1"}});
    const AdaptiveRun r = run_adaptive(m, *model, cfg, 1.0, 1e-5, 0.1);
    for (double h : r.rec.h) EXPECT_LE(h, 0.03) << m;
    for (double h : r.rec.rejected_h) EXPECT_LE(h, 0.03) << m;
    ASSERT_EQ(r.observed_t.size(), 11u) << m;
    for (std::size_t k = 0; k < r.observed_t.size(); ++k)
      EXPECT_EQ(r.observed_t[k], 0.0 + static_cast<double>(k) * 0.1) << m << " sample " << k;
    EXPECT_EQ(r.rec.t.back(), 1.0) << m;
  }
}

TEST(MethodsController, StepSizeUnderflowRaisesNumericalError) {
  auto model = pulse_problem();
  // tol = 1e-12 needs h ~ 4e-3 near the pulse (rkmk54), below h_min = 1e-2
  const Config cfg = Config::from_pairs({{"h_min", "1e-2"}});
  EXPECT_THROW(run_adaptive("rkmk54", *model, cfg, 1.0, 1e-12), NumericalError);
  // the same run with the default h_min completes
  auto model2 = pulse_problem();
  EXPECT_NO_THROW(run_adaptive("rkmk54", *model2, Config::from_pairs({}), 1.0, 1e-12));
}

TEST(MethodsController, OptionsFromKeys) {
  const MethodInfo& pair = MethodRegistry::instance().get("cf32a", "method").info;
  const Config cfg = Config::from_pairs({{"safety", "0.8"}, {"min_factor", "0.1"}, {"max_factor", "3"},
                                         {"h_min", "1e-10"}, {"h_max", "0.5"}, {"h0", "0.01"},
                                         {"rtol", "tol"}, {"error_norm", "max"}});
  const AdaptiveOptions o = adaptive_options(cfg, pair, 0.5, 2.0, 1e-4);
  EXPECT_EQ(o.t0, 0.5);
  EXPECT_EQ(o.t_final, 2.0);
  EXPECT_EQ(o.h0, 0.01);
  EXPECT_EQ(o.controller.safety, 0.8);
  EXPECT_EQ(o.controller.min_factor, 0.1);
  EXPECT_EQ(o.controller.max_factor, 3.0);
  EXPECT_EQ(o.controller.h_min, 1e-10);
  EXPECT_EQ(o.controller.h_max, 0.5);
  EXPECT_DOUBLE_EQ(o.controller.alpha, 1.0 / 3.0);
  EXPECT_EQ(o.norm.atol, 1e-4);  // default atol = tol
  EXPECT_EQ(o.norm.rtol, 1e-4);
  EXPECT_EQ(o.norm.kind, ErrorNorm::Kind::Max);
  const AdaptiveOptions d = adaptive_options(Config::from_pairs({}), pair, 0.0, 1.0, 1e-6);
  EXPECT_EQ(d.norm.atol, 1e-6);
  EXPECT_EQ(d.norm.rtol, 0.0);
  EXPECT_EQ(d.norm.kind, ErrorNorm::Kind::L2);  // e = ||y - y~|| < tol as in [P] 4
  EXPECT_EQ(d.controller.h_max, INFINITY);
  const Config fixed = Config::from_pairs({{"atol", "1e-7"}, {"rtol", "1e-5"}});
  const AdaptiveOptions f = adaptive_options(fixed, pair, 0.0, 1.0, std::nullopt);
  EXPECT_EQ(f.norm.atol, 1e-7);
  EXPECT_EQ(f.norm.rtol, 1e-5);
  // bad input: one clear UsageError each
  const MethodInfo& fixed_only = MethodRegistry::instance().get("rkmk4", "method").info;
  EXPECT_THROW(adaptive_options(Config::from_pairs({}), fixed_only, 0, 1, 1e-6), UsageError);
  EXPECT_THROW(adaptive_options(Config::from_pairs({}), pair, 0, 1, std::nullopt), UsageError);  // atol = tol, no tol
  EXPECT_THROW(adaptive_options(Config::from_pairs({{"safety", "1.5"}}), pair, 0, 1, 1e-6), UsageError);
  EXPECT_THROW(adaptive_options(Config::from_pairs({{"min_factor", "1.5"}}), pair, 0, 1, 1e-6), UsageError);
  EXPECT_THROW(adaptive_options(Config::from_pairs({{"max_factor", "0.5"}}), pair, 0, 1, 1e-6), UsageError);
  EXPECT_THROW(adaptive_options(Config::from_pairs({{"atol", "-1"}}), pair, 0, 1, 1e-6), UsageError);
  EXPECT_THROW(adaptive_options(Config::from_pairs({{"atol", "0"}}), pair, 0, 1, 1e-6), UsageError);
  EXPECT_THROW(Config::from_pairs({{"error_norm", "l3"}}), UsageError);
}

// The driver meets the requested tolerance: the global error at T stays within a small factor
// of tol over six decades, with rejected steps around the pulse.
TEST(MethodsAdaptive, ToleranceSweepOnKnownSolution) {
  const double T = 1.2;
  std::vector<double> exact(pulse_problem()->space().state_size());
  pulse_problem()->exact_solution(T, exact.data());
  std::printf("\nadaptive runs on y = exp(phi(t) xi1) exp(t xi2) y0 with a pulse at t = 0.6 (T = %g),\n"
              "atol = tol, rtol = 0, l2 norm; error = Euclidean distance to the exact y(T)\n",
              T);
  std::printf("  %-13s %8s %10s %9s %9s %9s %8s\n", "method", "tol", "error", "error/tol", "accepted", "rejected",
              "f evals");
  for (const auto& m : kPairs) {
    std::uint64_t rejected = 0;
    for (double tol : {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9}) {
      auto model = pulse_problem();
      const AdaptiveRun r = run_adaptive(m, *model, Config::from_pairs({}), T, tol);
      const double err = distance(r.y, exact);
      std::printf("  %-13s %8.0e %10.2e %9.3f %9llu %9llu %8llu\n", m.c_str(), tol, err, err / tol,
                  static_cast<unsigned long long>(r.rec.accepted), static_cast<unsigned long long>(r.rec.rejected),
                  static_cast<unsigned long long>(r.counters.rhs));
      EXPECT_LT(err, 10.0 * tol) << m << " tol " << tol;
      EXPECT_GT(err, 0.05 * tol) << m << " tol " << tol;
      rejected += r.rec.rejected;
    }
    EXPECT_GT(rejected, 0u) << m;
  }
}
