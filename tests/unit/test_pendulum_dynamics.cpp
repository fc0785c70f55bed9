// The N-fold pendulum under the integrators: the exact flow conserves the energy and the
// angular momentum about e3 (their errors under rkmk5 vanish at order 5 as h -> 0), RKMK4
// converges at order 4 on N = 2, Lie group methods stay on (TS^2)^N; the model's keys.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "io/h5.hpp"
#include "studies/state_file.hpp"
#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "unit/pendulum_fixtures.hpp"

using namespace lie;
using namespace lie::test;

namespace {

struct ChainRun {
  std::vector<double> y;
  Observables start, end;
};

ChainRun integrate(const NFoldPendulumParams& p, const std::vector<double>& y0, const std::string& method, int steps,
              double T) {
  par::Context ctx(MPI_COMM_SELF);
  NFoldPendulum model(p, ctx);
  auto st = make_stepper(method, Config::from_pairs({}), model);
  st->bind(model, ctx);
  ChainRun r;
  r.y = y0;
  model.observables(0.0, r.y.data(), r.start);
  FixedStepOptions opt;
  opt.h = T / steps;
  opt.steps = static_cast<std::uint64_t>(steps);
  integrate_fixed(*st, r.y.data(), opt, nullptr);
  model.observables(T, r.y.data(), r.end);
  return r;
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s);
}

// Least-squares slope of log(err) against log(h).
double fitted_order(const std::vector<int>& steps, const std::vector<double>& err) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(steps.size());
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const double x = std::log(1.0 / steps[k]), y = std::log(err[k]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace

// An independent flat-coordinate implementation of [P] 5.2's double pendulum, eq. (35), in the
// embedding space R^12 (plain arrays; q_i' = w_i x q_i, R(q) w' = F by Gaussian elimination
// with partial pivoting of the 6x6 system) and the classical RK4 on it.
namespace flat {
using V = std::array<double, 3>;
V cross(const V& a, const V& b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
double dot(const V& a, const V& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
void hat(const V& v, double H[3][3]) {
  const double h[3][3] = {{0, -v[2], v[1]}, {v[2], 0, -v[0]}, {-v[1], v[0], 0}};
  std::memcpy(H, h, sizeof(h));
}
// y = (q1, w1, q2, w2); m, L, g as in eq. (35).
void field(const double* y, double m1, double m2, double L1, double L2, double g, double* dy) {
  const V q1{y[0], y[1], y[2]}, w1{y[3], y[4], y[5]}, q2{y[6], y[7], y[8]}, w2{y[9], y[10], y[11]};
  const V e3{0, 0, 1};
  double A[6][7] = {};
  double H1[3][3], H2[3][3];
  hat(q1, H1);
  hat(q2, H2);
  const double M12 = m2 * L1 * L2;
  for (int r = 0; r < 3; ++r) {
    A[r][r] = (m1 + m2) * L1 * L1;
    A[3 + r][3 + r] = m2 * L2 * L2;
    for (int c = 0; c < 3; ++c) {
      double s = 0.0;  // (q^1^T q^2)_rc
      for (int k = 0; k < 3; ++k) s += H1[k][r] * H2[k][c];
      A[r][3 + c] = M12 * s;
      A[3 + c][r] = M12 * s;  // R_21 = R_12^T
    }
  }
  // right-hand side of eq. (35): (-M12 |w2|^2 q^2 + (m1 + m2) g L1 e^3) q1, (-M12 |w1|^2 q^1 + m2 g L2 e^3) q2
  const V a = cross(q2, q1), b = cross(e3, q1), c = cross(q1, q2), d = cross(e3, q2);
  for (int k = 0; k < 3; ++k) {
    A[k][6] = -M12 * dot(w2, w2) * a[k] + (m1 + m2) * g * L1 * b[k];
    A[3 + k][6] = -M12 * dot(w1, w1) * c[k] + m2 * g * L2 * d[k];
  }
  for (int col = 0; col < 6; ++col) {  // Gaussian elimination, partial pivoting
    int piv = col;
    for (int r = col + 1; r < 6; ++r)
      if (std::fabs(A[r][col]) > std::fabs(A[piv][col])) piv = r;
    for (int k = 0; k < 7; ++k) std::swap(A[col][k], A[piv][k]);
    for (int r = col + 1; r < 6; ++r) {
      const double f = A[r][col] / A[col][col];
      for (int k = col; k < 7; ++k) A[r][k] -= f * A[col][k];
    }
  }
  double x[6];
  for (int r = 5; r >= 0; --r) {
    double s = A[r][6];
    for (int k = r + 1; k < 6; ++k) s -= A[r][k] * x[k];
    x[r] = s / A[r][r];
  }
  const V dq1 = cross(w1, q1), dq2 = cross(w2, q2);
  for (int k = 0; k < 3; ++k) dy[k] = dq1[k], dy[3 + k] = x[k], dy[6 + k] = dq2[k], dy[9 + k] = x[3 + k];
}
std::vector<double> rk4(std::vector<double> y, double m1, double m2, double L1, double L2, double g, double T,
                        int steps) {
  const double h = T / steps;
  double k1[12], k2[12], k3[12], k4[12], z[12];
  for (int n = 0; n < steps; ++n) {
    field(y.data(), m1, m2, L1, L2, g, k1);
    for (int i = 0; i < 12; ++i) z[i] = y[i] + 0.5 * h * k1[i];
    field(z, m1, m2, L1, L2, g, k2);
    for (int i = 0; i < 12; ++i) z[i] = y[i] + 0.5 * h * k2[i];
    field(z, m1, m2, L1, L2, g, k3);
    for (int i = 0; i < 12; ++i) z[i] = y[i] + h * k3[i];
    field(z, m1, m2, L1, L2, g, k4);
    for (int i = 0; i < 12; ++i) y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  }
  return y;
}
}  // namespace flat

// The classical rk4 baseline is [P]'s RK4: on the double pendulum it matches the flat RK4 of
// eq. (35) above to round-off, on the paper's planar state and on a 3-D state, with the O(N)
// solve and the dense one; the lie_algebra extension differs at O(h^4) (the issue measured
// 1.3e-3 relative at 16 steps on [0, 1]).
TEST(PendulumDynamics, ClassicalRk4IsThePapersRk4) {
  const double m1 = 1.3, m2 = 0.7, L1 = 1.1, L2 = 0.8, g = 9.81;
  std::vector<double> paper_state(12), spatial(12);
  const double s = std::sqrt(2.0) / 2.0;
  for (int i = 0; i < 2; ++i) {
    const double row[6] = {s, 0.0, s, 0.0, 1.0, 0.0};
    std::copy_n(row, 6, &paper_state[6 * i]);
  }
  spatial = random_chain_state(2, 77, 2.0);
  for (const auto* y0 : {&paper_state, &spatial}) {
    const auto ref = flat::rk4(*y0, m1, m2, L1, L2, g, 1.0, 16);
    NFoldPendulumParams p;
    p.N = 2;
    p.mass = {m1, m2};
    p.length = {L1, L2};
    p.gravity = g;
    for (auto solver : {NFoldPendulumParams::Solver::Tridiagonal, NFoldPendulumParams::Solver::Dense}) {
      p.solver = solver;
      p.classical_field = NFoldPendulumParams::ClassicalField::Paper;
      const auto ours = integrate(p, *y0, "rk4", 16, 1.0).y;
      const double scale = distance(ref, std::vector<double>(12, 0.0));
      EXPECT_LT(distance(ours, ref), 1e-13 * scale) << "solver " << static_cast<int>(solver);
      p.classical_field = NFoldPendulumParams::ClassicalField::LieAlgebra;
      const auto other = integrate(p, *y0, "rk4", 16, 1.0).y;
      EXPECT_GT(distance(other, ref), 1e-6 * scale) << "the lie_algebra extension should differ";
      std::printf("[pendulum] rk4, 16 steps on [0,1]: |paper - flat| = %.2e, |lie_algebra - flat| = %.2e\n",
                  distance(ours, ref), distance(other, ref));
    }
  }
}

// Energy and angular momentum about e3 are first integrals of the exact flow: under rkmk5
// their errors at T must vanish like h^5 (a wrong sign of gravity, tension or of a cross
// product leaves an O(1) drift that does not shrink with h).
TEST(PendulumDynamics, EnergyAndAngularMomentumErrorsVanishAtOrder5) {
  const std::size_t N = 5;
  const NFoldPendulumParams p = random_chain_params(N, 301);
  const auto y0 = random_chain_state(N, 302, 1.0);
  const double T = 1.0;
  const std::vector<int> steps = {200, 400, 800};  // 1600 reaches round-off (|dE| ~ 2e-14 E0)
  std::vector<double> dE, dL;
  double E0 = 0.0;
  for (int n : steps) {
    const ChainRun r = integrate(p, y0, "rkmk5", n, T);
    E0 = r.start.get("total_energy");
    dE.push_back(std::fabs(r.end.get("total_energy") - E0));
    dL.push_back(std::fabs(r.end.get("angular_momentum_z") - r.start.get("angular_momentum_z")));
    std::printf("[pendulum] rkmk5 N=5 steps=%4d |dE|=%.3e |dLz|=%.3e (E0=%.4f, Lz0=%.4f)\n", n, dE.back(), dL.back(), E0,
                r.start.get("angular_momentum_z"));
  }
  const double pE = fitted_order(steps, dE), pL = fitted_order(steps, dL);
  std::printf("[pendulum] fitted orders: energy %.2f, angular momentum z %.2f\n", pE, pL);
  EXPECT_NEAR(pE, 5.0, 0.3);
  EXPECT_NEAR(pL, 5.0, 0.3);
  EXPECT_LT(dE.back(), 1e-9 * std::fabs(E0));
}

// [P] 5.3, Fig. 5: RKMK4 on N = 2 against a tight reference (rkmk5, 4096 steps), on a
// random 3-D chain with random masses and lengths and on the paper's initial state.
TEST(PendulumDynamics, Rkmk4ConvergesAtOrder4OnTwoLinks) {
  const double T = 1.0;
  const NFoldPendulumParams random_p = random_chain_params(2, 311);
  NFoldPendulumParams paper_p;
  paper_p.N = 2;
  std::vector<double> paper_y0(12);
  {
    par::Context ctx(MPI_COMM_SELF);
    NFoldPendulum(paper_p, ctx).initial_state(paper_y0.data());
  }
  for (const auto& [p, y0, label] :
       {std::tuple{random_p, random_chain_state(2, 312, 1.0), "random 3-D"}, std::tuple{paper_p, paper_y0, "paper"}}) {
    const std::vector<int> steps = {256, 512, 1024};
    const auto ref = integrate(p, y0, "rkmk5", 4096, T).y;
    std::vector<double> err;
    for (int n : steps) err.push_back(distance(integrate(p, y0, "rkmk4", n, T).y, ref));
    const double order = fitted_order(steps, err);
    std::printf("[pendulum] rkmk4 N=2 %s: errors", label);
    for (double e : err) std::printf(" %.3e", e);
    std::printf(", order %.3f\n", order);
    EXPECT_NEAR(order, 4.0, 0.2) << label;
  }
}

// Lie group methods keep |q_i| = 1 and q_i.w_i = 0 to round-off ([P] Figs 6-7).
TEST(PendulumDynamics, StaysOnTheManifold) {
  const std::size_t N = 30;
  const ChainRun r = integrate(random_chain_params(N, 321), random_chain_state(N, 322, 1.0), "rkmk4", 500, 0.5);
  std::printf("[pendulum] rkmk4 N=30, 500 steps: unit_norm_error %.2e, tangency_error %.2e\n",
              r.end.get("unit_norm_error"), r.end.get("tangency_error"));
  EXPECT_LT(r.end.get("unit_norm_error"), 1e-13);
  EXPECT_LT(r.end.get("tangency_error"), 1e-12);
}

// ---------------------------------------------------------------- keys
TEST(PendulumConfig, KeysBuildTheModel) {
  par::Context ctx(MPI_COMM_SELF);
  auto m = make_model(Config::from_pairs({{"model", "nfold_pendulum"},
                                          {"nfold_pendulum.N", "4"},
                                          {"nfold_pendulum.mass", "1, 2, 3, 4"},
                                          {"nfold_pendulum.total_length", "5"},
                                          {"nfold_pendulum.gravity", "3.5"}}),
                      ctx);
  auto* pend = dynamic_cast<NFoldPendulum*>(m.get());
  ASSERT_NE(pend, nullptr);
  EXPECT_EQ(pend->global_components(), 4u);
  EXPECT_EQ(pend->space().state_size(), 24u);
  EXPECT_DOUBLE_EQ(pend->length(3), 1.25);  // L_i = 5/N
  EXPECT_DOUBLE_EQ(pend->mass(2), 3.0);
  EXPECT_DOUBLE_EQ(pend->suffix_mass(1), 9.0);
  EXPECT_DOUBLE_EQ(pend->inertia(0, 2), 7.0 * 1.25 * 1.25);
  EXPECT_TRUE(pend->capabilities().sphere_lagrangian);
  std::vector<double> y(24);
  pend->initial_state(y.data());
  // [P] 5.3: (cos(pi/4), 0, sin(pi/4)) computed as such, as in the authors' MATLAB (they
  // differ in the last bit: 0.7071067811865476 and 0.7071067811865475)
  const double pi = 3.141592653589793;
  EXPECT_NE(std::cos(pi / 4.0), std::sin(pi / 4.0));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(y[6 * i], std::cos(pi / 4.0));
    EXPECT_EQ(y[6 * i + 2], std::sin(pi / 4.0));
    EXPECT_EQ(y[6 * i + 4], 1.0);
    EXPECT_EQ(y[6 * i + 1] + y[6 * i + 3] + y[6 * i + 5], 0.0);
  }
}

TEST(PendulumConfig, RandomInitialStateIsThreeDimensionalAndTangent) {
  par::Context ctx(MPI_COMM_SELF);
  auto m = make_model(Config::from_pairs({{"model", "nfold_pendulum"},
                                          {"nfold_pendulum.N", "50"},
                                          {"nfold_pendulum.initial", "random"},
                                          {"nfold_pendulum.seed", "7"}}),
                      ctx);
  std::vector<double> y(300);
  m->initial_state(y.data());
  double min_y = 1.0, min_wx = 1.0;
  for (int i = 0; i < 50; ++i) {
    const Vec3 q(&y[6 * i]), w(&y[6 * i + 3]);
    EXPECT_NEAR(q.norm(), 1.0, 1e-15);
    EXPECT_LT(std::fabs(q.dot(w)), 1e-15 * (1.0 + w.norm()));
    min_y = std::min(min_y, std::fabs(q.y()));
    min_wx = std::min(min_wx, std::fabs(w.x()));
  }
  double spread_y = 0.0;
  for (int i = 0; i < 50; ++i) spread_y += std::fabs(y[6 * i + 1]);
  EXPECT_GT(spread_y / 50, 0.2);  // not planar
  // same seed, same state; another seed, another state
  std::vector<double> y2(300), y3(300);
  m->initial_state(y2.data());
  EXPECT_EQ(y, y2);
  make_model(Config::from_pairs({{"model", "nfold_pendulum"},
                                 {"nfold_pendulum.N", "50"},
                                 {"nfold_pendulum.initial", "random"},
                                 {"nfold_pendulum.seed", "8"}}),
             ctx)
      ->initial_state(y3.data());
  EXPECT_NE(y, y3);
}

TEST(PendulumConfig, BadInputIsAUsageError) {
  par::Context ctx(MPI_COMM_SELF);
  auto make = [&](std::vector<std::pair<std::string, std::string>> kv) {
    kv.emplace_back("model", "nfold_pendulum");
    return make_model(Config::from_pairs(kv), ctx);
  };
  EXPECT_THROW(make({{"nfold_pendulum.N", "3"}, {"nfold_pendulum.mass", "1, 2"}}), UsageError);
  EXPECT_THROW(make({{"nfold_pendulum.N", "3"}, {"nfold_pendulum.length", "1, 2, 3, 4"}}), UsageError);
  EXPECT_THROW(make({{"nfold_pendulum.length", "2"}, {"nfold_pendulum.total_length", "5"}}), UsageError);
  EXPECT_THROW(make({{"nfold_pendulum.N", "10"}, {"nfold_pendulum.blocks", "6"}}), UsageError);
  EXPECT_NO_THROW(make({{"nfold_pendulum.N", "10"}, {"nfold_pendulum.blocks", "5"}}));
  EXPECT_THROW(make({{"nfold_pendulum.N", "3000"}, {"nfold_pendulum.solver", "dense"}}), UsageError);
  EXPECT_THROW(make({{"nfold_pendulum.mass", "0"}}), UsageError);
  EXPECT_THROW(make({{"nfold_pendulum.initial", "file"}}), UsageError);
  EXPECT_THROW(make({{"nfold_pendulum.N", "0"}}), UsageError);
  try {
    make({{"nfold_pendulum.N", "3"}, {"nfold_pendulum.mass", "1, 2"}});
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("nfold_pendulum.mass"), std::string::npos) << e.what();
  }
}

// solver = dense gives the same vector field (it is the reference path of the benchmarks).
TEST(PendulumConfig, DenseSolverKey) {
  par::Context ctx(MPI_COMM_SELF);
  NFoldPendulumParams p = random_chain_params(12, 331);
  NFoldPendulum on(p, ctx);
  p.solver = NFoldPendulumParams::Solver::Dense;
  NFoldPendulum dense(p, ctx);
  const auto y = random_chain_state(12, 332);
  std::vector<double> a(72), b(72);
  on.vector_field(0.0, y.data(), a.data());
  dense.vector_field(0.0, y.data(), b.data());
  EXPECT_LT(rel_diff(a.data(), b.data(), 72), 1e-13);
}

// initial = file: rows (q_i, w_i) of an HDF5 dataset (the result-file contract
// /runs/<run_id>/final_state); N is taken from the dataset unless set; bad data is refused.
TEST(PendulumConfig, InitialStateFromFile) {
  par::Context ctx(MPI_COMM_SELF);
  char tmpl[] = "/tmp/liebench_pendulum_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl, path = dir + "/chain.h5";
  const std::size_t N = 37;
  NFoldPendulum writer(random_chain_params(N, 341), ctx);
  const auto y = random_chain_state(N, 342);
  auto bad = y;
  bad[6 * 3] += 1e-3;  // |q_4| != 1
  {
    h5::File f = h5::File::create(path, MPI_COMM_SELF);
    const io::StateRows layout = io::state_rows(writer, ctx);
    io::write_state(f, f.id(), "runs/run_00000/final_state", writer, layout, y.data());
    io::write_state(f, f.id(), "runs/run_00001/final_state", writer, layout, bad.data());
    f.close();
  }
  auto make = [&](const std::vector<std::pair<std::string, std::string>>& overrides) {
    std::vector<std::pair<std::string, std::string>> kv = {
        {"model", "nfold_pendulum"}, {"nfold_pendulum.initial", "file"}, {"nfold_pendulum.file", path}};
    kv.insert(kv.end(), overrides.begin(), overrides.end());  // later pairs win
    return make_model(Config::from_pairs(kv), ctx);
  };
  auto m = make({});
  EXPECT_EQ(m->global_components(), N);
  std::vector<double> read(6 * N);
  m->initial_state(read.data());
  EXPECT_EQ(read, y);
  EXPECT_NO_THROW(make({{"nfold_pendulum.N", "37"}}));
  EXPECT_THROW(make({{"nfold_pendulum.N", "36"}}), UsageError);
  EXPECT_THROW(make({{"nfold_pendulum.dataset", "/runs/run_00001/final_state"}}), UsageError);  // off TS^2
  EXPECT_THROW(make({{"nfold_pendulum.dataset", "/runs/run_00002/final_state"}}), UsageError);  // missing
  EXPECT_THROW(make({{"nfold_pendulum.file", dir + "/missing.h5"}}), UsageError);
  std::filesystem::remove_all(dir);
}
