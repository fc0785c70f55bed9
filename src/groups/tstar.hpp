#pragma once
// The cotangent bundle T*G of a Lie group G as the semidirect product G x| g* ([P] 3.1,
// [K] 2.6-2.8), as an explicit Lie group, for G = SO(3) and G = R^3 x SO(3), in right and
// left trivialisation.
//
// Notation: <., .> is the pairing g* x g; Ad*_g = (Ad_g)^T, ad*_x = (ad_x)^T (so that
// ad*_x mu = mu x x on so(3)*, as in so3.hpp), dexp*_x = (dexp_x)^T.
//
// Right trivialisation, mu = R_g^* p ([P] eq. (11); [K] eq. (2.34) has Ad*_{h^-1} for Ad*_{g^-1}):
//   (g, mu)(h, nu) = (g h, mu + Ad*_{g^-1} nu),   (g, mu)^-1 = (g^-1, -Ad*_g mu)
// Left trivialisation, mu = L_g^* p ([K] eq. (2.33)):
//   (g, mu)(h, nu) = (g h, nu + Ad*_h mu),        (g, mu)^-1 = (g^-1, -Ad*_{g^-1} mu)
// Phi(g, mu) = (g, Ad*_{g^-1} mu) is an isomorphism of the left- onto the right-trivialised
// group with dPhi_e = id, so both have the Lie algebra g x g* with the bracket
//   [(x, a), (y, b)] = ([x, y], ad*_y a - ad*_x b).
// ([K] 2.7 prints the second component as -ad*_x b + ad*_zeta zeta; the last term must be
// ad*_y a, and [K] defines ad* with the opposite sign of the dual map of ad.)
// Derived here from the products above (and verified numerically in
// tests/unit/test_groups_tstar.cpp against derivatives of conjugation and of exp):
//   exp_R(x, a) = (exp x, dexp*_{-x} a)      (solution of mu' = a - ad*_x mu, [P] eq. (12))
//   exp_L(x, a) = (exp x, dexp*_x a)         ([K] eq. (2.41))
//   Ad^R_(g,mu)(y, b) = (Ad_g y, Ad*_{g^-1} b + ad*_{Ad_g y} mu),   Ad^L_(g,mu) = Ad^R_Phi(g,mu)
// and on the dual (g x g*)* = g* x g, pairs (P, X):
//   Ad*^R_(g,mu)(P, X) = (Ad*_g (P - ad*_X mu), Ad_{g^-1} X)
//   ad*_(x,a)(P, X)    = (ad*_x P - ad*_X a, -[x, X])
// For G = SO(3), Ad*_{g^-1} mu = g mu and the right-trivialised group *is* SE(3), (Q, pi) =
// (R, r), with the se(3) algebra in the same rotation-first layout. For G = R^3 x SO(3) the
// algebra, laid out (dq, xi, dp, alpha), is R^3 + R^3 (central) plus se(3) on (xi, alpha).
// Hence the exact dexp and dexpinv are those of se(3) ([P] 2.3).
#include <Eigen/Core>

#include "groups/se3.hpp"
#include "groups/so3.hpp"

namespace lie::tstar {

using Vec12 = Eigen::Matrix<double, 12, 1>;

/// G = SO(3): elements are rotation matrices, g ~ g* ~ R^3.
struct BaseSO3 {
  static constexpr int dim = 3;
  using Alg = Vec3;
  using Elem = Mat3;
  using CotangentAlg = Vec6;  // (xi, alpha)
  static Elem identity() { return Mat3::Identity(); }
  static Elem compose(const Elem& g, const Elem& h) { return g * h; }
  static Elem inverse(const Elem& g) { return g.transpose(); }
  static Elem exp(const Alg& x) { return so3::exp(x); }
  static Alg log(const Elem& g) { return so3::log(g); }
  static Alg bracket(const Alg& x, const Alg& y) { return x.cross(y); }
  static Alg Ad(const Elem& g, const Alg& x) { return g * x; }
  static Alg Ad_star(const Elem& g, const Alg& mu) { return so3::Ad_star(g, mu); }
  static Alg ad_star(const Alg& x, const Alg& mu) { return so3::ad_star(x, mu); }
  /// dexp_x^T mu = J_l(x)^T mu = J_l(-x) mu
  static Alg dexp_star(const Alg& x, const Alg& mu) { return so3::dexp(Vec3(-x), mu); }
  static Alg dexpinv_star(const Alg& x, const Alg& mu) { return so3::dexpinv(Vec3(-x), mu); }
  /// Exact dexp / dexpinv of the cotangent algebra so(3) x so(3)* = se(3).
  static CotangentAlg cotangent_dexp(const CotangentAlg& u, const CotangentAlg& v) { return se3::dexp(u, v); }
  static CotangentAlg cotangent_dexpinv(const CotangentAlg& u, const CotangentAlg& v) { return se3::dexpinv(u, v); }
};

/// G = R^3 x SO(3) (direct product; [K] 2.8): elements (q, Q), algebra (dq, xi), dual (p, m).
struct BaseR3xSO3 {
  static constexpr int dim = 6;
  using Alg = Vec6;
  struct Elem {
    Vec3 q = Vec3::Zero();
    Mat3 Q = Mat3::Identity();
  };
  using CotangentAlg = Vec12;  // (dq, xi, dp, alpha)
  static Vec6 make(const Vec3& a, const Vec3& b) { return se3::make(a, b); }
  static Elem identity() { return {}; }
  static Elem compose(const Elem& g, const Elem& h) { return {g.q + h.q, g.Q * h.Q}; }
  static Elem inverse(const Elem& g) { return {-g.q, g.Q.transpose()}; }
  static Elem exp(const Alg& x) { return {x.head<3>(), so3::exp(x.tail<3>())}; }
  static Alg log(const Elem& g) { return make(g.q, so3::log(g.Q)); }
  static Alg bracket(const Alg& x, const Alg& y) { return make(Vec3::Zero(), x.tail<3>().cross(y.tail<3>())); }
  static Alg Ad(const Elem& g, const Alg& x) { return make(x.head<3>(), g.Q * x.tail<3>()); }
  static Alg Ad_star(const Elem& g, const Alg& mu) { return make(mu.head<3>(), g.Q.transpose() * mu.tail<3>()); }
  static Alg ad_star(const Alg& x, const Alg& mu) { return make(Vec3::Zero(), mu.tail<3>().cross(x.tail<3>())); }
  static Alg dexp_star(const Alg& x, const Alg& mu) {
    return make(mu.head<3>(), so3::dexp(Vec3(-x.tail<3>()), Vec3(mu.tail<3>())));
  }
  static Alg dexpinv_star(const Alg& x, const Alg& mu) {
    return make(mu.head<3>(), so3::dexpinv(Vec3(-x.tail<3>()), Vec3(mu.tail<3>())));
  }
  /// The se(3) part of a cotangent algebra element: (xi, alpha) = entries 3..5 and 9..11.
  static Vec6 se3_part(const CotangentAlg& u) { return se3::make(u.segment<3>(3), u.segment<3>(9)); }
  static CotangentAlg with_se3_part(const CotangentAlg& v, const Vec6& s) {
    CotangentAlg out = v;
    out.segment<3>(3) = s.head<3>();
    out.segment<3>(9) = s.tail<3>();
    return out;
  }
  static CotangentAlg cotangent_dexp(const CotangentAlg& u, const CotangentAlg& v) {
    return with_se3_part(v, se3::dexp(se3_part(u), se3_part(v)));
  }
  static CotangentAlg cotangent_dexpinv(const CotangentAlg& u, const CotangentAlg& v) {
    return with_se3_part(v, se3::dexpinv(se3_part(u), se3_part(v)));
  }
};

/// The Lie algebra g x g* shared by both trivialisations. Algebra vectors are (x, a) with
/// x in g, a in g*; dual vectors are (P, X) with P in g*, X in g.
template <class G>
struct CotangentAlgebra {
  using BaseGroup = G;
  static constexpr int dim = 2 * G::dim;
  using Alg = Eigen::Matrix<double, dim, 1>;
  using Dual = Alg;
  using BaseAlg = typename G::Alg;

  static BaseAlg first(const Alg& v) { return v.template head<G::dim>(); }
  static BaseAlg second(const Alg& v) { return v.template tail<G::dim>(); }
  static Alg make(const BaseAlg& x, const BaseAlg& a) {
    Alg v;
    v << x, a;
    return v;
  }

  /// [(x, a), (y, b)] = ([x, y], ad*_y a - ad*_x b)
  static Alg bracket(const Alg& u, const Alg& v) {
    const BaseAlg x = first(u), a = second(u), y = first(v), b = second(v);
    return make(G::bracket(x, y), BaseAlg(G::ad_star(y, a) - G::ad_star(x, b)));
  }
  /// ad*_(x,a)(P, X) = (ad*_x P - ad*_X a, -[x, X])
  static Dual ad_star(const Alg& u, const Dual& w) {
    const BaseAlg x = first(u), a = second(u), P = first(w), X = second(w);
    return make(BaseAlg(G::ad_star(x, P) - G::ad_star(X, a)), BaseAlg(-G::bracket(x, X)));
  }
  /// Exact dexp_u(v) and dexpinv_u(v) (se(3) closed forms, [P] 2.3). dexpinv needs |xi| < 2 pi.
  static Alg dexp(const Alg& u, const Alg& v) { return G::cotangent_dexp(u, v); }
  static Alg dexpinv(const Alg& u, const Alg& v) { return G::cotangent_dexpinv(u, v); }
};

/// T*G right trivialised: (g, mu)(h, nu) = (g h, mu + Ad*_{g^-1} nu)   [P] eq. (11)
template <class G>
struct RightTriv : CotangentAlgebra<G> {
  using Base = CotangentAlgebra<G>;
  using typename Base::Alg;
  using typename Base::BaseAlg;
  using typename Base::Dual;
  struct Element {
    typename G::Elem g = G::identity();
    BaseAlg mu = BaseAlg::Zero();
  };

  static Element identity() { return {}; }
  static Element compose(const Element& a, const Element& b) {
    return {G::compose(a.g, b.g), a.mu + G::Ad_star(G::inverse(a.g), b.mu)};
  }
  static Element inverse(const Element& a) { return {G::inverse(a.g), -G::Ad_star(a.g, a.mu)}; }
  /// exp(x, a) = (exp x, dexp*_{-x} a)
  static Element exp(const Alg& u) {
    const BaseAlg x = Base::first(u);
    return {G::exp(x), G::dexp_star(BaseAlg(-x), Base::second(u))};
  }
  /// Inverse of exp for |x| <= pi (principal logarithm of G).
  static Alg log(const Element& e) {
    const BaseAlg x = G::log(e.g);
    return Base::make(x, G::dexpinv_star(BaseAlg(-x), e.mu));
  }
  /// Ad_(g,mu)(y, b) = (Ad_g y, Ad*_{g^-1} b + ad*_{Ad_g y} mu)
  static Alg Ad(const Element& e, const Alg& v) {
    const BaseAlg Ady = G::Ad(e.g, Base::first(v));
    return Base::make(Ady, BaseAlg(G::Ad_star(G::inverse(e.g), Base::second(v)) + G::ad_star(Ady, e.mu)));
  }
  /// Ad*_(g,mu)(P, X) = (Ad*_g (P - ad*_X mu), Ad_{g^-1} X)  (the transpose of Ad)
  static Dual Ad_star(const Element& e, const Dual& w) {
    const BaseAlg P = Base::first(w), X = Base::second(w);
    return Base::make(G::Ad_star(e.g, BaseAlg(P - G::ad_star(X, e.mu))), G::Ad(G::inverse(e.g), X));
  }
};

/// T*G left trivialised: (g, mu)(h, nu) = (g h, nu + Ad*_h mu)   [K] eq. (2.33)
template <class G>
struct LeftTriv : CotangentAlgebra<G> {
  using Base = CotangentAlgebra<G>;
  using typename Base::Alg;
  using typename Base::BaseAlg;
  using typename Base::Dual;
  using Element = typename RightTriv<G>::Element;  // same data (g, mu), different product

  static Element identity() { return {}; }
  static Element compose(const Element& a, const Element& b) {
    return {G::compose(a.g, b.g), b.mu + G::Ad_star(b.g, a.mu)};
  }
  static Element inverse(const Element& a) {
    const typename G::Elem gi = G::inverse(a.g);
    return {gi, -G::Ad_star(gi, a.mu)};
  }
  /// exp(x, a) = (exp x, dexp*_x a)   [K] eq. (2.41)
  static Element exp(const Alg& u) {
    const BaseAlg x = Base::first(u);
    return {G::exp(x), G::dexp_star(x, Base::second(u))};
  }
  static Alg log(const Element& e) {
    const BaseAlg x = G::log(e.g);
    return Base::make(x, G::dexpinv_star(x, e.mu));
  }
  /// Phi(g, mu) = (g, Ad*_{g^-1} mu): the isomorphism onto the right-trivialised group.
  static typename RightTriv<G>::Element to_right(const Element& e) {
    return {e.g, G::Ad_star(G::inverse(e.g), e.mu)};
  }
  static Element from_right(const typename RightTriv<G>::Element& e) { return {e.g, G::Ad_star(e.g, e.mu)}; }
  static Alg Ad(const Element& e, const Alg& v) { return RightTriv<G>::Ad(to_right(e), v); }
  static Dual Ad_star(const Element& e, const Dual& w) { return RightTriv<G>::Ad_star(to_right(e), w); }
};

using TstarSO3Right = RightTriv<BaseSO3>;
using TstarSO3Left = LeftTriv<BaseSO3>;
using TstarR3xSO3Right = RightTriv<BaseR3xSO3>;
using TstarR3xSO3Left = LeftTriv<BaseR3xSO3>;

}  // namespace lie::tstar
