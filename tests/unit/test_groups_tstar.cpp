// T*G = G x| g* as an explicit Lie group (src/groups/tstar.hpp), for G = SO(3) and
// G = R^3 x SO(3), right ([P] eq. (11)) and left ([K] eq. (2.33)) trivialised. Every derived
// formula (exp, Ad, bracket, Ad*, ad*, dexp) is checked against derivatives of the group
// product itself, and the factors TstarSO3RightTriv, TstarSO3LeftTriv, RigidBodyLeftTriv of
// factors.hpp are checked to be exactly the actions of these groups on themselves.
#include <cmath>

#include "groups/bernoulli.hpp"
#include "groups/factors.hpp"
#include "groups/tstar.hpp"
#include "groups_testing.hpp"

using namespace lie;
using namespace lie::testing;
namespace ts = lie::tstar;
namespace fac = lie::factors;

namespace {

template <class G>
typename G::Elem random_base(Rng& rng) {
  if constexpr (std::is_same_v<G, ts::BaseSO3>)
    return rng.rotation();
  else
    return {rng.normal_vec<3>(), rng.rotation()};
}
template <class G>
double base_dist(const typename G::Elem& a, const typename G::Elem& b) {
  if constexpr (std::is_same_v<G, ts::BaseSO3>)
    return max_abs_diff(a, b);
  else
    return std::max(max_abs_diff(a.q, b.q), max_abs_diff(a.Q, b.Q));
}

template <class T>
typename T::Element random_element(Rng& rng) {
  using G = typename T::BaseGroup;
  return {random_base<G>(rng), rng.normal_vec<G::dim>()};
}
template <class T>
double dist(const typename T::Element& a, const typename T::Element& b) {
  return std::max(base_dist<typename T::BaseGroup>(a.g, b.g), max_abs_diff(a.mu, b.mu));
}
/// Algebra element whose so(3) part has the given angle (other parts standard normal).
template <class T>
typename T::Alg random_alg(Rng& rng, double angle) {
  typename T::Alg x = rng.normal_vec<T::dim>();
  constexpr int rot = std::is_same_v<typename T::BaseGroup, ts::BaseSO3> ? 0 : 3;
  x.template segment<3>(rot) = angle * rng.unit3();
  return x;
}

template <class T>
std::string tag(const char* what) {
  using G = typename T::BaseGroup;
  constexpr bool so3 = std::is_same_v<G, ts::BaseSO3>;
  constexpr bool right = std::is_same_v<T, ts::RightTriv<G>>;
  return std::string(so3 ? (right ? "T*SO(3) right" : "T*SO(3) left") : (right ? "T*(R3xSO(3)) right" : "T*(R3xSO(3)) left")) +
         ": " + what;
}
template <class T>
class GroupsTstar : public ::testing::Test {};
using TstarGroups = ::testing::Types<ts::TstarSO3Right, ts::TstarSO3Left, ts::TstarR3xSO3Right, ts::TstarR3xSO3Left>;
struct TstarName {
  template <class T>
  static std::string GetName(int i) {
    static const char* names[] = {"so3_right", "so3_left", "r3xso3_right", "r3xso3_left"};
    return names[i];
  }
};
TYPED_TEST_SUITE(GroupsTstar, TstarGroups, TstarName);


template <class T>
void check_GroupAxioms() {
  Rng rng(401);
  Worst w(tag<T>("group axioms (assoc, inverse, identity)"));
  for (int i = 0; i < 3000; ++i) {
    const auto a = random_element<T>(rng), b = random_element<T>(rng), c = random_element<T>(rng);
    EXPECT_LE(w(dist<T>(T::compose(T::compose(a, b), c), T::compose(a, T::compose(b, c)))), 1e-13);
    EXPECT_LE(w(dist<T>(T::compose(a, T::inverse(a)), T::identity())), 1e-14);
    EXPECT_LE(w(dist<T>(T::compose(T::inverse(a), a), T::identity())), 1e-14);
    EXPECT_EQ(dist<T>(T::compose(a, T::identity()), a), 0.0);
    EXPECT_EQ(dist<T>(T::compose(T::identity(), a), a), 0.0);
  }
}

template <class T>
void check_ExpIsTheOneParameterSubgroupWithTangentX() {
  // exp(s x) exp(t x) = exp((s+t) x), and d/dt exp(t x)|_0 = x (so exp is *the* exponential)
  Rng rng(402);
  Worst sub(tag<T>("|exp(sx)exp(tx) - exp((s+t)x)|")), tan(tag<T>("|d/dt mu(exp(tx)) - a| (FD)")),
      le(tag<T>("|log(exp x) - x| / |x|, |xi| < pi")), el(tag<T>("|exp(log e) - e|"));
  for (double angle : angle_samples(rng, 700)) {
    const typename T::Alg x = random_alg<T>(rng, angle);
    const double s = rng.uniform(-1, 1), t = rng.uniform(-1, 1);
    EXPECT_LE(sub(dist<T>(T::compose(T::exp(s * x), T::exp(t * x)), T::exp((s + t) * x))), 1e-13) << "angle " << angle;
    const auto mu = fd_derivative([&](double h) { return typename T::BaseAlg(T::exp(h * x).mu); }, 1e-2 / (1 + x.norm()));
    EXPECT_LE(tan(max_abs_diff(mu, T::second(x))), 1e-12);
    if (angle < kPi) {
      EXPECT_LE(le(max_abs_diff(T::log(T::exp(x)), x) / x.norm()), 1e-14) << "angle " << angle;
    }
    const auto e = random_element<T>(rng);
    EXPECT_LE(el(dist<T>(T::exp(T::log(e)), e)), 1e-14);
  }
}

template <class T>
void check_AdIsTheDerivativeOfConjugationAndTheBracketTheDerivativeOfAd() {
  // Ad_e y = d/dt log(e exp(t y) e^-1)|_0,   [x, y] = d/dt Ad_exp(tx) y|_0
  Rng rng(403);
  Worst ad(tag<T>("|Ad_e y - d/dt log(e exp(ty) e^-1)| (FD) / |y|")),
      br(tag<T>("|[x, y] - d/dt Ad_exp(tx) y| (FD) / |x||y|")),
      hom(tag<T>("|Ad_ab - Ad_a Ad_b|, |Ad_e [x,y] - [Ad x, Ad y]|")),
      jac(tag<T>("Jacobi |[x,[y,z]] + cyc| / |x||y||z|"));
  for (int i = 0; i < 2000; ++i) {
    const auto e = random_element<T>(rng), f = random_element<T>(rng);
    const typename T::Alg x = random_alg<T>(rng, rng.uniform(0, 2.0)), y = rng.normal_vec<T::dim>(), z = rng.normal_vec<T::dim>();
    const double hy = 1e-2 / (1 + y.norm()), hx = 1e-2 / (1 + x.norm());
    const typename T::Alg dconj =
        fd_derivative([&](double t) { return T::log(T::compose(e, T::compose(T::exp(t * y), T::inverse(e)))); }, hy);
    EXPECT_LE(ad(max_abs_diff(dconj, T::Ad(e, y)) / (y.norm() * (1 + e.mu.norm()))), 1e-11);
    const typename T::Alg dAd = fd_derivative([&](double t) { return T::Ad(T::exp(t * x), y); }, hx);
    EXPECT_LE(br(max_abs_diff(dAd, T::bracket(x, y)) / (x.norm() * y.norm())), 1e-11);
    EXPECT_LE(hom(max_abs_diff(T::Ad(T::compose(e, f), y), T::Ad(e, T::Ad(f, y))) / y.norm()), 1e-12);
    EXPECT_LE(hom(max_abs_diff(T::Ad(e, T::bracket(x, y)), T::bracket(T::Ad(e, x), T::Ad(e, y))) / (x.norm() * y.norm())), 1e-12);
    EXPECT_EQ(T::bracket(x, y), typename T::Alg(-T::bracket(y, x)));
    const typename T::Alg j = T::bracket(x, T::bracket(y, z)) + T::bracket(y, T::bracket(z, x)) + T::bracket(z, T::bracket(x, y));
    EXPECT_LE(jac(j.norm() / (x.norm() * y.norm() * z.norm())), 1e-15);
  }
}

template <class T>
void check_CoadjointOperatorsAreTheTransposes() {
  Rng rng(404);
  Worst pAd(tag<T>("|<Ad*_e w, y> - <w, Ad_e y>|")), pad(tag<T>("|<ad*_x w, y> - <w, [x, y]>|")),
      dAd(tag<T>("|d/dt Ad*_exp(tx) w - ad*_x w| (FD) / |x||w|"));
  for (int i = 0; i < 2000; ++i) {
    const auto e = random_element<T>(rng), f = random_element<T>(rng);
    const typename T::Alg x = random_alg<T>(rng, rng.uniform(0, 2.0)), y = rng.normal_vec<T::dim>(), w = rng.normal_vec<T::dim>();
    const double scale = w.norm() * y.norm() * (1 + e.mu.norm()) * (1 + x.norm());
    EXPECT_LE(pAd(std::fabs(T::Ad_star(e, w).dot(y) - w.dot(T::Ad(e, y))) / scale), 1e-15);
    EXPECT_LE(pad(std::fabs(T::ad_star(x, w).dot(y) - w.dot(T::bracket(x, y))) / scale), 1e-15);
    // Ad*_{ab} = Ad*_b Ad*_a
    EXPECT_LE(max_abs_diff(T::Ad_star(T::compose(e, f), w), T::Ad_star(f, T::Ad_star(e, w))) / scale, 1e-14);
    const typename T::Dual d = fd_derivative([&](double t) { return T::Ad_star(T::exp(t * x), w); }, 1e-2 / (1 + x.norm()));
    EXPECT_LE(dAd(max_abs_diff(d, T::ad_star(x, w)) / (x.norm() * w.norm())), 1e-11);
  }
}

template <class T>
void check_DexpIsTheDerivativeOfExpAndDexpinvItsInverse() {
  // dexp_x y = d/dt log(exp(x + t y) exp(x)^-1)|_0; dexpinv o dexp = id; dexpinv = Bernoulli
  // series of the bracket above (so the se(3) closed form is the right one for this group).
  Rng rng(405);
  Worst fd(tag<T>("|dexp_x y - FD d/dt log(exp(x+ty) exp(x)^-1)| / |y|")),
      inv(tag<T>("|dexpinv_x(dexp_x y) - y| / |y|")), ser(tag<T>("|dexpinv - Bernoulli series(16)| / |y|, |x| <= 0.3"));
  for (double angle : angle_samples(rng, 700)) {
    const typename T::Alg x = random_alg<T>(rng, angle), y = rng.normal_vec<T::dim>();
    if (angle < 2.0) {  // keep the product's log near the identity well defined
      const typename T::Alg d = fd_derivative(
          [&](double t) { return T::log(T::compose(T::exp(x + t * y), T::inverse(T::exp(x)))); }, 1e-2 / (1 + y.norm()));
      EXPECT_LE(fd(max_abs_diff(d, T::dexp(x, y)) / y.norm()), 1e-11) << "angle " << angle;
    }
    EXPECT_LE(inv(max_abs_diff(T::dexpinv(x, T::dexp(x, y)), y) / y.norm()), 1e-14) << "angle " << angle;
    EXPECT_LE(inv(max_abs_diff(T::dexp(x, T::dexpinv(x, y)), y) / y.norm()), 1e-14) << "angle " << angle;
    const typename T::Alg xs = 0.3 * x / std::max(1.0, x.norm());
    typename T::Alg series;
    dexpinv_series<T::dim>(xs.data(), y.data(), series.data(), 16, [](const double* a, const double* b, double* c) {
      Eigen::Map<typename T::Alg>{c} = T::bracket(Eigen::Map<const typename T::Alg>(a), Eigen::Map<const typename T::Alg>(b));
    });
    EXPECT_LE(ser(max_abs_diff(T::dexpinv(xs, y), series) / y.norm()), 1e-15);
  }
}

}  // namespace

TYPED_TEST(GroupsTstar, GroupAxiomsExpAndLog) {
  check_GroupAxioms<TypeParam>();
  check_ExpIsTheOneParameterSubgroupWithTangentX<TypeParam>();
}
TYPED_TEST(GroupsTstar, AdjointBracketAndCoadjointOperators) {
  check_AdIsTheDerivativeOfConjugationAndTheBracketTheDerivativeOfAd<TypeParam>();
  check_CoadjointOperatorsAreTheTransposes<TypeParam>();
}
TYPED_TEST(GroupsTstar, DexpAndDexpinv) { check_DexpIsTheDerivativeOfExpAndDexpinvItsInverse<TypeParam>(); }

// ---- identifications ----------------------------------------------------------------

TEST(GroupsTstarIdentities, RightTrivialisedTstarSO3IsSE3) {
  // (g, mu)(h, nu) = (gh, mu + g nu) is the SE(3) product: every operation must agree exactly.
  Rng rng(406);
  using T = ts::TstarSO3Right;
  auto to_se3 = [](const T::Element& e) { return se3::Element{e.g, e.mu}; };
  Worst w("T*SO(3) right vs SE(3): max difference of all operations");
  for (int i = 0; i < 2000; ++i) {
    const T::Element a = random_element<T>(rng), b = random_element<T>(rng);
    const Vec6 x = random_alg<T>(rng, rng.uniform(0, kPi)), y = rng.normal_vec<6>(), mu = rng.normal_vec<6>();
    const se3::Element ab = se3::compose(to_se3(a), to_se3(b)), abT = to_se3(T::compose(a, b));
    EXPECT_LE(w(std::max(max_abs_diff(ab.R, abT.R), max_abs_diff(ab.r, abT.r))), 1e-14);
    const se3::Element ex = se3::exp(x), exT = to_se3(T::exp(x));
    EXPECT_LE(w(std::max(max_abs_diff(ex.R, exT.R), max_abs_diff(ex.r, exT.r))), 1e-14);
    EXPECT_LE(w(max_abs_diff(se3::log(to_se3(a)), T::log(a))), 1e-14);
    EXPECT_LE(w(max_abs_diff(se3::Ad(to_se3(a), y), T::Ad(a, y))), 1e-13);
    EXPECT_LE(w(max_abs_diff(se3::Ad_star(to_se3(a), mu), T::Ad_star(a, mu))), 1e-13);
    EXPECT_LE(w(max_abs_diff(se3::bracket(x, y), T::bracket(x, y))), 1e-14);
    EXPECT_LE(w(max_abs_diff(se3::ad_star(x, mu), T::ad_star(x, mu))), 1e-14);
  }
}

TEST(GroupsTstarIdentities, PhiIsAnIsomorphismFromLeftToRightTrivialisation) {
  // Phi(g, mu) = (g, Ad*_{g^-1} mu): Phi(ab) = Phi(a)Phi(b), Phi(exp_L x) = exp_R x, Phi^-1 Phi = id
  Rng rng(407);
  Worst w("Phi: |Phi(ab) - Phi(a)Phi(b)|, |Phi(exp_L x) - exp_R x|");
  auto check = [&]<class L, class R>() {
    for (int i = 0; i < 1000; ++i) {
      const typename L::Element a = random_element<L>(rng), b = random_element<L>(rng);
      EXPECT_LE(w(dist<R>(L::to_right(L::compose(a, b)), R::compose(L::to_right(a), L::to_right(b)))), 1e-13);
      const typename L::Alg x = random_alg<L>(rng, rng.uniform(0, 3.0));
      EXPECT_LE(w(dist<R>(L::to_right(L::exp(x)), R::exp(x))), 1e-14);
      EXPECT_LE(dist<L>(L::from_right(L::to_right(a)), a), 1e-14);
    }
  };
  check.operator()<ts::TstarSO3Left, ts::TstarSO3Right>();
  check.operator()<ts::TstarR3xSO3Left, ts::TstarR3xSO3Right>();
}

// ---- the factors are the actions of these groups ------------------------------------------

namespace {
using State12 = Eigen::Matrix<double, 12, 1>;
using State18 = Eigen::Matrix<double, 18, 1>;
using Vec12 = ts::Vec12;

State12 tstar_state(const ts::TstarSO3Right::Element& e) {
  State12 y;
  fac::detail::write_tstar(e, y.data());
  return y;
}
ts::TstarSO3Right::Element tstar_element(const State12& y) { return fac::detail::read_tstar(y.data()); }

// RigidBodyLeftTriv: state (q, p, Q, m), algebra (dq, dp, xi, alpha);
// TstarR3xSO3Left: element ((q, Q), (p, m)), algebra (dq, xi, dp, alpha).
ts::TstarR3xSO3Left::Element rigid_element(const State18& y) {
  ts::TstarR3xSO3Left::Element e;
  e.g.q = y.segment<3>(0);
  e.g.Q = fac::CMapM3(y.data() + 6);
  e.mu << y.segment<3>(3), y.segment<3>(15);
  return e;
}
State18 rigid_state(const ts::TstarR3xSO3Left::Element& e) {
  State18 y;
  y << e.g.q, e.mu.head<3>(), Eigen::Matrix<double, 9, 1>::Zero(), e.mu.tail<3>();
  fac::MapM3{y.data() + 6} = e.g.Q;
  return y;
}
Vec12 to_group_alg(const Vec12& f) {  // (dq, dp, xi, alpha) -> (dq, xi, dp, alpha)
  Vec12 x;
  x << f.segment<3>(0), f.segment<3>(6), f.segment<3>(3), f.segment<3>(9);
  return x;
}
Vec12 to_factor_alg(const Vec12& x) {  // inverse permutation
  Vec12 f;
  f << x.segment<3>(0), x.segment<3>(6), x.segment<3>(3), x.segment<3>(9);
  return f;
}
}  // namespace

TEST(GroupsTstarFactors, TstarSO3RightTrivIsLeftMultiplication) {
  using T = ts::TstarSO3Right;
  using F = fac::TstarSO3RightTriv;
  Rng rng(408);
  Worst w("TstarSO3RightTriv: exp_act vs exp(xi) . y, bracket, dexp(inv) vs T*SO(3)");
  for (double angle : angle_samples(rng, 700)) {
    const Vec6 xi = random_alg<T>(rng, angle), eta = rng.normal_vec<6>();
    const T::Element y = random_element<T>(rng);
    State12 out;
    const State12 ys = tstar_state(y);
    F::exp_act(xi.data(), ys.data(), out.data());
    EXPECT_LE(w(dist<T>(tstar_element(out), T::compose(T::exp(xi), y))), 1e-14) << "angle " << angle;
    Vec6 b, di, de;
    F::bracket(xi.data(), eta.data(), b.data());
    EXPECT_EQ(b, T::bracket(xi, eta));
    F::dexpinv(xi.data(), eta.data(), di.data());
    F::dexp(xi.data(), eta.data(), de.data());
    EXPECT_LE(w(max_abs_diff(di, T::dexpinv(xi, eta))), 0.0);
    EXPECT_LE(w(max_abs_diff(de, T::dexp(xi, eta))), 0.0);
    // [P] eq. (12): the generator is (f1 Q, f2 - ad*_f1 mu)
    State12 gen;
    F::generator(xi.data(), ys.data(), gen.data());
    const Vec3 f1 = xi.head<3>(), f2 = xi.tail<3>();
    EXPECT_LE(max_abs_diff(Mat3(fac::CMapM3(gen.data())), so3::hat(f1) * y.g), 1e-14 * xi.norm());
    EXPECT_LE(max_abs_diff(gen.tail<3>(), f2 - so3::ad_star(f1, y.mu)), 1e-14 * xi.norm() * (1 + y.mu.norm()));
  }
}

TEST(GroupsTstarFactors, TstarSO3LeftTrivIsRightMultiplication) {
  // y -> y exp(xi) is a left action of the opposite group: bracket -[.,.], dexpinv_{-u}
  using T = ts::TstarSO3Left;
  using F = fac::TstarSO3LeftTriv;
  Rng rng(409);
  Worst w("TstarSO3LeftTriv: exp_act vs y . exp(xi), -bracket, dexpinv_{-u}");
  for (double angle : angle_samples(rng, 700)) {
    const Vec6 xi = random_alg<T>(rng, angle), eta = rng.normal_vec<6>();
    const T::Element y = random_element<T>(rng);
    State12 out;
    const State12 ys = tstar_state(y);
    F::exp_act(xi.data(), ys.data(), out.data());
    EXPECT_LE(w(dist<T>(tstar_element(out), T::compose(y, T::exp(xi)))), 1e-14) << "angle " << angle;
    Vec6 b, di, de;
    F::bracket(xi.data(), eta.data(), b.data());
    EXPECT_EQ(b, Vec6(-T::bracket(xi, eta)));
    F::dexpinv(xi.data(), eta.data(), di.data());
    F::dexp(xi.data(), eta.data(), de.data());
    EXPECT_LE(w(max_abs_diff(di, T::dexpinv(Vec6(-xi), eta))), 0.0);
    EXPECT_LE(w(max_abs_diff(de, T::dexp(Vec6(-xi), eta))), 0.0);
    // [K] eq. (2.39): the generator is (Q f_Q, f_m + ad*_{f_Q} m)
    State12 gen;
    F::generator(xi.data(), ys.data(), gen.data());
    const Vec3 fQ = xi.head<3>(), fm = xi.tail<3>();
    EXPECT_LE(max_abs_diff(Mat3(fac::CMapM3(gen.data())), y.g * so3::hat(fQ)), 1e-14 * xi.norm());
    EXPECT_LE(max_abs_diff(gen.tail<3>(), fm + so3::ad_star(fQ, y.mu)), 1e-14 * xi.norm() * (1 + y.mu.norm()));
  }
}

TEST(GroupsTstarFactors, RigidBodyLeftTrivIsRightMultiplicationInTstarR3xSO3) {
  // [K] 2.8 / 3.2: one rigid body on T*(R^3 x SO(3)) left trivialised
  using T = ts::TstarR3xSO3Left;
  using F = fac::RigidBodyLeftTriv;
  Rng rng(410);
  Worst w("RigidBodyLeftTriv vs T*(R3xSO3) left: exp_act, generator, bracket, dexpinv");
  for (double angle : angle_samples(rng, 700)) {
    const Vec12 x = random_alg<T>(rng, angle), y_alg = rng.normal_vec<12>();
    const Vec12 xf = to_factor_alg(x), yf = to_factor_alg(y_alg);
    const T::Element e = random_element<T>(rng);
    const State18 s = rigid_state(e);
    State18 out;
    F::exp_act(xf.data(), s.data(), out.data());
    EXPECT_LE(w(dist<T>(rigid_element(out), T::compose(e, T::exp(x)))), 1e-14) << "angle " << angle;
    // generator = d/dt of e exp(t x), and [K] eq. (2.44): (f_q, Q f_Q, f_p, f_m + ad*_{f_Q} m)
    State18 gen;
    F::generator(xf.data(), s.data(), gen.data());
    const State18 d = fd_derivative([&](double t) { return rigid_state(T::compose(e, T::exp(t * x))); }, 1e-2 / (1 + x.norm()));
    EXPECT_LE(w(max_abs_diff(gen, d) / (x.norm() * (1 + s.norm()))), 1e-12);
    State18 k44 = State18::Zero();
    k44.segment<3>(0) = xf.segment<3>(0);
    k44.segment<3>(3) = xf.segment<3>(3);
    fac::MapM3{k44.data() + 6} = e.g.Q * so3::hat(xf.segment<3>(6));
    k44.segment<3>(15) = xf.segment<3>(9) + so3::ad_star(xf.segment<3>(6), e.mu.tail<3>());
    EXPECT_LE(max_abs_diff(gen, k44), 1e-14 * x.norm() * (1 + s.norm()));
    Vec12 b, di, de;
    F::bracket(xf.data(), yf.data(), b.data());
    EXPECT_LE(w(max_abs_diff(to_group_alg(b), Vec12(-T::bracket(x, y_alg)))), 0.0);
    F::dexpinv(xf.data(), yf.data(), di.data());
    F::dexp(xf.data(), yf.data(), de.data());
    EXPECT_LE(w(max_abs_diff(to_group_alg(di), T::dexpinv(Vec12(-x), y_alg))), 1e-15);
    EXPECT_LE(w(max_abs_diff(to_group_alg(de), T::dexp(Vec12(-x), y_alg))), 1e-15);
  }
}
