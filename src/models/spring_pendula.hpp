#pragma once
// Four spherical pendula joined by linear springs, [L] Example 3 (3.5): pendulum i hangs from a
// pivot p_i in the horizontal plane, q_i in S^2 points from the pivot to the bob (mass m_i,
// massless link of length l_i), and the springs of Xi = {(1,2), (2,3), (3,4), (4,1)} connect
// the midpoints of the links. e3 is the direction of gravity, so
//   M_ij = m_i l_i^2 delta_ij,
//   V(q) = -sum_i m_i g l_i q_i.e3 + sum_{(i,j) in Xi} kappa_ij/2 (|r_ij + l_j q_j/2 - l_i q_i/2| - |r_ij|)^2,
// r_ij = p_j - p_i, with r_12 = -r_34 = l e1 and r_23 = -r_41 = -l e2 (pivots on a square of
// side l). Parameters of [L]: m_i = 0.1 kg, l_i = 0.1 m, kappa = (10, 20, 30, 40) N/m (the paper
// prints all four as "kappa_12", a typo; and "e1 = [0, 0, 1]" stands for e1 = [1, 0, 0]).
// g is not stated there; we use 9.81 m/s^2 (as in [L] Example 1). Initial state of [L]:
// q1 = q2 = q4 = e3, q3 = (0.4698, 0.1710, 0.8660) (normalised here: |q3| = 1 - 4.5e-5 as
// printed), w1 = (-10, 4, 0), w2 = w3 = w4 = 0.
//
// Lie group formulation ([L] eqs. (34)-(35)): (q_i, w_i) in TS^2 with the SE(3) action of
// factor se3_on_ts2; f_i = (w_i, dV/dq_i / M_ii), since psi_*(u, v)|(q, w) = (u x q, u x w + v x q)
// gives q' = w x q and w' = -q x dV/dq / M_ii. Implements SphereLagrangian (lgvi, lgvi_explicit).
// The four pendula are owned by rank 0 (root_owned.hpp).
//
// Classical baselines (rk2, rk2_proj, rk4, dopri54, ...) integrate Model::ambient_field =
// psi_*(f(y)) in R^24: q_i' = w_i x q_i, w_i' = -q_i x dV/dq_i / (m_i l_i^2), with dV/dq_i the
// gradient of the V above written for any q (|q_i| != 1 too). This is literally [L] eqs. (34)-(35),
// the equations [L] integrates with its RK2 and RK2-with-reprojection baselines (Fig. 3), so no
// separate formulation is needed.
#include <array>

#include "groups/so3.hpp"
#include "models/model.hpp"
#include "models/root_owned.hpp"
#include "models/sphere_lagrangian.hpp"

namespace lie {

struct SpringPendulaParameters {
  static constexpr std::size_t n = 4;
  double mass = 0.1;      // m_i [kg]
  double length = 0.1;    // l_i [m]
  double gravity = 9.81;  // g [m/s^2]
  std::array<double, n> stiffness{10.0, 20.0, 30.0, 40.0};  // kappa_12, kappa_23, kappa_34, kappa_41 [N/m]
  std::array<Vec3, n> q0{Vec3(0, 0, 1), Vec3(0, 0, 1), Vec3(0.4698, 0.1710, 0.8660).normalized(), Vec3(0, 0, 1)};
  std::array<Vec3, n> w0{Vec3(-10, 4, 0), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
};

class SpringPendula final : public Model, public SphereLagrangian {
 public:
  SpringPendula(SpringPendulaParameters p, const par::Context* ctx = nullptr);
  using Options = SpringPendulaParameters;
  /// Reads the model's keys into its options: the entry's parse function (at the plan only).
  static Options parse(const Config& cfg);
  /// Builds the model from its options (ModelEntry::create).
  static std::unique_ptr<Model> create(const ModelOptions& options, par::Context& ctx);

  // Model
  std::string name() const override { return "spring_pendula"; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return SpringPendulaParameters::n; }
  int state_dim_per_component() const override { return 6; }
  void initial_state(double* y) const override;
  void vector_field(double t, const double* y, double* xi) override;
  void observables(double t, const double* y, Observables& out) override;
  std::vector<std::string> observable_names() const override;
  ModelCapabilities capabilities() const override;
  std::vector<TrajectoryField> trajectory_fields() const override;
  void trajectory_field(const std::string& name, const double* y, double* out) const override;
  std::string particle_group() const override { return "pendula"; }

  // SphereLagrangian
  std::size_t sphere_count() const override { return SpringPendulaParameters::n; }
  double inertia(std::size_t i, std::size_t j) const override;
  bool diagonal_inertia() const override { return true; }
  double potential(const double* q) const override;
  void potential_gradient(const double* q, double* dVdq) const override;

  const SpringPendulaParameters& parameters() const { return p_; }
  /// Pivot p_i and spring (i, j = i+1 mod 4) data.
  Vec3 pivot(std::size_t i) const { return pivots_[i]; }

 private:
  SpringPendulaParameters p_;
  RootOwned owner_;
  Space space_;
  std::array<Vec3, SpringPendulaParameters::n> pivots_;
};

}  // namespace lie
