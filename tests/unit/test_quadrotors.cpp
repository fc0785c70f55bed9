// Two quadrotors carrying a point mass, [P] 6: the vector field against an independent
// Cartesian formulation (positions of the load and the quadrotors with the two link constraints
// as Lagrange multipliers, dense KKT solve), the energy balance against finite differences of
// the energy along the field, observed orders of the Lie group methods against a tight
// reference, manifold errors (Lie group methods at round-off, classical rk4 drifting), energy
// conservation with zero inputs.
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/quadrotors.hpp"
#include "test_problems.hpp"

using namespace lie;
using namespace lie::testing;

namespace {

const Vec3 kE3(0.0, 0.0, 1.0);

// Random genuinely 3-D state on the manifold (unit q_i, tangent w_i, R_i in SO(3)).
QuadrotorState random_state(std::mt19937_64& rng) {
  QuadrotorState s;
  s.y = random_vec3(rng);
  s.v = random_vec3(rng);
  for (int i = 0; i < 2; ++i) {
    s.R[i] = so3::exp(random_vec3(rng, 1.5));
    s.Omega[i] = random_vec3(rng, 2.0);
    s.q[i] = random_vec3(rng).normalized();
    s.w[i] = random_vec3(rng, 2.0);
    s.w[i] -= s.w[i].dot(s.q[i]) * s.q[i];
  }
  return s;
}

QuadrotorParameters unequal_parameters() {
  QuadrotorParameters p;
  p.load_mass = 0.4;
  p.mass = {0.755, 0.9};
  p.inertia = {Vec3(0.0820, 0.0845, 0.1377), Vec3(0.07, 0.11, 0.15)};
  p.length = {0.6, 0.8};
  return p;
}

// Fixed arbitrary thrust vectors and moments, for the tests of f (not of the form -T R e3).
class FixedInputs final : public QuadrotorInputLaw {
 public:
  explicit FixedInputs(QuadrotorInputs u) : u_(u) {}
  std::string name() const override { return "fixed_test"; }
  void evaluate(double, const QuadrotorState&, QuadrotorInputs& out) const override { out = u_; }

 private:
  QuadrotorInputs u_;
};

// Independent formulation: Cartesian positions (y, x_1, x_2), masses (m_y, m_1, m_2), gravity
// m g e3 and thrust u_i on quadrotor i, constraints phi_i = (|y - x_i|^2 - L_i^2)/2 = 0 at
// acceleration level: d_i.(y'' - x_i'') + |d_i'|^2 = 0, d_i = y - x_i. KKT system
//   [M G^T; G 0] [a; lambda] = [F; -|d_i'|^2].
// Returns y'' and q_i'' = (y'' - x_i'')/L_i.
struct CartesianAccel {
  Vec3 y_ddot;
  std::array<Vec3, 2> q_ddot;
};
CartesianAccel cartesian(const QuadrotorParameters& p, const QuadrotorState& s, const QuadrotorInputs& u) {
  Eigen::Matrix<double, 11, 11> K = Eigen::Matrix<double, 11, 11>::Zero();
  Eigen::Matrix<double, 11, 1> b = Eigen::Matrix<double, 11, 1>::Zero();
  const double masses[3] = {p.load_mass, p.mass[0], p.mass[1]};
  for (int k = 0; k < 3; ++k) {
    K.block<3, 3>(3 * k, 3 * k) = masses[k] * Mat3::Identity();
    b.segment<3>(3 * k) = masses[k] * p.gravity * kE3;
  }
  for (int i = 0; i < 2; ++i) {
    b.segment<3>(3 * (i + 1)) += u.thrust[i];
    const Vec3 d = p.length[i] * s.q[i];                  // y - x_i
    const Vec3 d_dot = p.length[i] * s.w[i].cross(s.q[i]);  // y' - x_i'
    K.block<1, 3>(9 + i, 0) = d.transpose();
    K.block<1, 3>(9 + i, 3 * (i + 1)) = -d.transpose();
    K.block<3, 1>(0, 9 + i) = d;
    K.block<3, 1>(3 * (i + 1), 9 + i) = -d;
    b[9 + i] = -d_dot.squaredNorm();
  }
  const Eigen::Matrix<double, 11, 1> a = K.fullPivLu().solve(b);
  CartesianAccel r;
  r.y_ddot = a.segment<3>(0);
  for (int i = 0; i < 2; ++i) r.q_ddot[i] = (r.y_ddot - Vec3(a.segment<3>(3 * (i + 1)))) / p.length[i];
  return r;
}

double energy(const Quadrotors& m, const double* P) {
  const QuadrotorState s = QuadrotorState::read(P);
  return m.kinetic_energy(s) + m.potential_energy(s);
}

std::unique_ptr<Stepper> stepper(const std::string& name, const Model& model) {
  return make_stepper(name, Config::from_pairs({}), model);
}

std::unique_ptr<Quadrotors> constant_input_model() {
  // Random 3-D state, thrusts near hover of the whole system (sum T ~ (m_y + m_1 + m_2) g),
  // and the constant moments (1, 1, 1) of the authors' code for [P] 6.
  QuadrotorParameters p = unequal_parameters();
  std::mt19937_64 rng(7);
  p.initial = random_state(rng);
  return std::make_unique<Quadrotors>(
      p, std::make_unique<ConstantInputs>(std::array<double, 2>{9.0, 10.0},
                                          std::array<Vec3, 2>{Vec3(1, 1, 1), Vec3(1, 1, 1)}));
}

std::unique_ptr<Quadrotors> free_model() {
  QuadrotorParameters p = unequal_parameters();
  std::mt19937_64 rng(11);
  p.initial = random_state(rng);
  return std::make_unique<Quadrotors>(p, std::make_unique<NoInputs>());
}

}  // namespace

// psi_*(f(P))|_P equals the equations of motion assembled independently: the Cartesian
// constrained formulation (KKT) for v', w_i' = q_i x q_i''; Euler's equations d/dt(R J Omega)
// = R M in the spatial frame; the kinematics (36). Random 3-D states, arbitrary thrusts.
TEST(Quadrotors, VectorFieldMatchesIndependentCartesianFormulation) {
  const QuadrotorParameters p = unequal_parameters();
  std::mt19937_64 rng(3);
  double worst = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    const QuadrotorState s = random_state(rng);
    QuadrotorInputs u;
    for (int i = 0; i < 2; ++i) {
      u.thrust[i] = random_vec3(rng, 8.0);
      u.moment[i] = random_vec3(rng, 1.0);
    }
    Quadrotors model(p, std::make_unique<FixedInputs>(u));
    std::vector<double> P(quad_layout::kStateDim), xi(quad_layout::kAlgDim), dP(quad_layout::kStateDim);
    s.write(P.data());
    model.vector_field(0.3, P.data(), xi.data());
    model.space().generator(xi.data(), P.data(), dP.data());
    const QuadrotorState d = QuadrotorState::read(dP.data());  // time derivatives of every part

    const CartesianAccel c = cartesian(p, s, u);
    double err = (d.y - s.v).norm() + (d.v - c.y_ddot).norm();
    for (int i = 0; i < 2; ++i) {
      err += (d.R[i] - s.R[i] * so3::hat(s.Omega[i])).norm();                   // (36)
      err += (d.q[i] - s.w[i].cross(s.q[i])).norm();                            // (36)
      err += (d.w[i] - s.q[i].cross(c.q_ddot[i])).norm() / (1.0 + c.q_ddot[i].norm());  // w = q x q'
      // d/dt (R J Omega) = R hat(Omega) J Omega + R J Omega' = R M
      const Vec3 J = p.inertia[i];
      const Vec3 spatial_rate = s.R[i] * (s.Omega[i].cross(J.cwiseProduct(s.Omega[i])) + J.cwiseProduct(d.Omega[i]));
      err += (spatial_rate - s.R[i] * u.moment[i]).norm();
    }
    worst = std::max(worst, err);
  }
  std::printf("max deviation from the Cartesian KKT formulation over 20 random states: %.2e\n", worst);
  EXPECT_LT(worst, 1e-12);
}

// dE/dt along the field (central finite differences of the energy in the ambient space) equals
// the power of the inputs sum_i u_i . y_i' + M_i . Omega_i; zero without inputs.
TEST(Quadrotors, EnergyBalanceAgainstFiniteDifferences) {
  for (bool with_inputs : {false, true}) {
    auto model = with_inputs ? constant_input_model() : free_model();
    std::vector<double> P(quad_layout::kStateDim), F(quad_layout::kStateDim), Pp(P.size()), Pm(P.size());
    model->initial_state(P.data());
    model->ambient_field(0.0, P.data(), F.data());
    const double eps = 1e-5;
    for (std::size_t k = 0; k < P.size(); ++k) Pp[k] = P[k] + eps * F[k], Pm[k] = P[k] - eps * F[k];
    const double dEdt = (energy(*model, Pp.data()) - energy(*model, Pm.data())) / (2 * eps);
    const QuadrotorState s = QuadrotorState::read(P.data());
    QuadrotorInputs u;
    model->inputs().evaluate(0.0, s, u);
    double power = 0.0;
    for (int i = 0; i < 2; ++i)
      power += u.thrust[i].dot(s.v - model->parameters().length[i] * s.w[i].cross(s.q[i])) + u.moment[i].dot(s.Omega[i]);
    std::printf("inputs %d: dE/dt (finite differences) %.12f, input power %.12f\n", with_inputs, dEdt, power);
    EXPECT_NEAR(dEdt, power, 1e-7 * (1.0 + std::fabs(power)));
    if (with_inputs) {
      EXPECT_GT(std::fabs(power), 0.1);  // the test with inputs is not trivially zero
    }
  }
}

// Observed orders of the explicit Lie group methods (and the classical rk4 on the embedding)
// with constant thrusts and moments from a random 3-D state, against rkmk5 with 16384 steps,
// itself confirmed by the classical dopri54 with 16384 steps.
TEST(Quadrotors, ObservedOrdersAgainstTightReference) {
  const double T = 1.0;
  std::vector<double> ref, chk;
  {
    auto m = constant_input_model();
    auto st = stepper("rkmk5", *m);
    ref = run_fixed(*st, *m, T, 16384);
    auto m2 = constant_input_model();
    auto st2 = stepper("dopri54", *m2);
    chk = run_fixed(*st2, *m2, T, 16384);
  }
  std::printf("reference rkmk5 vs dopri54, N = 16384: %.2e\n", distance(ref, chk));
  EXPECT_LT(distance(ref, chk), 1e-11) << "the reference is not tight";
  struct Case {
    const char* name;
    int order;
    long n0;
  };
  for (const Case& c : {Case{"lie_euler", 1, 512}, Case{"rkmk3", 3, 64}, Case{"rkmk4", 4, 128}, Case{"rkmk5", 5, 128},
                        Case{"cf4", 4, 128}, Case{"cg3", 3, 64}, Case{"rk4", 4, 128}}) {
    std::vector<double> hs, errs;
    for (int k = 0; k < 4; ++k) {
      const long n = c.n0 << k;
      auto m = constant_input_model();
      auto st = stepper(c.name, *m);
      errs.push_back(distance(run_fixed(*st, *m, T, n), ref));
      hs.push_back(T / static_cast<double>(n));
    }
    const double observed = fitted_order(hs, errs);
    std::printf("  %-10s nominal %d observed %.3f  errors %.2e %.2e %.2e %.2e\n", c.name, c.order, observed, errs[0],
                errs[1], errs[2], errs[3]);
    EXPECT_NEAR(observed, c.order, 0.2) << c.name;
  }
}

// Over the paper's horizon (T = 5, 2000 steps, the paper's initial state and moments M_i = (1,1,1),
// thrusts near hover): the Lie group methods keep |q_i| = 1, q_i.w_i = 0, R_i^T R_i = I to
// round-off; classical rk4 on the embedding drifts.
TEST(Quadrotors, ManifoldErrorsRoundOffForLieGroupMethodsDriftForRk4) {
  auto make = [] {
    return std::make_unique<Quadrotors>(
        QuadrotorParameters{}, std::make_unique<ConstantInputs>(std::array<double, 2>{9.0, 9.0},
                                                                std::array<Vec3, 2>{Vec3(1, 1, 1), Vec3(1, 1, 1)}));
  };
  auto errors = [&](const std::string& method) {
    auto m = make();
    auto st = stepper(method, *m);
    const auto y = run_fixed(*st, *m, 5.0, 2000);
    Observables o;
    m->observables(5.0, y.data(), o);
    return std::array<double, 3>{o.get("unit_norm_error"), o.get("tangency_error"), o.get("orthogonality_error")};
  };
  std::array<double, 3> worst{0.0, 0.0, 0.0};
  for (const char* method : {"lie_euler", "rkmk3", "rkmk4", "rkmk5", "cf4", "cg3"}) {
    const auto e = errors(method);
    for (int k = 0; k < 3; ++k) worst[k] = std::max(worst[k], e[k]);
    std::printf("  %-10s |1-|q|^2| %.1e  |q.w| %.1e  ||R^T R - I|| %.1e\n", method, e[0], e[1], e[2]);
    EXPECT_LT(e[0], 1e-13) << method;
    EXPECT_LT(e[1], 1e-12) << method;
    EXPECT_LT(e[2], 1e-13) << method;
  }
  const auto e = errors("rk4");
  std::printf("  %-10s |1-|q|^2| %.1e  |q.w| %.1e  ||R^T R - I|| %.1e\n", "rk4", e[0], e[1], e[2]);
  // rk4 leaves the manifold: every error at least 10^3 times the worst of the Lie group methods.
  for (int k = 0; k < 3; ++k) EXPECT_GT(e[k], 1e3 * worst[k]) << "quantity " << k;
}

// Zero inputs: a conservative system; the energy error of rkmk4 and cf4 at T = 2 decreases at
// the methods' order (4).
TEST(Quadrotors, EnergyConservedToMethodOrderWithoutInputs) {
  const double T = 2.0;
  for (const char* method : {"rkmk4", "cf4"}) {
    std::vector<double> hs, errs;
    for (int k = 0; k < 4; ++k) {
      const long n = 64L << k;
      auto m = free_model();
      std::vector<double> y0(quad_layout::kStateDim);
      m->initial_state(y0.data());
      const double E0 = energy(*m, y0.data());
      auto st = stepper(method, *m);
      const auto y = run_fixed(*st, *m, T, n);
      errs.push_back(std::fabs(energy(*m, y.data()) - E0));
      hs.push_back(T / static_cast<double>(n));
    }
    const double observed = fitted_order(hs, errs);
    std::printf("  %-6s energy errors %.2e %.2e %.2e %.2e, order %.2f\n", method, errs[0], errs[1], errs[2], errs[3],
                observed);
    EXPECT_NEAR(observed, 4.0, 0.2) << method;
  }
}

// The model is registered, declares its keys, and rejects bad input with a usage error.
TEST(Quadrotors, RegisteredWithKeys) {
  par::Context ctx(MPI_COMM_SELF);
  auto m = make_model(Config::from_pairs({{"model", "quadrotors"}, {"quadrotors.inputs", "constant"},
                                          {"quadrotors.thrust", "9, 9"}}),
                      ctx);
  EXPECT_EQ(m->name(), "quadrotors");
  EXPECT_EQ(m->space().state_size(), 42u);
  EXPECT_EQ(m->space().alg_size(), 30u);
  EXPECT_THROW(make_model(Config::from_pairs({{"model", "quadrotors"}, {"quadrotors.length", "0.6"}}), ctx),
               UsageError);
}

namespace {
std::unique_ptr<Quadrotors> paper_tracking_model() {
  const QuadrotorParameters p;
  return std::make_unique<Quadrotors>(p, std::make_unique<GeometricTracking>(p.load_mass, p.mass, p.length, p.gravity));
}
}  // namespace

// With u^par of the controller, M_q v' = M_q (g e3 + (mu_1 + mu_2)/m_y), so the load
// acceleration the controller assumes is the true one and q_id', q_id'' are exact time
// derivatives of q_id(t, P(t)) along the closed loop: central differences of q_id over a fine
// rkmk5 solution (h = 1e-4) approach them at second order (deviation / 4 when delta / 2).
TEST(QuadrotorsController, DesiredDirectionDerivativesMatchFiniteDifferences) {
  const double t0 = 1.0, h = 1e-4;
  const QuadrotorParameters p;
  const GeometricTracking ctrl(p.load_mass, p.mass, p.length, p.gravity);
  auto detail_at = [&](double t) {
    auto m = paper_tracking_model();
    auto st = stepper("rkmk5", *m);
    const auto y = run_fixed(*st, *m, t, std::lround(t / h));
    QuadrotorInputs u;
    GeometricTracking::Detail d;
    ctrl.evaluate(t, QuadrotorState::read(y.data()), u, d);
    return d;
  };
  const GeometricTracking::Detail mid = detail_at(t0);
  std::array<std::array<double, 2>, 2> dev1{}, dev2{};  // [delta index][link]
  const double deltas[2] = {2e-3, 1e-3};
  for (int k = 0; k < 2; ++k) {
    const double delta = deltas[k];
    const auto lo = detail_at(t0 - delta), hi = detail_at(t0 + delta);
    for (int i = 0; i < 2; ++i) {
      dev1[k][i] = ((hi.q_d[i] - lo.q_d[i]) / (2 * delta) - mid.q_d_dot[i]).norm();
      dev2[k][i] = ((hi.q_d[i] - 2.0 * mid.q_d[i] + lo.q_d[i]) / (delta * delta) - mid.q_d_ddot[i]).norm();
    }
  }
  for (int i = 0; i < 2; ++i) {
    std::printf("link %d: |q_d'| %.3f, FD deviations %.2e -> %.2e; |q_d''| %.3f, FD deviations %.2e -> %.2e\n", i + 1,
                mid.q_d_dot[i].norm(), dev1[0][i], dev1[1][i], mid.q_d_ddot[i].norm(), dev2[0][i], dev2[1][i]);
    EXPECT_GT(mid.q_d_dot[i].norm(), 0.1);  // the directions do move at t0
    EXPECT_LT(dev1[1][i], 1e-4 * mid.q_d_dot[i].norm());
    EXPECT_LT(dev2[1][i], 1e-4 * mid.q_d_ddot[i].norm());
    EXPECT_NEAR(dev1[0][i] / dev1[1][i], 4.0, 0.5);
    EXPECT_NEAR(dev2[0][i] / dev2[1][i], 4.0, 0.5);
    EXPECT_NEAR(mid.q_d[i].norm(), 1.0, 1e-14);
  }
}

// [P] Figs 15-18 with the paper's setting (RKMK4, 2000 steps over [0, 5]): the load error
// |y - y_d| and the link direction errors |q_id x q_i| decrease (at T = 5 below 1e-3 of the
// initial values), and the Lie group solution keeps the manifold to round-off.
TEST(QuadrotorsController, TracksTheParabola) {
  const double h = 0.0025;
  std::vector<double> ey, eq;
  for (double t : {0.0, 1.5, 3.0, 5.0}) {
    auto m = paper_tracking_model();
    auto st = stepper("rkmk4", *m);
    const auto y = t == 0.0 ? [&] {
      std::vector<double> y0(quad_layout::kStateDim);
      m->initial_state(y0.data());
      return y0;
    }()
                            : run_fixed(*st, *m, t, std::lround(t / h));
    Observables o;
    m->observables(t, y.data(), o);
    ey.push_back(Vec3(o.get("load_error_x"), o.get("load_error_y"), o.get("load_error_z")).norm());
    eq.push_back(std::max(o.get("link1_direction_error"), o.get("link2_direction_error")));
    std::printf("t = %.1f: |y - y_d| %.2e, max |q_d x q| %.2e, |1-|q|^2| %.1e, ||R^T R - I|| %.1e\n", t, ey.back(),
                eq.back(), o.get("unit_norm_error"), o.get("orthogonality_error"));
    EXPECT_LT(o.get("unit_norm_error"), 1e-13);
    EXPECT_LT(o.get("orthogonality_error"), 1e-13);
  }
  for (std::size_t k = 2; k < ey.size(); ++k) {
    EXPECT_LT(ey[k], ey[k - 1]);
    EXPECT_LT(eq[k], eq[k - 1]);
  }
  EXPECT_LT(ey.back(), 1e-3 * ey.front());
  EXPECT_LT(eq.back(), 1e-3 * eq.front());
}
