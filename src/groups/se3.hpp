#pragma once
// SE(3) as pairs (R, r) in SO(3) x R^3 and se(3) as pairs (A, a) in R^3 x R^3 ~ R^6
// ([P] 2.3, 5.1). Algebra vectors are stored rotation-first: xi = (A, a).
//
//   (R1, r1)(R2, r2) = (R1 R2, R1 r2 + r1)          [P] 3.4.2
//   [(A,a), (B,b)]   = (A x B, A x b - B x a)        (commutator of 4x4 matrices)
//   Ad_(R,r)(u, v)   = (R u, R v + r x R u)          [P] 5.1
//   exp(A, a)        = (exp(A), J_l(A) a)
//   phi(ad_(A,a))    closed form of [P] 2.3 (used for dexp and dexpinv)
//   Ad*_(g,u)(Pi, G) = (g^T (Pi - u x G), g^T G),  ad*_(x,u)(Pi, G) = (-x x Pi - u x G, -x x G)
#include <Eigen/Core>

#include "groups/so3.hpp"

namespace lie {

using Vec6 = Eigen::Matrix<double, 6, 1>;

namespace se3 {

struct Element {
  Mat3 R = Mat3::Identity();
  Vec3 r = Vec3::Zero();
};

inline Vec3 rot(const Vec6& x) { return x.head<3>(); }
inline Vec3 trans(const Vec6& x) { return x.tail<3>(); }
inline Vec6 make(const Vec3& A, const Vec3& a) {
  Vec6 x;
  x << A, a;
  return x;
}

inline Element compose(const Element& g, const Element& h) { return {g.R * h.R, g.R * h.r + g.r}; }
inline Element inverse(const Element& g) { return {g.R.transpose(), -(g.R.transpose() * g.r)}; }
inline Element identity() { return {}; }

/// 4x4 homogeneous matrix of the algebra element (for tests and cross-checks).
inline Eigen::Matrix4d hat(const Vec6& x) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Zero();
  m.topLeftCorner<3, 3>() = so3::hat(rot(x));
  m.topRightCorner<3, 1>() = trans(x);
  return m;
}
inline Vec6 vee(const Eigen::Matrix4d& m) { return make(so3::vee(m.topLeftCorner<3, 3>()), m.topRightCorner<3, 1>()); }
inline Eigen::Matrix4d matrix(const Element& g) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.topLeftCorner<3, 3>() = g.R;
  m.topRightCorner<3, 1>() = g.r;
  return m;
}

inline Vec6 bracket(const Vec6& x, const Vec6& y) {
  const Vec3 A = rot(x), a = trans(x), B = rot(y), b = trans(y);
  return make(A.cross(B), A.cross(b) - B.cross(a));
}

inline Vec6 Ad(const Element& g, const Vec6& x) {
  const Vec3 Ru = g.R * rot(x);
  return make(Ru, g.R * trans(x) + g.r.cross(Ru));
}

inline Element exp(const Vec6& x) {
  const Vec3 A = rot(x);
  return {so3::exp(A), so3::dexp(A, trans(x))};
}

/// Principal logarithm (rotation angle in [0, pi]).
inline Vec6 log(const Element& g) {
  const Vec3 A = so3::log(g.R);
  return make(A, so3::dexpinv(A, g.r));
}

/// The five scalars that define phi(ad_(A,a)) on se(3), [P] 2.3.
struct PhiCoefficients {
  double phi0, g1, g1t, g2, g2t;
};

/// phi(ad_(A,a))(B,b) = (C,c) with the closed form of [P] 2.3
///   C = phi0 B + g1 A x B + g2 A x (A x B)
///   c = phi0 b + g1 (a x B + A x b) + rho g1~ A x B + rho g2~ A x (A x B)
///       + g2 (a x (A x B) + A x (a x B) + A x (A x b)),   rho = A.a
inline Vec6 apply_phi_ad(const PhiCoefficients& k, const Vec6& x, const Vec6& y) {
  const Vec3 A = rot(x), a = trans(x), B = rot(y), b = trans(y);
  const double rho = A.dot(a);
  const Vec3 AxB = A.cross(B);
  const Vec3 AxAxB = A.cross(AxB);
  const Vec3 axB = a.cross(B);
  const Vec3 Axb = A.cross(b);
  const Vec3 C = k.phi0 * B + k.g1 * AxB + k.g2 * AxAxB;
  const Vec3 c = k.phi0 * b + k.g1 * (axB + Axb) + rho * k.g1t * AxB + rho * k.g2t * AxAxB +
                 k.g2 * (a.cross(AxB) + A.cross(axB) + A.cross(Axb));
  return make(C, c);
}

/// phi(z) = z / (e^z - 1):  g1 = -1/2, g1~ = 0, g2 = (1 - (z/2)cot(z/2))/z^2, g2~ = g2'(z)/z.
inline PhiCoefficients dexpinv_coefficients(double alpha) {
  PhiCoefficients k{1.0, -0.5, 0.0, 0.0, 0.0};
  so3::detail::dexpinv_g2_pair(alpha, k.g2, k.g2t);
  return k;
}
/// phi(z) = (e^z - 1)/z:  g1 = (1 - cos z)/z^2, g2 = (z - sin z)/z^3 and their g~.
inline PhiCoefficients dexp_coefficients(double alpha) {
  return {1.0, so3::detail::one_minus_cos_over_t2(alpha), so3::detail::dexp_g1_tilde(alpha),
          so3::detail::t_minus_sin_over_t3(alpha), so3::detail::dexp_g2_tilde(alpha)};
}

/// Exact dexpinv_x(y) on se(3), [P] 2.3. Defined for |rot(x)| < 2 pi (dexp is singular at
/// 2 pi; near it the result is accurate to eps * cond(dexp_x), see test_groups_se3.cpp).
inline Vec6 dexpinv(const Vec6& x, const Vec6& y) { return apply_phi_ad(dexpinv_coefficients(rot(x).norm()), x, y); }
/// Exact dexp_x(y) on se(3) (every x; checked against the long-double 6x6 series of ad_x).
inline Vec6 dexp(const Vec6& x, const Vec6& y) { return apply_phi_ad(dexp_coefficients(rot(x).norm()), x, y); }

// ---- other coordinate maps (conventions of so3.hpp: right-trivialised differentials) ----------

/// Cayley map of the 4x4 matrix X = hat(A, a): (I - X/2)^-1 (I + X/2) = (cay(A), W a) with
/// W = (I - hat A/2)^-1 = (I + cay(A))/2.
inline Element cay(const Vec6& x) {
  const Mat3 C = so3::cay(rot(x));
  return {C, 0.5 * (trans(x) + C * trans(x))};
}
/// dcayinv_X(Y) = (I - X/2) Y (I + X/2) = Y - [X, Y]/2 - X Y X/4 on 4x4 matrices; for
/// X = (A, a), Y = (B, b):
///   (B - A x B/2 + (A.B) A/4,  b - (A x b - B x a)/2 - A x (B x a)/4).
inline Vec6 dcayinv(const Vec6& x, const Vec6& y) {
  const Vec3 A = rot(x), a = trans(x), B = rot(y), b = trans(y);
  const Vec3 Bxa = B.cross(a);
  return make(so3::dcayinv(A, B), b - 0.5 * (A.cross(b) - Bxa) - 0.25 * A.cross(Bxa));
}

/// Coordinates of the second kind in the basis of the layout (E_1..E_3 rotations about the
/// axes, E_4..E_6 translations): exp(x_1 E_1) ... exp(x_6 E_6) = (R, R a), R = so3::second_kind(A).
inline Element second_kind(const Vec6& x) {
  const Mat3 R = so3::second_kind(rot(x));
  return {R, R * trans(x)};
}
/// With g = (R, R a): dg g^-1 = (dR R^T, R da), so dpsi_(A,a)(B, b) = (dpsi^SO(3)_A(B), R b) and
///   dpsiinv_(A,a)(C, c) = (dpsiinv^SO(3)_A(C), R^T c).   Defined for |A_2| < pi/2.
inline Vec6 dsecond_kindinv(const Vec6& x, const Vec6& y) {
  const Mat3 R = so3::second_kind(rot(x));
  return make(so3::dsecond_kindinv(rot(x), rot(y)), R.transpose() * trans(y));
}

// ---- coadjoint operators on se(3)* = (Pi, Gamma), [P] 3.4.2 -----------------
inline Vec6 Ad_star(const Element& g, const Vec6& mu) {
  const Vec3 Pi = rot(mu), G = trans(mu);
  return make(g.R.transpose() * (Pi - g.r.cross(G)), g.R.transpose() * G);
}
inline Vec6 ad_star(const Vec6& x, const Vec6& mu) {
  const Vec3 xi = rot(x), u = trans(x), Pi = rot(mu), G = trans(mu);
  return make(-xi.cross(Pi) - u.cross(G), -xi.cross(G));
}

}  // namespace se3
}  // namespace lie
