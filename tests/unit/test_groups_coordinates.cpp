// The coordinate maps of RKMK's key `coordinates` (groups/coordinates.hpp): the Cayley map and
// canonical coordinates of the second kind on SO(3) and SE(3), and their exact inverse
// right-trivialised differentials, near 0, at generic and at large arguments; the defining
// relation of dphiinv against 6th-order finite differences of phi; and, for every factor of the
// product space (op groups and T*SO(3) included), the relation RKMK relies on:
//   d/de [phi(u + e w) . y]_{e=0} = generator(v, phi(u) . y)   with  w = dphiinv_u(v).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>
#include <unsupported/Eigen/MatrixFunctions>
#include <vector>

#include "groups/coordinates.hpp"
#include "groups/space.hpp"
#include "groups_testing.hpp"

using namespace lie;
using namespace lie::testing;

namespace {

using Mat4 = Eigen::Matrix4d;

// Arguments of |a| from 1e-8 to 1e3 (cay: rotations by 2 atan(|a|/2), up to pi - 4e-3).
std::vector<Vec3> so3_args(Rng& rng) {
  std::vector<Vec3> v;
  for (double s : {0.0, 1e-8, 1e-4, 0.1, 1.0, 2.5, 3.1, 3.5, 2 * kPi, 10.0, 1e3})
    for (int i = 0; i < 6; ++i) v.push_back(rng.unit3() * s * rng.uniform(0.9, 1.1));
  return v;
}

// Second kind: any a_1, a_3, and |a_2| < pi/2 (gimbal lock at cos a_2 = 0) up to 1.47.
std::vector<Vec3> second_kind_args(Rng& rng) {
  std::vector<Vec3> v;
  for (double s : {0.0, 1e-8, 1e-4, 0.1, 1.0, 3.0, 10.0})
    for (int i = 0; i < 6; ++i) v.push_back(Vec3(s * rng.normal(), std::clamp(s * rng.normal(), -1.47, 1.47), s * rng.normal()));
  for (double a2 : {1.4, -1.47}) v.push_back(Vec3(rng.normal(), a2, rng.normal()));
  return v;
}

Mat3 mexp(const Vec3& a) { return Mat3(so3::hat(a).exp()); }

}  // namespace

TEST(So3Coordinates, CayleyClosedFormOrthogonalAndInverse) {
  Rng rng(11);
  Worst orth("|cay(a)^T cay(a) - I| (|a| up to 1e3)"), inv("|cay(-a) cay(a) - I|"),
      form("|cay(a) - (I - A/2)^-1 (I + A/2)|"), closed("|cay(a) - (I + 4/(4+|a|^2)(A + A^2/2))|"),
      angle("|rotation angle of cay(a) - 2 atan(|a|/2)|");
  const Mat3 I = Mat3::Identity();
  for (const Vec3& a : so3_args(rng)) {
    const Mat3 C = so3::cay(a), A = so3::hat(a);
    EXPECT_LT(orth(so3::orthogonality_error(C)), 1e-15 * 4);
    EXPECT_NEAR(C.determinant(), 1.0, 1e-15 * 4);
    EXPECT_LT(inv(max_abs_diff(so3::cay(-a) * C, I)), 1e-15);
    // the reference inverts I - A/2 (condition ~ 1 + |a|^2/4)
    EXPECT_LT(form(max_abs_diff(C, Mat3((I - 0.5 * A).inverse() * (I + 0.5 * A)))), 2e-16 * (4.0 + a.squaredNorm()));
    EXPECT_LT(closed(max_abs_diff(C, Mat3(I + 4.0 / (4.0 + a.squaredNorm()) * (A + 0.5 * A * A)))), 4e-16);
    EXPECT_LT(angle(std::abs(so3::log(C).norm() - 2.0 * std::atan(0.5 * a.norm()))), 1e-12);
  }
}

// dcay_a(dcayinv_a(b)) = b, and the defining relation: d/de cay(a + e dcayinv_a(b)) cay(a)^T = hat(b).
TEST(So3Coordinates, DcayinvIsTheInverseRightTrivialisedDifferential) {
  Rng rng(12);
  Worst fd("dcayinv vs finite difference of cay (relative)"), roundtrip("|dcay_a(dcayinv_a(b)) - b|/|b|"),
      small("|dcayinv_a(b) - b| at |a| = 1e-8");
  for (const Vec3& a : so3_args(rng)) {
    const Vec3 b = rng.normal_vec<3>();
    const Vec3 w = so3::dcayinv(a, b);
    EXPECT_LT(roundtrip((so3::dcay(a, w) - b).norm() / b.norm()), 1e-12 * std::max(1.0, a.squaredNorm()));
    // cay varies on the scale 1 + |a| and |w| ~ |b| (1 + |a|^2/4): steps of 1 % of that scale
    const double h = 1e-2 * (1.0 + a.norm()) / (1.0 + w.norm());
    const Mat3 D = fd_derivative([&](double e) { return Mat3(so3::cay(a + e * w)); }, h);
    const Vec3 got = so3::vee(D * so3::cay(a).transpose());
    EXPECT_LT(fd((got - b).norm() / b.norm()), 1e-9) << a.transpose();
    // the right (not left) trivialisation: the left one differs once a and b do not commute
    if (a.norm() > 0.1) {
      EXPECT_GT((so3::vee(so3::cay(a).transpose() * D) - b).norm() / b.norm(), 1e-3);
    }
    if (a.norm() < 2e-8) {
      EXPECT_LT(small((w - b).norm() / b.norm()), 3e-8);
    }
  }
}

TEST(So3Coordinates, SecondKindProductOrthogonalAndInverse) {
  Rng rng(13);
  Worst orth("|psi(a)^T psi(a) - I|"), prod("|psi(a) - expm(a1 E1) expm(a2 E2) expm(a3 E3)|"),
      inv("|psi(a)^-1 - psi_reversed(-a)|");
  const Mat3 I = Mat3::Identity();
  for (const Vec3& a : second_kind_args(rng)) {
    const Mat3 P = so3::second_kind(a);
    EXPECT_LT(orth(so3::orthogonality_error(P)), 1e-15 * 4);
    const Mat3 ref = mexp(Vec3(a[0], 0, 0)) * mexp(Vec3(0, a[1], 0)) * mexp(Vec3(0, 0, a[2]));
    EXPECT_LT(prod(max_abs_diff(P, ref)), 4e-15);
    // psi(a)^-1 = exp(-a3 E3) exp(-a2 E2) exp(-a1 E1): the reversed product, used by the op factors
    const Mat3 rev = so3::axis_rotation(2, -a[2]) * so3::axis_rotation(1, -a[1]) * so3::axis_rotation(0, -a[0]);
    EXPECT_LT(inv(max_abs_diff(Mat3(P.transpose()), rev)), 4e-16);
    EXPECT_LT(max_abs_diff(Mat3(rev * P), I), 1e-15);
  }
  // single-axis arguments: psi = exp
  for (int k = 0; k < 3; ++k) {
    Vec3 a = Vec3::Zero();
    a[k] = 2.7;
    EXPECT_LT(max_abs_diff(so3::second_kind(a), so3::exp(a)), 1e-15);
  }
}

TEST(So3Coordinates, DsecondKindinvIsTheInverseRightTrivialisedDifferential) {
  Rng rng(14);
  Worst fd("dpsiinv vs finite difference of psi (relative, |a2| <= 1.47)"), rt("|dpsi_a(dpsiinv_a(w)) - w|/|w|");
  for (const Vec3& a : second_kind_args(rng)) {
    const Vec3 b = rng.normal_vec<3>();
    const Vec3 w = so3::dsecond_kindinv(a, b);
    EXPECT_LT(rt((so3::dsecond_kind(a, w) - b).norm() / b.norm()), 1e-14 / std::cos(a[1]));
    const Mat3 D = fd_derivative([&](double e) { return Mat3(so3::second_kind(a + e * w)); }, 1e-2 / (1.0 + w.norm()));
    const Vec3 got = so3::vee(D * so3::second_kind(a).transpose());
    EXPECT_LT(fd((got - b).norm() / b.norm()), 1e-9 / std::cos(a[1])) << a.transpose();
  }
  // at a = 0 the differential is the identity
  const Vec3 b(0.3, -1.1, 0.7);
  EXPECT_EQ(so3::dsecond_kindinv(Vec3::Zero(), b), b);
}

// SE(3) as 4x4 matrices: cay and the second kind against their matrix definitions, dphiinv
// against finite differences (right trivialisation: d/de M(x + e w) M(x)^-1 = hat(y)).
TEST(Se3Coordinates, CayleyAndSecondKindAgainstMatrices) {
  Rng rng(15);
  Worst cay4("|se3::cay - (I - X/2)^-1 (I + X/2)| (4x4)"), dc4("|se3::dcayinv - (I - X/2) Y (I + X/2)|"),
      fdc("se3 dcayinv vs finite difference (relative)"), sk4("|se3::second_kind - prod_k expm(x_k E_k)|"),
      fds("se3 dpsiinv vs finite difference (relative)");
  const Mat4 I = Mat4::Identity();
  for (double s : {1e-8, 1e-3, 0.3, 1.0, 3.0, 10.0}) {
    for (int rep = 0; rep < 8; ++rep) {
      Vec6 x = rng.normal_vec<6>() * s;
      const Vec6 y = rng.normal_vec<6>();
      const Mat4 X = se3::hat(x), Y = se3::hat(y);
      // Cayley
      const Mat4 C = se3::matrix(se3::cay(x));
      EXPECT_LT(cay4(max_abs_diff(C, Mat4((I - 0.5 * X).inverse() * (I + 0.5 * X))) / (1.0 + s * s)), 1e-14);
      EXPECT_LT(dc4(max_abs_diff(se3::hat(se3::dcayinv(x, y)), Mat4((I - 0.5 * X) * Y * (I + 0.5 * X))) /
                    (1.0 + s * s)),
                1e-15 * 8);
      const Vec6 w = se3::dcayinv(x, y);
      const double h = 1e-2 * (1.0 + x.norm()) / (1.0 + w.norm());
      const Mat4 D = fd_derivative([&](double e) { return se3::matrix(se3::cay(x + e * w)); }, h);
      EXPECT_LT(fdc((se3::vee(D * se3::matrix(se3::inverse(se3::cay(x)))) - y).norm() / y.norm()), 1e-8) << s;
      // second kind (|x_2| < pi/2)
      Vec6 z = x;
      z[1] = std::clamp(z[1], -1.4, 1.4);
      Mat4 P = I;
      for (int k = 0; k < 6; ++k) {
        Vec6 e = Vec6::Zero();
        e[k] = z[k];
        P = P * Mat4(se3::hat(e).exp());
      }
      EXPECT_LT(sk4(max_abs_diff(se3::matrix(se3::second_kind(z)), P) / (1.0 + s)), 1e-14);
      const Vec6 ws = se3::dsecond_kindinv(z, y);
      const Mat4 Ds =
          fd_derivative([&](double e) { return se3::matrix(se3::second_kind(z + e * ws)); }, 1e-2 / (1.0 + ws.norm()));
      EXPECT_LT(fds((se3::vee(Ds * se3::matrix(se3::inverse(se3::second_kind(z)))) - y).norm() / y.norm()),
                1e-8 / std::cos(z[1]))
          << s;
      // cay(-x) = cay(x)^-1
      EXPECT_LT(max_abs_diff(Mat4(se3::matrix(se3::cay(-x)) * C), I), 1e-14 * (1.0 + s * s));
    }
  }
}

// Every factor of the product space, every map: the relation RKMK's stages rely on (see the
// head of this file), with a 6th-order difference of Space::chart_act along w =
// Space::dchartinv(u, v). Also Space::chart_act(Exp) is exp_act bit for bit.
TEST(SpaceCoordinates, EveryFactorSatisfiesTheRkmkRelation) {
  std::mt19937_64 gen(21);
  std::normal_distribution<double> n01(0.0, 1.0);
  for (const FactorInfo& f : all_factors()) {
    Space sp;
    sp.add(f.kind, 2);
    std::vector<double> y(sp.state_size()), u(sp.alg_size()), v(sp.alg_size()), w(sp.alg_size());
    // a valid point: rotation matrices where the state holds one (rows 0..8 of T*SO(3)), unit
    // q with w . q = 0 on TS^2 (project() does both)
    for (double& x : y) x = n01(gen);
    sp.project(y.data());
    for (double& x : v) x = n01(gen);
    for (double scale : {1e-6, 0.05, 0.7}) {
      for (double& x : u) x = scale * n01(gen);
      for (Coordinates c : {Coordinates::Exp, Coordinates::Cayley, Coordinates::SecondKind}) {
        sp.dchartinv(c, u.data(), v.data(), w.data());
        std::vector<double> gu(sp.state_size()), rhs(sp.state_size());
        sp.chart_act(c, u.data(), y.data(), gu.data());
        sp.generator(v.data(), gu.data(), rhs.data());
        const Eigen::VectorXd d = fd_derivative(
            [&](double e) {
              std::vector<double> ue(u.size()), out(y.size());
              for (std::size_t i = 0; i < u.size(); ++i) ue[i] = u[i] + e * w[i];
              sp.chart_act(c, ue.data(), y.data(), out.data());
              return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(out.data(), static_cast<Eigen::Index>(out.size())));
            },
            1e-3);
        const Eigen::Map<const Eigen::VectorXd> r(rhs.data(), static_cast<Eigen::Index>(rhs.size()));
        EXPECT_LT((d - r).norm(), 1e-9 * (1.0 + r.norm())) << f.name << " " << coordinates_name(c) << " |u| ~ " << scale;
        // the maps differ from exp beyond second order (a vacuous relation would not see it)
        if (c != Coordinates::Exp && scale == 0.7 && f.kind != FactorKind::Translation3) {
          std::vector<double> ge(sp.state_size());
          sp.exp_act(u.data(), y.data(), ge.data());
          double diff = 0;
          for (std::size_t i = 0; i < ge.size(); ++i) diff = std::max(diff, std::abs(ge[i] - gu[i]));
          EXPECT_GT(diff, 1e-4) << f.name << " " << coordinates_name(c);
        }
      }
      std::vector<double> a(sp.state_size()), b(sp.state_size());
      sp.exp_act(u.data(), y.data(), a.data());
      sp.chart_act(Coordinates::Exp, u.data(), y.data(), b.data());
      EXPECT_EQ(a, b) << f.name;
    }
  }
}
