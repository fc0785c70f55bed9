// Lie group methods keep the state on the manifold to round-off over 10^4 steps; the
// classical baselines on the embedding space visibly do not (unless projected).
#include <gtest/gtest.h>

#include <cstdio>

#include "methods/integrate.hpp"
#include "models/free_rigid_body.hpp"
#include "test_problems.hpp"

using namespace lie;
using namespace lie::testing;

namespace {

std::vector<std::string> lie_group_methods() {
  std::vector<std::string> out;
  for (const auto* e : MethodRegistry::instance().all()) {
    const auto& f = e->info.family;
    if (e->info.lie_group && e->info.order > 0 && (f == "rkmk" || f == "cf" || f == "cg")) out.push_back(e->name);
  }
  return out;
}

struct Drift {
  double unit = 0.0, tangency = 0.0;
};

// Max over all steps of | 1 - |q_i| | and |q_i . w_i| for four spherical pendula with random 3-D data.
Drift pendulum_drift(const std::string& method, long steps, double h) {
  par::Context ctx(MPI_COMM_SELF);
  SphericalPendula model(4, 17);
  auto st = make_stepper(method, Config::from_pairs({}), model);
  st->bind(model, ctx);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  Drift d;
  Observables obs;
  FixedStepOptions opt;
  opt.h = h;
  opt.steps = static_cast<std::uint64_t>(steps);
  opt.stride = 1;
  integrate_fixed(*st, y.data(), opt, [&](double t, const double* yy, std::uint64_t) {
    model.observables(t, yy, obs);
    d.unit = std::max(d.unit, obs.get("unit_norm_error"));
    d.tangency = std::max(d.tangency, obs.get("tangency_error"));
  });
  return d;
}

double orthogonality_drift(const std::string& method, long steps, double h) {
  par::Context ctx(MPI_COMM_SELF);
  FreeRigidBody model({1.0, 1.88, 2.88}, {1.4, -2.2, 1.8}, true);
  auto st = make_stepper(method, Config::from_pairs({}), model);
  st->bind(model, ctx);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  double worst = 0.0;
  Observables obs;
  FixedStepOptions opt;
  opt.h = h;
  opt.steps = static_cast<std::uint64_t>(steps);
  opt.stride = 1;
  integrate_fixed(*st, y.data(), opt, [&](double t, const double* yy, std::uint64_t) {
    model.observables(t, yy, obs);
    worst = std::max(worst, obs.get("orthogonality_error"));
  });
  return worst;
}

}  // namespace

TEST(MethodsManifold, SphericalPendulaStayOnTS2) {
  const long steps = 10000;
  const double h = 0.01;
  std::printf("\n10^4 steps, h = 0.01, four spherical pendula (random 3-D data): max over all steps\n");
  std::printf("  %-14s %14s %14s\n", "method", "max|1-|q||", "max|q.w|");
  for (const auto& m : lie_group_methods()) {
    const Drift d = pendulum_drift(m, steps, h);
    std::printf("  %-14s %14.2e %14.2e\n", m.c_str(), d.unit, d.tangency);
    EXPECT_LT(d.unit, 1e-13) << m;
    EXPECT_LT(d.tangency, 1e-13) << m;
  }
  for (const char* m : {"rk4", "rk2", "dopri54"}) {
    const Drift d = pendulum_drift(m, steps, h);
    std::printf("  %-14s %14.2e %14.2e   (classical, no projection)\n", m, d.unit, d.tangency);
    EXPECT_GT(d.unit, 1e-10) << m;
    EXPECT_GT(d.tangency, 1e-10) << m;
  }
  for (const char* m : {"rk4_proj", "rk2_proj", "dopri54_proj"}) {
    const Drift d = pendulum_drift(m, steps, h);
    std::printf("  %-14s %14.2e %14.2e   (classical, projected)\n", m, d.unit, d.tangency);
    EXPECT_LT(d.unit, 1e-13) << m;
    EXPECT_LT(d.tangency, 1e-13) << m;
  }
}

TEST(MethodsManifold, AttitudeStaysOrthogonal) {
  const long steps = 10000;
  const double h = 0.01;
  std::printf("\n10^4 steps, h = 0.01, free rigid body with attitude: max ||Q^T Q - I||\n");
  for (const auto& m : lie_group_methods()) {
    const double e = orthogonality_drift(m, steps, h);
    std::printf("  %-14s %10.2e\n", m.c_str(), e);
    EXPECT_LT(e, 1e-13) << m;
  }
  const double e = orthogonality_drift("rk4", steps, h);
  std::printf("  %-14s %10.2e   (classical, no projection)\n", "rk4", e);
  EXPECT_GT(e, 1e-10);
}
