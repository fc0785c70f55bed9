// [L] Example 1 (issue 9): why the suite's double spherical pendulum does not show [L]'s "mean
// total energy variation" of 2.1641e-5 Nm for the variational integrator at h = 0.01.
// An independent implementation of [L] (22)-(25) for n = 2, written here in [L]'s own
// convention (e3 along gravity, V = -(m1 + m2) g l1 e3.q1 - m2 g l2 e3.q2, [L]'s initial state
// unmirrored), m1 = m2 = 1, l1 = l2 = 9.81, g = 9.81, T = 100, measured as the mean over every
// step of |E_k - E_0|:
//   - at h = 0.01 (the step [L] states) it agrees with the suite's lgvi on the experiment file
//     experiments/L_ex1_double_pendulum_lgvi.cfg (nfold_pendulum, gravity along -e3, the
//     state mirrored) -- so the suite computes [L]'s setting -- and is ~100x [L]'s number;
//   - relative to |E_0| it is 2.9e-5, 1.3x [L]'s number: not a match either;
//   - at h = 0.001 it is [L]'s number to within 2%: [L]'s Example 1 VI figure is what the
//     setting gives with h = 1e-3 (100x smaller, the order-2 scaling), not with the printed 0.01.
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <array>
#include <cmath>
#include <cstdio>

#include "methods/integrate.hpp"
#include "methods/stepper.hpp"

using namespace lie;

namespace {

using V3 = Eigen::Vector3d;
using M3 = Eigen::Matrix3d;
using V6 = Eigen::Matrix<double, 6, 1>;

M3 hat(const V3& v) {
  M3 m;
  m << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return m;
}

struct DoublePendulumVI {
  double m1 = 1, m2 = 1, l1 = 9.81, l2 = 9.81, g = 9.81;
  std::array<std::array<double, 2>, 2> M{};
  std::array<V3, 2> dV;  // constant: gravity only
  DoublePendulumVI() {
    M = {{{(m1 + m2) * l1 * l1, m2 * l1 * l2}, {m2 * l1 * l2, m2 * l2 * l2}}};
    dV = {V3(0, 0, -(m1 + m2) * g * l1), V3(0, 0, -m2 * g * l2)};
  }
  double energy(const std::array<V3, 2>& q, const std::array<V3, 2>& w) const {
    double T = 0.0;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) T += 0.5 * M[i][j] * w[i].cross(q[i]).dot(w[j].cross(q[j]));
    return T - (m1 + m2) * g * l1 * q[0].z() - m2 * g * l2 * q[1].z();
  }
  static V3 cayley(const V3& f, const V3& q) { return ((1.0 - f.dot(f)) * q + 2.0 * f.cross(q)) / (1.0 + f.dot(f)); }  // (27)
  // One step of (22)-(25): Newton on the Cayley coordinates f_i (f_i . q_i = 0 added as the
  // component along q_i), finite-difference Jacobian.
  void step(std::array<V3, 2>& q, std::array<V3, 2>& w, double h) const {
    std::array<V3, 2> d;
    for (int i = 0; i < 2; ++i) {
      const int j = 1 - i;
      d[i] = M[i][i] * h * w[i] - q[i].cross(M[i][j] * q[j].cross(h * w[j])) - 0.5 * h * h * q[i].cross(dV[i]);  // (22)
    }
    auto residual = [&](const V6& x) {
      V6 r;
      std::array<V3, 2> qn = {cayley(x.head<3>(), q[0]), cayley(x.tail<3>(), q[1])};
      for (int i = 0; i < 2; ++i) {
        const int j = 1 - i;
        const V3 f = x.segment<3>(3 * i);
        r.segment<3>(3 * i) = M[i][i] * q[i].cross(qn[i]) + q[i].cross(M[i][j] * (qn[j] - q[j])) - d[i] + f.dot(q[i]) * q[i];
      }
      return r;
    };
    V6 x;
    x << 0.5 * h * w[0], 0.5 * h * w[1];
    for (int it = 0; it < 30; ++it) {
      const V6 r = residual(x);
      Eigen::Matrix<double, 6, 6> J;
      for (int k = 0; k < 6; ++k) {
        V6 e = V6::Zero();
        e[k] = 1e-7;
        J.col(k) = (residual(x + e) - residual(x - e)) / 2e-7;
      }
      const V6 dx = J.partialPivLu().solve(r);
      x -= dx;
      if (dx.norm() < 1e-15 * (1.0 + x.norm())) break;
    }
    const std::array<V3, 2> qn = {cayley(x.head<3>(), q[0]), cayley(x.tail<3>(), q[1])};  // (23)
    Eigen::Matrix<double, 6, 6> A;
    V6 b;
    for (int i = 0; i < 2; ++i) {
      const int j = 1 - i;
      A.block<3, 3>(3 * i, 3 * i) = M[i][i] * M3::Identity();
      A.block<3, 3>(3 * i, 3 * j) = -M[i][j] * hat(qn[i]) * hat(qn[j]);
      b.segment<3>(3 * i) = qn[i].cross(M[i][i] * (qn[i] - q[i]) + M[i][j] * (qn[j] - q[j])) / h - 0.5 * h * qn[i].cross(dV[i]);  // (25)
    }
    const V6 wn = A.partialPivLu().solve(b);
    q = qn;
    w = {wn.head<3>(), wn.tail<3>()};
  }
};

struct Means {
  double abs = 0.0, rel = 0.0;
};

// [L]'s initial state (its 0.8660 and 0.4330 are sqrt(3)/2 and sqrt(3)/4 rounded).
Means independent_vi(double h) {
  const DoublePendulumVI vi;
  std::array<V3, 2> q = {V3(std::sqrt(3.0) / 2, 0, 0.5), V3(0, 0, 1)};
  std::array<V3, 2> w = {V3(-std::sqrt(3.0) / 4, 0, 0.75), V3(0, 1, 0)};
  const double E0 = vi.energy(q, w);
  const long N = std::lround(100.0 / h);
  double sum = 0.0;  // k = 0 contributes 0
  for (long k = 0; k < N; ++k) {
    vi.step(q, w, h);
    sum += std::fabs(vi.energy(q, w) - E0);
  }
  const double mean = sum / static_cast<double>(N + 1);
  return {mean, mean / std::fabs(E0)};
}

Means suite_vi(double h) {
  par::Context ctx(MPI_COMM_SELF);
  const Config cfg = Config::from_file(std::string(LIEBENCH_SOURCE_DIR) + "/experiments/L_ex1_double_pendulum_lgvi.cfg");
  auto model = make_model(cfg, ctx);
  auto st = make_stepper("lgvi", cfg, *model);
  st->bind(*model, ctx);
  std::vector<double> y(model->space().state_size());
  model->initial_state(y.data());
  FixedStepOptions opt;
  opt.h = h;
  opt.steps = static_cast<std::uint64_t>(std::lround(100.0 / h));
  opt.stride = 1;
  double E0 = 0.0, sum = 0.0;
  std::uint64_t samples = 0;
  integrate_fixed(*st, y.data(), opt, [&](double, const double* yy, std::uint64_t k) {
    Observables o;
    model->observables(0.0, yy, o);
    if (k == 0) E0 = o.get("total_energy");
    sum += std::fabs(o.get("total_energy") - E0);
    ++samples;
  });
  const double mean = sum / static_cast<double>(samples);
  return {mean, mean / std::fabs(E0)};
}

}  // namespace

TEST(LEx1Energy, PaperNumberIsTheSettingAtStepOneThousandth) {
  const double paper = 2.1641e-5;  // [L] Example 1: "mean total energy variation is 2.1641e-5 Nm"
  const Means ind2 = independent_vi(0.01), suite2 = suite_vi(0.01), ind3 = independent_vi(0.001);
  std::printf("[ L ex1 ] mean |E_k - E_0| over T = 100: h = 0.01 independent %.4e, suite %.4e (relative %.3e / %.3e); "
              "h = 0.001 independent %.4e; [L] %.4e\n",
              ind2.abs, suite2.abs, ind2.rel, suite2.rel, ind3.abs, paper);
  EXPECT_NEAR(ind2.abs / suite2.abs, 1.0, 0.1);  // the suite computes [L]'s setting
  EXPECT_GT(ind2.abs, 50.0 * paper);              // h = 0.01 cannot give [L]'s number ...
  EXPECT_GT(std::fabs(ind2.rel / paper - 1.0), 0.2);  // ... nor can its relative reading
  EXPECT_NEAR(ind3.abs / paper, 1.0, 0.05);       // h = 0.001 does
}
