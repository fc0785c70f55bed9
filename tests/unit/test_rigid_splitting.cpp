// The rigid-body splittings (methods/rigid_splitting.hpp: dlm, no_squish, rotor_exact), measured:
// observed order 2 on ten interacting dipolar bodies against a tight RKMK5 reference; one force
// evaluation per step; time reversibility to round-off; dlm with NO_SQUISH's axis order and
// no_squish give the same map (two formulations, one in rotation matrices, one in quaternions);
// rotor_exact reproduces the free rigid body's exact solution for large steps; the energy error
// of the splittings stays bounded over 2 x 10^4 steps; the quaternion conversions near 0 and pi.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "groups/so3.hpp"
#include "methods/integrate.hpp"
#include "methods/rigid_splitting.hpp"
#include "methods/stepper.hpp"
#include "models/dipolar.hpp"
#include "unit/dipolar_testing.hpp"
#include "unit/splitting_testing.hpp"
#include "models/free_rigid_body.hpp"

using namespace lie;
using lie::dipolar_testing::start_state;
using lie::dipolar_testing::ten_bodies;
using lie::splitting_testing::max_abs_diff;
using lie::splitting_testing::run;
using lie::splitting_testing::stepper;

namespace {

using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

double energy(Dipolar& model, const std::vector<double>& y) {
  Observables o;
  model.observables(0.0, y.data(), o);
  return o.get("total_energy");
}

}  // namespace

TEST(RigidSplitting, OrderTwoOnInteractingDipoles) {
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(ten_bodies(), ctx);
  const auto y0 = start_state(model, 0.5);
  auto ref_st = stepper("rkmk5", model, ctx);
  const auto ref = run(*ref_st, y0, 1024, 1.0 / 1024);
  ASSERT_GT(model.state_distance(y0.data(), ref.data(), ctx), 0.5) << "the bodies must move";
  for (const std::string m : {"dlm", "no_squish", "rotor_exact"}) {
    std::vector<double> errors;
    for (int steps : {32, 64, 128}) {
      auto st = stepper(m, model, ctx);
      const auto y = run(*st, y0, steps, 1.0 / steps);
      errors.push_back(model.state_distance(y.data(), ref.data(), ctx));
      // one force evaluation per step, and one to start
      EXPECT_EQ(st->counters().rhs, static_cast<std::uint64_t>(steps + 1)) << m;
    }
    std::printf("%-12s errors at 32, 64, 128 steps: %.3e %.3e %.3e\n", m.c_str(), errors[0], errors[1], errors[2]);
    EXPECT_NEAR(std::log2(errors[0] / errors[1]), 2.0, 0.15) << m << " " << errors[0] << " " << errors[1];
    EXPECT_NEAR(std::log2(errors[1] / errors[2]), 2.0, 0.1) << m << " " << errors[1] << " " << errors[2];
  }
}

TEST(RigidSplitting, TimeReversibleToRoundOff) {
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(ten_bodies(), ctx);
  const auto y0 = start_state(model, 0.5);
  for (const std::string m : {"dlm", "no_squish", "rotor_exact"}) {
    auto st = stepper(m, model, ctx);
    auto y = run(*st, y0, 50, 0.02);
    ASSERT_GT(max_abs_diff(y, y0), 0.1) << m;
    for (int n = 0; n < 50; ++n) st->step(1.0 - n * 0.02, -0.02, y.data());
    std::printf("%-12s forth and back: %.3e\n", m.c_str(), max_abs_diff(y, y0));
    // 100 steps of O(1) values: a few hundred ulps
    EXPECT_LT(max_abs_diff(y, y0), 1e-12) << m;
  }
}

// dlm's planar rotations take sin and cos from inline Taylor polynomials for |x| <= 1/2
// (sincos_rotor; libm's call was a quarter of [K]'s N = 100 run): within an ulp of the exact
// values (long double), as libm is, and exactly odd and even, so that a step of -h undoes the
// rotation of +h with the same numbers; beyond 1/2 libm's own.
TEST(RigidSplitting, RotorSinCosWithinAnUlpOddAndEven) {
  std::mt19937_64 rng(26);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<double> xs = {0.0, 1e-300, 1e-8, 1e-3, 0.1, 0.25, 0.4999999999999999, 0.5};
  for (int i = 0; i < 200000; ++i) xs.push_back(u(rng));
  double worst_s = 0.0, worst_c = 0.0, libm_s = 0.0, libm_c = 0.0;
  auto ulps = [](double got, long double exact) {
    const double e = static_cast<double>(exact);
    const double ulp = std::nextafter(std::fabs(e), INFINITY) - std::fabs(e);
    return e == 0.0 ? std::fabs(got) : static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / ulp);
  };
  for (double x : xs) {
    double s, c, s2, c2;
    sincos_rotor(x, s, c);
    sincos_rotor(-x, s2, c2);
    ASSERT_EQ(s2, -s) << x;
    ASSERT_EQ(c2, c) << x;
    const long double xl = x;
    worst_s = std::max(worst_s, ulps(s, sinl(xl)));
    worst_c = std::max(worst_c, ulps(c, cosl(xl)));
    libm_s = std::max(libm_s, ulps(std::sin(x), sinl(xl)));
    libm_c = std::max(libm_c, ulps(std::cos(x), cosl(xl)));
  }
  std::printf("sincos_rotor on |x| <= 1/2: sin within %.3f ulp, cos within %.3f ulp (libm: %.3f, %.3f)\n", worst_s,
              worst_c, libm_s, libm_c);
  EXPECT_LE(worst_s, 1.0);
  EXPECT_LE(worst_c, 1.0);
  for (double x : {0.5000000000000001, 0.7, -2.0, 3.1}) {
    double s, c;
    sincos_rotor(x, s, c);
    EXPECT_EQ(s, std::sin(x)) << x;
    EXPECT_EQ(c, std::cos(x)) << x;
  }
}

TEST(RigidSplitting, PlanarRotorLanesGiveEachBodysOneBodyBits) {
  // dlm's free rotors run eight bodies at a time across vector lanes (rigid_splitting.cpp:
  // planar_lanes). Every body must get the bits of the one-body rotor(): inside the
  // polynomials' range and beyond it (|theta| > 1/2: libm's sin and cos in that lane), in whole
  // tiles and the remainder (13 bodies: 8 + 5). No forces (kappa = eps = 0: the kicks add zeros),
  // so a step is the drift and the rotors.
  par::Context ctx(MPI_COMM_SELF);
  DipolarParams p = ten_bodies();
  p.n = 13;
  p.dipole_strength = 0.0;
  p.epsilon = 0.0;
  Dipolar model(p, ctx);
  std::vector<double> y = start_state(model, 1.0);
  const double h = 0.01;
  for (std::size_t i = 0; i < 13; ++i)  // bodies 2, 5, 11: angles h m_k / (2 I_k) beyond 1/2
    if (i == 2 || i == 5 || i == 11)
      for (int k = 0; k < 3; ++k) y[18 * i + 15 + static_cast<std::size_t>(k)] *= 400.0;
  auto dlm = stepper("dlm", model, ctx);
  auto* planar = dynamic_cast<RigidSplittingStepper*>(dlm.get());
  ASSERT_NE(planar, nullptr);
  std::vector<double> lanes = y;
  planar->step(0.0, h, lanes.data());
  int beyond = 0;
  for (std::size_t i = 0; i < 13; ++i) {
    double m[3], Q[9];
    for (int k = 0; k < 3; ++k) m[k] = y[18 * i + 15 + static_cast<std::size_t>(k)];
    for (int k = 0; k < 9; ++k) Q[k] = y[18 * i + 6 + static_cast<std::size_t>(k)];
    for (int k = 0; k < 3; ++k) beyond += std::fabs(0.5 * h * m[k] / p.inertia[static_cast<std::size_t>(k)]) > 0.5;
    planar->rotor(h, m, Q);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(lanes[18 * i + 15 + static_cast<std::size_t>(k)], m[k]) << i;
    for (int k = 0; k < 9; ++k) EXPECT_EQ(lanes[18 * i + 6 + static_cast<std::size_t>(k)], Q[k]) << i;
  }
  EXPECT_GE(beyond, 3);  // the fallback ran
}

TEST(RigidSplitting, DlmInNoSquishOrderIsNoSquish) {
  // Each NO_SQUISH rotation is q <- q (cos z + sin z e_k) with z = theta/2: DLM's planar rotation
  // by theta in quaternions. With the same axis order the two methods are one map; they differ
  // by rounding only (rotation matrices against quaternions, a conversion per step). no_squish
  // takes LAMMPS's order from the moments (smallest outermost): for [K]'s inertia (1, 1.88,
  // 2.88) that is dlm's own order 1 2 3 2 1, for the reversed inertia 3 2 1 2 3.
  par::Context ctx(MPI_COMM_SELF);
  for (bool reversed : {false, true}) {
    DipolarParams p = ten_bodies();
    if (reversed) p.inertia = {2.88, 1.88, 1.0};
    Dipolar model(p, ctx);
    const auto y0 = start_state(model, 0.5);
    const MethodInfo info = make_stepper("dlm", Config::from_pairs({}), model)->info();
    const std::array<int, 3> order = reversed ? std::array<int, 3>{2, 1, 0} : std::array<int, 3>{0, 1, 2};
    EXPECT_EQ(RigidSplittingStepper::axes_by_moments(p.inertia), order);
    RigidSplittingStepper dlm_same(info, RigidSplittingStepper::Rotor::Planar, order);
    RigidSplittingStepper dlm_other(info, RigidSplittingStepper::Rotor::Planar, {order[2], order[1], order[0]});
    dlm_same.bind(model, ctx);
    dlm_other.bind(model, ctx);
    auto ns = stepper("no_squish", model, ctx);
    const auto a = run(dlm_same, y0, 100, 0.01), b = run(*ns, y0, 100, 0.01), c = run(dlm_other, y0, 100, 0.01);
    std::printf("inertia %s: dlm in no_squish's order - no_squish: %.3e, the other order - no_squish: %.3e\n",
                reversed ? "reversed" : "[K]'s", max_abs_diff(a, b), max_abs_diff(c, b));
    EXPECT_LT(max_abs_diff(a, b), 1e-12);
    // ... while the other axis order is another second-order method: O(h^2) apart
    EXPECT_GT(max_abs_diff(c, b), 1e-9);
  }
}

TEST(RigidSplitting, RotorExactIsTheFreeRigidBodysExactSolution) {
  par::Context ctx(MPI_COMM_SELF);
  for (bool attitude : {false, true}) {
    FreeRigidBody model({1.0, 2.0, 3.0}, {0.5, 0.8, 1.1}, attitude);
    std::vector<double> y(model.space().state_size()), exact(y.size());
    model.initial_state(y.data());
    auto st = stepper("rotor_exact", model, ctx);
    y = run(*st, y, 40, 0.5);  // h = 0.5: far beyond any method's asymptotic range
    model.exact_solution(20.0, exact.data());
    std::printf("rotor_exact, attitude %d: %.3e from the exact solution\n", attitude, max_abs_diff(y, exact));
    EXPECT_LT(max_abs_diff(y, exact), 1e-12) << "attitude " << attitude;
    EXPECT_EQ(st->counters().rhs, 0u) << "no potential: no force evaluation";
    // dlm at the same step: a second-order error, far from round-off
    model.initial_state(y.data());
    auto dlm = stepper("dlm", model, ctx);
    EXPECT_GT(max_abs_diff(run(*dlm, y, 40, 0.5), exact), 1e-3);
  }
}

TEST(RigidSplitting, FreeRigidBodyCasimirToRoundOffEnergyBounded) {
  // Planar rotations keep |m| exactly (up to rounding); the energy error is O(h^2) and bounded.
  par::Context ctx(MPI_COMM_SELF);
  FreeRigidBody model({1.0, 2.0, 3.0}, {0.5, 0.8, 1.1}, true);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  const double C0 = y[0] * y[0] + y[1] * y[1] + y[2] * y[2];
  const double H0 = 0.5 * (y[0] * y[0] / 1.0 + y[1] * y[1] / 2.0 + y[2] * y[2] / 3.0);
  for (const std::string m : {"dlm", "no_squish"}) {
    auto st = stepper(m, model, ctx);
    std::vector<double> z = y;
    double dH_first = 0.0, dH_last = 0.0;
    for (int n = 0; n < 20000; ++n) {
      st->step(n * 0.05, 0.05, z.data());
      const double H = 0.5 * (z[0] * z[0] / 1.0 + z[1] * z[1] / 2.0 + z[2] * z[2] / 3.0);
      (n < 10000 ? dH_first : dH_last) = std::max(n < 10000 ? dH_first : dH_last, std::abs(H - H0) / H0);
    }
    const double C = z[0] * z[0] + z[1] * z[1] + z[2] * z[2];
    std::printf("%-12s free body: |dH/H| %.3e then %.3e, |dC/C| %.3e\n", m.c_str(), dH_first, dH_last, std::abs(C - C0) / C0);
    EXPECT_LT(std::abs(C - C0) / C0, 1e-12) << m;
    EXPECT_LT(dH_last, 1e-2) << m;
    EXPECT_GT(dH_last, 1e-6) << m << ": an O(h^2) error, not zero";
    EXPECT_LT(dH_last, 1.5 * dH_first) << m << ": bounded, no drift";
    RowMat3 Q = Eigen::Map<const RowMat3>(z.data() + 3);
    EXPECT_LT(so3::orthogonality_error(Q), 1e-12) << m;
  }
}

TEST(RigidSplitting, EnergyErrorBoundedOverLongRuns) {
  // Ten dipoles, h = 0.01, 20000 steps (T = 200): the splittings' energy error oscillates within
  // a band of O(h^2) and does not grow (RKMK4's drift shows on [K]'s N = 100 workload: the
  // experiment K_thesis_workload_splittings and its table).
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(ten_bodies(), ctx);
  const auto y0 = start_state(model, 0.5);
  const double H0 = energy(model, y0);
  auto band = [&](const std::string& m) {
    auto st = stepper(m, model, ctx);
    std::vector<double> y = y0;
    double first = 0.0, last = 0.0;
    for (int n = 0; n < 20000; ++n) {
      st->step(n * 0.01, 0.01, y.data());
      if (n % 100 == 99) {
        const double e = std::abs(energy(model, y) - H0) / std::abs(H0);
        (n < 10000 ? first : last) = std::max(n < 10000 ? first : last, e);
      }
    }
    return std::pair{first, last};
  };
  for (const std::string m : {"dlm", "no_squish"}) {
    const auto [first, last] = band(m);
    std::printf("%-12s dipoles: max |dH/H| %.3e (t <= 100) then %.3e (t <= 200)\n", m.c_str(), first, last);
    EXPECT_LT(last, 2.0 * first + 1e-12) << m << ": first half " << first << ", second half " << last;
    EXPECT_LT(last, 1e-3) << m;
  }
}

TEST(Quaternion, RoundTripNearZeroAndPi) {
  std::mt19937_64 g(3);
  std::normal_distribution<double> n01(0.0, 1.0);
  for (double angle : {0.0, 1e-12, 1e-6, 0.3, 2.0, M_PI - 1e-6, M_PI - 1e-12, M_PI}) {
    for (int rep = 0; rep < 20; ++rep) {
      Vec3 axis(n01(g), n01(g), n01(g));
      axis.normalize();
      const RowMat3 Q = so3::exp(angle * axis);
      const auto q = quaternion::from_matrix(Q.data());
      EXPECT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-15);  // a few ulps
      RowMat3 back;
      quaternion::to_matrix(q, back.data());
      EXPECT_LT((back - Q).cwiseAbs().maxCoeff(), 1e-15) << "angle " << angle;
      // the rotation angle: |w| = cos(angle/2)
      EXPECT_NEAR(std::abs(q[0]), std::cos(angle / 2), 1e-15) << "angle " << angle;
    }
  }
}
