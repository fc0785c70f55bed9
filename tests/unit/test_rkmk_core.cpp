// Core RKMK checks on the free rigid body (self-convergence; the exact-solution tests live
// with the methods and models).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "methods/integrate.hpp"
#include "methods/rkmk.hpp"
#include "methods/stepper.hpp"
#include "models/free_rigid_body.hpp"
#include "models/nfold_pendulum.hpp"

using namespace lie;

namespace {

std::vector<double> run(const std::string& method, int steps, double T, bool attitude) {
  par::Context ctx(MPI_COMM_SELF);
  FreeRigidBody model({1.0, 1.88, 2.88}, {0.3, -0.8, 0.52}, attitude);
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

double dist(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s);
}

}  // namespace

TEST(RkmkCore, SelfConvergenceOrders) {
  const double T = 2.0;
  const auto ref = run("rkmk5", 4096, T, true);
  for (auto [m, p] : std::vector<std::pair<std::string, int>>{
           {"lie_euler", 1}, {"lie_euler_heun", 2}, {"rkmk3", 3}, {"rkmk4", 4}, {"rkmk4_co", 4}, {"rkmk4_trunc", 4}, {"rkmk5", 5}}) {
    const double e1 = dist(run(m, 32, T, true), ref);
    const double e2 = dist(run(m, 64, T, true), ref);
    const double order = std::log2(e1 / e2);
    EXPECT_NEAR(order, p, 0.3) << m << " e1=" << e1 << " e2=" << e2;
  }
}

// The fused stage passes (Space::rkmk_stage, tables with a sub-diagonal A) do the operations of
// the stage-by-stage path in the same order: the same bits and counters after many steps, on
// a product of two factor kinds (rigid body with attitude) and on the chain (SE(3) on TS^2,
// a 3-D random state), with exact and truncated dexpinv.
namespace {
struct FusedRun {
  std::vector<double> y;
  StepCounters c;
};
FusedRun run_path(Model& model, par::Context& ctx, const std::string& method, bool fused, int steps, double h) {
  auto st = make_stepper(method, Config::from_pairs({}), model);
  auto* rk = dynamic_cast<RkmkStepper*>(st.get());
  EXPECT_NE(rk, nullptr);
  rk->set_fused(fused);
  EXPECT_EQ(rk->fused(), fused) << method;
  st->bind(model, ctx);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  FixedStepOptions opt;
  opt.h = h;
  opt.steps = static_cast<std::uint64_t>(steps);
  integrate_fixed(*st, y.data(), opt, nullptr);
  return {y, st->counters()};
}
}  // namespace

TEST(RkmkCore, FusedStagesEqualStageByStageBitwise) {
  par::Context ctx(MPI_COMM_SELF);
  FreeRigidBody body({1.0, 1.88, 2.88}, {0.3, -0.8, 0.52}, true);
  NFoldPendulumParams pp;
  pp.N = 40;
  pp.initial = NFoldPendulumParams::Initial::Random;
  pp.seed = 5;
  pp.blocks = 3;
  NFoldPendulum chain(pp, ctx);
  for (Model* m : {static_cast<Model*>(&body), static_cast<Model*>(&chain)})
    for (const char* method : {"lie_euler", "lie_euler_heun", "rkmk4", "rkmk4_trunc"}) {
      const FusedRun a = run_path(*m, ctx, method, true, 60, 0.01);
      const FusedRun b = run_path(*m, ctx, method, false, 60, 0.01);
      ASSERT_EQ(a.y.size(), b.y.size());
      EXPECT_EQ(0, std::memcmp(a.y.data(), b.y.data(), a.y.size() * sizeof(double))) << m->name() << " " << method;
      EXPECT_EQ(a.c.rhs, b.c.rhs);
      EXPECT_EQ(a.c.exp, b.c.exp);
      EXPECT_EQ(a.c.dexpinv, b.c.dexpinv);
      EXPECT_EQ(a.c.brackets, b.c.brackets);
      EXPECT_EQ(a.c.steps, b.c.steps);
      // the run moved away from the start (a vacuous comparison would pass too)
      std::vector<double> y0(a.y.size());
      m->initial_state(y0.data());
      EXPECT_NE(0, std::memcmp(a.y.data(), y0.data(), y0.size() * sizeof(double)));
    }
  // Only sub-diagonal tables without FSAL or embedded weights are fused.
  const Config none = Config::from_pairs({});
  for (auto [method, fusable] : std::vector<std::pair<const char*, bool>>{
           {"rkmk4", true}, {"lie_euler", true}, {"rkmk3", false}, {"rkmk5", false}, {"rkmk54", false}}) {
    auto st = make_stepper(method, none, body);
    EXPECT_EQ(dynamic_cast<RkmkStepper&>(*st).fused(), fusable) << method;
  }
}
