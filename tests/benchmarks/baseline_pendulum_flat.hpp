#pragma once
// The N-fold pendulum in flat coordinates, written the way a user without this suite would:
// state (q_i, w_i) in R^6N (6 doubles per link, the suite's layout), and
//   q_i' = w_i x q_i,   w_i' = h_i(q, w)
// with h from the O(N) tension route (/work/shared/notes/chain-tensions.md, [P] 5.2):
//   K tau = r,  K_11 = 1/m_1, K_ii = 1/m_{i-1} + 1/m_i, K_{i,i+1} = -(q_i.q_{i+1})/m_i,
//   r_1 = L_1 |w_1 x q_1|^2 - g e3.q_1, r_i = L_i |w_i x q_i|^2   (Thomas algorithm),
//   w_1' = [-g q_1 x e3 + (tau_2/m_1) q_1 x q_2]/L_1,
//   w_i' = [(tau_{i+1}/m_i) q_i x q_{i+1} - (tau_{i-1}/m_{i-1}) q_{i-1} x q_i]/L_i.
// Independent of src/ (plain loops over doubles): used by the Boost.Odeint RK4 baseline and the
// hand-written Eigen RKMK4 baseline, and checked there against the suite's own right-hand side.
#include <cstddef>
#include <vector>

namespace baseline {

struct FlatChain {
  std::size_t N;
  std::vector<double> inv_m, L;  // per link
  double g;
  std::vector<double> cprime, rprime, tau;  // Thomas scratch, allocated once

  FlatChain(std::size_t n, std::vector<double> masses, std::vector<double> lengths, double gravity)
      : N(n), inv_m(n), L(std::move(lengths)), g(gravity), cprime(n), rprime(n), tau(n + 1, 0.0) {
    for (std::size_t i = 0; i < n; ++i) inv_m[i] = 1.0 / masses[i];
  }

  // Angular accelerations h_i of the state y (6 per link), written to h[stride i + k].
  void accelerations(const double* y, double* h, std::size_t stride = 3) {
    // Forward sweep of the Thomas algorithm, building K and r on the fly.
    double e_prev = 0.0;  // K_{i-1,i}
    for (std::size_t i = 0; i < N; ++i) {
      const double* q = y + 6 * i;
      const double* w = y + 6 * i + 3;
      const double c0 = w[1] * q[2] - w[2] * q[1], c1 = w[2] * q[0] - w[0] * q[2], c2 = w[0] * q[1] - w[1] * q[0];
      double r = L[i] * (c0 * c0 + c1 * c1 + c2 * c2);
      double d = inv_m[i];
      if (i == 0) r -= g * q[2];
      else d += inv_m[i - 1];
      double e = 0.0;  // K_{i,i+1}
      if (i + 1 < N) {
        const double* qn = y + 6 * (i + 1);
        e = -(q[0] * qn[0] + q[1] * qn[1] + q[2] * qn[2]) * inv_m[i];
      }
      const double denom = i == 0 ? d : d - e_prev * cprime[i - 1];
      cprime[i] = e / denom;
      rprime[i] = (i == 0 ? r : r - e_prev * rprime[i - 1]) / denom;
      e_prev = e;
    }
    tau[N] = 0.0;  // tau_{N+1} = 0 (index shifted by one: tau[i] is tau_{i+1})
    tau[N - 1] = rprime[N - 1];
    for (std::size_t i = N - 1; i-- > 0;) tau[i] = rprime[i] - cprime[i] * tau[i + 1];
    // w_i' from the tensions.
    for (std::size_t i = 0; i < N; ++i) {
      const double* q = y + 6 * i;
      double a0 = 0, a1 = 0, a2 = 0;
      if (i + 1 < N) {
        const double* qn = y + 6 * (i + 1);
        const double s = tau[i + 1] * inv_m[i];
        a0 += s * (q[1] * qn[2] - q[2] * qn[1]);
        a1 += s * (q[2] * qn[0] - q[0] * qn[2]);
        a2 += s * (q[0] * qn[1] - q[1] * qn[0]);
      }
      if (i == 0) {  // -g q_1 x e3 = -g (q_y, -q_x, 0)
        a0 -= g * q[1];
        a1 += g * q[0];
      } else {
        const double* qp = y + 6 * (i - 1);
        const double s = tau[i - 1] * inv_m[i - 1];
        a0 -= s * (qp[1] * q[2] - qp[2] * q[1]);
        a1 -= s * (qp[2] * q[0] - qp[0] * q[2]);
        a2 -= s * (qp[0] * q[1] - qp[1] * q[0]);
      }
      const double il = 1.0 / L[i];
      h[stride * i] = a0 * il;
      h[stride * i + 1] = a1 * il;
      h[stride * i + 2] = a2 * il;
    }
  }

  // Total energy T + U of the state y ([P] 5.2): bob velocities x_i' = sum_{k<=i} L_k w_k x q_k and
  // heights e3.x_i = sum_{k<=i} L_k e3.q_k (prefix sums), T = 1/2 sum m_i |x_i'|^2, U = sum m_i g e3.x_i.
  // For the check that a timed run stayed finite and on its energy.
  double energy(const double* y) const {
    double v0 = 0, v1 = 0, v2 = 0, z = 0, T = 0, U = 0;
    for (std::size_t i = 0; i < N; ++i) {
      const double* q = y + 6 * i;
      const double* w = y + 6 * i + 3;
      v0 += L[i] * (w[1] * q[2] - w[2] * q[1]);
      v1 += L[i] * (w[2] * q[0] - w[0] * q[2]);
      v2 += L[i] * (w[0] * q[1] - w[1] * q[0]);
      z += L[i] * q[2];
      const double m = 1.0 / inv_m[i];
      T += 0.5 * m * (v0 * v0 + v1 * v1 + v2 * v2);
      U += m * g * z;
    }
    return T + U;
  }

  // Flat field dy = (w_i x q_i, h_i); the accelerations are written straight into dy.
  void field(const double* y, double* dy) {
    accelerations(y, dy + 3, 6);
    for (std::size_t i = 0; i < N; ++i) {
      const double* q = y + 6 * i;
      const double* w = y + 6 * i + 3;
      dy[6 * i] = w[1] * q[2] - w[2] * q[1];
      dy[6 * i + 1] = w[2] * q[0] - w[0] * q[2];
      dy[6 * i + 2] = w[0] * q[1] - w[1] * q[0];
    }
  }
};

}  // namespace baseline
