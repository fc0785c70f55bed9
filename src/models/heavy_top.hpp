#pragma once
// Heavy top [P] 3.4: a rigid body with a fixed point in a uniform gravitational field, in the
// three formulations of [P] (key heavy_top.formulation):
//
//   tstar_so3   (Q, pi) on T*SO(3) right trivialised, spatial momentum pi = Q Pi, eqs. (21)-(22);
//               factor tstar_so3_right, f = (dH/dpi, -R_Q^* dH/dQ) of eq. (14):
//                 f1 = w = Q I^-1 Q^T pi,   f2 = pi x w + M l Gamma0 x Q X.
//   lie_poisson (Pi, Gamma) on se(3)*, eqs. (23)-(24); factor se3_coadjoint (coadjoint action),
//                 f = -(dH/dPi, dH/dGamma) = (-I^-1 Pi, -M l X).
//   quadratic   (Q, pi, q, p) on T*(SO(3) x R^3), eqs. (29)-(32); factors tstar_so3_right x r3 x r3,
//                 H = 1/2 Pi.I^-1 Pi + 1/2 |p - Q^T Gamma0|^2 - 1/2 |Q^T Gamma0|^2,
//                 f1 = (w, p - Q^T Gamma0),   f2 = (pi x w - Gamma0 x Q p, 0),
//               with p(0) = -M l X (then p' = 0) and q(0) = 0.
//
// Convention for gravity (documented decision). [P] writes H = 1/2 Pi.I^-1 Pi + M g l Gamma.X,
// Gamma = Q^-1 Gamma0, with g a scalar and Gamma0 the unit vector "pointing upwards", while the
// test data of [P] 3.4.4 give Gamma0 = (0, 0, -9.81). We read the data vector as the product
// g Gamma0 of [P]: every formula above uses Gamma0 := (g Gamma0)_[P] = (0, 0, -9.81) and M l in
// place of M g l, so that all three formulations are the same physical system with potential
// energy U = M l Gamma0 . (Q X). In these data "up" is therefore -z (the gravitational
// acceleration is +9.81 e_z). Check of this reading: the top spins about its symmetry axis X
// (I = diag(a, 2a, a)) with w_y = 150, and the gyroscopic steady precession for this U is
// w_z = -M l |Gamma0| / (I_2 w_y) = -4.19, close to the data's -4.61538 (the opposite reading
// gives +4.19, far from the data). The quadratic formulation holds p = -M l X and its
// Hamiltonian exceeds the physical energy by the constant |p|^2/2.
//
// Observables (every formulation, from (Pi, Gamma) = (Q^T pi, Q^T Gamma0) or the state):
//   total_energy = 1/2 Pi.I^-1 Pi + M l Gamma.X (quadratic: 1/2 Pi.I^-1 Pi - p.Gamma),
//   casimir_gamma_norm = |Gamma|, casimir_pi_dot_gamma = Pi.Gamma (Casimirs of se(3)*; on T*SO(3)
//   Pi.Gamma = pi.Gamma0 is the momentum of the rotations about Gamma0), orthogonality_error.
// Rigid-body splittings (RigidBodySystem, models/rigid_bodies.hpp; formulation tstar_so3 only):
// one body with a fixed point (no translation), principal inertia diag(I) in the body frame, the
// state's pi = Q Pi spatial (RigidBodyLayout::spatial_momentum), V(Q) = M l Gamma0 . (Q X). Its
// body torque, -rot(Q^T dV/dQ) (d/de V(Q exp(e hat(eta))) = M l eta . (X x Gamma)), is
//   tau = M l Gamma x X,  Gamma = Q^T Gamma0,
// so Q tau = M l Gamma0 x Q X: the potential's part of pi' in tstar_so3 (f2 + f1 x pi above) and of
// Pi' in eq. (23). lie_poisson carries no attitude, and quadratic's H is not separable (its
// potential part -p . Q^T Gamma0 moves q and depends on the momentum p): both refuse.
// The top is one component, owned by rank 0 (root_owned.hpp).
// Classical baselines integrate Model::ambient_field = psi_*(f(y)) of the chosen formulation in
// the embedding space (Q in R^{3x3}; lie_poisson: (Pi, Gamma) in R^6, where psi_*(f) is exactly
// eqs. (23)-(24) for any (Pi, Gamma)). [P] 3.4 and Figs 2-3 compare Lie group (SLGI) methods only
// and give no classical baseline for the heavy top: the embedded equations are the suite's choice.
#include <array>

#include "groups/so3.hpp"
#include "models/cotangent_hamiltonian.hpp"
#include "models/model.hpp"
#include "models/rigid_bodies.hpp"
#include "models/root_owned.hpp"

namespace lie {

enum class HeavyTopFormulation { TstarSO3, LiePoisson, Quadratic };

struct HeavyTopParameters {
  double mass = 15.0;    // M
  double length = 2.0;   // l, fixed point to centre of mass
  Vec3 inertia = Vec3(0.234375, 0.46875, 0.234375);  // diagonal body inertia
  Vec3 com_direction = Vec3(0.0, 1.0, 0.0);          // X, body-fixed unit vector
  Vec3 gamma0 = Vec3(0.0, 0.0, -9.81);               // g Gamma0 of [P], spatial
  Mat3 attitude0 = Mat3::Identity();                 // Q(0)
  Vec3 omega0 = Vec3(0.0, 150.0, -4.61538);          // body angular velocity; pi(0) = Q(0) I omega0
};

class HeavyTop final : public Model, public CotangentHamiltonian, public RigidBodySystem {
 public:
  HeavyTop(HeavyTopParameters p, HeavyTopFormulation f, const par::Context* ctx = nullptr);
  /// The model's parameters and formulation (keys heavy_top.*).
  struct Options {
    HeavyTopParameters parameters;
    HeavyTopFormulation formulation = HeavyTopFormulation::TstarSO3;
  };
  /// Reads the model's keys into its options: the entry's parse function (at the plan only).
  static Options parse(const Config& cfg);
  /// Builds the model from its options (ModelEntry::create).
  static std::unique_ptr<Model> create(const ModelOptions& options, par::Context& ctx);

  std::string name() const override { return "heavy_top"; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return 1; }
  int state_dim_per_component() const override { return state_dim_; }
  void initial_state(double* y) const override;
  void vector_field(double t, const double* y, double* xi) override;
  void observables(double t, const double* y, Observables& out) override;
  std::vector<std::string> observable_names() const override;
  ModelCapabilities capabilities() const override;
  std::vector<TrajectoryField> trajectory_fields() const override;
  void trajectory_field(const std::string& name, const double* y, double* out) const override;
  std::string particle_group() const override { return "top"; }

  // CotangentHamiltonian (formulations tstar_so3 and quadratic)
  CotangentGroup cotangent_group() const override;
  void split_state(const double* y, double* g, double* mu) const override;
  void join_state(const double* g, const double* mu, double* y) const override;
  void hamiltonian_map(double t, const double* g, const double* mu, double* f1, double* f2) override;
  double hamiltonian(const double* g, const double* mu) override;

  // RigidBodySystem (formulation tstar_so3): tau = M l Gamma x X
  RigidBodyLayout rigid_body_layout() const override;
  void forces_and_torques(double t, const double* y, double* F, double* tau) override;

  HeavyTopFormulation formulation() const { return form_; }
  const HeavyTopParameters& parameters() const { return p_; }
  /// Body momentum Pi and body gravity vector Gamma = Q^T Gamma0 of a state (any formulation);
  /// the common coordinates in which the formulations are compared.
  void body_variables(const double* y, Vec3& Pi, Vec3& Gamma) const;
  /// Physical energy 1/2 Pi.I^-1 Pi + M l Gamma.X of a state.
  double energy(const double* y) const;
  /// Q of a state (formulations tstar_so3, quadratic).
  Mat3 attitude(const double* y) const;

 private:
  Vec3 inv_inertia(const Vec3& v) const { return v.cwiseQuotient(p_.inertia); }
  void check_cotangent() const;
  void check_rigid_body() const;

  HeavyTopParameters p_;
  HeavyTopFormulation form_;
  RootOwned owner_;
  Space space_;
  int state_dim_ = 0;
  double Ml_ = 0.0;
};

}  // namespace lie
