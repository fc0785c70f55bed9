#pragma once
// Extra structure of a Lagrangian system on (S^2)^n, [L] eq. (2):
//   L(q, q') = 1/2 sum_ij M_ij q_i'.q_j' - V(q),     M_ij scalars, M symmetric positive definite,
// with state (q_i, w_i) in TS^2, q_i' = w_i x q_i (the SE3OnTS2 factor layout: 6 doubles per
// sphere, q then w). The variational integrators of [L] 3 (methods of family `lgvi`) need it.
// A model exposing it sets ModelCapabilities::sphere_lagrangian and derives from this class
// (the stepper finds it with dynamic_cast).
//
// The implicit variational integrator solves dense 3n x 3n systems; it runs with all spheres on
// one rank (distributed runs are rejected with a clear message). The explicit one ([L] Corollary
// 3) updates each sphere from its own dV/dq_i: a model whose spheres are split over ranks
// (distributed_gradient() = true, sphere i local on the rank with global_offset() <= i <
// global_offset() + local count) provides local_potential_gradient, and lgvi_explicit runs
// distributed on it.
#include <cstddef>

namespace lie {

class SphereLagrangian {
 public:
  virtual ~SphereLagrangian() = default;
  /// Number of spheres n (global).
  virtual std::size_t sphere_count() const = 0;
  /// Inertia coefficient M_ij (symmetric).
  virtual double inertia(std::size_t i, std::size_t j) const = 0;
  /// True if M_ij = 0 for i != j: the explicit form of [L] Corollary 3 applies.
  virtual bool diagonal_inertia() const = 0;
  /// Potential V(q) with q = (q_1, ..., q_n) given as 3n doubles.
  virtual double potential(const double* q) const = 0;
  /// dV/dq_i (3n doubles), the Euclidean gradient in R^(3n).
  virtual void potential_gradient(const double* q, double* dVdq) const = 0;
  /// True if the spheres are split over ranks and local_potential_gradient is implemented.
  virtual bool distributed_gradient() const { return false; }
  /// dV/dq_i of this rank's spheres from their q_i (3 doubles each). Collective.
  virtual void local_potential_gradient(const double* q_local, double* dVdq_local) {}
};

}  // namespace lie
