// The truncated Bernoulli series for dexpinv ([P] eq. (8), src/groups/bernoulli.hpp) on any
// Lie algebra given by its bracket: coefficient table against an independent evaluation, and
// the truncation order with q = 0..6 commutators measured against the exact dexpinv on
// so(3), se(3), the cotangent algebra of R^3 x SO(3), and gl(3) (matrix commutator; exact
// dexpinv = inverse of the long-double dexp matrix).
#include <array>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "groups/bernoulli.hpp"
#include "groups/se3.hpp"
#include "groups/tstar.hpp"
#include "groups_testing.hpp"

using namespace lie;
using namespace lie::testing;

namespace {

using LD = long double;

/// Order of the truncation error with q commutators: q+1, or q+2 when B_{q+1} = 0.
int promised_order(int q) { return (q == 0 || (q + 1) % 2 == 0) ? q + 1 : q + 2; }

/// An algebra for the test: dimension, bracket, exact dexpinv, name.
template <int Dim>
struct Algebra {
  using V = Eigen::Matrix<double, Dim, 1>;
  const char* name;
  std::function<V(const V&, const V&)> bracket;
  std::function<V(const V&, const V&)> exact_dexpinv;
  /// Unit directions for u (default: uniform); must keep the non-abelian part O(1).
  std::function<V(Rng&)> direction = [](Rng& rng) {
    const V d = rng.normal_vec<Dim>();
    return V(d / d.norm());
  };

  V series(const V& u, const V& v, int q) const {
    V out;
    dexpinv_series<Dim>(u.data(), v.data(), out.data(), q, [&](const double* a, const double* b, double* c) {
      Eigen::Map<V>{c} = bracket(Eigen::Map<const V>(a), Eigen::Map<const V>(b));
    });
    return out;
  }
  /// The leading neglected term B_p/p! ad_u^p v.
  V leading_term(const V& u, const V& v, int q) const {
    const int p = promised_order(q);
    V t = v;
    for (int k = 0; k < p; ++k) t = bracket(u, t);
    return kBernoulliOverFactorial[static_cast<std::size_t>(p)] * t;
  }
};

using Mat3L = Eigen::Matrix<LD, 3, 3>;
using Mat9L = Eigen::Matrix<LD, 9, 9>;
using V9 = Eigen::Matrix<double, 9, 1>;

Eigen::Matrix3d unvec(const V9& x) { return Eigen::Map<const Eigen::Matrix3d>(x.data()); }
V9 vec(const Eigen::Matrix3d& m) { return Eigen::Map<const V9>(m.data()); }

/// gl(3): exact dexpinv_u = (sum_k ad_u^k/(k+1)!)^-1 in long double, with the 9x9 matrix
/// of ad_u X = U X - X U in column-major vec form: I (x) U - U^T (x) I.
V9 gl3_dexpinv(const V9& u, const V9& v) {
  const Mat3L U = unvec(u).cast<LD>();
  Mat9L ad = Mat9L::Zero();
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) {
        ad(i + 3 * j, k + 3 * j) += U(i, k);  // (U X)_{ij} = U_ik X_kj
        ad(i + 3 * j, i + 3 * k) -= U(k, j);  // (X U)_{ij} = X_ik U_kj
      }
  Mat9L term = Mat9L::Identity(), dexp = Mat9L::Identity();
  for (int k = 1; k < 80 && term.cwiseAbs().maxCoeff() > 1e-24L; ++k) {
    term = term * ad / static_cast<LD>(k + 1);
    dexp += term;
  }
  const Eigen::Matrix<LD, 9, 1> r = dexp.partialPivLu().solve(v.cast<LD>());
  return r.cast<double>();
}

template <int Dim>
void check_orders(const Algebra<Dim>& alg, Rng& rng) {
  using V = typename Algebra<Dim>::V;
  Worst lead(std::string(alg.name) + ": |err(q) - leading term| / |leading term|, q = 0..6"),
      ord(std::string(alg.name) + ": |log2(err(u)/err(u/2)) - promised order|, q = 0..6");
  for (int q = 0; q <= 6; ++q) {
    const int p = promised_order(q);
    const double r = q >= 4 ? 1.0 : (q >= 2 ? 0.6 : 0.3);
    for (int i = 0; i < 30; ++i) {
      V dir, v;
      auto err = [&](double s) { return (alg.exact_dexpinv(V(s * dir), v) - alg.series(V(s * dir), v, q)).norm(); };
      int tries = 0;
      do {  // redraw the rare directions whose truncation error is near round-off
        dir = alg.direction(rng);
        v = rng.normal_vec<Dim>();
      } while (err(r / 2) < 1e-11 * v.norm() && ++tries < 1000);
      ASSERT_LT(tries, 1000) << alg.name << " q = " << q;
      const double e1 = err(r), e2 = err(r / 2);
      EXPECT_LE(ord(std::fabs(std::log2(e1 / e2) - p)), 0.1) << alg.name << " q = " << q << ", errors " << e1 << " " << e2;
      // and the error is the first neglected term of the series
      const V r_dir = (r / 2) * dir;
      const double t = alg.leading_term(r_dir, v, q).norm();
      EXPECT_LE(lead(std::fabs(e2 - t) / t), 0.05) << alg.name << " q = " << q;
    }
  }
  Worst full(std::string(alg.name) + ": |exact - series(16)| / |v| at |u| = 0.5");
  for (int i = 0; i < 200; ++i) {
    V u = rng.normal_vec<Dim>();
    u *= 0.5 / u.norm();
    const V v = rng.normal_vec<Dim>();
    EXPECT_LE(full((alg.exact_dexpinv(u, v) - alg.series(u, v, kMaxDexpinvTerms)).norm() / v.norm()), 1e-15);
  }
}

}  // namespace

TEST(GroupsBernoulli, CoefficientTableMatchesZetaValues) {
  // B_2j/(2j)! = (-1)^(j+1) 2 zeta(2j)/(2 pi)^(2j), B_0 = 1, B_1 = -1/2, B_odd = 0
  const LD pi = std::acos(-1.0L);
  EXPECT_EQ(kBernoulliOverFactorial[0], 1.0);
  EXPECT_EQ(kBernoulliOverFactorial[1], -0.5);
  for (int k = 3; k <= kMaxDexpinvTerms; k += 2) EXPECT_EQ(kBernoulliOverFactorial[static_cast<std::size_t>(k)], 0.0);
  for (int k = 2; k <= kMaxDexpinvTerms; k += 2) {
    LD zeta = 0;
    for (int n = 2000; n >= 1; --n) zeta += std::pow(static_cast<LD>(n), static_cast<LD>(-k));
    if (k == 2) zeta = pi * pi / 6;
    if (k == 4) zeta = pi * pi * pi * pi / 90;  // the direct sum converges too slowly for k <= 4
    const LD ref = ((k / 2) % 2 ? 2 : -2) * zeta / std::pow(2 * pi, static_cast<LD>(k));
    EXPECT_LE(std::fabs((kBernoulliOverFactorial[static_cast<std::size_t>(k)] - ref) / ref), 2e-16L) << "k = " << k;
  }
}

TEST(GroupsBernoulli, RejectsTermCountsOutsideTheTable) {
  const double u[3] = {0.1, 0.2, 0.3}, v[3] = {1, 2, 3};
  double out[3];
  auto br = [](const double* a, const double* b, double* c) { Eigen::Map<Vec3>{c} = Eigen::Map<const Vec3>(a).cross(Eigen::Map<const Vec3>(b)); };
  EXPECT_THROW(dexpinv_series<3>(u, v, out, -1, br), std::invalid_argument);
  EXPECT_THROW(dexpinv_series<3>(u, v, out, kMaxDexpinvTerms + 1, br), std::invalid_argument);
  dexpinv_series<3>(u, v, out, 0, br);
  EXPECT_EQ(Eigen::Map<const Vec3>(out), Eigen::Map<const Vec3>(v));  // q = 0: identity
}

TEST(GroupsBernoulli, TruncationOrderOnSo3) {
  Rng rng(501);
  check_orders(Algebra<3>{"so(3)", [](const Vec3& a, const Vec3& b) { return so3::bracket(a, b); },
                          [](const Vec3& u, const Vec3& v) { return so3::dexpinv(u, v); }},
               rng);
}

TEST(GroupsBernoulli, TruncationOrderOnSe3) {
  Rng rng(502);
  check_orders(Algebra<6>{"se(3)", [](const Vec6& a, const Vec6& b) { return se3::bracket(a, b); },
                          [](const Vec6& u, const Vec6& v) { return se3::dexpinv(u, v); }},
               rng);
}

TEST(GroupsBernoulli, TruncationOrderOnTheCotangentAlgebraOfR3xSO3) {
  Rng rng(503);
  using T = tstar::TstarR3xSO3Right;
  Algebra<12> alg{"T*(R3xSO3) algebra", [](const T::Alg& a, const T::Alg& b) { return T::bracket(a, b); },
                  [](const T::Alg& u, const T::Alg& v) { return T::dexpinv(u, v); }};
  // (dq, xi, dp, alpha): dq and dp are central, so keep |xi| ~ |u|
  alg.direction = [](Rng& r) {
    T::Alg d = 0.3 * r.normal_vec<12>();
    d.segment<3>(3) = r.unit3();
    return T::Alg(d / d.norm());
  };
  check_orders(alg, rng);
}

TEST(GroupsBernoulli, TruncationOrderOnGl3) {
  Rng rng(504);
  check_orders(Algebra<9>{"gl(3)",
                          [](const V9& a, const V9& b) {
                            const Eigen::Matrix3d A = unvec(a), B = unvec(b);
                            return vec(A * B - B * A);
                          },
                          gl3_dexpinv},
               rng);
}
