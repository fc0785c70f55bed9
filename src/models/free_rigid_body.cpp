#include "models/free_rigid_body.hpp"

#include "core/quote.hpp"

#include <boost/math/special_functions/ellint_1.hpp>
#include <boost/math/special_functions/ellint_3.hpp>
#include <boost/math/special_functions/jacobi_elliptic.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>

namespace lie {

namespace {

const bool kKeys = declare_options({
    {"free_rigid_body.inertia", OptionType::PositiveRealList, "1, 1.88, 2.88",
     "principal moments of inertia I1, I2, I3, any order ([K] 3.2 uses those of water)", {}, "free_rigid_body"},
    {"free_rigid_body.m0", OptionType::String, "random",
     "initial body angular momentum 'm1, m2, m3', or 'random' (normalised Gaussian, [K] 3.1)", {}, "free_rigid_body"},
    {"free_rigid_body.seed", OptionType::NonNegativeInt, "1", "seed of the random initial momentum", {},
     "free_rigid_body"},
    {"free_rigid_body.attitude", OptionType::Bool, "false",
     "also integrate the attitude Q in SO(3) (Q(0) = I, body to space)", {}, "free_rigid_body"},
});

struct Jacobi {
  double sn, cn, dn;
};
Jacobi jacobi(double k, double u) {
  Jacobi j{};
  j.sn = boost::math::jacobi_elliptic(k, u, &j.cn, &j.dn);
  return j;
}

Mat3 rot_z(double a) {
  const double c = std::cos(a), s = std::sin(a);
  Mat3 R;
  R << c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0;
  return R;
}

}  // namespace

// ------------------------------------------------------------------ exact solution
RigidBodyExact::RigidBodyExact(const std::array<double, 3>& inertia, const Vec3& m0, const Mat3& Q0)
    : I_orig_(inertia), m0_(m0), Q0_(Q0) {
  w0_ = Vec3(m0.x() / inertia[0], m0.y() / inertia[1], m0.z() / inertia[2]);
  // Signed permutation to the canonical frame: ascending inertia, det = +1.
  perm_ = {0, 1, 2};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j + 1 < 3 - i; ++j)
      if (inertia[static_cast<std::size_t>(perm_[static_cast<std::size_t>(j)])] >
          inertia[static_cast<std::size_t>(perm_[static_cast<std::size_t>(j + 1)])])
        std::swap(perm_[static_cast<std::size_t>(j)], perm_[static_cast<std::size_t>(j + 1)]);
  int inversions = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j)
      if (perm_[static_cast<std::size_t>(i)] > perm_[static_cast<std::size_t>(j)]) ++inversions;
  sign_ = {1.0, 1.0, inversions % 2 ? -1.0 : 1.0};
  Vec3 mc;
  for (std::size_t c = 0; c < 3; ++c) {
    I_[c] = inertia[static_cast<std::size_t>(perm_[c])];
    mc[static_cast<int>(c)] = sign_[c] * m0[perm_[c]];
  }
  const double I1 = I_[0], I2 = I_[1], I3 = I_[2];
  L_ = mc.norm();
  // Invariant combinations as sums of non-negative terms (no cancellation), see the header.
  const double D1 = mc[1] * mc[1] * (I2 - I1) / I2 + mc[2] * mc[2] * (I3 - I1) / I3;
  const double D3 = mc[0] * mc[0] * (I3 - I1) / I1 + mc[1] * mc[1] * (I3 - I2) / I2;
  const double S = mc[2] * mc[2] * (I3 - I2) / I3 - mc[0] * mc[0] * (I2 - I1) / I1;
  if (D1 == 0.0 || D3 == 0.0 || (mc[0] == 0.0 && mc[2] == 0.0)) {
    // m is an eigenvector of I, decided exactly: D1 = 0 (D3 = 0) iff m lies in the eigenspace
    // of the smallest (largest) moment; m1 = m3 = 0 is the middle axis. Then m is constant and
    // Q(t) = Q0 exp(t w).
    regime_ = Regime::Equilibrium;
    return;
  }
  auto flip = [&](int a, int b) {  // rotation by pi about the third axis: det stays +1
    sign_[static_cast<std::size_t>(a)] = -sign_[static_cast<std::size_t>(a)];
    sign_[static_cast<std::size_t>(b)] = -sign_[static_cast<std::size_t>(b)];
    mc[a] = -mc[a];
    mc[b] = -mc[b];
  };
  double k2 = 0.0;
  if (S >= 0.0) {
    // Below the separatrix (2H I2 < |m|^2): rotation about the largest-inertia axis; m3 keeps
    // its sign. S == 0: the separatrix (k = 1), where m1 keeps its sign as well.
    regime_ = S > 0.0 ? Regime::AboutLargestAxis : Regime::Separatrix;
    if (mc[2] < 0.0) flip(1, 2);
    cn_axis_ = 0, sn_axis_ = 1, pole_ = 2, axis_a_ = 0, axis_b_ = 1;
    A_ = {std::sqrt(I1 * D3 / (I3 - I1)), std::sqrt(I2 * D3 / (I3 - I2)), std::sqrt(I3 * D1 / (I3 - I1))};
    lambda_ = std::sqrt((I3 - I2) * D1 / (I1 * I2 * I3));
    k2 = S > 0.0 ? (I2 - I1) * D3 / ((I3 - I2) * D1) : 1.0;
    n_ = -I3 * (I2 - I1) / (I1 * (I3 - I2));
    psi_linear_ = L_ / I3;
    psi_elliptic_ = L_ * (I3 - I1) / (I1 * I3 * lambda_);
  } else {
    // Above the separatrix: rotation about the smallest-inertia axis; m1 keeps its sign
    // (the formulas of the other regime with the suffixes 1 and 3 interchanged).
    regime_ = Regime::AboutSmallestAxis;
    if (mc[0] < 0.0) flip(0, 1);
    cn_axis_ = 2, sn_axis_ = 1, pole_ = 0, axis_a_ = 1, axis_b_ = 2;
    A_ = {std::sqrt(I1 * D3 / (I3 - I1)), std::sqrt(I2 * D1 / (I2 - I1)), std::sqrt(I3 * D1 / (I3 - I1))};
    lambda_ = std::sqrt((I2 - I1) * D3 / (I1 * I2 * I3));
    k2 = (I3 - I2) * D1 / ((I2 - I1) * D3);
    n_ = -I1 * (I3 - I2) / (I3 * (I2 - I1));
    psi_linear_ = L_ / I1;
    psi_elliptic_ = -L_ * (I3 - I1) / (I1 * I3 * lambda_);
  }
  if (k2 >= 1.0) {
    // On the separatrix cn = dn = sech u > 0: the cn component keeps its sign too.
    k2 = 1.0;
    regime_ = Regime::Separatrix;
    if (mc[cn_axis_] < 0.0) flip(cn_axis_, sn_axis_);
  }
  k_ = std::sqrt(k2);
  const double s0 = mc[sn_axis_] / A_[static_cast<std::size_t>(sn_axis_)];
  const double c0 = mc[cn_axis_] / A_[static_cast<std::size_t>(cn_axis_)];
  const double phi0 = std::atan2(s0, c0);
  if (k_ < 1.0) {
    K_ = boost::math::ellint_1(k_);
    pi_complete_ = boost::math::ellint_3(k_, n_);
    u0_ = boost::math::ellint_1(k_, phi0);
  } else {
    K_ = std::numeric_limits<double>::infinity();
    u0_ = std::atanh(std::sin(phi0));  // F(phi, 1), |phi0| < pi/2 since cn > 0 on the separatrix
  }
  pi_u0_ = pi3(amplitude(u0_));
  // Q(0) P^T A(0)^T: Q_can = Q P^T maps canonical body vectors to space.
  Mat3 P = Mat3::Zero();
  for (std::size_t c = 0; c < 3; ++c) P(static_cast<int>(c), perm_[c]) = sign_[c];
  Qc0_A0T_ = Q0_ * P.transpose() * frame(mc).transpose();
}

double RigidBodyExact::amplitude(double u) const {
  if (!(k_ < 1.0)) {
    const Jacobi j = jacobi(1.0, u);
    return std::atan2(j.sn, j.cn);  // gd(u), in (-pi/2, pi/2)
  }
  // am(u + 2K) = am(u) + pi; reduce to r in [-K, K) where cn(r) >= 0.
  const double j = std::floor((u + K_) / (2.0 * K_));
  const double r = u - 2.0 * j * K_;
  const Jacobi jr = jacobi(k_, r);
  return j * std::numbers::pi + std::atan2(jr.sn, jr.cn);
}

double RigidBodyExact::pi3(double phi) const {
  if (!(k_ < 1.0)) return boost::math::ellint_3(1.0, n_, phi);
  // Pi(n; phi + pi, k) = Pi(n; phi, k) + 2 Pi(n, k); reduce phi to [-pi/2, pi/2].
  const double j = std::nearbyint(phi / std::numbers::pi);
  const double r = phi - j * std::numbers::pi;
  return 2.0 * j * pi_complete_ + boost::math::ellint_3(k_, n_, r);
}

Vec3 RigidBodyExact::canonical_momentum(double t) const {
  const Jacobi j = jacobi(k_, u0_ + lambda_ * t);
  Vec3 mc;
  mc[cn_axis_] = A_[static_cast<std::size_t>(cn_axis_)] * j.cn;
  mc[sn_axis_] = A_[static_cast<std::size_t>(sn_axis_)] * j.sn;
  mc[pole_] = A_[static_cast<std::size_t>(pole_)] * j.dn;
  return mc;
}

Vec3 RigidBodyExact::momentum(double t) const {
  if (regime_ == Regime::Equilibrium) return m0_;
  const Vec3 mc = canonical_momentum(t);
  Vec3 m;
  for (std::size_t c = 0; c < 3; ++c) m[perm_[c]] = sign_[c] * mc[static_cast<int>(c)];
  return m;
}

Mat3 RigidBodyExact::frame(const Vec3& mc) const {
  const double ma = mc[axis_a_], mb = mc[axis_b_];
  const double rho = std::hypot(ma, mb);
  Vec3 r1 = Vec3::Zero();
  r1[axis_a_] = mb / rho;
  r1[axis_b_] = -ma / rho;
  const Vec3 r3 = mc / L_;
  const Vec3 r2 = r3.cross(r1);
  Mat3 A;
  A.row(0) = r1.transpose();
  A.row(1) = r2.transpose();
  A.row(2) = r3.transpose();
  return A;
}

double RigidBodyExact::precession_angle(double t) const {
  if (regime_ == Regime::Equilibrium) return 0.0;
  return psi_linear_ * t + psi_elliptic_ * (pi3(amplitude(u0_ + lambda_ * t)) - pi_u0_);
}

double RigidBodyExact::precession_rate(double t) const {
  if (regime_ == Regime::Equilibrium) return 0.0;
  const Vec3 mc = canonical_momentum(t);
  const double ma = mc[axis_a_], mb = mc[axis_b_];
  return L_ * (ma * ma / I_[static_cast<std::size_t>(axis_a_)] + mb * mb / I_[static_cast<std::size_t>(axis_b_)]) /
         (ma * ma + mb * mb);
}

Mat3 RigidBodyExact::attitude(double t) const {
  if (regime_ == Regime::Equilibrium) return Q0_ * so3::exp(t * w0_);
  Mat3 P = Mat3::Zero();
  for (std::size_t c = 0; c < 3; ++c) P(static_cast<int>(c), perm_[c]) = sign_[c];
  return Qc0_A0T_ * rot_z(precession_angle(t)) * frame(canonical_momentum(t)) * P;
}

// ------------------------------------------------------------------ model
FreeRigidBody::FreeRigidBody(std::array<double, 3> inertia, std::array<double, 3> m0, bool attitude,
                             const par::Context* ctx)
    : I_(inertia),
      m0_(m0),
      attitude_(attitude),
      owner_(ctx),
      exact_(inertia, Vec3(m0[0], m0[1], m0[2])) {
  space_.add(FactorKind::SO3OnR3, owner_.local(1), "momentum");
  if (attitude_) space_.add(FactorKind::SO3Right, owner_.local(1), "attitude");
}

// <edge> parse: the free_rigid_body.* keys
FreeRigidBody::Options FreeRigidBody::parse(const Config& cfg) {
  const auto I = cfg.get_double_list("free_rigid_body.inertia");
  if (I.size() != 3)
    throw UsageError("key 'free_rigid_body.inertia' needs 3 values (I1, I2, I3), got " + std::to_string(I.size()));
  std::array<double, 3> m0{};
  const std::string m0s = cfg.get_string("free_rigid_body.m0");
  if (m0s == "random") {
    std::mt19937_64 rng(static_cast<std::uint64_t>(cfg.get_int("free_rigid_body.seed")));
    std::normal_distribution<double> n01(0.0, 1.0);
    Vec3 v(n01(rng), n01(rng), n01(rng));
    v.normalize();
    m0 = {v.x(), v.y(), v.z()};
  } else {
    const auto items = split_list(m0s);
    if (items.size() != 3)
      throw UsageError("key 'free_rigid_body.m0' has value " + quote(m0s) + "; expected 'random' or three numbers");
    for (std::size_t i = 0; i < 3; ++i) m0[i] = parse_double("free_rigid_body.m0", items[i]);
  }
  return {std::array<double, 3>{I[0], I[1], I[2]}, m0, cfg.get_bool("free_rigid_body.attitude")};
}
// </edge>

std::unique_ptr<Model> FreeRigidBody::create(const ModelOptions& options, par::Context& ctx) {
  const Options& o = std::any_cast<const Options&>(options);
  return std::make_unique<FreeRigidBody>(o.inertia, o.m0, o.attitude, &ctx);
}

ModelCapabilities FreeRigidBody::capabilities() const {
  ModelCapabilities c;
  c.exact_solution = true;
  c.rigid_bodies = true;
  return c;
}

RigidBodyLayout FreeRigidBody::rigid_body_layout() const {
  RigidBodyLayout l;
  l.bodies = owner_.owns() ? 1 : 0;
  l.stride = attitude_ ? 12 : 3;
  l.angular_momentum = 0;
  l.attitude = attitude_ ? 3 : -1;
  l.inertia = I_;
  l.potential = false;
  return l;
}

void FreeRigidBody::initial_state(double* y) const {
  if (!owner_.owns()) return;
  for (std::size_t i = 0; i < 3; ++i) y[i] = m0_[i];
  if (attitude_)
    for (int i = 0; i < 9; ++i) y[3 + i] = (i % 4 == 0) ? 1.0 : 0.0;
}

void FreeRigidBody::vector_field(double, const double* y, double* xi) {
  ++n_rhs_;
  if (!owner_.owns()) return;
  const double w[3] = {y[0] / I_[0], y[1] / I_[1], y[2] / I_[2]};
  for (int i = 0; i < 3; ++i) xi[i] = -w[i];  // m' = -w x m = generator(-w)
  if (attitude_)
    for (int i = 0; i < 3; ++i) xi[3 + i] = w[i];  // Q' = Q hat(w)
}

void FreeRigidBody::exact_solution(double t, double* y) const {
  if (!owner_.owns()) return;
  const Vec3 m = exact_.momentum(t);
  for (int i = 0; i < 3; ++i) y[i] = m[i];
  if (attitude_) {
    Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> Q(y + 3);
    Q = exact_.attitude(t);
  }
}

void FreeRigidBody::observables(double, const double* y, Observables& out) {
  double H = 0.0, C = 0.0, orth = 0.0;
  Vec3 pi = Vec3::Zero();
  if (owner_.owns()) {
    H = 0.5 * (y[0] * y[0] / I_[0] + y[1] * y[1] / I_[1] + y[2] * y[2] / I_[2]);
    C = 0.5 * (y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
    if (attitude_) {
      Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> Q(y + 3);
      orth = so3::orthogonality_error(Q);
      pi = Q * Vec3(y[0], y[1], y[2]);
    }
  }
  out.set("total_energy", owner_.broadcast(H));
  out.set("casimir", owner_.broadcast(C));
  if (attitude_) {
    out.set("orthogonality_error", owner_.broadcast(orth));
    out.set("angular_momentum_x", owner_.broadcast(pi.x()));
    out.set("angular_momentum_y", owner_.broadcast(pi.y()));
    out.set("angular_momentum_z", owner_.broadcast(pi.z()));
  }
}

std::vector<std::string> FreeRigidBody::observable_names() const {
  std::vector<std::string> n = {"total_energy", "casimir"};
  if (attitude_) {
    n.push_back("orthogonality_error");
    n.push_back("angular_momentum_x");
    n.push_back("angular_momentum_y");
    n.push_back("angular_momentum_z");
  }
  return n;
}

LIEBENCH_REGISTER(ModelEntry, ModelEntry{"free_rigid_body",
                                         "free rigid body, Euler's equations on so(3)* (optionally with attitude); "
                                         "exact solution by Jacobi elliptic functions",
                                         "[K] 3.1, [P] Example 1", &FreeRigidBody::create, &FreeRigidBody::parse})

}  // namespace lie
