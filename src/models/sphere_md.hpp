#pragma once
// Molecular dynamics on the sphere, [L] Example 6 (3.5): n molecules q_i in S^2 of mass m
// (M_ij = m delta_ij) under the Lennard-Jones potential of the chord distance, [L] (39):
//   V(q) = 1/2 sum_{i != j} 4 eps [(sigma/|q_i - q_j|)^12 - (sigma/|q_i - q_j|)^6],
//   dV/dq_i = sum_{j != i} 4 eps [6 sigma^6/r^8 - 12 sigma^12/r^14] (q_i - q_j),  r = |q_i - q_j|,
//   m w_i' = -q_i x dV/dq_i,  q_i' = w_i x q_i.
// Paper's run: 642 molecules "uniformly distributed", m = 1, eps = 0.01, sigma "such that the
// inter-molecular force between neighbouring molecules is close to zero", "two vortices separated
// by 30 degrees", T = 5, h = 0.005. The paper gives no construction; the suite's, exactly:
//   - positions: the 642 vertices of the icosahedron subdivided 3 times (icosphere.hpp, level 3);
//   - sigma = d_nn / 2^(1/6), d_nn the mean chord length of the 1920 edges of that mesh (the LJ
//     pair force vanishes at r = 2^(1/6) sigma): d_nn = 0.150730, sigma = 0.134285 (edges from
//     0.1383 to 0.1646; key sigma = 0: this rule);
//   - velocities: vortex k (k = 1, 2) about the axis a_k, a_{1,2} = (+-sin 15deg, 0, cos 15deg)
//     (30 degrees apart, symmetric about e3), both turning the same way:
//       w_i = sum_k Omega exp(-theta_ik^2 / (2 s^2)) a_k, theta_ik = angle(q_i, a_k),
//     then projected onto the tangent plane (w_i -= (w_i.q_i) q_i; q_i' = w_i x q_i unchanged),
//     Omega = 1 rad/s, s = 15 degrees (keys vortex_*).
// All pairs through the distributed pair machinery (sphere_pairs.hpp).
#include "models/sphere_pairs.hpp"

namespace lie {

struct SphereMdParameters {
  int level = 3;            // icosphere subdivisions: n = 10 4^level + 2
  double mass = 1.0;
  double epsilon = 0.01;
  double sigma = 0.0;       // 0: d_nn / 2^(1/6)
  double vortex_separation_deg = 30.0;
  double vortex_strength = 1.0;   // Omega [rad/s]
  double vortex_width_deg = 15.0; // s
};

class SphereMd final : public SpherePairModel {
 public:
  SphereMd(SphereMdParameters p, par::Context& ctx);
  using Options = SphereMdParameters;
  /// Reads the model's keys into its options: the entry's parse function (at the plan only).
  static Options parse(const Config& cfg);
  /// Builds the model from its options (ModelEntry::create).
  static std::unique_ptr<Model> create(const ModelOptions& options, par::Context& ctx);

  std::string name() const override { return "sphere_md"; }
  std::string particle_group() const override { return "molecules"; }
  std::vector<TrajectoryField> trajectory_fields() const override;
  void trajectory_field(const std::string& name, const double* y, double* out) const override;

  void pair_row(std::size_t gi, const double* q_all, double grad[3], double& energy) const override;
  /// V depends on the chord distances only: the angular momentum sum_i m q_i x q_i' is conserved
  /// (and by the variational integrator exactly, up to round-off: [L] 3.4, discrete Noether).
  bool rotation_invariant() const override { return true; }

  const SphereMdParameters& parameters() const { return p_; }
  double sigma() const { return sigma_; }
  /// Mean chord length of the edges of the initial mesh.
  double mean_neighbour_distance() const { return d_nn_; }

 private:
  SphereMdParameters p_;
  double sigma_ = 0.0, d_nn_ = 0.0;
};

}  // namespace lie
