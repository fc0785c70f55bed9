#pragma once
// SO(3) and its Lie algebra so(3) ~ R^3.
//
// Conventions (used everywhere in liebench):
//   hat(v) w = v x w                                   [P] eq. (5)
//   [u, v] = u x v                                      (matrix commutator of hats)
//   ad*_u mu = mu x u   (<ad*_u mu, v> = <mu, [u, v]>)   [P] 3.4.2
//   Ad*_g mu = g^T mu,  Ad*_{g^-1} mu = g mu            [P] Example 1
//   dexp_u   = sum_k ad_u^k / (k+1)!   (the left Jacobian J_l(u))
//   dexpinv_u = sum_k B_k/k! ad_u^k   (B_1 = -1/2)       [P] eq. (8)
//
// Every closed form below has an explicit series branch for small angles; the
// thresholds were chosen so that the truncation error of the series and the
// cancellation error of the closed form are both below 1e-16 relative to the
// term they multiply (see tests/unit/test_so3.cpp for the checks near 0 and pi).
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

namespace lie {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

namespace so3 {

inline Mat3 hat(const Vec3& v) {
  Mat3 m;
  m << 0.0, -v.z(), v.y(),  //
      v.z(), 0.0, -v.x(),   //
      -v.y(), v.x(), 0.0;
  return m;
}

/// vee of the skew part: vee((M - M^T)/2). Exact inverse of hat on so(3).
inline Vec3 vee(const Mat3& m) {
  return Vec3(0.5 * (m(2, 1) - m(1, 2)), 0.5 * (m(0, 2) - m(2, 0)), 0.5 * (m(1, 0) - m(0, 1)));
}

inline Vec3 bracket(const Vec3& a, const Vec3& b) { return a.cross(b); }

/// Coadjoint operators on so(3)* ~ R^3 (dual pairing = dot product).
inline Vec3 ad_star(const Vec3& u, const Vec3& mu) { return mu.cross(u); }
inline Vec3 Ad_star(const Mat3& g, const Vec3& mu) { return g.transpose() * mu; }

// ---- scalar coefficient functions (with their series) ----------------------
namespace detail {

/// sin(t)/t
inline double sinc(double t) {
  const double t2 = t * t;
  if (t2 < 1e-6) return 1.0 - t2 / 6.0 * (1.0 - t2 / 20.0 * (1.0 - t2 / 42.0));
  return std::sin(t) / t;
}
/// (1 - cos t)/t^2, computed as sinc(t/2)^2/2 (no cancellation)
inline double one_minus_cos_over_t2(double t) {
  const double s = sinc(0.5 * t);
  return 0.5 * s * s;
}
/// (t - sin t)/t^3
inline double t_minus_sin_over_t3(double t) {
  const double t2 = t * t;
  if (t2 < 0.25) {
    // sum_{k>=0} (-1)^k t^{2k} / (2k+3)!
    return 1.0 / 6.0 -
           t2 * (1.0 / 120.0 -
                 t2 * (1.0 / 5040.0 -
                       t2 * (1.0 / 362880.0 -
                             t2 * (1.0 / 39916800.0 -
                                   t2 * (1.0 / 6227020800.0 - t2 / 1307674368000.0)))));
  }
  return (t - std::sin(t)) / (t2 * t);
}
/// g2(t) = (1 - (t/2) cot(t/2)) / t^2: the ad^2 coefficient of dexpinv on so(3), [P] 2.2
inline double dexpinv_g2(double t) {
  const double t2 = t * t;
  if (t2 < 0.25) {
    // sum_{k>=1} B_{2k}/(2k)! (-t^2)^{k-1}
    return 1.0 / 12.0 +
           t2 * (1.0 / 720.0 +
                 t2 * (1.0 / 30240.0 +
                       t2 * (1.0 / 1209600.0 +
                             t2 * (1.0 / 47900160.0 +
                                   t2 * (691.0 / 1307674368000.0 + t2 / 74724249600.0)))));
  }
  const double x = 0.5 * t;
  return (1.0 - x * std::cos(x) / std::sin(x)) / t2;
}
/// g2'(t)/t for the dexpinv g2 above (needed by the se(3) formula of [P] 2.3)
inline double dexpinv_g2_tilde(double t) {
  const double t2 = t * t;
  if (t2 < 0.25) {
    return 1.0 / 360.0 +
           t2 * (1.0 / 7560.0 +
                 t2 * (1.0 / 201600.0 +
                       t2 * (1.0 / 5987520.0 +
                             t2 * (691.0 / 130767436800.0 + t2 / 6227020800.0))));
  }
  const double x = 0.5 * t;
  const double s = std::sin(x), c = std::cos(x);
  // d/dt (x cot x) = (cot x - x / sin^2 x) / 2
  const double d_xcotx = 0.5 * (c / s - x / (s * s));
  const double g2 = (1.0 - x * c / s) / t2;
  const double g2p = -d_xcotx / t2 - 2.0 * g2 / t;
  return g2p / t;
}
/// g1'(t)/t for g1(t) = (1 - cos t)/t^2 (dexp on se(3))
inline double dexp_g1_tilde(double t) {
  const double t2 = t * t;
  if (t2 < 0.25) {
    // sum_{k>=1} (-1)^k 2k t^{2k-2} / (2k+2)!
    return -2.0 / 24.0 +
           t2 * (4.0 / 720.0 -
                 t2 * (6.0 / 40320.0 -
                       t2 * (8.0 / 3628800.0 -
                             t2 * (10.0 / 479001600.0 - t2 * 12.0 / 87178291200.0))));
  }
  return (std::sin(t) / t - 2.0 * one_minus_cos_over_t2(t)) / t2;
}
/// g2'(t)/t for g2(t) = (t - sin t)/t^3 (dexp on se(3))
inline double dexp_g2_tilde(double t) {
  const double t2 = t * t;
  if (t2 < 0.25) {
    // sum_{k>=1} (-1)^k 2k t^{2k-2} / (2k+3)!
    return -2.0 / 120.0 +
           t2 * (4.0 / 5040.0 -
                 t2 * (6.0 / 362880.0 -
                       t2 * (8.0 / 39916800.0 -
                             t2 * (10.0 / 6227020800.0 - t2 * 12.0 / 1307674368000.0))));
  }
  // d/dt[(t - sin t)/t^3] = (1 - cos t)/t^3 - 3 (t - sin t)/t^4
  return (one_minus_cos_over_t2(t) - 3.0 * t_minus_sin_over_t3(t)) / t2;
}

}  // namespace detail

/// Rodrigues' formula [K] 3.2.1: exp(v) = I + sinc(a) hat(v) + (1-cos a)/a^2 hat(v)^2.
inline Mat3 exp(const Vec3& v) {
  const double t = v.norm();
  const double A = detail::sinc(t);
  const double B = detail::one_minus_cos_over_t2(t);
  const Mat3 V = hat(v);
  return Mat3::Identity() + A * V + B * (V * V);
}

/// Rotates w by exp(v) without forming the matrix: exp(v) w.
inline Vec3 exp_apply(const Vec3& v, const Vec3& w) {
  const double t = v.norm();
  const double A = detail::sinc(t);
  const double B = detail::one_minus_cos_over_t2(t);
  const Vec3 vxw = v.cross(w);
  return w + A * vxw + B * v.cross(vxw);
}

/// Principal logarithm, |log(R)| in [0, pi]. Robust near 0 and near pi.
inline Vec3 log(const Mat3& R) {
  const double tr = R.trace();
  const double c = std::clamp(0.5 * (tr - 1.0), -1.0, 1.0);
  const Vec3 s = vee(R);  // = sin(theta) * n
  const double sn = s.norm();
  const double theta = std::atan2(sn, c);
  if (c > -0.7) {
    // theta < ~2.35: theta/sin(theta) is well conditioned
    return (theta < 1e-8 ? 1.0 + sn * sn / 6.0 : theta / sn) * s;
  }
  // Near pi: use the symmetric part  S = cos(t) I + (1 - cos t) n n^T.
  const Mat3 S = 0.5 * (R + R.transpose()) - c * Mat3::Identity();
  int k = 0;
  S.diagonal().maxCoeff(&k);
  Vec3 n = S.col(k) / std::sqrt(std::max(S(k, k), 0.0) * (1.0 - c));
  n.normalize();
  if (n.dot(s) < 0.0) n = -n;
  return theta * n;
}

/// dexp_u = J_l(u) = I + (1-cos a)/a^2 hat(u) + (a - sin a)/a^3 hat(u)^2  [K] 3.2.1
inline Mat3 dexp(const Vec3& u) {
  const double t = u.norm();
  const Mat3 U = hat(u);
  return Mat3::Identity() + detail::one_minus_cos_over_t2(t) * U + detail::t_minus_sin_over_t3(t) * (U * U);
}
inline Vec3 dexp(const Vec3& u, const Vec3& v) {
  const double t = u.norm();
  const Vec3 uxv = u.cross(v);
  return v + detail::one_minus_cos_over_t2(t) * uxv + detail::t_minus_sin_over_t3(t) * u.cross(uxv);
}

/// Exact dexpinv on so(3) [P] 2.2: v - u x v / 2 + a^-2 (1 - (a/2) cot(a/2)) u x (u x v).
/// Defined for |u| < 2 pi.
inline Vec3 dexpinv(const Vec3& u, const Vec3& v) {
  const double t = u.norm();
  const Vec3 uxv = u.cross(v);
  return v - 0.5 * uxv + detail::dexpinv_g2(t) * u.cross(uxv);
}
inline Mat3 dexpinv(const Vec3& u) {
  const Mat3 U = hat(u);
  return Mat3::Identity() - 0.5 * U + detail::dexpinv_g2(u.norm()) * (U * U);
}

/// Cayley map in the convention of [L] eq. (27): cay(f) = (I + hat f)(I - hat f)^-1
///   = ((1 - f.f) I + 2 f f^T + 2 hat f) / (1 + f.f).
/// (Rotation by 2 atan|f| about f.)
inline Mat3 cayley(const Vec3& f) {
  const double ff = f.squaredNorm();
  return ((1.0 - ff) * Mat3::Identity() + 2.0 * f * f.transpose() + 2.0 * hat(f)) / (1.0 + ff);
}
/// Inverse Cayley map: f = vee((R - I)(R + I)^-1). Defined for rotations by less than pi.
inline Vec3 cayley_inv(const Mat3& R) {
  const Mat3 I = Mat3::Identity();
  const Mat3 F = (R - I) * (R + I).inverse();
  return vee(F);
}

/// Frobenius norm of Q^T Q - I: the orthogonality error of [K] Fig. 3.6.
inline double orthogonality_error(const Mat3& Q) {
  return (Q.transpose() * Q - Mat3::Identity()).norm();
}

/// Nearest rotation (polar factor) of a matrix close to SO(3), via Newton iteration
/// X <- (X + X^-T)/2, which converges quadratically from any nearby matrix.
inline Mat3 orthonormalize(const Mat3& M) {
  Mat3 X = M;
  for (int it = 0; it < 20; ++it) {
    const Mat3 Y = 0.5 * (X + X.inverse().transpose());
    const double d = (Y - X).lpNorm<Eigen::Infinity>();
    X = Y;
    if (d < 1e-15) break;
  }
  return X;
}

}  // namespace so3
}  // namespace lie
