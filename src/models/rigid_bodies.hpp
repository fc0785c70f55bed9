#pragma once
// Extra structure of a system of rigid bodies with a separable Hamiltonian
//   H = sum_i |p_i|^2/(2M) + 1/2 m_i . I^-1 m_i + V(q, Q),
// for the rigid-body splitting methods (methods/rigid_splitting.hpp: DLM, NO_SQUISH, the exact
// free-rotor splitting): body i has a position q_i and linear momentum p_i (optional), an
// attitude Q_i in SO(3) (body to space, row-major; optional) and its body angular momentum m_i
// (or its spatial angular momentum pi_i = Q_i m_i, RigidBodyLayout::spatial_momentum);
// I = diag(I1, I2, I3) is the principal inertia in the body frame (the frame of Q's columns).
// The potential V depends on (q, Q) only; the model gives its forces F_i = -dV/dq_i and body
// torques tau_i = -rot(Q_i^T dV/dQ_i), so that the kick flow of V is p_i += h F_i,
// m_i += h tau_i with q and Q fixed, and the kinetic flows are the free drift and the free
// rigid body (Dullweber, Leimkuhler & McLachlan, J. Chem. Phys. 107, 5840 (1997), sec. II).
//
// A model exposing it sets ModelCapabilities::rigid_bodies and derives from this class (the
// stepper finds it with dynamic_cast). Arrays are local (this rank's bodies).
#include <array>
#include <cstddef>

namespace lie {

/// Where the parts of body i sit in the state array: y + i * stride + offset (-1: absent).
struct RigidBodyLayout {
  std::size_t bodies = 0;  // local bodies
  std::size_t stride = 0;  // doubles per body
  int position = -1;       // q (3)
  int momentum = -1;       // p (3)
  int attitude = -1;       // Q (9, row-major, body to space)
  int angular_momentum = -1;  // m (3, body frame), or pi = Q m (spatial frame) if spatial_momentum
  /// The state holds the spatial angular momentum pi = Q m (T*SO(3) right trivialised, e.g. the
  /// heavy top): the kick is pi += s Q tau, and the free rotor keeps pi (it is its invariant)
  /// while Q moves with m = Q^T pi. Needs the attitude.
  bool spatial_momentum = false;
  double mass = 1.0;
  std::array<double, 3> inertia{1.0, 1.0, 1.0};  // principal moments I1, I2, I3 > 0
  bool potential = true;   // false: V = 0 (free bodies, no force evaluation needed)
};

/// The fix named when a model (or a formulation) is no RigidBodySystem: the models that are.
inline constexpr const char* kRigidBodyModels =
    "use dipolar, free_rigid_body, or heavy_top with formulation = tstar_so3";

class RigidBodySystem {
 public:
  virtual ~RigidBodySystem() = default;
  virtual RigidBodyLayout rigid_body_layout() const = 0;
  /// F_i = -dV/dq_i and tau_i = -rot(Q_i^T dV/dQ_i) (3 values each per local body) at state y.
  /// One evaluation of the potential's derivatives: counted like a vector-field evaluation.
  /// Collective; bitwise the same for every ranks x threads layout where the model's vector
  /// field is.
  virtual void forces_and_torques(double t, const double* y, double* F, double* tau) = 0;
};

}  // namespace lie
