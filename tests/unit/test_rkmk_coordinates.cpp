// RKMK with other coordinate maps (key coordinates = cayley | second_kind, groups/coordinates.hpp):
// observed orders of the RKMK tables of order 2, 3, 4 (and 1, 5) on every factor kind the models
// use -- against exact solutions (free rigid body with attitude: so(3)* and SO(3) from the right;
// two non-commuting exponentials on SO(3) x SO(3) x (TS^2)^2) and tight references (heavy top on
// T*SO(3) ~ SE(3) and on se(3)*; ten dipoles on T*(R^3 x SO(3)) left trivialised) -- the key's
// default leaves every bit unchanged, the counters count the map's actions and inverse
// differentials, and the combinations without a meaning are refused at parse.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <random>

#include "dipolar_testing.hpp"
#include "methods/rkmk.hpp"
#include "models/dipolar.hpp"
#include "models/free_rigid_body.hpp"
#include "heavy_top_testing.hpp"
#include "models/heavy_top.hpp"
#include "test_problems.hpp"

using namespace lie;
using lie::heavy_top_testing::random_parameters;
using namespace lie::testing;

namespace {

using Keys = std::vector<std::pair<std::string, std::string>>;

std::vector<double> run_from(const std::string& method, const Keys& keys, Model& model, const std::vector<double>& y0,
                             double T, long n, StepCounters* counters = nullptr) {
  par::Context ctx(MPI_COMM_SELF);
  auto st = make_stepper(method, Config::from_pairs(keys), model);
  st->bind(model, ctx);
  std::vector<double> y = y0;
  FixedStepOptions opt;
  opt.h = T / static_cast<double>(n);
  opt.steps = static_cast<std::uint64_t>(n);
  integrate_fixed(*st, y.data(), opt, nullptr);
  if (counters) *counters = st->counters();
  return y;
}

std::vector<double> initial(Model& m) {
  std::vector<double> y(m.space().state_size());
  m.initial_state(y.data());
  return y;
}

struct Problem {
  std::string title;
  std::function<std::unique_ptr<Model>()> make;
  std::function<std::vector<double>(Model&)> start;
  double T;
  std::vector<double> reference;       // y(T)
  std::array<long, 6> n0_by_order;     // N0 by order 1..5 (steps N0 * 2^k, k = 0..3)
};

// Observed order (least-squares slope over 4 step sizes) of each method x map; within 0.2 of
// the table's order. Prints the table of errors.
void expect_orders(const Problem& p, const std::vector<std::pair<std::string, int>>& methods) {
  std::printf("\n%s (T = %g)\n  %-16s %-12s %8s %9s   errors at N0, 2N0, 4N0, 8N0\n", p.title.c_str(), p.T, "method",
              "coordinates", "table", "observed");
  for (const auto& [method, order] : methods) {
    for (const char* c : {"exp", "cayley", "second_kind"}) {
      std::vector<double> hs, errs;
      for (int k = 0; k < 4; ++k) {
        const long n = p.n0_by_order.at(static_cast<std::size_t>(order)) << k;
        auto model = p.make();
        const auto y = run_from(method, {{"coordinates", c}}, *model, p.start(*model), p.T, n);
        errs.push_back(distance(y, p.reference));
        hs.push_back(p.T / static_cast<double>(n));
      }
      const double observed = fitted_order(hs, errs);
      std::printf("  %-16s %-12s %8d %9.3f  ", method.c_str(), c, order, observed);
      for (double e : errs) std::printf(" %9.2e", e);
      std::printf("\n");
      EXPECT_NEAR(observed, order, 0.2) << p.title << ": " << method << " coordinates = " << c;
    }
  }
}

// The tables of order 1-4. (rkmk5, dopri5's weights, is not asserted: on the free rigid body with
// second-kind coordinates its 5th-order error term nearly vanishes -- successive rates 6.0, 5.8,
// 5.8 down to 4e-15 at 256 steps -- so no 4-point window shows order 5.)
const std::vector<std::pair<std::string, int>> kMethods = {
    {"lie_euler", 1}, {"lie_euler_heun", 2}, {"rkmk3", 3}, {"rkmk4", 4}};

std::vector<double> tight_reference(const std::function<std::unique_ptr<Model>()>& make,
                                    const std::function<std::vector<double>(Model&)>& start, double T, long n) {
  auto m1 = make();
  const auto ref = run_from("rkmk5", {}, *m1, start(*m1), T, n);
  auto m2 = make();
  const auto chk = run_from("rkmk5", {}, *m2, start(*m2), T, n / 2);
  EXPECT_LT(distance(ref, chk), 1e-12) << "the reference is not tight";
  return ref;
}


}  // namespace

// Free rigid body with attitude ([K] 3.1): state (m, Q) on so(3)* x SO(3), Q from the right
// (the op group: phi^op(a) = phi(-a)^-1); errors against the exact (Jacobi elliptic) solution.
TEST(RkmkCoordinates, FreeRigidBodyOrdersAgainstExactSolution) {
  const Vec3 m0 = Vec3(0.41, -0.77, 0.63).normalized() * 1.5;
  Problem p;
  p.title = "free rigid body with attitude, exact solution";
  p.make = [m0] {
    return std::make_unique<FreeRigidBody>(std::array<double, 3>{1.0, 1.88, 2.88},
                                           std::array<double, 3>{m0.x(), m0.y(), m0.z()}, true);
  };
  p.start = initial;
  p.T = 4.0;
  auto m = p.make();
  p.reference.resize(m->space().state_size());
  m->exact_solution(p.T, p.reference.data());
  p.n0_by_order = {0, 256, 64, 64, 32, 32};
  expect_orders(p, kMethods);
}

// y(t) = exp(t xi1) exp(t xi2) y0 on SO(3) (rotating R^3 and from the left) and SE(3) on TS^2.
TEST(RkmkCoordinates, TwoExponentialsOrdersAgainstExactSolution) {
  Problem p;
  p.title = "exp(t xi1) exp(t xi2) y0 on SO(3) x SO(3) x (TS^2)^2, exact solution";
  p.make = [] {
    return std::make_unique<TwoExponentialProblem>(
        std::vector<std::pair<FactorKind, std::size_t>>{{FactorKind::SO3OnR3, 1}, {FactorKind::SO3Left, 1},
                                                        {FactorKind::SE3OnTS2, 2}},
        23);
  };
  p.start = initial;
  p.T = 1.0;
  auto m = p.make();
  p.reference.resize(m->space().state_size());
  m->exact_solution(p.T, p.reference.data());
  p.n0_by_order = {0, 128, 32, 32, 16, 16};
  expect_orders(p, kMethods);
}

// Heavy top [P] 3.4 on T*SO(3) (the group SE(3), (Q, pi) = (R, r)) and Lie-Poisson on se(3)*
// (coadjoint action of SE(3)), random 3-D data; reference rkmk5 (exp) confirmed at half the steps.
TEST(RkmkCoordinates, HeavyTopOnSE3OrdersAgainstTightReference) {
  for (auto [form, name] : {std::pair{HeavyTopFormulation::TstarSO3, "tstar_so3"},
                            std::pair{HeavyTopFormulation::LiePoisson, "lie_poisson"}}) {
    Problem p;
    p.title = std::string("heavy top, formulation ") + name + ", reference rkmk5 N = 8192";
    p.make = [form] { return std::make_unique<HeavyTop>(random_parameters(3), form); };
    p.start = initial;
    p.T = 1.0;
    p.reference = tight_reference(p.make, p.start, p.T, 8192);
    p.n0_by_order = {0, 256, 512, 128, 128, 64};
    expect_orders(p, {{"lie_euler_heun", 2}, {"rkmk3", 3}, {"rkmk4", 4}});
  }
}

// Ten interacting dipoles on T*(R^3 x SO(3)) left trivialised (the op group of SE(3) in
// T*SO(3)'s factor, translations beside it), random momenta; reference rkmk5 (exp).
TEST(RkmkCoordinates, DipolesOnLeftTrivialisedTstarOrders) {
  static par::Context self(MPI_COMM_SELF);
  Problem p;
  p.title = "ten dipoles, T*(R^3 x SO(3)) left trivialised, reference rkmk5 N = 4096";
  p.make = [] { return std::make_unique<Dipolar>(dipolar_testing::ten_bodies(), self); };
  p.start = [](Model& m) { return dipolar_testing::start_state(dynamic_cast<Dipolar&>(m), 0.5); };
  p.T = 1.0;
  p.reference = tight_reference(p.make, p.start, p.T, 4096);
  p.n0_by_order = {0, 128, 32, 32, 32, 32};
  expect_orders(p, {{"lie_euler_heun", 2}, {"rkmk3", 3}, {"rkmk4", 4}});
}

// coordinates = exp (given or not) is the exponential path itself, bit for bit (fused passes
// kept); the other maps give other numbers, run stage by stage, and count s actions of the map
// and s - 1 inverse differentials per step.
TEST(RkmkCoordinates, DefaultUnchangedAndCountersHonest) {
  FreeRigidBody body({1.0, 1.88, 2.88}, {0.3, -0.8, 0.52}, true);
  const auto y0 = initial(body);
  for (const char* method : {"rkmk4", "rkmk3", "lie_euler_heun", "rkmk54"}) {
    StepCounters c0, c1;
    const auto a = run_from(method, {}, body, y0, 2.0, 10, &c0);
    const auto b = run_from(method, {{"coordinates", "exp"}}, body, y0, 2.0, 10, &c1);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << method;
    EXPECT_EQ(c0.exp, c1.exp);
    EXPECT_EQ(c0.dexpinv, c1.dexpinv);
    for (const char* c : {"cayley", "second_kind"}) {
      StepCounters k;
      const auto y = run_from(method, {{"coordinates", c}}, body, y0, 2.0, 10, &k);
      EXPECT_GT(distance(y, a), 1e-11) << method << " " << c;  // rkmk54: 7e-10 (both errors ~1e-9)
      EXPECT_LT(distance(y, a), 1e-2) << method << " " << c;
      EXPECT_EQ(k.rhs, c0.rhs) << method << " " << c;
      EXPECT_EQ(k.exp, c0.exp) << method << " " << c;          // s (or s - 1 with FSAL) actions per step
      EXPECT_EQ(k.dexpinv, c0.dexpinv) << method << " " << c;  // s - 1 inverse differentials per step
      EXPECT_EQ(k.brackets, 0u);
    }
  }
  {
    auto st = make_stepper("rkmk4", Config::from_pairs({{"coordinates", "cayley"}}), body);
    auto& rk = dynamic_cast<RkmkStepper&>(*st);
    EXPECT_EQ(rk.coordinates(), Coordinates::Cayley);
    EXPECT_FALSE(rk.fused());
    EXPECT_NE(rk.info().description.find("coordinates cayley"), std::string::npos);
    StepCounters k;
    run_from("rkmk4", {{"coordinates", "cayley"}}, body, y0, 2.0, 50, &k);
    EXPECT_EQ(k.exp, 4u * 50u);
    EXPECT_EQ(k.dexpinv, 3u * 50u);
  }
  auto st = make_stepper("rkmk4", Config::from_pairs({}), body);
  EXPECT_TRUE(dynamic_cast<RkmkStepper&>(*st).fused());
  // a user tableau (rkmk_user) takes the key too: RK4's table from the file runs as rkmk4 does
  const Keys rk4 = {{"tableau.name", "rk4u"}, {"tableau.A", "0; 1/2; 0, 1/2; 0, 0, 1"}, {"tableau.b", "1/6, 1/3, 1/3, 1/6"}};
  for (const char* c : {"cayley", "second_kind"}) {
    Keys k = rk4;
    k.push_back({"coordinates", c});
    const auto user = run_from("rkmk_user", k, body, y0, 2.0, 10);
    const auto builtin = run_from("rkmk4", {{"coordinates", c}}, body, y0, 2.0, 10);
    EXPECT_LT(distance(user, builtin), 1e-14) << c;
    EXPECT_GT(distance(user, run_from("rkmk_user", rk4, body, y0, 2.0, 10)), 1e-11) << c;
  }
}

// Refused at parse, one line naming the value and the fix: a truncated dexpinv (exp's
// Bernoulli series) with another map, and a method without a coordinate map.
TEST(RkmkCoordinates, MeaninglessCombinationsRefused) {
  FreeRigidBody body({1.0, 1.88, 2.88}, {0.3, -0.8, 0.52}, true);
  auto message = [&](const std::string& method, const Keys& keys) -> std::string {
    try {
      make_stepper(method, Config::from_pairs(keys), body);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  };
  const std::string trunc = message("rkmk4_trunc", {{"coordinates", "cayley"}});
  EXPECT_NE(trunc.find("'cayley'"), std::string::npos) << trunc;
  EXPECT_NE(trunc.find("dexpinv = exact"), std::string::npos) << trunc;
  EXPECT_NE(trunc.find("rkmk4"), std::string::npos) << trunc;
  const std::string q = message("rkmk3", {{"coordinates", "second_kind"}, {"dexpinv", "1"}});
  EXPECT_NE(q.find("q = 1"), std::string::npos) << q;
  for (const char* m : {"rkmk4_co", "cf4", "cg3", "rk4", "dlm"}) {
    const std::string s = message(m, {{"coordinates", "cayley"}});
    EXPECT_NE(s.find("has no coordinate map"), std::string::npos) << m << ": " << s;
    EXPECT_NE(s.find("coordinates = exp"), std::string::npos) << m << ": " << s;
    EXPECT_EQ(s.find('\n'), std::string::npos) << s;
  }
  EXPECT_EQ(message("cf4", {{"coordinates", "exp"}}), "");
  EXPECT_EQ(message("rkmk4_trunc", {}), "");
}
