// Core RKMK checks on the free rigid body (self-convergence; the exact-solution tests live
// with the methods and models).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/free_rigid_body.hpp"

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
