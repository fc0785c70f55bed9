// SE(3) / se(3) kernels (src/groups/se3.hpp) against independent computations: 4x4 matrix
// products and long-double matrix exponentials, the 6x6 matrix functions of ad (the [P] 2.3
// closed form must equal them), finite differences, duality pairings, Casimirs.
#include <unsupported/Eigen/MatrixFunctions>

#include <cmath>

#include "groups/se3.hpp"
#include "groups_testing.hpp"

using namespace lie;
using namespace lie::testing;

namespace {

using LD = long double;
using Mat4 = Eigen::Matrix4d;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using Mat6L = Eigen::Matrix<LD, 6, 6>;

se3::Element random_element(Rng& rng, double angle) {
  return {so3::exp(angle * rng.unit3()), rng.normal_vec<3>()};
}
Vec6 random_alg(Rng& rng, double angle) { return se3::make(angle * rng.unit3(), rng.normal_vec<3>()); }

double dist(const se3::Element& g, const se3::Element& h) {
  return std::max(max_abs_diff(g.R, h.R), max_abs_diff(g.r, h.r));
}

/// The 6x6 matrix of ad_x on (B, b):  [[A^, 0], [a^, A^]].
Mat6 ad_matrix(const Vec6& x) {
  Mat6 m = Mat6::Zero();
  m.topLeftCorner<3, 3>() = so3::hat(se3::rot(x));
  m.bottomRightCorner<3, 3>() = so3::hat(se3::rot(x));
  m.bottomLeftCorner<3, 3>() = so3::hat(se3::trans(x));
  return m;
}
/// dexp_x = sum_k ad_x^k/(k+1)! in long double (an entire series: converges for every x).
Mat6L dexp_reference(const Vec6& x) {
  const Mat6L M = ad_matrix(x).cast<LD>();
  Mat6L term = Mat6L::Identity(), sum = Mat6L::Identity();
  for (int k = 1; k < 200; ++k) {
    term = term * M / static_cast<LD>(k + 1);
    sum += term;
    if (term.cwiseAbs().maxCoeff() < 1e-30L) break;
  }
  return sum;
}

}  // namespace

TEST(GroupsSE3, GroupAxiomsAndMatrixRepresentation) {
  Rng rng(201);
  Worst hom("se3 |M(gh) - M(g)M(h)|"), inv("se3 |g g^-1 - e|"), assoc("se3 |(gh)k - g(hk)|");
  for (int i = 0; i < 3000; ++i) {
    const se3::Element g = random_element(rng, rng.uniform(0, kPi)), h = random_element(rng, rng.uniform(0, kPi)),
                       k = random_element(rng, rng.uniform(0, kPi));
    EXPECT_LE(hom(max_abs_diff(se3::matrix(se3::compose(g, h)), se3::matrix(g) * se3::matrix(h))), 1e-14);
    EXPECT_LE(inv(dist(se3::compose(g, se3::inverse(g)), se3::identity())), 1e-14);
    EXPECT_LE(inv(dist(se3::compose(se3::inverse(g), g), se3::identity())), 1e-14);
    EXPECT_LE(assoc(dist(se3::compose(se3::compose(g, h), k), se3::compose(g, se3::compose(h, k)))), 1e-14);
    EXPECT_EQ(dist(se3::compose(g, se3::identity()), g), 0.0);
    EXPECT_LE(max_abs_diff(se3::matrix(se3::inverse(g)), se3::matrix(g).inverse()), 1e-14);
  }
}

TEST(GroupsSE3, BracketIsTheMatrixCommutator) {
  Rng rng(202);
  Worst comm("se3 |hat[x,y] - (hat x hat y - hat y hat x)|"), jac("se3 Jacobi |[x,[y,z]] + cyc|");
  for (int i = 0; i < 3000; ++i) {
    const Vec6 x = rng.normal_vec<6>(), y = rng.normal_vec<6>(), z = rng.normal_vec<6>();
    ASSERT_EQ(se3::vee(se3::hat(x)), x);
    const Mat4 X = se3::hat(x), Y = se3::hat(y);
    EXPECT_LE(comm(max_abs_diff(se3::hat(se3::bracket(x, y)), X * Y - Y * X)), 1e-14);
    EXPECT_EQ(se3::bracket(x, y), -se3::bracket(y, x));
    EXPECT_LE(jac((se3::bracket(x, se3::bracket(y, z)) + se3::bracket(y, se3::bracket(z, x)) +
                   se3::bracket(z, se3::bracket(x, y)))
                      .norm()),
              1e-13);
    EXPECT_LE(max_abs_diff(ad_matrix(x) * y, se3::bracket(x, y)), 1e-14);
  }
}

TEST(GroupsSE3, ExpMatchesMatrixExponentialIncludingNear2Pi) {
  Rng rng(203);
  std::vector<double> angles = angle_samples(rng, 400);
  for (double a : angle_samples_near_2pi(rng, 200)) angles.push_back(a);
  for (int i = 0; i < 200; ++i) angles.push_back(rng.uniform(kPi, 12.0));
  Worst w("se3 |M(exp x) - expm(hat x)| / (1 + |a|) (long double expm)");
  for (double a : angles) {
    const Vec6 x = random_alg(rng, a);
    const Eigen::Matrix<LD, 4, 4> ref = se3::hat(x).cast<LD>().exp();
    const double err = static_cast<double>((se3::matrix(se3::exp(x)).cast<LD>() - ref).cwiseAbs().maxCoeff());
    EXPECT_LE(w(err / (1 + se3::trans(x).norm())), 4e-15 * std::max(1.0, a / kPi)) << "angle " << a;
  }
}

TEST(GroupsSE3, LogInvertsExp) {
  Rng rng(204);
  Worst le("se3 |log(exp x) - x| / (1 + |x|), |A| < pi"), el("se3 |exp(log g) - g|");
  for (double a : angle_samples(rng, 1000)) {
    if (a >= kPi) continue;
    const Vec6 x = random_alg(rng, a);
    EXPECT_LE(le(max_abs_diff(se3::log(se3::exp(x)), x) / (1 + x.norm())), 4e-15) << "angle " << a;
  }
  for (int i = 0; i < 3000; ++i) {
    const double a = i % 3 == 0 ? rng.log_uniform(1e-9, 1e-2) : (i % 3 == 1 ? kPi - rng.log_uniform(1e-9, 1e-2) : rng.uniform(0, kPi));
    const se3::Element g{Eigen::AngleAxisd(a, rng.unit3()).toRotationMatrix(), rng.normal_vec<3>()};
    EXPECT_LE(el(dist(se3::exp(se3::log(g)), g) / (1 + g.r.norm())), 4e-15) << "angle " << a;
  }
}

TEST(GroupsSE3, AdjointIsTheDerivativeOfConjugation) {
  Rng rng(205);
  Worst conj("se3 |Ad_g x - d/dt log(g exp(tx) g^-1)| / |x| (FD)"), mat("se3 |hat(Ad_g x) - M(g) hat(x) M(g)^-1|"),
      dad("se3 |d/dt Ad_exp(tx) y - [x, y]| (FD)"), hom("se3 |Ad_gh - Ad_g Ad_h|, |Ad_g[x,y] - [Ad_g x, Ad_g y]|");
  for (int i = 0; i < 3000; ++i) {
    const se3::Element g = random_element(rng, rng.uniform(0, kPi)), h = random_element(rng, rng.uniform(0, kPi));
    const Vec6 x = random_alg(rng, rng.uniform(0, 2.0)), y = rng.normal_vec<6>();
    const Vec6 Adx = se3::Ad(g, x);
    EXPECT_LE(mat(max_abs_diff(se3::hat(Adx), se3::matrix(g) * se3::hat(x) * se3::matrix(g).inverse())), 1e-13);
    const double hx = 1e-2 / (1 + x.norm());
    const Vec6 d = fd_derivative([&](double t) { return se3::log(se3::compose(g, se3::compose(se3::exp(t * x), se3::inverse(g)))); }, hx);
    EXPECT_LE(conj(max_abs_diff(d, Adx) / x.norm()), 1e-11);
    const Vec6 dd = fd_derivative([&](double t) { return se3::Ad(se3::exp(t * x), y); }, hx);
    EXPECT_LE(dad(max_abs_diff(dd, se3::bracket(x, y)) / (x.norm() * y.norm())), 1e-11);
    EXPECT_LE(hom(max_abs_diff(se3::Ad(se3::compose(g, h), y), se3::Ad(g, se3::Ad(h, y)))), 1e-13);
    EXPECT_LE(hom(max_abs_diff(se3::Ad(g, se3::bracket(x, y)), se3::bracket(se3::Ad(g, x), se3::Ad(g, y)))), 1e-12);
  }
}

TEST(GroupsSE3, DexpIsTheDerivativeOfExpIncludingNear2Pi) {
  // d/dt exp(x + t y)|_0 = hat(dexp_x y) exp(x) as 4x4 matrices (right-trivialised derivative)
  Rng rng(206);
  std::vector<double> angles = angle_samples(rng, 300);
  for (double a : angle_samples_near_2pi(rng, 100)) angles.push_back(a);
  Worst w("se3 |dexp_x y - FD d/dt exp(x+ty) exp(x)^-1| / |y|");
  using Flat = Eigen::Matrix<double, 16, 1>;
  for (double a : angles) {
    const Vec6 x = random_alg(rng, a), y = rng.normal_vec<6>();
    const double h = 1e-2 / (1 + y.norm());
    const Flat D = fd_derivative([&](double t) { const Mat4 E = se3::matrix(se3::exp(x + t * y)); return Flat(Eigen::Map<const Flat>(E.data())); }, h);
    const Mat4 DR = Eigen::Map<const Mat4>(D.data()) * se3::matrix(se3::exp(x)).inverse();
    EXPECT_LE(w(max_abs_diff(se3::vee(DR), se3::dexp(x, y)) / y.norm()), 1e-11) << "angle " << a;
    EXPECT_LE(std::fabs(DR.row(3).norm()), 1e-12);
  }
}

TEST(GroupsSE3, PhiOfAdClosedFormEqualsTheMatrixFunction) {
  // [P] 2.3: phi(ad_x) by the closed form (g1, g1~, g2, g2~) vs the 6x6 matrix series in long
  // double, for phi(z) = (e^z - 1)/z (all angles, also near and beyond 2 pi) and
  // phi(z) = z/(e^z - 1) (angles < 2 pi - 0.05, reference = inverse of the long-double dexp
  // matrix, tolerance scaled by its condition number).
  Rng rng(207);
  std::vector<double> angles = angle_samples(rng, 400);
  for (double a : angle_samples_near_2pi(rng, 100)) angles.push_back(a);
  Worst wd("se3 |dexp_x - sum ad^k/(k+1)!| / (1 + |x|^2) (long double)"), wi("se3 |dexpinv_x - dexp_x^-1| / cond (long double)");
  for (double a : angles) {
    const Vec6 x = random_alg(rng, a);
    const Mat6L ref = dexp_reference(x);
    Mat6 D, Di;
    for (int j = 0; j < 6; ++j) {
      D.col(j) = se3::dexp(x, Vec6::Unit(j));
      Di.col(j) = se3::dexpinv(x, Vec6::Unit(j));
    }
    const double scale = 1 + x.squaredNorm();
    EXPECT_LE(wd(static_cast<double>((D.cast<LD>() - ref).cwiseAbs().maxCoeff()) / scale), 2e-15) << "angle " << a;
    if (a < 2 * kPi - 0.05) {  // closer to the pole of dexpinv the reference itself is ill-conditioned
      const Mat6L refinv = ref.partialPivLu().inverse();
      const double cond = static_cast<double>(ref.cwiseAbs().maxCoeff() * refinv.cwiseAbs().maxCoeff());
      EXPECT_LE(wi(static_cast<double>((Di.cast<LD>() - refinv).cwiseAbs().maxCoeff()) / (scale * cond)), 2e-15)
          << "angle " << a;
    }
  }
}

TEST(GroupsSE3, DexpinvInvertsDexp) {
  Rng rng(208);
  Worst inv("se3 |dexpinv_x(dexp_x y) - y| / |y|, |A| <= pi"), inv2("se3 |dexp_x(dexpinv_x y) - y| / |y|, |A| <= pi"),
      near2pi("se3 |dexpinv(dexp y) - y| / (eps cond |y|), |A| -> 2pi"),
      sw("se3 |dexpinv| jump across the series switch |A| = 2.5");
  for (double a : angle_samples(rng, 1000)) {
    const Vec6 x = random_alg(rng, a), y = rng.normal_vec<6>();
    EXPECT_LE(inv(max_abs_diff(se3::dexpinv(x, se3::dexp(x, y)), y) / y.norm()), 1e-14) << "angle " << a;
    EXPECT_LE(inv2(max_abs_diff(se3::dexp(x, se3::dexpinv(x, y)), y) / y.norm()), 1e-14) << "angle " << a;
  }
  for (int i = 0; i < 1000; ++i) {
    const double a = 2 * kPi - rng.log_uniform(1e-8, 1e-1);
    const Vec6 x = random_alg(rng, a), y = rng.normal_vec<6>();
    const double g2 = so3::detail::dexpinv_g2(a);
    const double cond = (1 + g2 * a * a) * (1 + g2 * a * a);  // the translation block carries the square
    EXPECT_LE(near2pi(max_abs_diff(se3::dexpinv(x, se3::dexp(x, y)), y) / (2.2e-16 * cond * y.norm())), 20.0)
        << "angle " << a;
  }
  // both branches of every coefficient meet at the switch: compare x at |A| = T- and T+
  const double T = so3::detail::kSeriesThreshold;
  for (int i = 0; i < 1000; ++i) {
    const Vec3 n = rng.unit3(), a = rng.normal_vec<3>();
    const Vec6 y = rng.normal_vec<6>();
    const Vec6 lo = se3::make(std::nextafter(T, 0.0) * n, a), hi = se3::make(T * n, a);
    const double scale = y.norm() * (1 + a.norm()) * (1 + a.norm());
    EXPECT_LE(sw(max_abs_diff(se3::dexpinv(lo, y), se3::dexpinv(hi, y)) / scale), 4e-15);
    EXPECT_LE(max_abs_diff(se3::dexp(lo, y), se3::dexp(hi, y)) / scale, 4e-15);
  }
}

TEST(GroupsSE3, CoadjointOperatorsAndCasimirs) {
  // [P] 3.4.2: Ad*_(g,u)(Pi, G) = (g^T(Pi - u x G), g^T G),  ad*_(x,u)(Pi, G) = (-x x Pi - u x G, -x x G)
  Rng rng(209);
  Worst pAd("se3 |<Ad*_g mu, x> - <mu, Ad_g x>|"), pad("se3 |<ad*_x mu, y> - <mu, [x, y]>|"),
      dAd("se3 |d/dt Ad*_exp(tx) mu - ad*_x mu| / |x||mu| (FD)"), cas("se3 Casimirs |G|, Pi.G under Ad*_{g^-1} (rel)");
  for (int i = 0; i < 3000; ++i) {
    const se3::Element g = random_element(rng, rng.uniform(0, kPi)), h = random_element(rng, rng.uniform(0, kPi));
    const Vec6 x = random_alg(rng, rng.uniform(0, 2.0)), y = rng.normal_vec<6>(), mu = rng.normal_vec<6>();
    EXPECT_LE(pAd(std::fabs(se3::Ad_star(g, mu).dot(x) - mu.dot(se3::Ad(g, x)))), 1e-13);
    EXPECT_LE(pad(std::fabs(se3::ad_star(x, mu).dot(y) - mu.dot(se3::bracket(x, y)))), 1e-13);
    EXPECT_LE(max_abs_diff(se3::Ad_star(se3::compose(g, h), mu), se3::Ad_star(h, se3::Ad_star(g, mu))), 1e-13);
    const double hx = 1e-2 / (1 + x.norm());
    EXPECT_LE(dAd(max_abs_diff(fd_derivative([&](double t) { return se3::Ad_star(se3::exp(t * x), mu); }, hx), se3::ad_star(x, mu)) /
                  (x.norm() * mu.norm())),
              1e-11);
    // the coadjoint action g . mu = Ad*_{g^-1} mu preserves |G| and Pi . G
    const Vec6 m = se3::Ad_star(se3::inverse(g), mu);
    const double G0 = se3::trans(mu).norm(), C0 = se3::rot(mu).dot(se3::trans(mu));
    EXPECT_LE(cas(std::fabs(se3::trans(m).norm() - G0) / G0), 1e-14);
    EXPECT_LE(cas(std::fabs(se3::rot(m).dot(se3::trans(m)) - C0) / (mu.squaredNorm() * (1 + g.r.norm()))), 1e-14);
    // infinitesimally: ad*_x mu is tangent to the orbit (derivatives of both Casimirs vanish)
    const Vec6 v = se3::ad_star(x, mu);
    EXPECT_LE(std::fabs(se3::trans(v).dot(se3::trans(mu))), 1e-13 * x.norm() * mu.squaredNorm());
    EXPECT_LE(std::fabs(se3::rot(v).dot(se3::trans(mu)) + se3::rot(mu).dot(se3::trans(v))), 1e-13 * x.norm() * mu.squaredNorm());
  }
}
