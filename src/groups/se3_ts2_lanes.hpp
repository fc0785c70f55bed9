#pragma once
// The per-link kernels of SE(3) acting on TS^2 (factor se3_on_ts2: the N-fold pendulum's links,
// [P] 5.1) in plain doubles, one link per call: exp action and the exact dexpinv of [P] 2.3.
//
// Written without Eigen so that the same source is the scalar kernel (factors::SE3OnTS2) and the
// lane body of the batch kernel that runs a block of links in vector registers
// (se3_ts2_batch.cpp). Every lane does the same IEEE operations in the same order as the scalar
// call; with FP contraction off (CMakeLists.txt) both give the same bits. The operation order is
// that of the Eigen expressions these replaced (se3::dexpinv, tested bitwise in
// tests/unit/test_se3_ts2_batch.cpp).
//
// Coefficients: `Series` uses only the 8-term Taylor polynomials in t^2 (branch-free, valid for
// t^2 < kShortSeriesT2, and says whether it was); `Closed` is the scalar path for every angle
// (so3::detail::exp_coefficients, dexpinv_g2_pair), equal to `Series` where `Series` is valid.
// Validity is a `long` (1 valid, 0 not), one 64-bit integer per double lane: as `bool`s, the
// two flags of a middle RKMK stage (dexpinv's and the exp action's) made a vector mask GCC 12
// could not type, and it left that stage's lane loop scalar (measured: 240 -> 162 ns per
// link-step on the chain once it vectorized).
#include <cstddef>

#include "groups/so3.hpp"

namespace lie::se3_ts2 {

/// Coefficients of any angle (branches; the scalar kernels).
struct Closed {
  static long exp(double t, double& A, double& B, double& C) {
    so3::detail::exp_coefficients(t, A, B, C);
    return 1L;
  }
  static long dexpinv(double t, double& g2, double& g2t) {
    so3::detail::dexpinv_g2_pair(t, g2, g2t);
    return 1L;
  }
};

/// The short series only (no branch; so3.hpp's short branches): valid, and bitwise equal to
/// Closed, where t^2 < kShortSeriesT2.
struct Series {
  [[gnu::always_inline]] static long exp(double t, double& A, double& B, double& C) {
    const double t2 = t * t;
    so3::detail::exp_coefficients_short(t2, A, B, C);
    return t2 < so3::detail::kShortSeriesT2 ? 1L : 0L;
  }
  [[gnu::always_inline]] static long dexpinv(double t, double& g2, double& g2t) {
    const double t2 = t * t;
    so3::detail::dexpinv_g2_pair_short(t2, g2, g2t);
    return t2 < so3::detail::kShortSeriesT2 ? 1L : 0L;
  }
};

/// Entries a = 0..5 of one link in a structure-of-arrays tile: p[a * Stride] (the batch kernel's
/// lanes; a plain pointer is the array-of-structures layout of the state and algebra arrays).
template <class T, std::size_t Stride>
struct Strided {
  T* p;
  [[gnu::always_inline]] T& operator[](int a) const { return p[static_cast<std::size_t>(a) * Stride]; }
};

namespace detail {
template <class X, class Y, class Z>
[[gnu::always_inline]] inline void cross(const X& a, const Y& b, Z& c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
template <class X>
[[gnu::always_inline]] inline double norm3(const X& a) { return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }
}  // namespace detail

/// out = psi(exp(xi), (q, w)) = (R q, R w + r x R q), exp(u, v) = (R, r), r = J_l(u) v:
///   R x = x + A u x x + B u x (u x x),  r = v + B u x v + C u x (u x v)   (A, B, C: exp_coefficients).
/// out may alias y. Returns the coefficient policy's validity.
/// xi, y, out: a pointer to 6 doubles or a Strided lane.
template <class Coef, class Xi, class Y, class Out>
[[gnu::always_inline]] inline long exp_act(const Xi& xi, const Y& y, Out&& out) {
  using detail::cross;
  const double u[3] = {xi[0], xi[1], xi[2]}, v[3] = {xi[3], xi[4], xi[5]};
  const double q[3] = {y[0], y[1], y[2]}, w[3] = {y[3], y[4], y[5]};
  double A, B, C;
  const long ok = Coef::exp(detail::norm3(u), A, B, C);
  double uxq[3], uxw[3], uxv[3], uuxq[3], uuxw[3], uuxv[3];
  cross(u, q, uxq);
  cross(u, w, uxw);
  cross(u, v, uxv);
  cross(u, uxq, uuxq);
  cross(u, uxw, uuxw);
  cross(u, uxv, uuxv);
  double Rq[3], Rw[3], r[3], rxRq[3];
  for (int c = 0; c < 3; ++c) {
    Rq[c] = q[c] + A * uxq[c] + B * uuxq[c];
    Rw[c] = w[c] + A * uxw[c] + B * uuxw[c];
    r[c] = v[c] + B * uxv[c] + C * uuxv[c];
  }
  cross(r, Rq, rxRq);
  for (int c = 0; c < 3; ++c) {
    out[c] = Rq[c];
    out[3 + c] = Rw[c] + rxRq[c];
  }
  return ok;
}

/// out = dexpinv_x(y) on se(3), [P] 2.3: phi(ad_x) with phi(z) = z/(e^z - 1), i.e. phi0 = 1,
/// g1 = -1/2, g1~ = 0, (g2, g2~) = dexpinv_g2_pair(|A|); the operations of se3::apply_phi_ad
/// (the terms with the constants 1 and 0 included, so that signed zeros are the same).
/// out must not alias x or y. Returns the coefficient policy's validity.
template <class Coef, class X, class Y, class Out>
[[gnu::always_inline]] inline long dexpinv(const X& x, const Y& y, Out&& out) {
  using detail::cross;
  const double phi0 = 1.0, g1 = -0.5, g1t = 0.0;
  const double A[3] = {x[0], x[1], x[2]}, a[3] = {x[3], x[4], x[5]};
  const double B[3] = {y[0], y[1], y[2]}, b[3] = {y[3], y[4], y[5]};
  double g2, g2t;
  const long ok = Coef::dexpinv(detail::norm3(A), g2, g2t);
  const double rho = A[0] * a[0] + A[1] * a[1] + A[2] * a[2];
  double AxB[3], AxAxB[3], axB[3], Axb[3], axAxB[3], AxaxB[3], AxAxb[3];
  cross(A, B, AxB);
  cross(A, AxB, AxAxB);
  cross(a, B, axB);
  cross(A, b, Axb);
  cross(a, AxB, axAxB);
  cross(A, axB, AxaxB);
  cross(A, Axb, AxAxb);
  const double rg1t = rho * g1t, rg2t = rho * g2t;
  for (int c = 0; c < 3; ++c) {
    out[c] = phi0 * B[c] + g1 * AxB[c] + g2 * AxAxB[c];
    out[3 + c] = phi0 * b[c] + g1 * (axB[c] + Axb[c]) + rg1t * AxB[c] + rg2t * AxAxB[c] +
                 g2 * (axAxB[c] + AxaxB[c] + AxAxb[c]);
  }
  return ok;
}

}  // namespace lie::se3_ts2
