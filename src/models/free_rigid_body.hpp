#pragma once
// Free rigid body [K] 3.1, [P] Example 1: Euler's equations for the body angular momentum
// m in so(3)* ~ R^3,  m' = m x w,  w = I^-1 m  ([K] eq. (3.1)), optionally with the attitude
// Q in SO(3), Q' = Q hat(w).
// Lie group formulation: SO(3) acts on m by rotation (factor so3_on_r3, generator xi x m), so
// f(m) = -I^-1 m; the attitude uses Q -> Q exp(xi) (factor so3_right) with f = w.
// Invariants: H = 1/2 m.I^-1 m ([K] eq. (3.3)) and the Casimir C = 1/2 |m|^2 ([K] eq. (3.2)).
#include <array>

#include "models/model.hpp"

namespace lie {

class FreeRigidBody final : public Model {
 public:
  FreeRigidBody(std::array<double, 3> inertia, std::array<double, 3> m0, bool attitude);
  static std::unique_ptr<Model> create(const Config& cfg, par::Context& ctx);

  std::string name() const override { return "free_rigid_body"; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return 1; }
  int state_dim_per_component() const override { return static_cast<int>(space_.state_size()); }
  void initial_state(double* y) const override;
  void vector_field(double t, const double* y, double* xi) override;
  void observables(double t, const double* y, Observables& out) override;
  std::vector<std::string> observable_names() const override;

  const std::array<double, 3>& inertia() const { return I_; }
  const std::array<double, 3>& initial_momentum() const { return m0_; }
  bool has_attitude() const { return attitude_; }

 private:
  std::array<double, 3> I_, m0_;
  bool attitude_;
  Space space_;
};

}  // namespace lie
