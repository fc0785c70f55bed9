// SO(3) / so(3) kernels (src/groups/so3.hpp): every formula checked against an independent
// computation (long-double references, Eigen's matrix exponential and AngleAxis, finite
// differences, duality pairings) on thousands of random inputs near 0, near pi, around the
// series/closed-form switch and (exp, dexp) near 2 pi.
#include <unsupported/Eigen/MatrixFunctions>

#include <array>
#include <cmath>
#include <functional>

#include "groups/so3.hpp"
#include "groups_testing.hpp"

using namespace lie;
using namespace lie::testing;
namespace d = lie::so3::detail;

namespace {

using LD = long double;

/// zeta(2k) in long double (exact for k = 1, 2; direct sum otherwise).
LD zeta_even(int k) {
  const LD pi = std::acos(-1.0L);
  if (k == 1) return pi * pi / 6;
  if (k == 2) return pi * pi * pi * pi / 90;
  LD s = 0;
  for (int n = 4000; n >= 1; --n) s += std::pow(static_cast<LD>(n), static_cast<LD>(-2 * k));
  return s;
}
/// (-1)^(k+1) B_2k / (2k)! = 2 zeta(2k) / (2 pi)^(2k): an independent route to the
/// coefficients of the cot series (the code uses exact rationals).
LD cot_coeff(int k) {
  static const std::array<LD, 41> c = [] {
    std::array<LD, 41> a{};
    for (int j = 1; j <= 40; ++j) a[j] = 2 * zeta_even(j) / std::pow(2 * std::acos(-1.0L), static_cast<LD>(2 * j));
    return a;
  }();
  return c[static_cast<std::size_t>(k)];
}

// Long-double references: series below 1.5 (independent coefficients), closed forms above
// (different formulas or precision from the code, whose switch is at 2.5).
LD ref_t_minus_sin_over_t3(LD t) {
  if (t < 1.5L) {
    LD s = 0, term = 1.0L / 6;  // (-1)^k t^2k/(2k+3)!
    for (int k = 0; k < 30; ++k) {
      s += term;
      term *= -t * t / ((2 * k + 4) * (2 * k + 5));
    }
    return s;
  }
  return (t - std::sin(t)) / (t * t * t);
}
LD ref_one_minus_cos_over_t2(LD t) {
  if (t < 1.5L) {
    LD s = 0, term = 0.5L;  // (-1)^k t^2k/(2k+2)!
    for (int k = 0; k < 30; ++k) {
      s += term;
      term *= -t * t / ((2 * k + 3) * (2 * k + 4));
    }
    return s;
  }
  return (1 - std::cos(t)) / (t * t);
}
LD ref_dexpinv_g2(LD t) {
  if (t < 1.5L) {
    LD s = 0;
    for (int k = 40; k >= 1; --k) s = s * t * t + cot_coeff(k);
    return s;
  }
  const LD x = t / 2;
  return (1 - x * std::cos(x) / std::sin(x)) / (t * t);
}
LD ref_dexpinv_g2_tilde(LD t) {
  if (t < 1.5L) {
    LD s = 0;
    for (int k = 40; k >= 2; --k) s = s * t * t + cot_coeff(k) * (2 * k - 2);
    return s;
  }
  // direct differentiation: g2' / t = (x cot x + x^2/sin^2 x - 2) / (16 x^4),  x = t/2
  const LD x = t / 2, sx = std::sin(x);
  return (x * std::cos(x) / sx + x * x / (sx * sx) - 2) / (16 * x * x * x * x);
}
LD ref_dexp_g1_tilde(LD t) {
  if (t < 1.5L) {  // sum_{k>=1} (-1)^k 2k t^(2k-2)/(2k+2)!
    LD s = 0, fact = 24;  // (2k+2)! for k = 1
    LD pw = 1;
    for (int k = 1; k < 30; ++k) {
      s += ((k % 2) ? -1 : 1) * 2 * k * pw / fact;
      pw *= t * t;
      fact *= (2 * k + 3) * (2 * k + 4);
    }
    return s;
  }
  return (std::sin(t) / t - 2 * ref_one_minus_cos_over_t2(t)) / (t * t);
}
LD ref_dexp_g2_tilde(LD t) {
  if (t < 1.5L) {  // sum_{k>=1} (-1)^k 2k t^(2k-2)/(2k+3)!
    LD s = 0, fact = 120, pw = 1;
    for (int k = 1; k < 30; ++k) {
      s += ((k % 2) ? -1 : 1) * 2 * k * pw / fact;
      pw *= t * t;
      fact *= (2 * k + 4) * (2 * k + 5);
    }
    return s;
  }
  return (ref_one_minus_cos_over_t2(t) - 3 * ref_t_minus_sin_over_t3(t)) / (t * t);
}

Eigen::Matrix<LD, 3, 3> to_ld(const Mat3& m) { return m.cast<LD>(); }

}  // namespace

TEST(GroupsSO3, HatVeeBracketAntisymmetryJacobi) {
  Rng rng(101);
  Worst hat_err("so3 |hat(u) v - u x v|"), comm_err("so3 |hat(u x v) - [hat u, hat v]|"),
      jac_err("so3 Jacobi |[u,[v,w]] + cyc| / |u||v||w|");
  for (int i = 0; i < 3000; ++i) {
    const Vec3 u = rng.normal_vec<3>(), v = rng.normal_vec<3>(), w = rng.normal_vec<3>();
    ASSERT_EQ(so3::vee(so3::hat(u)), u);
    const Mat3 noise = rng.matrix3();
    // vee keeps the skew part: a symmetric perturbation cancels up to the rounding of the sums
    EXPECT_LE(max_abs_diff(so3::vee(so3::hat(u) + noise + noise.transpose()), u), 4e-16 * (u.norm() + 2 * noise.norm()));
    EXPECT_LE(hat_err(max_abs_diff(so3::hat(u) * v, u.cross(v))), 1e-15 * u.norm() * v.norm());
    const Mat3 U = so3::hat(u), V = so3::hat(v);
    EXPECT_LE(comm_err(max_abs_diff(so3::hat(so3::bracket(u, v)), U * V - V * U)), 1e-15 * u.norm() * v.norm());
    EXPECT_EQ(so3::bracket(u, v), -so3::bracket(v, u));
    const Vec3 jac = so3::bracket(u, so3::bracket(v, w)) + so3::bracket(v, so3::bracket(w, u)) +
                     so3::bracket(w, so3::bracket(u, v));
    EXPECT_LE(jac_err(jac.norm() / (u.norm() * v.norm() * w.norm())), 1e-15);
  }
}

TEST(GroupsSO3, ScalarCoefficientsMatchLongDoubleReference) {
  // Every scalar function on a dense grid of (0, 2 pi - 0.01] plus the near-0 / near-pi /
  // switch samples, in relative error against the long-double references above.
  Rng rng(102);
  std::vector<double> ts = angle_samples(rng, 300);
  for (int i = 1; i <= 4000; ++i) ts.push_back((2 * kPi - 0.01) * i / 4000.0);
  for (double t : {1e-300, 1e-20, 1e-10, 1e-5}) ts.push_back(t);
  struct Fn {
    const char* name;
    std::function<double(double)> f;
    std::function<LD(LD)> ref;
    double tol;
  };
  const std::array<Fn, 7> fns = {{
      {"sinc", d::sinc, [](LD t) { return t == 0 ? 1.0L : std::sin(t) / t; }, 4e-16},
      {"(1-cos t)/t^2", d::one_minus_cos_over_t2, ref_one_minus_cos_over_t2, 6e-16},
      {"(t-sin t)/t^3", d::t_minus_sin_over_t3, ref_t_minus_sin_over_t3, 1e-15},
      {"dexpinv g2", d::dexpinv_g2, ref_dexpinv_g2, 2e-15},
      {"dexpinv g2~", d::dexpinv_g2_tilde, ref_dexpinv_g2_tilde, 5e-15},
      {"dexp g1~", d::dexp_g1_tilde, ref_dexp_g1_tilde, 4e-15},
      {"dexp g2~", d::dexp_g2_tilde, ref_dexp_g2_tilde, 5e-15},
  }};
  for (const Fn& fn : fns) {
    Worst worst(std::string("so3 coefficient ") + fn.name + " rel err on [0, 2pi)");
    for (double t : ts) {
      if (t == 0.0) continue;
      const LD r = fn.ref(static_cast<LD>(t));
      const double err = worst(static_cast<double>(std::fabs((static_cast<LD>(fn.f(t)) - r) / r)));
      EXPECT_LE(err, fn.tol) << fn.name << " at t = " << t;
    }
    // t = 0 gives the series' constant term exactly
    EXPECT_NEAR(fn.f(0.0), static_cast<double>(fn.ref(1e-30L)), 1e-17) << fn.name;
  }
}

TEST(GroupsSO3, ExpIsRodriguesAndMatchesMatrixExponential) {
  Rng rng(103);
  std::vector<double> angles = angle_samples(rng, 400);
  for (double a : angle_samples_near_2pi(rng, 100)) angles.push_back(a);
  for (int i = 0; i < 200; ++i) angles.push_back(rng.uniform(kPi, 20.0));
  Worst mexp("so3 |exp(v) - expm(hat v)| (long double expm)"), aa("so3 |exp(v) - AngleAxis(v)|"),
      orth("so3 |exp(v)^T exp(v) - I|"), app("so3 |exp_apply(v, w) - exp(v) w|");
  for (double a : angles) {
    const Vec3 n = rng.unit3(), v = a * n;
    const Mat3 R = so3::exp(v);
    const Eigen::Matrix<LD, 3, 3> ref = to_ld(so3::hat(v)).exp();
    EXPECT_LE(mexp(static_cast<double>((to_ld(R) - ref).cwiseAbs().maxCoeff())), 2e-15 * std::max(1.0, a / kPi));
    EXPECT_LE(aa(max_abs_diff(R, Eigen::AngleAxisd(a, n).toRotationMatrix())), 4e-15 * std::max(1.0, a / kPi));
    EXPECT_LE(orth(so3::orthogonality_error(R)), 5e-15 * std::max(1.0, a / kPi)) << "angle " << a;
    EXPECT_NEAR(R.determinant(), 1.0, 5e-15 * std::max(1.0, a / kPi));  // det - 1 ~ tr(R^T R - I)/2
    const Vec3 w = rng.normal_vec<3>();
    EXPECT_LE(app(max_abs_diff(so3::exp_apply(v, w), R * w)), 2e-15 * w.norm());
    EXPECT_LE(max_abs_diff(R * v, v), 2e-15 * (1 + a));  // the axis is fixed
  }
}

TEST(GroupsSO3, LogInvertsExpNearZeroAndNearPi) {
  Rng rng(104);
  Worst le("so3 |log(exp(v)) - v|, |v| < pi"), el("so3 |exp(log(R)) - R|"), pi_err("so3 | |log R| - pi | at angle pi");
  for (double a : angle_samples(rng, 1000, /*include_pi=*/true)) {
    if (a >= kPi) continue;
    const Vec3 v = a * rng.unit3();
    EXPECT_LE(le(max_abs_diff(so3::log(so3::exp(v)), v)), 4e-15) << "angle " << a;
  }
  // rotations built independently of so3::exp (Eigen AngleAxis)
  for (int i = 0; i < 3000; ++i) {
    const double a = i % 3 == 0 ? rng.log_uniform(1e-9, 1e-2) : (i % 3 == 1 ? kPi - rng.log_uniform(1e-9, 1e-2) : rng.uniform(0, kPi));
    const Mat3 R = Eigen::AngleAxisd(a, rng.unit3()).toRotationMatrix();
    const Vec3 v = so3::log(R);
    EXPECT_LE(v.norm(), kPi + 1e-15);
    EXPECT_LE(el(max_abs_diff(so3::exp(v), R)), 3e-15) << "angle " << a;
  }
  // exactly pi: both +-pi n are logarithms; exp must give R back
  for (int i = 0; i < 200; ++i) {
    const Mat3 R = Eigen::AngleAxisd(kPi, rng.unit3()).toRotationMatrix();
    const Vec3 v = so3::log(R);
    EXPECT_LE(pi_err(std::fabs(v.norm() - kPi)), 1e-15);
    EXPECT_LE(el(max_abs_diff(so3::exp(v), R)), 3e-15);
  }
}

TEST(GroupsSO3, DexpIsTheDerivativeOfExp) {
  // d/dt exp(u + t v)|_0 = hat(dexp_u v) exp(u)   (right-trivialised derivative, [P] eq. (7))
  Rng rng(105);
  std::vector<double> angles = angle_samples(rng, 300);
  for (double a : angle_samples_near_2pi(rng, 50)) angles.push_back(a);
  Worst fd("so3 |dexp_u v - FD d/dt exp(u+tv) exp(u)^T|"), mat("so3 |dexp(u) v - dexp(u, v)|");
  for (double a : angles) {
    const Vec3 u = a * rng.unit3(), v = rng.unit3();
    using Flat = Eigen::Matrix<double, 9, 1>;
    auto f = [&](double t) {
      const Mat3 E = so3::exp(u + t * v);
      return Flat(Eigen::Map<const Flat>(E.data()));
    };
    const Flat D = fd_derivative(f, 1e-2);
    const Mat3 DR = Eigen::Map<const Mat3>(D.data()) * so3::exp(u).transpose();
    EXPECT_LE(max_abs_diff(DR, -DR.transpose()), 1e-12);  // skew
    EXPECT_LE(fd(max_abs_diff(so3::vee(DR), so3::dexp(u, v))), 1e-12) << "angle " << a;
    EXPECT_LE(mat(max_abs_diff(so3::dexp(u) * v, so3::dexp(u, v))), 2e-15);
  }
}

TEST(GroupsSO3, DexpinvInvertsDexp) {
  Rng rng(106);
  Worst inv("so3 |dexpinv_u(dexp_u v) - v|, |u| <= pi"), inv2("so3 |dexp_u(dexpinv_u v) - v|, |u| <= pi"),
      near2pi("so3 |dexpinv(dexp v) - v| / (eps cond), |u| -> 2pi"), mat("so3 |dexpinv(u) dexp(u) - I|");
  for (double a : angle_samples(rng, 1000)) {
    const Vec3 u = a * rng.unit3(), v = rng.unit3();
    EXPECT_LE(inv(max_abs_diff(so3::dexpinv(u, so3::dexp(u, v)), v)), 1e-14) << "angle " << a;
    EXPECT_LE(inv2(max_abs_diff(so3::dexp(u, so3::dexpinv(u, v)), v)), 1e-14) << "angle " << a;
    EXPECT_LE(mat(max_abs_diff(so3::dexpinv(u) * so3::dexp(u), Mat3::Identity())), 1e-14);
    EXPECT_LE(max_abs_diff(so3::dexpinv(u) * v, so3::dexpinv(u, v)), 1e-14 * (1 + a * a));
  }
  // Near 2 pi dexp is singular: the inverse holds to eps * cond(dexp_u) ~ eps * g2 |u|^2.
  for (int i = 0; i < 500; ++i) {
    const double a = 2 * kPi - rng.log_uniform(1e-8, 1e-1);
    const Vec3 u = a * rng.unit3(), v = rng.unit3();
    const double cond = 1.0 + d::dexpinv_g2(a) * a * a;
    EXPECT_LE(near2pi(max_abs_diff(so3::dexpinv(u, so3::dexp(u, v)), v) / (2.2e-16 * cond)), 20.0) << "angle " << a;
  }
}

TEST(GroupsSO3, AdjointAndCoadjointOperators) {
  Rng rng(107);
  Worst pair_ad("so3 |<ad*_u mu, v> - <mu, [u, v]>|"), pair_Ad("so3 |<Ad*_g mu, v> - <mu, Ad_g v>|"),
      dAd("so3 |d/dt Ad*_exp(tu) mu - ad*_u mu| / |u||mu| (FD)"), conj("so3 |d/dt g exp(tv) g^T - hat(g v)| / |v| (FD)"),
      dad("so3 |d/dt Ad_exp(tu) v - [u, v]| / |u||v| (FD)"), cas("so3 | |Ad*_g mu| - |mu| | (Casimir)");
  for (int i = 0; i < 3000; ++i) {
    const Vec3 u = rng.normal_vec<3>(), v = rng.normal_vec<3>(), mu = rng.normal_vec<3>();
    const Mat3 g = rng.rotation(), h = rng.rotation();
    EXPECT_LE(pair_ad(std::fabs(so3::ad_star(u, mu).dot(v) - mu.dot(so3::bracket(u, v)))), 1e-14 * (1 + u.norm() * v.norm() * mu.norm()));
    EXPECT_LE(pair_Ad(std::fabs(so3::Ad_star(g, mu).dot(v) - mu.dot(g * v))), 1e-14 * (1 + v.norm() * mu.norm()));
    EXPECT_LE(max_abs_diff(so3::Ad_star(g * h, mu), so3::Ad_star(h, so3::Ad_star(g, mu))), 1e-14 * mu.norm());
    // finite differences with a step scaled to the rate of the curve (6th order, h^6 ~ 1e-12)
    const double hu = 1e-2 / (1.0 + u.norm()), hv = 1e-2 / (1.0 + v.norm());
    EXPECT_LE(dAd(max_abs_diff(fd_derivative([&](double t) { return Vec3(so3::Ad_star(so3::exp(t * u), mu)); }, hu),
                               so3::ad_star(u, mu)) / (mu.norm() * u.norm())),
              1e-12);
    const Vec3 Adv = g * v;
    const Vec3 dconj = fd_derivative([&](double t) { return so3::vee(g * so3::exp(t * v) * g.transpose()); }, hv);
    EXPECT_LE(conj(max_abs_diff(dconj, Adv) / v.norm()), 1e-12);
    EXPECT_LE(max_abs_diff(so3::hat(Adv), g * so3::hat(v) * g.transpose()), 1e-14 * v.norm());
    EXPECT_LE(dad(max_abs_diff(fd_derivative([&](double t) { return Vec3(so3::exp(t * u) * v); }, hu), so3::bracket(u, v)) /
                  (u.norm() * v.norm())),
              1e-12);
    // the coadjoint action g . mu = Ad*_{g^-1} mu = g mu preserves |mu|
    EXPECT_LE(cas(std::fabs(so3::Ad_star(g.transpose(), mu).norm() - mu.norm())), 1e-14 * mu.norm());
    EXPECT_LE(max_abs_diff(so3::Ad_star(g.transpose(), mu), g * mu), 1e-14 * mu.norm());
  }
}

TEST(GroupsSO3, CayleyMapIsOrthogonalAndInvertible) {
  // [L] 3.3: cay(f) = (I + hat f)(I - hat f)^-1, rotation by 2 atan|f| about f.
  Rng rng(108);
  Worst orth("so3 cayley |Q^T Q - I|"), inv("so3 cayley |cay^-1(cay f) - f| / (1 + |f|^2)"),
      def("so3 cayley |cay(f) - (I+F)(I-F)^-1|"), rot("so3 cayley |cay(f) - exp(2 atan|f| f/|f|)|");
  for (int i = 0; i < 3000; ++i) {
    const double r = i % 3 == 0 ? rng.log_uniform(1e-8, 1e-3) : rng.log_uniform(1e-3, 10.0);
    const Vec3 f = r * rng.unit3(), q = rng.normal_vec<3>();
    const Mat3 C = so3::cayley(f);
    EXPECT_LE(orth(so3::orthogonality_error(C)), 2e-15);
    EXPECT_NEAR(C.determinant(), 1.0, 2e-15);
    const Mat3 F = so3::hat(f);
    EXPECT_LE(def(max_abs_diff(C, (Mat3::Identity() + F) * (Mat3::Identity() - F).inverse())), 2e-15 * (1 + r));
    EXPECT_LE(rot(max_abs_diff(C, so3::exp(2.0 * std::atan(r) * f / r))), 4e-15);
    EXPECT_LE(inv(max_abs_diff(so3::cayley_inv(C), f) / (1 + r * r)), 2e-15);
    EXPECT_LE(max_abs_diff(so3::cayley(-f), C.transpose()), 1e-15);
    EXPECT_LE(max_abs_diff(so3::cayley_apply(f, q), C * q), 8e-15 * q.norm());
    // [L] eq. (27): for f . q = 0, cay(f) q = ((1 - f.f) q + 2 f x q)/(1 + f.f)
    const Vec3 fp = f - f.dot(q) / q.squaredNorm() * q;
    EXPECT_LE(max_abs_diff(so3::cayley(fp) * q, ((1 - fp.squaredNorm()) * q + 2 * fp.cross(q)) / (1 + fp.squaredNorm())),
              8e-15 * q.norm());
  }
}

TEST(GroupsSO3, OrthonormalizeReturnsThePolarFactor) {
  Rng rng(109);
  Worst w("so3 |orthonormalize(R) - R|");
  for (int i = 0; i < 2000; ++i) {
    const Mat3 R = rng.rotation();
    EXPECT_LE(w(max_abs_diff(so3::orthonormalize(R), R)), 2e-15);
    const Mat3 M = R + 1e-4 * rng.matrix3();
    const Mat3 X = so3::orthonormalize(M);
    EXPECT_LE(so3::orthogonality_error(X), 2e-15);
    EXPECT_NEAR(X.determinant(), 1.0, 2e-15);
    const Mat3 S = X.transpose() * M;  // polar decomposition M = X S with S symmetric
    EXPECT_LE(max_abs_diff(S, S.transpose()), 1e-14);
  }
}
