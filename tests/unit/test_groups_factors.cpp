// One typed property suite (manif style) over every homogeneous-space factor in
// LIEBENCH_FACTORS (src/groups/factors.hpp): a new factor is tested by adding its line to the
// X-macro. For each factor F with acting group G and action psi on M:
//   psi(e, y) = y, psi(g, psi(h, y)) = psi(g h, y) with explicit group elements (F::Group),
//   exp_act(xi) = psi(exp(xi)), exp(s xi) exp(t xi) = exp((s+t) xi),
//   generator = d/dt psi(exp(t xi), y) (finite differences),
//   the bracket is antisymmetric, satisfies Jacobi, and is the one of the acting group:
//     [X_xi, X_eta] = -X_[xi, eta] for the vector fields X_xi = psi_*(xi) (left actions),
//   dexp = derivative of exp through the action, dexpinv o dexp = id, dexpinv = Bernoulli
//   series of the factor's bracket (with the promised truncation order),
//   the action preserves the factor's invariants (|q|, q.w on TS^2, Casimirs on se(3)*, ...),
//   project() is a retraction onto M.
#include <algorithm>
#include <cmath>
#include <tuple>
#include <type_traits>
#include <vector>

#include "groups/bernoulli.hpp"
#include "groups/factors.hpp"
#include "factor_sampling.hpp"
#include "groups_testing.hpp"

using namespace lie;
using namespace lie::testing;
namespace fac = lie::factors;

namespace {

/// Quantities the action preserves on the whole ambient space (relative scale in .second).
template <class F>
std::vector<double> invariants(const State<F>& y) {
  std::vector<double> v;
  for_parts<F>([&]<class P>(int, int s) {
    const double* p = y.data() + s;
    if constexpr (std::is_same_v<P, fac::SO3OnR3>) {
      v.push_back(fac::CMap3(p).norm());  // |m|: the coadjoint orbits of so(3)*
    } else if constexpr (std::is_same_v<P, fac::SO3Left> || std::is_same_v<P, fac::TstarSO3RightTriv>) {
      const Mat3 Q = fac::CMapM3(p);  // Q -> E Q preserves Q^T Q
      const Mat3 M = Q.transpose() * Q;
      v.insert(v.end(), M.data(), M.data() + 9);
    } else if constexpr (std::is_same_v<P, fac::SO3Right> || std::is_same_v<P, fac::TstarSO3LeftTriv>) {
      const Mat3 Q = fac::CMapM3(p);  // Q -> Q E preserves Q Q^T
      const Mat3 M = Q * Q.transpose();
      v.insert(v.end(), M.data(), M.data() + 9);
    } else if constexpr (std::is_same_v<P, fac::SE3OnTS2>) {
      const Vec3 q = fac::CMap3(p), w = fac::CMap3(p + 3);  // [P] 5.1: |q| and q.w
      v.push_back(q.norm());
      v.push_back(q.dot(w));
    } else if constexpr (std::is_same_v<P, fac::SE3Coadjoint>) {
      const Vec3 Pi = fac::CMap3(p), G = fac::CMap3(p + 3);  // Casimirs of se(3)*
      v.push_back(G.norm());
      v.push_back(Pi.dot(G));
    }
  });
  return v;
}

/// Algebra elements of norm r.
template <class F>
Alg<F> random_alg(Rng& rng, double r) {
  Alg<F> x = rng.normal_vec<F::alg_dim>();
  return r * x / x.norm();
}
/// Norms covering near-identity, generic and large (rotation parts stay below pi).
std::vector<double> alg_norms(Rng& rng, int n) {
  std::vector<double> r;
  for (int i = 0; i < n; ++i) {
    r.push_back(rng.log_uniform(1e-8, 1e-3));
    r.push_back(rng.uniform(1e-3, 2.5));
    r.push_back(rng.uniform(2.5, 3.1));
  }
  return r;
}

template <class F>
State<F> exp_act(const Alg<F>& xi, const State<F>& y) {
  State<F> out;
  F::exp_act(xi.data(), y.data(), out.data());
  return out;
}
template <class F>
State<F> act(const typename F::Group& g, const State<F>& y) {
  State<F> out;
  F::act(g, y.data(), out.data());
  return out;
}
template <class F>
State<F> generator(const Alg<F>& xi, const State<F>& y) {
  State<F> out;
  F::generator(xi.data(), y.data(), out.data());
  return out;
}
template <class F>
Alg<F> bracket(const Alg<F>& a, const Alg<F>& b) {
  Alg<F> out;
  F::bracket(a.data(), b.data(), out.data());
  return out;
}
template <class F>
Alg<F> dexp(const Alg<F>& u, const Alg<F>& v) {
  Alg<F> out;
  F::dexp(u.data(), v.data(), out.data());
  return out;
}
template <class F>
Alg<F> dexpinv(const Alg<F>& u, const Alg<F>& v) {
  Alg<F> out;
  F::dexpinv(u.data(), v.data(), out.data());
  return out;
}
template <class F>
Alg<F> dexpinv_series(const Alg<F>& u, const Alg<F>& v, int q) {
  Alg<F> out;
  lie::dexpinv_series<F::alg_dim>(u.data(), v.data(), out.data(), q,
                                  [](const double* a, const double* b, double* c) { F::bracket(a, b, c); });
  return out;
}
template <class F>
bool is_abelian() {
  bool abelian = true;
  for_parts<F>([&]<class P>(int, int) { abelian = abelian && std::is_same_v<P, fac::Translation<3>>; });
  return abelian;
}

template <class T>
struct DropFirst;
template <class H, class... T>
struct DropFirst<std::tuple<H, T...>> {
  using type = ::testing::Types<T...>;
};
#define LIEBENCH_TEST_TYPE(id, type) , type
using AllFactors = DropFirst<std::tuple<void LIEBENCH_FACTORS(LIEBENCH_TEST_TYPE)>>::type;
#undef LIEBENCH_TEST_TYPE

struct FactorName {
  template <class F>
  static std::string GetName(int) {
    return F::name;
  }
};

template <class F>
std::string tag(const char* what) {
  return std::string(F::name) + ": " + what;
}

template <class F>
class GroupsFactor : public ::testing::Test {};
TYPED_TEST_SUITE(GroupsFactor, AllFactors, FactorName);


template <class F>
void check_ExpActIsTheGroupActionOfExp() {
  Rng rng(301);
  Worst ea(tag<F>("|exp_act(xi, y) - act(exp(xi), y)|")), hom(tag<F>("|act(g, act(h, y)) - act(gh, y)|")),
      sub(tag<F>("|exp(s xi) exp(t xi) - exp((s+t) xi)| on y")), alias(tag<F>("exp_act in place (bitwise)"));
  for (double r : alg_norms(rng, 700)) {
    const Alg<F> xi = random_alg<F>(rng, r), eta = random_alg<F>(rng, rng.uniform(0, 3.0));
    const State<F> y = random_state<F>(rng, rng.uniform(0, 1) < 0.5);
    const double scale = 1 + y.norm();
    ASSERT_EQ(act<F>(F::identity(), y), y);
    EXPECT_LE(ea(max_abs_diff(exp_act<F>(xi, y), act<F>(F::exp(xi.data()), y)) / scale), 4e-15);
    State<F> z = y;
    F::exp_act(xi.data(), z.data(), z.data());
    EXPECT_EQ(alias(max_abs_diff(z, exp_act<F>(xi, y))), 0.0);
    const typename F::Group g = F::exp(xi.data()), h = F::exp(eta.data());
    EXPECT_LE(hom(max_abs_diff(act<F>(g, act<F>(h, y)), act<F>(F::compose(g, h), y)) / scale), 1e-14);
    const Alg<F> s_xi = 0.3 * xi, t_xi = -1.1 * xi, st_xi = -0.8 * xi;
    EXPECT_LE(sub(max_abs_diff(act<F>(F::compose(F::exp(s_xi.data()), F::exp(t_xi.data())), y), exp_act<F>(st_xi, y)) / scale),
              1e-14);
  }
}

template <class F>
void check_GeneratorIsTheDerivativeOfTheAction() {
  Rng rng(302);
  Worst w(tag<F>("|generator(xi, y) - d/dt exp_act(t xi, y)| (FD) / |xi||y|"));
  for (int i = 0; i < 2000; ++i) {
    const Alg<F> xi = random_alg<F>(rng, rng.uniform(0.1, 3.0));
    const State<F> y = random_state<F>(rng, i % 2 == 0);
    const State<F> d = fd_derivative([&](double t) { return exp_act<F>(Alg<F>(t * xi), y); }, 1e-2 / xi.norm());
    EXPECT_LE(w(max_abs_diff(d, generator<F>(xi, y)) / (xi.norm() * (1 + y.norm()))), 1e-12);
  }
}

template <class F>
void check_BracketIsAntisymmetricBilinearAndSatisfiesJacobi() {
  Rng rng(303);
  Worst jac(tag<F>("Jacobi |[a,[b,c]] + cyc| / |a||b||c|"));
  for (int i = 0; i < 2000; ++i) {
    const Alg<F> a = rng.normal_vec<F::alg_dim>(), b = rng.normal_vec<F::alg_dim>(), c = rng.normal_vec<F::alg_dim>();
    EXPECT_EQ(bracket<F>(a, b), Alg<F>(-bracket<F>(b, a)));
    EXPECT_EQ(bracket<F>(a, a), Alg<F>::Zero());
    EXPECT_LE(max_abs_diff(bracket<F>(Alg<F>(2.0 * a + c), b), Alg<F>(2.0 * bracket<F>(a, b) + bracket<F>(c, b))), 1e-13);
    const Alg<F> j = bracket<F>(a, bracket<F>(b, c)) + bracket<F>(b, bracket<F>(c, a)) + bracket<F>(c, bracket<F>(a, b));
    EXPECT_LE(jac(j.norm() / (a.norm() * b.norm() * c.norm())), 1e-15);
  }
}

template <class F>
void check_BracketIsTheBracketOfTheActingGroup() {
  // For a left action the fundamental vector fields satisfy [X_a, X_b] = -X_[a,b] with
  // [X, Y] = DY.X - DX.Y. This pins the sign of every bracket (G^op factors included).
  Rng rng(304);
  Worst w(tag<F>("|[X_a, X_b] + X_[a,b]| (FD Jacobians) / |a||b||y|"));
  for (int i = 0; i < 2000; ++i) {
    const Alg<F> a = rng.normal_vec<F::alg_dim>(), b = rng.normal_vec<F::alg_dim>();
    const State<F> y = random_state<F>(rng, i % 2 == 0);
    const State<F> Xa = generator<F>(a, y), Xb = generator<F>(b, y);
    // generators are affine in y, so the central differences are exact up to round-off
    const State<F> DXb_Xa = fd_derivative([&](double s) { return generator<F>(b, State<F>(y + s * Xa)); }, 1.0);
    const State<F> DXa_Xb = fd_derivative([&](double s) { return generator<F>(a, State<F>(y + s * Xb)); }, 1.0);
    const State<F> lie_bracket = DXb_Xa - DXa_Xb;
    EXPECT_LE(w(max_abs_diff(lie_bracket, State<F>(-generator<F>(bracket<F>(a, b), y))) /
                (a.norm() * b.norm() * (1 + y.norm()))),
              1e-14);
  }
}

template <class F>
void check_DexpIsTheDerivativeOfExpThroughTheAction() {
  // d/dt psi(exp(u + t v), y)|_0 = psi_*(dexp_u v)|_{psi(exp(u), y)}
  Rng rng(305);
  Worst w(tag<F>("|d/dt exp_act(u+tv, y) - X_{dexp_u v}(exp_act(u, y))| / |v|(1+|y|)"));
  for (double r : alg_norms(rng, 600)) {
    const Alg<F> u = random_alg<F>(rng, r), v = rng.normal_vec<F::alg_dim>();
    const State<F> y = random_state<F>(rng);
    const State<F> d = fd_derivative([&](double t) { return exp_act<F>(Alg<F>(u + t * v), y); }, 1e-2 / v.norm());
    const State<F> expected = generator<F>(dexp<F>(u, v), exp_act<F>(u, y));
    EXPECT_LE(w(max_abs_diff(d, expected) / (v.norm() * (1 + y.norm()))), 1e-12) << "|u| = " << r;
  }
}

template <class F>
void check_DexpinvInvertsDexp() {
  Rng rng(306);
  Worst w(tag<F>("|dexpinv_u(dexp_u v) - v|, |dexp_u(dexpinv_u v) - v| / |v|"));
  for (double r : alg_norms(rng, 1000)) {
    const Alg<F> u = random_alg<F>(rng, r), v = rng.normal_vec<F::alg_dim>();
    EXPECT_LE(w(max_abs_diff(dexpinv<F>(u, dexp<F>(u, v)), v) / v.norm()), 1e-14) << "|u| = " << r;
    EXPECT_LE(w(max_abs_diff(dexp<F>(u, dexpinv<F>(u, v)), v) / v.norm()), 1e-14) << "|u| = " << r;
  }
}

template <class F>
void check_DexpinvIsTheBernoulliSeriesOfTheBracket() {
  // [P] eq. (8) with the factor's own bracket: the exact dexpinv and the series agree to
  // round-off with 16 commutators at |u| = 0.25, and the truncation error with q commutators
  // decays like |u|^p, p = q+1 (q+2 when B_{q+1} = 0), measured by halving u.
  Rng rng(307);
  Worst full(tag<F>("|dexpinv - series(16)| / |v| at |u| = 0.25"));
  for (int i = 0; i < 500; ++i) {
    const Alg<F> u = random_alg<F>(rng, 0.25), v = rng.normal_vec<F::alg_dim>();
    EXPECT_LE(full(max_abs_diff(dexpinv<F>(u, v), dexpinv_series<F>(u, v, 16)) / v.norm()), 1e-15);
  }
  if (is_abelian<F>()) {
    const Alg<F> u = random_alg<F>(rng, 1.0), v = rng.normal_vec<F::alg_dim>();
    for (int q = 0; q <= 6; ++q) EXPECT_EQ(dexpinv_series<F>(u, v, q), dexpinv<F>(u, v));
    return;
  }
  Worst ord(tag<F>("|log2(err(u)/err(u/2)) - promised order|, q = 0..6"));
  for (int q = 0; q <= 6; ++q) {
    const int p = (q == 0 || (q + 1) % 2 == 0) ? q + 1 : q + 2;
    // |u| small enough that the next term of the series changes the ratio by < 3%; directions
    // whose truncation error at |u|/2 is not far above round-off (e.g. almost no rotation part
    // in a compound with central translations) are redrawn.
    const double r = q >= 4 ? 1.0 : (q >= 2 ? 0.6 : 0.3);
    for (int i = 0; i < 20; ++i) {
      Alg<F> dir, v;
      auto err = [&](double s) { return (dexpinv<F>(Alg<F>(s * dir), v) - dexpinv_series<F>(Alg<F>(s * dir), v, q)).norm(); };
      int tries = 0;
      do {
        dir = random_alg<F>(rng, 1.0);
        v = rng.normal_vec<F::alg_dim>();
      } while (err(r / 2) < 1e-11 * v.norm() && ++tries < 1000);
      ASSERT_LT(tries, 1000) << "q = " << q;
      const double order = std::log2(err(r) / err(r / 2));
      EXPECT_LE(ord(std::fabs(order - p)), 0.1) << "q = " << q << ", errors " << err(r) << " " << err(r / 2);
    }
  }
}

template <class F>
void check_ActionPreservesInvariantsAndTheManifold() {
  Rng rng(308);
  Worst inv(tag<F>("invariants (|q|, q.w, Casimirs, Q^T Q) change / scale")),
      man(tag<F>("distance from M after exp_act"));
  for (double r : alg_norms(rng, 700)) {
    const Alg<F> xi = random_alg<F>(rng, r);
    const State<F> y_amb = random_state<F>(rng, false), y = random_state<F>(rng, true);
    const std::vector<double> i0 = invariants<F>(y_amb), i1 = invariants<F>(exp_act<F>(xi, y_amb));
    const double scale = 1 + y_amb.squaredNorm();
    for (std::size_t k = 0; k < i0.size(); ++k) EXPECT_LE(inv(std::fabs(i1[k] - i0[k]) / scale), 2e-15) << "invariant " << k;
    EXPECT_LE(man(manifold_defect<F>(exp_act<F>(xi, y))), 8e-15);  // |E^T E - I| + |Q^T Q - I| + round-off
  }
}

template <class F>
void check_ProjectIsARetractionOntoTheManifold() {
  Rng rng(309);
  Worst fix(tag<F>("|project(y) - y| for y on M")), on(tag<F>("distance from M after project"));
  for (int i = 0; i < 1000; ++i) {
    const State<F> y = random_state<F>(rng, true);
    State<F> z = y;
    F::project(z.data());
    EXPECT_LE(fix(max_abs_diff(z, y) / (1 + y.norm())), 2e-15);
    State<F> p = y + 1e-6 * State<F>(rng.normal_vec<F::state_dim>());
    F::project(p.data());
    EXPECT_LE(on(manifold_defect<F>(p)), 2e-15);
    EXPECT_LE(max_abs_diff(p, y), 1e-5 * (1 + y.norm()));  // stays close
  }
}

}  // namespace

// One line of tests per factor (4 ctest cases each, to keep the process count low).
TYPED_TEST(GroupsFactor, ActionGeneratorAndExplicitGroupElements) {
  check_ExpActIsTheGroupActionOfExp<TypeParam>();
  check_GeneratorIsTheDerivativeOfTheAction<TypeParam>();
}
TYPED_TEST(GroupsFactor, BracketIsALieBracketAndTheOneOfTheActingGroup) {
  check_BracketIsAntisymmetricBilinearAndSatisfiesJacobi<TypeParam>();
  check_BracketIsTheBracketOfTheActingGroup<TypeParam>();
}
TYPED_TEST(GroupsFactor, DexpDexpinvAndTheBernoulliSeries) {
  check_DexpIsTheDerivativeOfExpThroughTheAction<TypeParam>();
  check_DexpinvInvertsDexp<TypeParam>();
  check_DexpinvIsTheBernoulliSeriesOfTheBracket<TypeParam>();
}
TYPED_TEST(GroupsFactor, InvariantsManifoldAndProjection) {
  check_ActionPreservesInvariantsAndTheManifold<TypeParam>();
  check_ProjectIsARetractionOntoTheManifold<TypeParam>();
}
