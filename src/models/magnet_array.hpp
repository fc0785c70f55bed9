#pragma once
// Spatial array of magnetic dipoles, [L] Example 5 (3.5): n thin rod magnets (mass m, length l,
// dipole moment nu q_i, q_i in S^2 the direction of the north pole) on frictionless pivots at the
// nodes of a planar rows x cols grid of spacing a (the paper: 4 x 4, a = 1.2 l). M_ij = m l^2/12
// delta_ij and, with r_ij = p_j - p_i the vector between pivots, [L] (37)-(38):
//   V(q) = 1/2 sum_{i != j} mu nu^2 / (4 pi |r_ij|^3) [q_i.q_j - 3 (q_i.r_ij)(q_j.r_ij)/|r_ij|^2],
//   dV/dq_i = sum_{j != i} mu nu^2 / (4 pi |r_ij|^3) [q_j - 3 r_ij (q_j.r_ij)/|r_ij|^2],
//   m l^2/12 w_i' = -q_i x dV/dq_i,  q_i' = w_i x q_i.
// Pivot of magnet i (0-based, row-major: i = row cols + col) at a (col, row, 0): the grid lies in
// the e1-e2 plane (the suite's choice: [L] says "a plane"), magnet 1 of [L] is i = 0 and magnet 16
// is i = 15 (the opposite corner).
// Paper's parameters: m = 0.05 kg, l = 0.02 m, nu = 0.1 A m^2, mu = 4 pi 1e-7 N/A^2. Initial
// state: q_i = e1, w_i = 0, except q_16 = (0.3536, 0.3536, -0.8660) -- printed rounded; we use the
// unit vector it rounds, (sqrt(2)/4, sqrt(2)/4, -sqrt(3)/2) -- and w_1 = (0, 0.5, 0) rad/s
// (tangent: w_1.q_1 = 0). For other grid sizes the same rule: the last magnet tilted, the first
// one spinning.
//
// All pairs through the distributed pair machinery (sphere_pairs.hpp): bitwise identical on every
// ranks x threads layout; grows to 64 x 64 on a cluster.
#include "models/sphere_pairs.hpp"

namespace lie {

struct MagnetArrayParameters {
  std::size_t rows = 4, cols = 4;
  double mass = 0.05;         // m [kg]
  double length = 0.02;       // l [m]
  double spacing = 1.2;       // grid edge in units of l
  double moment = 0.1;        // nu [A m^2]
  double permeability = 4e-7 * 3.14159265358979323846;  // mu [N/A^2]
};

class MagnetArray final : public SpherePairModel {
 public:
  MagnetArray(MagnetArrayParameters p, par::Context& ctx);
  using Options = MagnetArrayParameters;
  /// Reads the model's keys into its options: the entry's parse function (at the plan only).
  static Options parse(const Config& cfg);
  /// Builds the model from its options (ModelEntry::create).
  static std::unique_ptr<Model> create(const ModelOptions& options, par::Context& ctx);

  std::string name() const override { return "magnet_array"; }
  std::string particle_group() const override { return "magnets"; }
  std::vector<TrajectoryField> trajectory_fields() const override;
  void trajectory_field(const std::string& name, const double* y, double* out) const override;

  void pair_row(std::size_t gi, const double* q_all, double grad[3], double& energy) const override;

  const MagnetArrayParameters& parameters() const { return p_; }
  /// Pivot p_i (global index).
  Vec3 pivot(std::size_t i) const;

 private:
  MagnetArrayParameters p_;
  double coupling_;  // mu nu^2 / (4 pi)
};

}  // namespace lie
