#pragma once
// Free rigid body [K] 3.1, [P] Example 1: Euler's equations for the body angular momentum
// m in so(3)* ~ R^3,  m' = m x w,  w = I^-1 m  ([K] eq. (3.1)), optionally with the attitude
// Q in SO(3) (body to space), Q' = Q hat(w).
// Lie group formulation: SO(3) acts on m by rotation (factor so3_on_r3, generator xi x m), so
// f(m) = -I^-1 m; the attitude uses Q -> Q exp(xi) (factor so3_right) with f = w.
// Invariants: H = 1/2 m.I^-1 m ([K] eq. (3.3)) and the Casimir C = 1/2 |m|^2 ([K] eq. (3.2));
// with the attitude also the spatial angular momentum pi = Q m.
//
// Exact solution (RigidBodyExact below): Jacobi elliptic functions for m(t), and for Q(t) the
// classical reduction to one angle about the fixed spatial momentum, an elliptic integral of
// the third kind (Boost.Math). The body is a single component, owned by rank 0 (root_owned.hpp).
//
// Classical baselines integrate Model::ambient_field = psi_*(f(y)) in R^3 (x R^9): Euler's
// equations m' = m x I^-1 m exactly as [K] eq. (3.1) (a vector field on R^3: no extension is
// involved) and Q' = Q hat(I^-1 m) for Q in R^{3x3}. [K] and [P] use no classical baseline for
// this model; it is the suite's choice.
#include <array>

#include "groups/so3.hpp"
#include "models/model.hpp"
#include "models/rigid_bodies.hpp"
#include "models/root_owned.hpp"

namespace lie {

/// Exact flow of the free rigid body from (m0, Q0), for any positive inertia (any order,
/// equal moments allowed), both regimes (rotation about the smallest- or the largest-inertia
/// axis, i.e. energy above or below the middle-axis separatrix), the separatrix itself and
/// the relative equilibria.
///
/// Method (Landau-Lifshitz, Mechanics, sec. 37, rewritten without cancellation): the axes are
/// mapped by a signed permutation P (det P = +1, so Euler's equations keep their form) to a
/// canonical frame with I1 <= I2 <= I3 in which the component that never changes sign (m3
/// below the separatrix, m1 above) is positive. With C2 = |m|^2, E2 = 2H and
///   D1 = C2 - E2 I1 = m2^2 (I2-I1)/I2 + m3^2 (I3-I1)/I3 >= 0,
///   D3 = E2 I3 - C2 = m1^2 (I3-I1)/I1 + m2^2 (I3-I2)/I2 >= 0,
///   S  = C2 - E2 I2 = m3^2 (I3-I2)/I3 - m1^2 (I2-I1)/I1     (regime indicator),
/// the solution is m = (A1 cn u, A2 sn u, A3 dn u) for S > 0 and m = (A1 dn u, A2 sn u, A3 cn u)
/// for S < 0, u = u0 + lambda t, u0 = F(phi0, k); S = 0 is the separatrix (k = 1).
/// Attitude: with A(t) the rotation taking m(t) to |m| e_z built from the two non-polar
/// components, Q(t) = Q0 A(0)^T R_z(psi(t)) A(t), where
///   psi' = L (m_a^2/I_a + m_b^2/I_b) / (m_a^2 + m_b^2)      (a, b the non-polar axes)
/// integrates in closed form to L t / I_p + c [Pi(n; am u, k) - Pi(n; am u0, k)].
class RigidBodyExact {
 public:
  RigidBodyExact(const std::array<double, 3>& inertia, const Vec3& m0, const Mat3& Q0 = Mat3::Identity());

  Vec3 momentum(double t) const;
  Mat3 attitude(double t) const;
  /// psi(t) - psi(0): the rotation angle about the spatial angular momentum (closed form).
  double precession_angle(double t) const;
  /// psi'(t) = L (m_a^2/I_a + m_b^2/I_b)/(m_a^2 + m_b^2), for checks of precession_angle().
  double precession_rate(double t) const;

  enum class Regime { Equilibrium, AboutLargestAxis, AboutSmallestAxis, Separatrix };
  Regime regime() const { return regime_; }
  double modulus() const { return k_; }

 private:
  Vec3 canonical_momentum(double t) const;
  Mat3 frame(const Vec3& mc) const;  // A: rows (r1, r2, m/L) in the canonical frame
  double amplitude(double u) const;  // am(u) continued over all periods
  double pi3(double phi) const;      // Pi(n; phi, k) for any real phi

  std::array<double, 3> I_orig_;
  Vec3 m0_;
  Mat3 Q0_;
  Regime regime_ = Regime::Equilibrium;
  // canonical frame: mc[c] = sign_[c] * m[perm_[c]], I_[c] = inertia[perm_[c]]
  std::array<int, 3> perm_{0, 1, 2};
  std::array<double, 3> sign_{1.0, 1.0, 1.0};
  std::array<double, 3> I_{};
  std::array<double, 3> A_{};  // amplitudes of the canonical components
  int cn_axis_ = 0, sn_axis_ = 1, pole_ = 2;
  int axis_a_ = 0, axis_b_ = 1;  // (a, b, pole) cyclic
  double L_ = 0.0, lambda_ = 0.0, k_ = 0.0, u0_ = 0.0;
  double K_ = 0.0, n_ = 0.0, pi_complete_ = 0.0, pi_u0_ = 0.0, psi_linear_ = 0.0, psi_elliptic_ = 0.0;
  Mat3 Qc0_A0T_ = Mat3::Identity();  // Q0 P^T A(0)^T
  Vec3 w0_ = Vec3::Zero();           // equilibria: constant body angular velocity
};

class FreeRigidBody final : public Model, public RigidBodySystem {
 public:
  /// ctx: nullptr for a serial model; otherwise rank 0 owns the body (root_owned.hpp).
  FreeRigidBody(std::array<double, 3> inertia, std::array<double, 3> m0, bool attitude,
                const par::Context* ctx = nullptr);
  /// The model's parameters (keys free_rigid_body.*).
  struct Options {
    std::array<double, 3> inertia{};
    std::array<double, 3> m0{};
    bool attitude = false;
  };
  /// Reads the model's keys into its options: the entry's parse function (at the plan only).
  static Options parse(const Config& cfg);
  /// Builds the model from its options (ModelEntry::create).
  static std::unique_ptr<Model> create(const ModelOptions& options, par::Context& ctx);

  std::string name() const override { return "free_rigid_body"; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return 1; }
  int state_dim_per_component() const override { return attitude_ ? 12 : 3; }
  void initial_state(double* y) const override;
  void vector_field(double t, const double* y, double* xi) override;
  void observables(double t, const double* y, Observables& out) override;
  std::vector<std::string> observable_names() const override;
  ModelCapabilities capabilities() const override;
  /// y(t) of the solution with y(0) = initial_state() (local part).
  void exact_solution(double t, double* y) const override;

  /// RigidBodySystem (the splittings): one body (m, optionally Q), V = 0, on its owner rank.
  RigidBodyLayout rigid_body_layout() const override;
  void forces_and_torques(double, const double*, double*, double*) override {}

  const std::array<double, 3>& inertia() const { return I_; }
  const std::array<double, 3>& initial_momentum() const { return m0_; }
  bool has_attitude() const { return attitude_; }

 private:
  std::array<double, 3> I_, m0_;
  bool attitude_;
  RootOwned owner_;
  RigidBodyExact exact_;
  Space space_;
};

}  // namespace lie
