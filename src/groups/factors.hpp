#pragma once
// Homogeneous-space factors: one Lie group G acting (from the left) on one manifold
// component M. A model's phase space is a product of such factors (see space.hpp);
// every kernel here works on raw pointers into the flat state / algebra arrays, so
// that one link of a chain or one particle is a contiguous slice.
//
// Each factor provides (all static):
//   alg_dim, state_dim, name, manifold, group
//   exp_act(xi, y, out)      out = psi(exp(xi), y)          (out may alias y)
//   generator(xi, y, out)    out = psi_*(xi)|_y  in ambient coordinates   [P] eq. (2)
//   bracket(a, b, out)       Lie bracket of the acting group's algebra
//   dexpinv(u, v, out)       exact dexpinv_u(v) of that algebra
//   dexp(u, v, out)          exact dexp_u(v)
//   project(y)               maps a point near M onto M (a retraction: normalise q and remove
//                            the q-component of w on TS^2, polar factor on SO(3)); used only by
//                            the classical baselines
// and the acting group itself, so that the action can be checked with explicit elements:
//   Group                    element type of the acting group
//   identity(), exp(xi)      group identity and exponential
//   compose(g, h)            the product g h *of the acting group* (h g in G for G^op)
//   act(g, y, out)           out = psi(g, y)  (out may alias y);  exp_act(xi) = act(exp(xi))
//   chart<C>(xi)             the element phi(xi) of a coordinate map (coordinates.hpp: exp,
//                            cay, second kind); Space::chart_act acts with it
//   dchartinv<C>(u, v, out)  the exact inverse of its right-trivialised differential
//
// Right multiplications y -> y exp(xi) are written as left actions of the opposite
// group G^op (g * h := h g). G^op has the same exp and the bracket -[.,.], hence
// dexpinv^op_u = dexpinv_{-u}. The model then supplies the natural f (e.g. Q' = Q hat(w)
// has f = w).
#include <Eigen/Core>
#include <array>
#include <cmath>
#include <cstddef>
#include <tuple>
#include <utility>

#include "groups/bernoulli.hpp"
#include "groups/coordinates.hpp"
#include "groups/maps.hpp"
#include "groups/se3.hpp"
#include "groups/se3_ts2_lanes.hpp"
#include "groups/so3.hpp"
#include "groups/tstar.hpp"
#include "groups/tstar_left_kernels.hpp"

namespace lie::factors {

using ::lie::CMap3;
using ::lie::CMap6;
using ::lie::Map3;
using ::lie::Map6;
using ::lie::RowMat3;
using CMapM3 = CMapQ;
using MapM3 = MapQ;

namespace detail {
inline void so3_project(double* Q) {
  const Mat3 M = CMapM3(Q);
  MapM3{Q} = so3::orthonormalize(M);
}
/// T*SO(3) state (Q row-major, mu) <-> group element.
inline tstar::TstarSO3Right::Element read_tstar(const double* y) { return {Mat3(CMapM3(y)), Vec3(CMap3(y + 9))}; }
inline void write_tstar(const tstar::TstarSO3Right::Element& e, double* out) {
  MapM3{out} = e.g;
  Map3{out + 9} = e.mu;
}
}  // namespace detail

/// R^n acting on itself by translation (abelian).
template <int N>
struct Translation {
  static constexpr int alg_dim = N, state_dim = N;
  static constexpr const char* name = N == 3 ? "r3" : "rn";
  static constexpr const char* group = "R^n (additive)";
  static constexpr const char* manifold = "R^n";
  static void exp_act(const double* xi, const double* y, double* out) {
    for (int i = 0; i < N; ++i) out[i] = y[i] + xi[i];
  }
  static void generator(const double* xi, const double*, double* out) {
    for (int i = 0; i < N; ++i) out[i] = xi[i];
  }
  static void bracket(const double*, const double*, double* out) {
    for (int i = 0; i < N; ++i) out[i] = 0.0;
  }
  static void dexpinv(const double*, const double* v, double* out) {
    for (int i = 0; i < N; ++i) out[i] = v[i];
  }
  static void dexp(const double*, const double* v, double* out) {
    for (int i = 0; i < N; ++i) out[i] = v[i];
  }
  static void project(double*) {}

  using Group = Eigen::Matrix<double, N, 1>;
  static Group identity() { return Group::Zero(); }
  static Group exp(const double* xi) { return Eigen::Map<const Group>(xi); }
  /// Every map is the translation by xi on R^n (coordinates.hpp), with dphiinv = id.
  template <Coordinates C>
  static Group chart(const double* xi) { return exp(xi); }
  template <Coordinates C>
  static void dchartinv(const double* u, const double* v, double* out) { dexpinv(u, v, out); }
  static Group compose(const Group& g, const Group& h) { return g + h; }
  static void act(const Group& g, const double* y, double* out) {
    for (int i = 0; i < N; ++i) out[i] = y[i] + g[i];
  }
};

/// SO(3) rotating vectors of R^3: psi(g, m) = g m. Used for so(3)* with the action
/// g.mu = Ad*_{g^-1} mu = g mu ([P] Example 1), i.e. the free rigid body.
struct SO3OnR3 {
  static constexpr int alg_dim = 3, state_dim = 3;
  static constexpr const char* name = "so3_on_r3";
  static constexpr const char* group = "SO(3)";
  static constexpr const char* manifold = "R^3 (spheres |m| = const are the orbits)";
  static void exp_act(const double* xi, const double* y, double* out) {
    Map3{out} = so3::exp_apply(CMap3(xi), CMap3(y));
  }
  static void generator(const double* xi, const double* y, double* out) { Map3{out} = CMap3(xi).cross(CMap3(y)); }
  static void bracket(const double* a, const double* b, double* out) { Map3{out} = CMap3(a).cross(CMap3(b)); }
  static void dexpinv(const double* u, const double* v, double* out) { Map3{out} = so3::dexpinv(CMap3(u), CMap3(v)); }
  static void dexp(const double* u, const double* v, double* out) { Map3{out} = so3::dexp(CMap3(u), CMap3(v)); }
  static void project(double*) {}

  using Group = Mat3;
  static Group identity() { return Mat3::Identity(); }
  static Group exp(const double* xi) { return so3::exp(CMap3(xi)); }
  template <Coordinates C>
  static Group chart(const double* xi) { return so3::chart<C>(CMap3(xi)); }
  template <Coordinates C>
  static void dchartinv(const double* u, const double* v, double* out) {
    Map3{out} = so3::dchartinv<C>(CMap3(u), CMap3(v));
  }
  static Group compose(const Group& g, const Group& h) { return g * h; }
  static void act(const Group& g, const double* y, double* out) { Map3{out} = g * Vec3(CMap3(y)); }
};

/// SO(3) acting on itself by left multiplication: Q -> exp(xi) Q (Q stored row-major).
struct SO3Left {
  static constexpr int alg_dim = 3, state_dim = 9;
  static constexpr const char* name = "so3_left";
  static constexpr const char* group = "SO(3)";
  static constexpr const char* manifold = "SO(3), Q -> exp(xi) Q";
  static void exp_act(const double* xi, const double* y, double* out) {
    const Mat3 E = so3::exp(CMap3(xi));
    const Mat3 Q = CMapM3(y);
    MapM3{out} = E * Q;
  }
  static void generator(const double* xi, const double* y, double* out) {
    MapM3{out} = so3::hat(CMap3(xi)) * Mat3(CMapM3(y));
  }
  static void bracket(const double* a, const double* b, double* out) { Map3{out} = CMap3(a).cross(CMap3(b)); }
  static void dexpinv(const double* u, const double* v, double* out) { Map3{out} = so3::dexpinv(CMap3(u), CMap3(v)); }
  static void dexp(const double* u, const double* v, double* out) { Map3{out} = so3::dexp(CMap3(u), CMap3(v)); }
  static void project(double* y) { detail::so3_project(y); }

  using Group = Mat3;
  static Group identity() { return Mat3::Identity(); }
  static Group exp(const double* xi) { return so3::exp(CMap3(xi)); }
  template <Coordinates C>
  static Group chart(const double* xi) { return so3::chart<C>(CMap3(xi)); }
  template <Coordinates C>
  static void dchartinv(const double* u, const double* v, double* out) {
    Map3{out} = so3::dchartinv<C>(CMap3(u), CMap3(v));
  }
  static Group compose(const Group& g, const Group& h) { return g * h; }
  static void act(const Group& g, const double* y, double* out) { MapM3{out} = g * Mat3(CMapM3(y)); }
};

/// SO(3) acting on itself by right multiplication: Q -> Q exp(xi) (left action of SO(3)^op).
struct SO3Right {
  static constexpr int alg_dim = 3, state_dim = 9;
  static constexpr const char* name = "so3_right";
  static constexpr const char* group = "SO(3)^op";
  static constexpr const char* manifold = "SO(3), Q -> Q exp(xi)";
  static void exp_act(const double* xi, const double* y, double* out) {
    const Mat3 E = so3::exp(CMap3(xi));
    const Mat3 Q = CMapM3(y);
    MapM3{out} = Q * E;
  }
  static void generator(const double* xi, const double* y, double* out) {
    MapM3{out} = Mat3(CMapM3(y)) * so3::hat(CMap3(xi));
  }
  static void bracket(const double* a, const double* b, double* out) { Map3{out} = CMap3(b).cross(CMap3(a)); }
  static void dexpinv(const double* u, const double* v, double* out) { Map3{out} = so3::dexpinv(-CMap3(u), CMap3(v)); }
  static void dexp(const double* u, const double* v, double* out) { Map3{out} = so3::dexp(-CMap3(u), CMap3(v)); }
  static void project(double* y) { detail::so3_project(y); }

  using Group = Mat3;
  static Group identity() { return Mat3::Identity(); }
  static Group exp(const double* xi) { return so3::exp(CMap3(xi)); }
  /// G^op: phi^op(xi) = phi(-xi)^-1, dphiinv^op_u = dphiinv_{-u} (coordinates.hpp)
  template <Coordinates C>
  static Group chart(const double* xi) { return so3::chart<C>(Vec3(-CMap3(xi))).transpose(); }
  template <Coordinates C>
  static void dchartinv(const double* u, const double* v, double* out) {
    Map3{out} = so3::dchartinv<C>(Vec3(-CMap3(u)), CMap3(v));
  }
  static Group compose(const Group& g, const Group& h) { return h * g; }  // product of SO(3)^op
  static void act(const Group& g, const double* y, double* out) { MapM3{out} = Mat3(CMapM3(y)) * g; }
};

/// SE(3) acting on TS^2 by the restricted Ad-action [P] 5.1:
///   psi((A, a), (q, w)) = (A q, A w + a x A q),   psi_*((u, v))|(q, w) = (u x q, u x w + v x q).
struct SE3OnTS2 {
  static constexpr int alg_dim = 6, state_dim = 6;
  static constexpr const char* name = "se3_on_ts2";
  static constexpr const char* group = "SE(3)";
  static constexpr const char* manifold = "TS^2 = {(q, w): |q| = 1, q.w = 0}";
  // The per-link kernels in plain doubles (se3_ts2_lanes.hpp): the same source is the lane body
  // of the batch kernel that runs the chain's RKMK stages across links (se3_ts2_batch.cpp).
  static void exp_act(const double* xi, const double* y, double* out) { se3_ts2::exp_act<se3_ts2::Closed>(xi, y, out); }
  static void generator(const double* xi, const double* y, double* out) {
    const Vec3 u = CMap3(xi), v = CMap3(xi + 3);
    const Vec3 q = CMap3(y), w = CMap3(y + 3);
    Map3{out} = u.cross(q);
    Map3{out + 3} = u.cross(w) + v.cross(q);
  }
  static void bracket(const double* a, const double* b, double* out) { Map6{out} = se3::bracket(CMap6(a), CMap6(b)); }
  /// se3::dexpinv with the same bits (tested).
  static void dexpinv(const double* u, const double* v, double* out) { se3_ts2::dexpinv<se3_ts2::Closed>(u, v, out); }
  static void dexp(const double* u, const double* v, double* out) { Map6{out} = se3::dexp(CMap6(u), CMap6(v)); }
  static void project(double* y) {
    Map3 q(y), w(y + 3);
    q.normalize();
    w -= w.dot(q) * q;
  }

  using Group = se3::Element;
  static Group identity() { return se3::identity(); }
  static Group exp(const double* xi) { return se3::exp(CMap6(xi)); }
  template <Coordinates C>
  static Group chart(const double* xi) { return se3::chart<C>(CMap6(xi)); }
  template <Coordinates C>
  static void dchartinv(const double* u, const double* v, double* out) {
    Map6{out} = se3::dchartinv<C>(CMap6(u), CMap6(v));
  }
  static Group compose(const Group& g, const Group& h) { return se3::compose(g, h); }
  static void act(const Group& g, const double* y, double* out) {
    const Vec3 Rq = g.R * Vec3(CMap3(y));
    const Vec3 Rw = g.R * Vec3(CMap3(y + 3));
    Map3{out} = Rq;
    Map3{out + 3} = Rw + g.r.cross(Rq);
  }
};

/// SE(3) acting on se(3)* by the coadjoint action g.mu = Ad*_{g^-1} mu [P] 3.4.2:
///   psi((R, r), (Pi, G)) = (R Pi + r x R G, R G),  psi_*((x, u))|(Pi,G) = -ad*_(x,u)(Pi,G) = (x x Pi + u x G, x x G).
struct SE3Coadjoint {
  static constexpr int alg_dim = 6, state_dim = 6;
  static constexpr const char* name = "se3_coadjoint";
  static constexpr const char* group = "SE(3)";
  static constexpr const char* manifold = "se(3)* (coadjoint orbits: |G| and Pi.G fixed)";
  static void exp_act(const double* xi, const double* y, double* out) {
    const se3::Element g = se3::exp(CMap6(xi));
    const Vec3 Pi = CMap3(y), G = CMap3(y + 3);
    const Vec3 RG = g.R * G;
    Map3{out} = g.R * Pi + g.r.cross(RG);
    Map3{out + 3} = RG;
  }
  static void generator(const double* xi, const double* y, double* out) {
    const Vec3 x = CMap3(xi), u = CMap3(xi + 3), Pi = CMap3(y), G = CMap3(y + 3);
    Map3{out} = x.cross(Pi) + u.cross(G);
    Map3{out + 3} = x.cross(G);
  }
  static void bracket(const double* a, const double* b, double* out) { Map6{out} = se3::bracket(CMap6(a), CMap6(b)); }
  static void dexpinv(const double* u, const double* v, double* out) { Map6{out} = se3::dexpinv(CMap6(u), CMap6(v)); }
  static void dexp(const double* u, const double* v, double* out) { Map6{out} = se3::dexp(CMap6(u), CMap6(v)); }
  static void project(double*) {}

  using Group = se3::Element;
  static Group identity() { return se3::identity(); }
  static Group exp(const double* xi) { return se3::exp(CMap6(xi)); }
  template <Coordinates C>
  static Group chart(const double* xi) { return se3::chart<C>(CMap6(xi)); }
  template <Coordinates C>
  static void dchartinv(const double* u, const double* v, double* out) {
    Map6{out} = se3::dchartinv<C>(CMap6(u), CMap6(v));
  }
  static Group compose(const Group& g, const Group& h) { return se3::compose(g, h); }
  /// Ad*_{g^-1} mu
  static void act(const Group& g, const double* y, double* out) {
    Map6{out} = se3::Ad_star(se3::inverse(g), Vec6(CMap6(y)));
  }
};

/// T*SO(3) right-trivialised, (Q, pi) with spatial momentum pi ([P] 3.1, eq. (11)):
/// the semidirect product (g, mu)(h, nu) = (g h, mu + g nu) is SE(3), acting on itself from
/// the left. State (Q row-major, pi), algebra (xi, alpha):
///   psi(exp(xi, alpha), (Q, pi)) = (E Q, J_l(xi) alpha + E pi),  psi_* = (hat(xi) Q, alpha + xi x pi).
struct TstarSO3RightTriv {
  static constexpr int alg_dim = 6, state_dim = 12;
  static constexpr const char* name = "tstar_so3_right";
  static constexpr const char* group = "SO(3) x| so(3)* (~ SE(3))";
  static constexpr const char* manifold = "T*SO(3) right trivialised: (Q, pi)";
  static void exp_act(const double* xi, const double* y, double* out) {
    const Vec3 x = CMap3(xi), al = CMap3(xi + 3);
    const Mat3 E = so3::exp(x);
    const Mat3 Q = CMapM3(y);
    const Vec3 pi = CMap3(y + 9);
    MapM3{out} = E * Q;
    Map3{out + 9} = so3::dexp(x, al) + E * pi;
  }
  static void generator(const double* xi, const double* y, double* out) {
    const Vec3 x = CMap3(xi), al = CMap3(xi + 3);
    MapM3{out} = so3::hat(x) * Mat3(CMapM3(y));
    Map3{out + 9} = al + x.cross(CMap3(y + 9));
  }
  static void bracket(const double* a, const double* b, double* out) { Map6{out} = se3::bracket(CMap6(a), CMap6(b)); }
  static void dexpinv(const double* u, const double* v, double* out) { Map6{out} = se3::dexpinv(CMap6(u), CMap6(v)); }
  static void dexp(const double* u, const double* v, double* out) { Map6{out} = se3::dexp(CMap6(u), CMap6(v)); }
  static void project(double* y) { detail::so3_project(y); }

  using Group = tstar::TstarSO3Right::Element;
  static Group identity() { return tstar::TstarSO3Right::identity(); }
  static Group exp(const double* xi) { return tstar::TstarSO3Right::exp(CMap6(xi)); }
  /// The group is SE(3) with (Q, pi) = (R, r).
  template <Coordinates C>
  static Group chart(const double* xi) {
    const se3::Element e = se3::chart<C>(CMap6(xi));
    return {e.R, e.r};
  }
  template <Coordinates C>
  static void dchartinv(const double* u, const double* v, double* out) {
    Map6{out} = se3::dchartinv<C>(CMap6(u), CMap6(v));
  }
  static Group compose(const Group& g, const Group& h) { return tstar::TstarSO3Right::compose(g, h); }
  static void act(const Group& g, const double* y, double* out) {
    detail::write_tstar(tstar::TstarSO3Right::compose(g, detail::read_tstar(y)), out);
  }
};

/// T*SO(3) left-trivialised, (Q, m) with body momentum m ([K] 2.6-2.8, eq. (2.33)):
/// (g, mu)(h, nu) = (g h, nu + h^T mu), acting on itself from the right ([K] eq. (2.41)):
///   (Q, m) . exp(xi, alpha) = (Q E, E^T m + J_l(xi)^T alpha),   E = exp(xi),
/// generator (Q hat(xi), alpha + m x xi)   (= (L_Q* f_Q, f_m + ad*_{f_Q} m), [K] eq. (2.44)).
/// (g, mu) -> (g, g mu) is an isomorphism onto SE(3), so the algebra is se(3); as a right
/// action it is a left action of the opposite group (bracket -[.,.], dexpinv_{-u}).
struct TstarSO3LeftTriv {
  static constexpr int alg_dim = 6, state_dim = 12;
  static constexpr const char* name = "tstar_so3_left";
  static constexpr const char* group = "(SO(3) x| so(3)*)^op";
  static constexpr const char* manifold = "T*SO(3) left trivialised: (Q, m)";
  /// (Q E, E^T m + J_l(-x) alpha)  (J_l(x)^T = J_l(-x)); plain doubles with the bits of the
  /// Eigen form (tstar_left_kernels.hpp, tested).
  static void exp_act(const double* xi, const double* y, double* out) { tstar_left::exp_act(xi, y, out); }
  static void generator(const double* xi, const double* y, double* out) {
    const Vec3 x = CMap3(xi), al = CMap3(xi + 3);
    MapM3{out} = Mat3(CMapM3(y)) * so3::hat(x);
    Map3{out + 9} = al + CMap3(y + 9).cross(x);
  }
  static void bracket(const double* a, const double* b, double* out) { Map6{out} = se3::bracket(CMap6(b), CMap6(a)); }
  /// se3::dexpinv(-u, v) (tstar_left_kernels.hpp, the same bits)
  static void dexpinv(const double* u, const double* v, double* out) { tstar_left::dexpinv(u, v, out); }
  static void dexp(const double* u, const double* v, double* out) { Map6{out} = se3::dexp(-CMap6(u), CMap6(v)); }
  static void project(double* y) { detail::so3_project(y); }

  using Group = tstar::TstarSO3Left::Element;
  static Group identity() { return tstar::TstarSO3Left::identity(); }
  static Group exp(const double* xi) { return tstar::TstarSO3Left::exp(CMap6(xi)); }
  /// (g, mu) -> (g, g mu) maps the group onto SE(3) (with exp onto se3::exp); as G^op:
  /// phi^op(xi) = phi(-xi)^-1, dphiinv^op_u = dphiinv_{-u} (coordinates.hpp).
  template <Coordinates C>
  static Group chart(const double* xi) {
    const se3::Element e = se3::inverse(se3::chart<C>(Vec6(-CMap6(xi))));
    return tstar::TstarSO3Left::from_right({e.R, e.r});
  }
  template <Coordinates C>
  static void dchartinv(const double* u, const double* v, double* out) {
    Map6{out} = se3::dchartinv<C>(Vec6(-CMap6(u)), CMap6(v));
  }
  static Group compose(const Group& g, const Group& h) { return tstar::TstarSO3Left::compose(h, g); }  // ^op
  static void act(const Group& g, const double* y, double* out) {
    detail::write_tstar(tstar::TstarSO3Left::compose(detail::read_tstar(y), g), out);
  }
};

/// Direct product of factors stored back to back (state and algebra in the same order).
template <class... Fs>
struct Compound {
  using Parts = std::tuple<Fs...>;
  static constexpr int alg_dim = (Fs::alg_dim + ...);
  static constexpr int state_dim = (Fs::state_dim + ...);

  template <class Op>
  static void each(Op&& op) {
    int a = 0, s = 0;
    ((op.template operator()<Fs>(a, s), a += Fs::alg_dim, s += Fs::state_dim), ...);
  }
  static void exp_act(const double* xi, const double* y, double* out) {
    each([&]<class F>(int a, int s) { F::exp_act(xi + a, y + s, out + s); });
  }
  static void generator(const double* xi, const double* y, double* out) {
    each([&]<class F>(int a, int s) { F::generator(xi + a, y + s, out + s); });
  }
  static void bracket(const double* x, const double* z, double* out) {
    each([&]<class F>(int a, int) { F::bracket(x + a, z + a, out + a); });
  }
  static void dexpinv(const double* u, const double* v, double* out) {
    each([&]<class F>(int a, int) { F::dexpinv(u + a, v + a, out + a); });
  }
  static void dexp(const double* u, const double* v, double* out) {
    each([&]<class F>(int a, int) { F::dexp(u + a, v + a, out + a); });
  }
  static void project(double* y) {
    each([&]<class F>(int, int s) { F::project(y + s); });
  }

  using Group = std::tuple<typename Fs::Group...>;
  static constexpr std::array<int, sizeof...(Fs)> alg_offsets = [] {
    std::array<int, sizeof...(Fs)> o{};
    int a = 0, i = 0;
    ((o[static_cast<std::size_t>(i++)] = a, a += Fs::alg_dim), ...);
    return o;
  }();
  static constexpr std::array<int, sizeof...(Fs)> state_offsets = [] {
    std::array<int, sizeof...(Fs)> o{};
    int s = 0, i = 0;
    ((o[static_cast<std::size_t>(i++)] = s, s += Fs::state_dim), ...);
    return o;
  }();
  static Group identity() { return Group{Fs::identity()...}; }
  static Group exp(const double* xi) { return exp_impl(xi, std::index_sequence_for<Fs...>{}); }
  template <Coordinates C>
  static Group chart(const double* xi) { return chart_impl<C>(xi, std::index_sequence_for<Fs...>{}); }
  template <Coordinates C>
  static void dchartinv(const double* u, const double* v, double* out) {
    each([&]<class F>(int a, int) { F::template dchartinv<C>(u + a, v + a, out + a); });
  }
  static Group compose(const Group& g, const Group& h) { return compose_impl(g, h, std::index_sequence_for<Fs...>{}); }
  static void act(const Group& g, const double* y, double* out) { act_impl(g, y, out, std::index_sequence_for<Fs...>{}); }

 private:
  template <std::size_t... I>
  static Group exp_impl(const double* xi, std::index_sequence<I...>) {
    return Group{Fs::exp(xi + alg_offsets[I])...};
  }
  template <Coordinates C, std::size_t... I>
  static Group chart_impl(const double* xi, std::index_sequence<I...>) {
    return Group{Fs::template chart<C>(xi + alg_offsets[I])...};
  }
  template <std::size_t... I>
  static Group compose_impl(const Group& g, const Group& h, std::index_sequence<I...>) {
    return Group{Fs::compose(std::get<I>(g), std::get<I>(h))...};
  }
  template <std::size_t... I>
  static void act_impl(const Group& g, const double* y, double* out, std::index_sequence<I...>) {
    (Fs::act(std::get<I>(g), y + state_offsets[I], out + state_offsets[I]), ...);
  }
};

/// One rigid body of [K] 3.2 on T*(R^3 x SO(3)), left trivialised: state (q, p, Q, m),
/// algebra (dq, dp, xi, alpha); q and p translate, (Q, m) as TstarSO3LeftTriv.
struct RigidBodyLeftTriv : Compound<Translation<3>, Translation<3>, TstarSO3LeftTriv> {
  static constexpr const char* name = "rigid_body_left";
  static constexpr const char* group = "(R^3 x R^3) x T*SO(3)^op";
  static constexpr const char* manifold = "T*(R^3 x SO(3)) left trivialised: (q, p, Q, m)";
};

/// SO(3) x R^3 acting on TSO(3) ~ SO(3) x so(3) by (B, b).(R, W) = (B R, W + b) ([P] 6.1).
struct TSO3Left : Compound<SO3Left, Translation<3>> {
  static constexpr const char* name = "tso3_left";
  static constexpr const char* group = "SO(3) x R^3";
  static constexpr const char* manifold = "TSO(3): (R, Omega), R -> B R, Omega -> Omega + b";
};

// X-macro list of every factor known to the product space (space.hpp). Adding a
// factor = one struct above + one line here.
#define LIEBENCH_FACTORS(X)                   \
  X(Translation3, ::lie::factors::Translation<3>) \
  X(SO3OnR3, ::lie::factors::SO3OnR3)           \
  X(SO3Left, ::lie::factors::SO3Left)           \
  X(SO3Right, ::lie::factors::SO3Right)         \
  X(SE3OnTS2, ::lie::factors::SE3OnTS2)         \
  X(SE3Coadjoint, ::lie::factors::SE3Coadjoint) \
  X(TstarSO3RightTriv, ::lie::factors::TstarSO3RightTriv) \
  X(TstarSO3LeftTriv, ::lie::factors::TstarSO3LeftTriv)   \
  X(RigidBodyLeftTriv, ::lie::factors::RigidBodyLeftTriv) \
  X(TSO3Left, ::lie::factors::TSO3Left)

}  // namespace lie::factors
