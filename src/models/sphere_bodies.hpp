#pragma once
// n point masses on the unit sphere under the "gravitational" potential of [L] Example 2 (3.5),
// introduced in [L]'s ref. [9] as the analogue of Newton's potential on S^2:
//   M_ij = m_i delta_ij,
//   V(q) = -gamma/2 sum_{i != j} (q_i.q_j) / sqrt(1 - (q_i.q_j)^2),
//   dV/dq_i = -gamma sum_{j != i} q_j / (1 - (q_i.q_j)^2)^(3/2)        (Euclidean gradient in R^3n).
// [L] eq. (33): m_i q_i'' = -m_i (q_i'.q_i') q_i - q_i x (q_i x gamma sum_{j != i} q_j / (1 - (q_i.q_j)^2)^(3/2)).
// Paper's run: n = 3, m_i = 1, gamma = 1, q1 = (0, -1, 0), q2 = (0, 0, 1), q3 = (-1, 0, 0),
// w1 = (0, 0, -1.1), w2 = (1, 0, 0), w3 = (0, 1, 0), T = 10 (sphere_bodies.initial = paper).
// V is rotation invariant, so the total angular momentum sum_i m_i q_i x q_i' = sum_i m_i w_i
// (w_i . q_i = 0) is conserved (observables angular_momentum_{x,y,z}).
//
// Lie group formulation: (q_i, w_i) in TS^2, factor se3_on_ts2, f_i = (w_i, dV/dq_i / m_i):
// q_i' = w_i x q_i, w_i' = -q_i x dV/dq_i / m_i, i.e. [L] (9)-(10) with diagonal inertia.
// Implements SphereLagrangian (lgvi, and lgvi_explicit: [L] (29)-(30), the paper's VI here).
// All bodies are owned by rank 0 (root_owned.hpp).
//
// Formulations (key sphere_bodies.formulation):
//   angular_velocity (default): state (q_i, w_i) in TS^2, factor se3_on_ts2, every method. The
//     classical baselines (rk2, rk4, dopri54, ...) then integrate Model::ambient_field =
//     psi_*(f(y)) in R^6n: q_i' = w_i x q_i, w_i' = -q_i x dV/dq_i / m_i at any q, [L] (9)-(10).
//   second_order: state (q_i, q_i') in R^6n (two r3 factors per body, translations), f = (q', q'')
//     with q'' from [L] (33) at any q: the equations [L]'s RK2 comparison integrates. Classical
//     methods only (the variational integrators refuse it; projection is a no-op there).
//   On T(S^2)^n both are the same vector field; off it they are different extensions, and RK2
//   differs a lot: on the paper's run (h = 1e-3) Heun on (33) has a 10x larger energy error and
//   a ~500x larger unit-length error than Heun on (9)-(10) (tests/unit/test_sphere_bodies.cpp).
// Measured there: lgvi_explicit's max_k |E_k - E_0|/|E_0| over T = 10 is 1.1836e-4 (h = 1e-3) and
// 1.1837e-6 (h = 1e-4), [L]'s 1.1717e-4 and 1.1986e-6. At a collision or an antipodal pair V is
// singular: the field is inf/NaN there and the study reports the run 'nonfinite'.
#include <vector>

#include "groups/so3.hpp"
#include "models/model.hpp"
#include "models/root_owned.hpp"
#include "models/sphere_lagrangian.hpp"

namespace lie {

struct SphereBodiesParameters {
  enum class Formulation { AngularVelocity, SecondOrder };
  Formulation formulation = Formulation::AngularVelocity;
  std::size_t n = 3;
  std::vector<double> mass{1.0, 1.0, 1.0};  // m_i
  double gamma = 1.0;                       // strength of the potential
  std::vector<Vec3> q0{Vec3(0, -1, 0), Vec3(0, 0, 1), Vec3(-1, 0, 0)};
  std::vector<Vec3> w0{Vec3(0, 0, -1.1), Vec3(1, 0, 0), Vec3(0, 1, 0)};
};

class SphereBodies final : public Model, public SphereLagrangian {
 public:
  explicit SphereBodies(SphereBodiesParameters p, const par::Context* ctx = nullptr);
  using Options = SphereBodiesParameters;
  /// Reads the model's keys into its options: the entry's parse function (at the plan only).
  static Options parse(const Config& cfg);
  /// Builds the model from its options (ModelEntry::create).
  static std::unique_ptr<Model> create(const ModelOptions& options, par::Context& ctx);

  // Model
  std::string name() const override { return "sphere_bodies"; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return p_.n; }
  int state_dim_per_component() const override { return 6; }
  void initial_state(double* y) const override;
  void vector_field(double t, const double* y, double* xi) override;
  void observables(double t, const double* y, Observables& out) override;
  std::vector<std::string> observable_names() const override;
  ModelCapabilities capabilities() const override;
  std::vector<TrajectoryField> trajectory_fields() const override;
  void trajectory_field(const std::string& name, const double* y, double* out) const override;
  std::string particle_group() const override { return "bodies"; }

  // SphereLagrangian
  std::size_t sphere_count() const override { return p_.n; }
  double inertia(std::size_t i, std::size_t j) const override { return i == j ? p_.mass[i] : 0.0; }
  bool diagonal_inertia() const override { return true; }
  double potential(const double* q) const override;
  void potential_gradient(const double* q, double* dVdq) const override;

  const SphereBodiesParameters& parameters() const { return p_; }
  /// q_i'' of [L] (33) at (q, q') (any q), 3n values.
  void paper_accelerations(const double* q, const double* qdot, double* qddot);

 private:
  SphereBodiesParameters p_;
  RootOwned owner_;
  Space space_;
  std::vector<double> q_, dV_;  // scratch: directions and gradient (3n)
};

}  // namespace lie
