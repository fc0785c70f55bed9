#pragma once
// The per-body kernels of T*SO(3) left trivialised (factor tstar_so3_left: the rigid bodies of
// [K] 3.2, the dipolar model's rotational part) in plain doubles, one body per call: the exp
// action of [K] eq. (2.41) and the exact dexpinv of the opposite group.
//
// These replace Eigen expressions that cost more than their arithmetic (a profile of [K]'s
// N = 100 RKMK4 run: about 30 % of the run in so3::exp, so3::dexp, sinc, se3::dexpinv and the
// 3x3 product, with three sin calls per body where two give the same values). Every operation is
// the one of the Eigen form, in the same order (FP contraction is off, CMakeLists.txt), so the
// results are bitwise those of the forms they replaced (tests/unit/test_tstar_left_kernels.cpp
// keeps those forms and compares bits; in the default build, see exp_act):
//   exp_act:  (Q, m) . exp(x, alpha) = (Q E, E^T m + J_l(-x) alpha),  E = so3::exp(x)
//   dexpinv:  se3::dexpinv(-u, v)   (the opposite group's dexpinv, factors.hpp)
#include <cmath>

#include "groups/se3_ts2_lanes.hpp"
#include "groups/so3.hpp"

namespace lie::tstar_left {

namespace detail {
/// exp_act's arithmetic once its coefficients are known: A = sinc t, B = (1 - cos t)/t^2,
/// C = (t - sin t)/t^3, t = |x|. On accessors (plain pointers, or se3_ts2::Strided lanes of
/// rigid_body_batch.cpp: the same expressions, so the same bits); out may alias y.
template <class Xi, class Y, class Out>
[[gnu::always_inline]] inline void exp_act_apply(double A, double B, double C, const Xi& xi, const Y& y,
                                                 const Out& out) {
  const double x = xi[0], yv = xi[1], z = xi[2];
  const double al[3] = {xi[3], xi[4], xi[5]};
  // so3::exp(x)
  const double xx = x * x, yy = yv * yv, zz = z * z;
  const double Bxy = B * (x * yv), Bxz = B * (x * z), Byz = B * (yv * z);
  const double Ax = A * x, Ay = A * yv, Az = A * z;
  const double E[3][3] = {{1.0 - B * (yy + zz), Bxy - Az, Bxz + Ay},
                          {Bxy + Az, 1.0 - B * (xx + zz), Byz - Ax},
                          {Bxz - Ay, Byz + Ax, 1.0 - B * (xx + yy)}};
  double Q[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Q[i][j] = y[3 * i + j];
  const double m[3] = {y[9], y[10], y[11]};
  // so3::dexp(u, alpha), u = -x:  alpha + B u x alpha + C u x (u x alpha)
  const double u[3] = {-x, -yv, -z};
  double uxa[3], uuxa[3];
  se3_ts2::detail::cross(u, al, uxa);
  se3_ts2::detail::cross(u, uxa, uuxa);
  // Q E in the order of Eigen's 3x3 product in the default build (SSE2 packets of two rows):
  // rows 0 and 1 as (p0 + p1) + p2, row 2 as p0 + (p1 + p2), p_k = Q_ik E_kj. (With
  // -march=native Eigen's AVX product sums in yet another order, so the Eigen form gave other
  // bits there; this one gives these bits on every build.)
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 2; ++i) out[3 * i + j] = Q[i][0] * E[0][j] + Q[i][1] * E[1][j] + Q[i][2] * E[2][j];
    out[6 + j] = Q[2][0] * E[0][j] + (Q[2][1] * E[1][j] + Q[2][2] * E[2][j]);
  }
  for (int i = 0; i < 3; ++i) {
    const double Etm = E[0][i] * m[0] + E[1][i] * m[1] + E[2][i] * m[2];
    const double d = al[i] + B * uxa[i] + C * uuxa[i];
    out[9 + i] = Etm + d;
  }
}
}  // namespace detail

/// |x| of xi = (x, alpha), as exp_act computes it.
template <class Xi>
[[gnu::always_inline]] inline double angle(const Xi& xi) {
  const double x = xi[0], yv = xi[1], z = xi[2];
  return std::sqrt(x * x + yv * yv + z * z);
}

/// exp_act's coefficients where t^2 < so3::detail::kSincSeriesT2 (then also (t/2)^2 and t^2 <
/// kShortSeriesT2): the values of sinc, one_minus_cos_over_t2 and t_minus_sin_over_t3 there,
/// without a branch or a libm call (the rigid bodies' lanes, rigid_body_batch.cpp).
[[gnu::always_inline]] inline void series_coefficients(double t, double& A, double& B, double& C) {
  A = so3::detail::sinc_series(t * t);
  const double h = 0.5 * t;
  const double s = so3::detail::sinc_series(h * h);
  B = 0.5 * s * s;
  C = so3::detail::horner<8>(so3::detail::kTMinusSinOverT3, t * t);
}

/// out = (Q, m) . exp(xi) for y = (Q row-major, m), xi = (x, alpha); out may alias y.
/// Operations: so3::exp (Rodrigues entry by entry), the 3x3 product Q E, E^T m and
/// so3::dexp(-x, alpha); (1 - cos t)/t^2 = sinc(t/2)^2/2 is evaluated once for exp and dexp
/// (the same call, so the same value).
inline void exp_act(const double* xi, const double* y, double* out) {
  const double t = angle(xi);
  detail::exp_act_apply(so3::detail::sinc(t), so3::detail::one_minus_cos_over_t2(t),
                        so3::detail::t_minus_sin_over_t3(t), xi, y, out);
}

/// out = se3::dexpinv(-u, v) (the dexpinv of the opposite group); out must not alias u or v.
inline void dexpinv(const double* u, const double* v, double* out) {
  const double nu[6] = {-u[0], -u[1], -u[2], -u[3], -u[4], -u[5]};
  se3_ts2::dexpinv<se3_ts2::Closed>(nu, v, out);
}

}  // namespace lie::tstar_left
