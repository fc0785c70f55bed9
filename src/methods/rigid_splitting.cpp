#include "methods/rigid_splitting.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "models/free_rigid_body.hpp"

namespace lie {

namespace quaternion {

std::array<double, 4> from_matrix(const double* Q) {
  // Eigen's conversion (Shoemake): w from the trace when it is positive, else the largest diagonal
  const Mat3 R = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(Q);
  const Eigen::Quaterniond q(R);
  return {q.w(), q.x(), q.y(), q.z()};
}

void to_matrix(const std::array<double, 4>& q, double* Q) {
  Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> out(Q);
  out = Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
}

namespace {
// P_k a = a (x) e_k, the quaternion product with the unit quaternion of body axis k (Miller et
// al. eq. (2.10): P_1 q = (-q1, q0, q3, -q2), P_2 q = (-q2, -q3, q0, q1), P_3 q = (-q3, q2, -q1, q0)).
std::array<double, 4> times_axis(int k, const std::array<double, 4>& a) {
  switch (k) {
    case 0: return {-a[1], a[0], a[3], -a[2]};
    case 1: return {-a[2], -a[3], a[0], a[1]};
    default: return {-a[3], a[2], -a[1], a[0]};
  }
}
}  // namespace

}  // namespace quaternion

void require_rigid_bodies(const std::string& method, const Model& model) {
  const auto* bodies = dynamic_cast<const RigidBodySystem*>(&model);
  if (bodies != nullptr && model.capabilities().rigid_bodies) return;
  std::string why = "model '" + model.name() + "' does not provide one (" + kRigidBodyModels + ")";
  if (bodies != nullptr) {  // the model says why not (heavy_top: its formulation)
    try {
      bodies->rigid_body_layout();
    } catch (const UsageError& e) {
      why = e.what();
    }
  }
  throw UsageError("method '" + method + "' needs a system of rigid bodies with a separable Hamiltonian; " + why);
}

RigidSplittingStepper::RigidSplittingStepper(MethodInfo info, Rotor rotor, std::array<int, 3> axes)
    : info_(std::move(info)), rotor_(rotor), axes_(axes), by_moments_(axes == kByMoments) {}

std::array<int, 3> RigidSplittingStepper::axes_by_moments(const std::array<double, 3>& inertia) {
  std::array<int, 3> a{0, 1, 2};
  std::stable_sort(a.begin(), a.end(), [&](int i, int j) { return inertia[i] < inertia[j]; });
  return a;
}

void RigidSplittingStepper::bind(Model& model, par::Context& ctx) {
  model_ = &model;
  ctx_ = &ctx;
  require_rigid_bodies(info_.name, model);
  bodies_ = dynamic_cast<RigidBodySystem*>(&model);
  layout_ = bodies_->rigid_body_layout();
  if (layout_.spatial_momentum && layout_.attitude < 0)
    throw std::logic_error("model '" + model.name() + "': a spatial angular momentum needs the attitude");
  if (by_moments_) axes_ = axes_by_moments(layout_.inertia);
  const std::size_t n = layout_.bodies;
  F_.assign(3 * n, 0.0);
  tau_.assign(3 * n, 0.0);
  key_.assign(12 * n, 0.0);
  cached_ = false;
}

bool RigidSplittingStepper::forces_cached_for(const double* y) const {
  bool same = cached_;
  for (std::size_t i = 0; same && i < layout_.bodies; ++i) {
    const double* b = y + i * layout_.stride;
    if (layout_.position >= 0) same = std::memcmp(b + layout_.position, &key_[12 * i], 3 * sizeof(double)) == 0;
    if (same && layout_.attitude >= 0)
      same = std::memcmp(b + layout_.attitude, &key_[12 * i + 3], 9 * sizeof(double)) == 0;
  }
  // the forces are collective: the ranks decide together
  return ctx_->size() > 1 ? ctx_->min(same ? 1.0 : 0.0) == 1.0 : same;
}

void RigidSplittingStepper::forces(double t, const double* y) {
  bodies_->forces_and_torques(t, y, F_.data(), tau_.data());
  for (std::size_t i = 0; i < layout_.bodies; ++i) {
    const double* b = y + i * layout_.stride;
    if (layout_.position >= 0) std::copy(b + layout_.position, b + layout_.position + 3, &key_[12 * i]);
    if (layout_.attitude >= 0) std::copy(b + layout_.attitude, b + layout_.attitude + 9, &key_[12 * i + 3]);
  }
  cached_ = true;
}

void RigidSplittingStepper::rebuild_cache(double t, const double* y) {
  // the forces at y as the uninterrupted run holds them (checkpoint restart; not counted again)
  if (layout_.potential) forces(t, y);
  else cached_ = true;
}

void RigidSplittingStepper::kick(double s, double* y) const {
  for (std::size_t i = 0; i < layout_.bodies; ++i) {
    double* b = y + i * layout_.stride;
    if (layout_.momentum >= 0)
      for (int k = 0; k < 3; ++k) b[layout_.momentum + k] += s * F_[3 * i + k];
    const double* tau = &tau_[3 * i];
    double* m = b + layout_.angular_momentum;
    if (layout_.spatial_momentum) {  // pi += s Q tau (Q fixed)
      const double* Q = b + layout_.attitude;
      for (int k = 0; k < 3; ++k) m[k] += s * (Q[3 * k] * tau[0] + Q[3 * k + 1] * tau[1] + Q[3 * k + 2] * tau[2]);
    } else {
      for (int k = 0; k < 3; ++k) m[k] += s * tau[k];
    }
  }
}

void RigidSplittingStepper::planar(int k, double s, double* m, double* Q) const {
  // the flow of T_k = m_k^2 / (2 I_k): Q <- Q R_k(theta), m <- R_k(theta)^T m, theta = s m_k / I_k
  const double theta = s * m[k] / layout_.inertia[k];
  double c, sn;
  sincos_rotor(theta, sn, c);
  const int a = (k + 1) % 3, b = (k + 2) % 3;
  rotate_pair(c, sn, m[a], m[b]);
  if (Q != nullptr)
    for (int r = 0; r < 3; ++r) rotate_pair(c, sn, Q[3 * r + a], Q[3 * r + b]);
}

namespace {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LIEBENCH_ROTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LIEBENCH_ROTOR_CLONES
#endif
// The planar rotor of up to kRotorLanes bodies at once: m (3) and Q (9, row-major) of body l in
// lane l; the five rotations of `seq`, each planar()'s operations (sincos_rotor's polynomials in
// every lane, libm's sin and cos where |theta| > 1/2, rotate_pair), so every body gets its
// scalar bits (no fma, no contraction: every clone the same).
constexpr std::size_t kRotorLanes = 8;
struct RotorLanes {
  alignas(64) double m[3][kRotorLanes];
  alignas(64) double Q[9][kRotorLanes];
};
LIEBENCH_ROTOR_CLONES
void planar_lanes(const int* seq, const double* dt, const double* inertia, bool has_Q, RotorLanes& t) {
  for (int j = 0; j < 5; ++j) {
    const int k = seq[j], a = (k + 1) % 3, b = (k + 2) % 3;
    const double s = dt[j], I = inertia[k];
    alignas(64) double th[kRotorLanes], sn[kRotorLanes], c[kRotorLanes];
    alignas(64) long big[kRotorLanes];
#pragma omp simd
    for (std::size_t l = 0; l < kRotorLanes; ++l) {
      th[l] = s * t.m[k][l] / I;
      sincos_rotor_series(th[l], sn[l], c[l]);
      big[l] = !(std::fabs(th[l]) <= 0.5);
    }
    for (std::size_t l = 0; l < kRotorLanes; ++l)
      if (big[l]) sincos_rotor(th[l], sn[l], c[l]);
#pragma omp simd
    for (std::size_t l = 0; l < kRotorLanes; ++l) {
      rotate_pair(c[l], sn[l], t.m[a][l], t.m[b][l]);
      if (has_Q)
        for (int r = 0; r < 3; ++r) rotate_pair(c[l], sn[l], t.Q[3 * r + a][l], t.Q[3 * r + b][l]);
    }
  }
}
}  // namespace

RigidSplittingStepper::RotorSequence RigidSplittingStepper::sequence(double s) const {
  // the symmetric sequence a, b, c, b, a of steps s/2, s/2, s, s/2, s/2
  const double half = 0.5 * s;
  return {{axes_[0], axes_[1], axes_[2], axes_[1], axes_[0]}, {half, half, s, half, half}};
}

RigidSplittingStepper::QuaternionRotor RigidSplittingStepper::quaternion_begin(const double* m, const double* Q) {
  // q from Q, P = 2 q (x) (0, m) (Miller et al. eq. (2.8))
  static const double kIdentity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  QuaternionRotor r;
  r.q = quaternion::from_matrix(Q != nullptr ? Q : kIdentity);
  const std::array<double, 4> mq{0.0, m[0], m[1], m[2]};
  r.P = {};
  for (int k = 0; k < 3; ++k) {
    const auto e = quaternion::times_axis(k, r.q);  // q (x) e_k
    for (int c = 0; c < 4; ++c) r.P[c] += 2.0 * mq[k + 1] * e[c];
  }
  return r;
}

void RigidSplittingStepper::quaternion_turn(int k, double dt, QuaternionRotor& r) const {
  std::array<double, 4>& q = r.q;
  std::array<double, 4>& P = r.P;
  const auto kq = quaternion::times_axis(k, q), kp = quaternion::times_axis(k, P);
  const double z = dt * (P[0] * kq[0] + P[1] * kq[1] + P[2] * kq[2] + P[3] * kq[3]) / (4.0 * layout_.inertia[k]);
  const double c = std::cos(z), sn = std::sin(z);
  for (int i = 0; i < 4; ++i) {
    q[i] = c * q[i] + sn * kq[i];
    P[i] = c * P[i] + sn * kp[i];
  }
}

void RigidSplittingStepper::quaternion_end(const QuaternionRotor& r, double* m, double* Q) {
  // m = 1/2 vec(q* (x) P) (Miller et al. eq. (2.9)), Q from q
  const std::array<double, 4>& q = r.q;
  const std::array<double, 4>& P = r.P;
  const double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  for (int k = 0; k < 3; ++k) {
    const auto e = quaternion::times_axis(k, q);
    m[k] = 0.5 * (P[0] * e[0] + P[1] * e[1] + P[2] * e[2] + P[3] * e[3]) / n2;
  }
  if (Q != nullptr) quaternion::to_matrix(q, Q);
}

void RigidSplittingStepper::rotor(double s, double* m, double* Q) const {
  const auto [seq, dt] = sequence(s);
  switch (rotor_) {
    case Rotor::Planar:
      for (int j = 0; j < 5; ++j) planar(seq[j], dt[j], m, Q);
      return;
    case Rotor::Quaternion: {
      QuaternionRotor r = quaternion_begin(m, Q);
      for (int j = 0; j < 5; ++j) quaternion_turn(seq[j], dt[j], r);
      quaternion_end(r, m, Q);
      return;
    }
    case Rotor::Exact: {
      Mat3 Q0 = Mat3::Identity();
      if (Q != nullptr)
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) Q0(r, c) = Q[3 * r + c];
      const RigidBodyExact flow(layout_.inertia, Vec3(m[0], m[1], m[2]), Q0);
      const Vec3 m1 = flow.momentum(s);
      for (int k = 0; k < 3; ++k) m[k] = m1[k];
      if (Q != nullptr) {
        const Mat3 Q1 = flow.attitude(s);
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) Q[3 * r + c] = Q1(r, c);
      }
      return;
    }
  }
}

void RigidSplittingStepper::rotors(double s, double* y) {
  const std::size_t n = layout_.bodies;
  const bool has_Q = layout_.attitude >= 0;
  // m of every body: the stored body momentum, or m = Q^T pi for a spatial pi, which stays
  // fixed while Q moves with m (the m computed here is a temporary)
  double* m0 = y + layout_.angular_momentum;
  std::size_t m_stride = layout_.stride;
  if (layout_.spatial_momentum) {
    body_m_.resize(3 * n);
    for (std::size_t i = 0; i < n; ++i) {
      const double* b = y + i * layout_.stride;
      const double* Q = b + layout_.attitude;
      const double* pi = b + layout_.angular_momentum;
      for (int k = 0; k < 3; ++k) body_m_[3 * i + k] = Q[k] * pi[0] + Q[3 + k] * pi[1] + Q[6 + k] * pi[2];
    }
    m0 = body_m_.data();
    m_stride = 3;
  }
  auto Q_of = [&](std::size_t i) { return has_Q ? y + i * layout_.stride + layout_.attitude : nullptr; };
  if (rotor_ == Rotor::Planar) {
    // The five planar rotations of kRotorLanes bodies at a time, one body per vector lane
    // (planar_lanes): every body sees the operations of rotor() in the same order, so it gets
    // the same bits, and the bodies' chains (division, sin and cos, rotation) run side by side.
    const auto [seq, dt] = sequence(s);
    RotorLanes t{};
    for (std::size_t i0 = 0; i0 < n; i0 += kRotorLanes) {
      const std::size_t nb = std::min(kRotorLanes, n - i0);
      for (std::size_t l = 0; l < kRotorLanes; ++l) {  // padding lanes: zeros (theta = 0)
        const double* m = l < nb ? m0 + (i0 + l) * m_stride : nullptr;
        const double* Q = l < nb ? Q_of(i0 + l) : nullptr;
        for (int c = 0; c < 3; ++c) t.m[c][l] = m != nullptr ? m[c] : 0.0;
        for (int c = 0; c < 9; ++c) t.Q[c][l] = Q != nullptr ? Q[c] : 0.0;
      }
      planar_lanes(seq.data(), dt.data(), layout_.inertia.data(), has_Q, t);
      for (std::size_t l = 0; l < nb; ++l) {
        double* m = m0 + (i0 + l) * m_stride;
        for (int c = 0; c < 3; ++c) m[c] = t.m[c][l];
        if (double* Q = Q_of(i0 + l))
          for (int c = 0; c < 9; ++c) Q[c] = t.Q[c][l];
      }
    }
    return;
  }
  if (rotor_ == Rotor::Quaternion) {
    // Likewise the quaternion rotor: every body's (q, P), the five turns each over all bodies,
    // then every body's m and Q -- rotor()'s operations in the same order for every body (a turn
    // is a division and libm's sin and cos, latency that consecutive bodies now overlap).
    quaternion_rotors_.resize(n);
    for (std::size_t i = 0; i < n; ++i) quaternion_rotors_[i] = quaternion_begin(m0 + i * m_stride, Q_of(i));
    const auto [seq, dt] = sequence(s);
    for (int j = 0; j < 5; ++j)
      for (std::size_t i = 0; i < n; ++i) quaternion_turn(seq[j], dt[j], quaternion_rotors_[i]);
    for (std::size_t i = 0; i < n; ++i) quaternion_end(quaternion_rotors_[i], m0 + i * m_stride, Q_of(i));
    return;
  }
  for (std::size_t i = 0; i < n; ++i) rotor(s, m0 + i * m_stride, Q_of(i));
}

void RigidSplittingStepper::step(double t, double h, double* y) {
  ++counters_.steps;
  const bool potential = layout_.potential;
  if (potential && !forces_cached_for(y)) {
    forces(t, y);
    ++counters_.rhs;
  }
  if (potential) kick(0.5 * h, y);
  const double invM = 1.0 / layout_.mass;
  if (layout_.position >= 0)
    for (std::size_t i = 0; i < layout_.bodies; ++i) {
      double* b = y + i * layout_.stride;
      for (int k = 0; k < 3; ++k) b[layout_.position + k] += h * (b[layout_.momentum + k] * invM);
    }
  rotors(h, y);
  counters_.exp += rotor_ == Rotor::Exact ? 1 : 5;
  if (potential) {
    forces(t + h, y);
    ++counters_.rhs;
    kick(0.5 * h, y);
  }
}

// ---------------------------------------------------------------- registration
namespace {

MethodInfo splitting_info(const std::string& name, int exps, const std::string& desc, const std::string& source) {
  MethodInfo m;
  m.name = name;
  m.family = "splitting";
  m.order = 2;
  m.stages = 1;
  m.exps_per_step = exps;
  m.is_explicit = true;
  m.description = desc;
  m.source = source;
  m.needs = "rigid_bodies";
  m.time_symmetric = true;  // a symmetric (Strang) splitting of exact flows
  return m;
}

using Rotor = RigidSplittingStepper::Rotor;

MethodEntry splitting_entry(const MethodInfo& info, Rotor rotor, std::array<int, 3> axes) {
  return {info.name, info, [info, rotor, axes](const MethodOptions&) {
            return std::make_unique<RigidSplittingStepper>(info, rotor, axes);
          }};
}

}  // namespace

LIEBENCH_REGISTER(MethodEntry,
                  splitting_entry(splitting_info("dlm", 5,
                                                 "symplectic splitting for rigid bodies: kicks, drift, free rotor as "
                                                 "planar rotations R1 R2 R3 R2 R1 (rotation matrices); order 2, one "
                                                 "force evaluation per step",
                                                 "Dullweber, Leimkuhler & McLachlan, J. Chem. Phys. 107, 5840 (1997)"),
                                  Rotor::Planar, {0, 1, 2}))
LIEBENCH_REGISTER(MethodEntry,
                  splitting_entry(splitting_info("no_squish", 5,
                                                 "symplectic splitting for rigid bodies in quaternions and conjugate "
                                                 "momenta, rotor as LAMMPS fix rigid/nve (smallest moment's axis "
                                                 "outermost, largest in the middle); order 2, one force evaluation per "
                                                 "step",
                                                 "Miller et al., J. Chem. Phys. 116, 8649 (2002)"),
                                  Rotor::Quaternion, RigidSplittingStepper::kByMoments))
LIEBENCH_REGISTER(MethodEntry,
                  splitting_entry(splitting_info("rotor_exact", 1,
                                                 "symplectic splitting for rigid bodies with the exact free-rigid-body "
                                                 "flow (Jacobi elliptic functions); order 2, exact for V = 0",
                                                 "Celledoni, Fasso, Safstrom & Zanna, SIAM J. Sci. Comput. 30, 2084 "
                                                 "(2008)"),
                                  Rotor::Exact, {0, 1, 2}))

}  // namespace lie
