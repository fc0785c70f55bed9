#pragma once
// Symplectic splitting methods for systems of rigid bodies (models implementing
// RigidBodySystem, models/rigid_bodies.hpp): H = T_trans(p) + T_rot(m) + V(q, Q) split as the
// Strang composition
//   kick(h/2) o [drift(h), free rotor(h)] o kick(h/2),
//   kick(s):  p_i += s F_i,  m_i += s tau_i          (q, Q fixed: the exact flow of V)
//   drift(s): q_i += s p_i / M                        (the exact flow of |p|^2/(2M))
// second order, symplectic, time-reversible, one force evaluation per step (the forces at the
// end of a step are those at the start of the next). The three methods differ in the free
// rotor T_rot = 1/2 m . I^-1 m:
//   dlm        Dullweber, Leimkuhler & McLachlan, J. Chem. Phys. 107, 5840 (1997), sec. III:
//              T_rot = T_1 + T_2 + T_3, T_k = m_k^2/(2 I_k), each flow a planar rotation about
//              body axis k by theta = s m_k / I_k (Q <- Q R_k(theta), m <- R_k(theta)^T m),
//              composed symmetrically R_1(h/2) R_2(h/2) R_3(h) R_2(h/2) R_1(h/2);
//   no_squish  Miller, Eleftheriou, Pattnaik, Ndirango, Newns & Martyna, J. Chem. Phys. 116,
//              8649 (2002), eqs. (2.11)-(2.23): the same planar rotations in the quaternion q of
//              Q and its conjugate momentum P = 2 S(q) (0, m): q <- cos(z) q + sin(z) P_k q,
//              P <- cos(z) P + sin(z) P_k P, z = s (P . P_k q) / (4 I_k), in LAMMPS's sequence
//              R_3(h/2) R_2(h/2) R_1(h) R_2(h/2) R_3(h/2) (fix rigid/nve, fix_rigid_nh.cpp) in
//              LAMMPS's body frame, whose axes 1, 2, 3 are the principal axes by decreasing moment
//              (its eigensolver sorts them): the smallest moment's axis outermost, the largest's
//              in the middle, whatever the order of the model's inertia; so a step compares with
//              LAMMPS's step for step (scripts/bench/no_squish_vs_lammps.sh: 8e-15 after 100 steps
//              of [K]'s N = 100 workload). q is taken from Q at the start of the rotor and Q from q
//              at its end (Eigen's conversions);
//   rotor_exact Celledoni, Fasso, Safstrom & Zanna, SIAM J. Sci. Comput. 30, 2084 (2008): the
//              free rotor integrated exactly (Jacobi elliptic functions and the elliptic integral
//              of the third kind, RigidBodyExact of models/free_rigid_body.hpp); with V = 0 it is
//              the exact solution for any h.
// In exact arithmetic dlm with no_squish's axis order and no_squish are the same map (each
// rotation of no_squish is q <- q (cos z + sin z e_k), z = theta / 2); the tests check it. With
// [K]'s inertia diag(1, 1.88, 2.88) the orders of dlm and no_squish coincide.
#include <array>
#include <cmath>
#include <vector>

#include "methods/stepper.hpp"
#include "models/rigid_bodies.hpp"

namespace lie {

/// sincos_rotor's polynomials alone (any x; meant for |x| <= 1/2): the vector lanes of the
/// planar rotors (rigid_splitting.cpp) evaluate them for every body and take libm's values
/// where |x| > 1/2.
inline void sincos_rotor_series(double x, double& s, double& c) {
  // |x| <= 1/2: the Taylor polynomials, sin to x^15 and cos to x^16 (the next terms are below
  // 4e-20 relative), in Horner form of x^2: odd and even in x exactly (a step of -h
  // rotates back by the same numbers), inline, and no call (plain products and sums: the
  // same bits on every ISA, -ffp-contract=off); about the accuracy of libm.
  const double z = x * x;
  double ps = -1.0 / 1307674368000.0;  // -1/15!
  ps = ps * z + 1.0 / 6227020800.0;
  ps = ps * z + -1.0 / 39916800.0;
  ps = ps * z + 1.0 / 362880.0;
  ps = ps * z + -1.0 / 5040.0;
  ps = ps * z + 1.0 / 120.0;
  ps = ps * z + -1.0 / 6.0;
  s = x * z * ps + x;
  double pc = 1.0 / 20922789888000.0;  // 1/16!
  pc = pc * z + -1.0 / 87178291200.0;
  pc = pc * z + 1.0 / 479001600.0;
  pc = pc * z + -1.0 / 3628800.0;
  pc = pc * z + 1.0 / 40320.0;
  pc = pc * z + -1.0 / 720.0;
  pc = pc * z + 1.0 / 24.0;
  pc = pc * z + -0.5;
  c = z * pc + 1.0;
}

/// sin x and cos x for the planar rotations of dlm: for |x| <= 1/2 (a rotor step's angles at
/// any reasonable h) Taylor polynomials evaluated inline, within about 1 ulp, exactly odd
/// and even in x; otherwise libm's.
inline void sincos_rotor(double x, double& s, double& c) {
  if (!(std::fabs(x) <= 0.5)) {
    s = std::sin(x), c = std::cos(x);
    return;
  }
  sincos_rotor_series(x, s, c);
}

/// One planar rotation of a pair of components by the angle whose cosine and sine are (c, sn):
/// (x, y) <- (c x + sn y, c y - sn x) (the planar rotor's m and columns of Q).
inline void rotate_pair(double c, double sn, double& x, double& y) {
  const double x0 = x, y0 = y;
  x = c * x0 + sn * y0;
  y = c * y0 - sn * x0;
}

/// Throws the one-line UsageError of a method needing a RigidBodySystem on a model that is not
/// one (or not in its formulation: the model's rigid_body_layout() names why).
void require_rigid_bodies(const std::string& method, const Model& model);

class RigidSplittingStepper final : public Stepper {
 public:
  enum class Rotor { Planar, Quaternion, Exact };
  /// axes: the body axes of the symmetric rotor sequence a, b, c, b, a (steps h/2, h/2, h,
  /// h/2, h/2) of the planar and quaternion rotors; kByMoments: LAMMPS's order (smallest moment
  /// outermost, largest in the middle), chosen from the model's inertia at bind().
  static constexpr std::array<int, 3> kByMoments{-1, -1, -1};
  /// The body axes by increasing moment (ties in index order).
  static std::array<int, 3> axes_by_moments(const std::array<double, 3>& inertia);
  RigidSplittingStepper(MethodInfo info, Rotor rotor, std::array<int, 3> axes);
  const MethodInfo& info() const override { return info_; }
  void bind(Model& model, par::Context& ctx) override;
  void step(double t, double h, double* y) override;
  void invalidate() override { cached_ = false; }
  bool cache_valid() const override { return cached_; }
  void rebuild_cache(double t, const double* y) override;

  /// The free rotor over time s for one body: m (3), Q (9 row-major, or nullptr).
  void rotor(double s, double* m, double* Q) const;

 private:
  void forces(double t, const double* y);  // F_, tau_ and the cache key at y
  bool forces_cached_for(const double* y) const;
  void kick(double s, double* y) const;
  void planar(int k, double s, double* m, double* Q) const;
  void rotors(double s, double* y);  // the free rotor of every local body
  struct RotorSequence {
    std::array<int, 5> axis;
    std::array<double, 5> step;
  };
  RotorSequence sequence(double s) const;  // the rotor's planar rotations over time s
  // The quaternion rotor (no_squish) in three parts: (q, P) of a body, one planar turn about
  // body axis k over dt, m and Q back (rotor() runs them in a row; rotors() body by body per turn).
  struct QuaternionRotor {
    std::array<double, 4> q, P;
  };
  static QuaternionRotor quaternion_begin(const double* m, const double* Q);
  void quaternion_turn(int k, double dt, QuaternionRotor& r) const;
  static void quaternion_end(const QuaternionRotor& r, double* m, double* Q);

  MethodInfo info_;
  Rotor rotor_;
  std::array<int, 3> axes_;
  bool by_moments_ = false;
  Model* model_ = nullptr;
  par::Context* ctx_ = nullptr;
  RigidBodySystem* bodies_ = nullptr;
  RigidBodyLayout layout_;
  std::vector<double> F_, tau_;
  std::vector<double> body_m_;  // m = Q^T pi of every body (spatial momentum)
  std::vector<QuaternionRotor> quaternion_rotors_;  // rotors(): every body's (q, P)
  std::vector<double> key_;  // (q, Q) of every local body at which F_, tau_ were computed
  bool cached_ = false;
};

namespace quaternion {
/// Unit quaternion (w, x, y, z) of a rotation matrix (row-major): Eigen's conversion (Shoemake:
/// from the trace when it is positive, else from the largest diagonal entry; accurate near pi).
std::array<double, 4> from_matrix(const double* Q);
/// Rotation matrix (row-major) of a quaternion, normalised first (Eigen).
void to_matrix(const std::array<double, 4>& q, double* Q);
}  // namespace quaternion

}  // namespace lie
