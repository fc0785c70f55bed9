#pragma once
// Pure bending of an elastic rod, [L] Example 4 (3.5): n + 1 rigid elements joined by
// rotational springs, element 0 clamped to a wall along the fixed direction q_0, elements
// 1..n free, q_i in S^2 the direction of element i. Total mass m and length l; every element
// has m_e = m/(n+1), l_e = l/(n+1). e3 points along gravity.
//   Inertia (elastic_rod.inertia = printed, the default: [L]'s formula as printed, which is
//   what its eq. (36) shows):
//     M_ii = 1/3 m_i l_i^2 + sum_{k=i+1}^n m_i l_i^2,   M_ij = sum_{k=max(i,j)}^n 1/2 m_k l_k^2  (i != j);
//   with equal elements M_ii = (n - i + 1/3) m_e l_e^2, M_ij = (n - max(i,j) + 1)/2 m_e l_e^2.
//   (elastic_rod.inertia = physical: the kinetic energy of the chain of uniform rods,
//   M_ij = (m_j/2 + sum_{k>j} m_k) l_i l_j for i < j; same diagonal. It differs from the printed
//   M_ij for n > 2, e.g. M_12 = (n - 3/2) m_e l_e^2 instead of (n - 1)/2 m_e l_e^2.)
//   V(q) = -sum_i m_i g (sum_{j<i} l_j q_j + l_i q_i / 2).e3 + sum_i kappa_i/2 (1 - q_{i-1}.q_i)^2.
// Paper's run: n = 10, m = 0.055 kg, l = 1.1 m, kappa_i = 1000 Nm, q_i(0) = e1 (horizontal,
// [L] prints "e1 = [0, 0, 1]", a typo for [1, 0, 0]), w_5(0) = (0, 0, 10) rad/s, the others 0,
// T = 3, h = 1e-4. [L] gives neither g nor q_0: we take g = 9.81 m/s^2 (as [L] Example 1) and
// q_0 = e1 (the rod starts straight and unstressed).
//
// Lie group formulation: (q_i, w_i) in TS^2, factor se3_on_ts2; f_i = (w_i, q_i x w_i') with
// w' the solution of [L] (11) (dense 3n x 3n system: A_ii = M_ii I, A_ij = -M_ij q^_i q^_j,
// b_i = sum_{j != i} M_ij |w_j|^2 q_i x q_j - q_i x dV/dq_i), so that q' = w x q, w' = w'.
// Implements SphereLagrangian: the implicit variational integrator lgvi ([L] (22)-(28), the
// paper's VI here; M is not diagonal, so lgvi_explicit refuses it). Owned by rank 0.
//
// Formulations (key elastic_rod.formulation):
//   angular_velocity (default): state (q_i, w_i), every method. Classical baselines (rk2, rk4,
//     dopri54, ...) integrate [L] (10)-(11) literally in R^6n: q_i' = w_i x q_i and w' from the
//     system (11) evaluated at the (not unit) stage q.
//   second_order: state (q_i, q_i') in R^6n (two r3 factors per element, translations),
//     f = (q', q'') with q'' from [L] (36) at any q -- the equations [L]'s RK45 comparison
//     integrates: blocks M_ii I on the diagonal, -M_ij q^_i q^_i off it (as printed; this is (8)),
//     right-hand side -M_ii (q_i'.q_i') q_i + q^_i^2 dV/dq_i. Classical methods only.
//   On T(S^2)^n the two are the same vector field, off it different extensions.
// Measured (tests/unit/test_elastic_rod.cpp, results/tables/L_ex4_*): with the printed M, lgvi at
// h = 1e-4 gives a mean |E_k - E_0| of 1.333e-6 Nm over T = 3 ([L]: 1.4310e-6). A singular
// inertia system gives a non-finite field (the study reports 'nonfinite'; no throw on rank 0 alone).
#include <Eigen/Core>
#include <vector>

#include "groups/so3.hpp"
#include "models/model.hpp"
#include "models/root_owned.hpp"
#include "models/sphere_lagrangian.hpp"

namespace lie {

struct ElasticRodParameters {
  enum class Inertia { Printed, Physical };
  enum class Formulation { AngularVelocity, SecondOrder };
  Formulation formulation = Formulation::AngularVelocity;
  std::size_t n = 10;        // free elements (n + 1 with the clamped one)
  double mass = 0.055;       // m, total [kg]
  double length = 1.1;       // l, total [m]
  double stiffness = 1000.0; // kappa_i [Nm]
  double gravity = 9.81;     // g [m/s^2]
  Vec3 wall{1, 0, 0};        // q_0
  Inertia inertia = Inertia::Printed;
  std::vector<Vec3> q0, w0;  // empty: [L]'s state (q_i = e1, w_5 = (0, 0, 10))
};

class ElasticRod final : public Model, public SphereLagrangian {
 public:
  explicit ElasticRod(ElasticRodParameters p, const par::Context* ctx = nullptr);
  using Options = ElasticRodParameters;
  /// Reads the model's keys into its options: the entry's parse function (at the plan only).
  static Options parse(const Config& cfg);
  /// Builds the model from its options (ModelEntry::create).
  static std::unique_ptr<Model> create(const ModelOptions& options, par::Context& ctx);

  // Model
  std::string name() const override { return "elastic_rod"; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return p_.n; }
  int state_dim_per_component() const override { return 6; }
  void initial_state(double* y) const override;
  void vector_field(double t, const double* y, double* xi) override;
  void ambient_field(double t, const double* y, double* dy) override;
  void observables(double t, const double* y, Observables& out) override;
  std::vector<std::string> observable_names() const override;
  ModelCapabilities capabilities() const override;
  std::vector<TrajectoryField> trajectory_fields() const override;
  void trajectory_field(const std::string& name, const double* y, double* out) const override;
  std::string particle_group() const override { return "elements"; }

  // SphereLagrangian
  std::size_t sphere_count() const override { return p_.n; }
  double inertia(std::size_t i, std::size_t j) const override { return M_(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)); }
  bool diagonal_inertia() const override { return false; }
  double potential(const double* q) const override;
  void potential_gradient(const double* q, double* dVdq) const override;

  const ElasticRodParameters& parameters() const { return p_; }
  const Eigen::MatrixXd& inertia_matrix() const { return M_; }
  /// q'' of [L] (36) at (q, q') (any q), 3n values.
  void paper_accelerations(const double* q, const double* qdot, double* qddot);
  /// w' of [L] (11) at (q, w) (any q), 3n values.
  void angular_accelerations(const double* y, double* dw);

 private:
  ElasticRodParameters p_;
  RootOwned owner_;
  Space space_;
  Eigen::MatrixXd M_;                // n x n
  Eigen::MatrixXd A_;                // 3n x 3n scratch
  Eigen::VectorXd b_, dw_;           // 3n scratch
  std::vector<double> q_, dV_;       // 3n scratch
};

}  // namespace lie
