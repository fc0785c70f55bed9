#pragma once
// Two quadrotors carrying a point mass through massless rigid links, [P] 6 (model of Lee,
// Sreenath & Kumar 2013, [P] ref. [50]).
//
// Symbols ([P] 6, eqs. (36)-(38)). Inertial frame with e3 pointing *along* gravity (the
// potential is U = -m g e3.y, so "up" is -e3):
//   y, v = y'        position and velocity of the load (point mass m_y)
//   R_i in SO(3)     attitude of quadrotor i (body to inertial), i = 1, 2
//   Omega_i          its body angular velocity, R_i' = R_i hat(Omega_i)            (36)
//   q_i in S^2       unit direction of link i, from quadrotor i to the load: the quadrotor sits
//                    at y_i = y - L_i q_i
//   w_i              angular velocity of link i, q_i' = w_i x q_i, w_i . q_i = 0   (36)
//   m_i, J_i, L_i    mass and inertia of quadrotor i, length of link i; g gravity
//   u_i              thrust force of quadrotor i in the inertial frame ([P]: u_i = -T_i R_i e3),
//                    u_i^par = q_i q_i^T u_i, u_i^perp = (I - q_i q_i^T) u_i
//   M_i              moment of quadrotor i in its body frame
// Kinetic and potential energy ([P] 6):
//   T = 1/2 m_y |v|^2 + 1/2 sum_i (m_i |v - L_i w_i x q_i|^2 + Omega_i . J_i Omega_i),
//   U = -m_y g e3.y - sum_i m_i g e3.(y - L_i q_i).
// Equations of motion A(z) z' = h(z) (37), z = (y, v, Omega_1, Omega_2, w_1, w_2), solved in
// closed form (A is block lower triangular), h_bar = A^-1 h (38):
//   y' = v,
//   M_q v' = -sum_i m_i L_i |w_i|^2 q_i + M_q g e3 + sum_i u_i^par,   M_q = m_y I + sum_i m_i q_i q_i^T,
//   J_i Omega_i' = -Omega_i x J_i Omega_i + M_i,
//   w_i' = (1/L_i) q_i x v' - (g/L_i) q_i x e3 - 1/(m_i L_i) q_i x u_i^perp.
//
// Lie group formulation [P] 6.1: phase space M = R^6 x (SO(3) x so(3))^2 x (TS^2)^2, state
// P = (y, v, R_1, Omega_1, R_2, Omega_2, q_1, w_1, q_2, w_2) (42 numbers, R_i row-major), acted
// on by G = R^6 x (SO(3) x R^3)^2 x SE(3)^2 (factors r3 x r3, tso3_left^2, se3_on_ts2^2):
//   psi_g(P) = (y + a1, v + a2, B_1 R_1, Omega_1 + b_1, ..., C_i q_i, C_i w_i + c_i x C_i q_i),
// and f(P) = (h_bar_1, h_bar_2, R_1 Omega_1, Omega_1', R_2 Omega_2, Omega_2', w_1, q_1 x w_1',
// w_2, q_2 x w_2') in the algebra (30 numbers), so that psi_*(f(P))|_P is the vector field.
//
// Inputs (u_i, M_i) come from a QuadrotorInputLaw of time and state (key quadrotors.inputs):
//   none      u_i = 0, M_i = 0: a conservative system under gravity (total energy is conserved)
//   constant  u_i = -T_i R_i e3 with constant thrust magnitudes T_i (quadrotors.thrust) and
//             constant body moments M_i (quadrotors.moment); [P]'s own runs use M_i = (1, 1, 1)
//             (the attitude controllers are left out in [P] 6.2).
//   geometric the tracking controller of [P] 6.2 after Lee, Sreenath & Kumar 2013 (below).
// The energy balance is dE/dt = sum_i u_i . y_i' + sum_i M_i . Omega_i.
//
// Geometric controller (GeometricTracking; [P] 6.2 and its ref. [50], gains and desired data
// of the authors' code): load tracking errors e_y = y - y_d, e_v = v - y_d',
//   F_d = m_y (-k_y e_y - k_v e_v + y_d'' - g e3)                      (desired force on the load)
//   mu_i = c_i (F_d . q_i) q_i,  c_i = 1 / ((r_id . e3) |r_1d + r_2d|)  (tension of link i)
//   u_i^par = mu_i + m_i L_i |w_i|^2 q_i + (m_i/m_y) q_i q_i^T (mu_1 + mu_2)
//   q_id = Q r_id, Q = [-F_d x (F_d x s)/|.|, -F_d x s/|.|, -F_d/|F_d|] (formation frame, s = -e2),
//   w_id = q_id x q_id', e_qi = q_id x q_i, e_wi = w_i + hat(q_i)^2 w_id,
//   u_i^perp = m_i L_i q_i x (-k_q e_qi - k_w e_wi - (q_i . w_id) q_i' - hat(q_i)^2 w_id')
//              - (m_i/m_y) hat(q_i)^2 (mu_1 + mu_2),
// with k_y = 12, k_v = 5, k_q = 16, k_w = 5, r_1d,2d = (+-sin 30 deg, 0, cos 30 deg) and the
// parabola y_d(t) = (t - 2.5, 0, (t - 2.5)^2 - 7). Simplifications, as in [P] 6.2 and its code:
//  - the attitude controllers are left out: u_i acts as commanded whatever R_i is (it is not
//    constrained to -T_i R_i e3), and M_i = (1, 1, 1) is constant;
//  - q_id', q_id'' use y'' = (mu_1 + mu_2)/m_y + g e3 and y''' = (mu_1' + mu_2')/m_y as the
//    authors' code does; with this u^par that is not an approximation on the manifold
//    (M_q v' = M_q (g e3 + (mu_1 + mu_2)/m_y)), and a test checks q_id', q_id'' against
//    finite differences along the closed loop;
//  - the tension split mu_i uses the fixed factor c_i above instead of the distribution of [50].
//
// Parameters: [P] prints none. We take those of the authors' public MATLAB code for [P] 6
// (github.com/THREAD-3-2/RKMK_Commutator_free_integrators, src/main.m): m_y = 0.4, m_i = 0.755,
// J_i = diag(0.0820, 0.0845, 0.1377), L_1 = 0.6, L_2 = 0.8, g = 9.81, and the initial state
// y = (-2, 0, 0), R_i = I, q_{1,2} = (+-sin 80 deg, 0, cos 80 deg), all velocities 0, T = 5.
// The system is one component owned by rank 0 (root_owned.hpp).
#include <array>
#include <memory>
#include <string>

#include "groups/so3.hpp"
#include "models/model.hpp"
#include "models/root_owned.hpp"

namespace lie {

/// Offsets in the 42-number state and the 30-number algebra element ([P] 6.1 order).
namespace quad_layout {
inline constexpr int kY = 0, kV = 3;
inline constexpr int kR[2] = {6, 18}, kOmega[2] = {15, 27};
inline constexpr int kQ[2] = {30, 36}, kW[2] = {33, 39};
inline constexpr int kStateDim = 42, kAlgDim = 30;
}  // namespace quad_layout

/// Unpacked state of the two-quadrotor system.
struct QuadrotorState {
  Vec3 y, v;
  std::array<Mat3, 2> R;
  std::array<Vec3, 2> Omega, q, w;
  static QuadrotorState read(const double* P);
  void write(double* P) const;
};

/// Inputs at one instant: thrust force u_i (inertial frame) and body moment M_i.
struct QuadrotorInputs {
  std::array<Vec3, 2> thrust{Vec3::Zero(), Vec3::Zero()};
  std::array<Vec3, 2> moment{Vec3::Zero(), Vec3::Zero()};
};

struct QuadrotorParameters {
  double load_mass = 0.4;                                         // m_y
  std::array<double, 2> mass{0.755, 0.755};                       // m_i
  std::array<Vec3, 2> inertia{Vec3(0.0820, 0.0845, 0.1377), Vec3(0.0820, 0.0845, 0.1377)};  // diag J_i
  std::array<double, 2> length{0.6, 0.8};                         // L_i
  double gravity = 9.81;                                          // g
  QuadrotorState initial = paper_initial();
  static QuadrotorState paper_initial();
};

/// A law giving the inputs (u_i, M_i) at time t and state s; the controller plugs in here.
class QuadrotorInputLaw {
 public:
  virtual ~QuadrotorInputLaw() = default;
  virtual std::string name() const = 0;
  virtual void evaluate(double t, const QuadrotorState& s, QuadrotorInputs& out) const = 0;
};

/// u_i = 0, M_i = 0.
class NoInputs final : public QuadrotorInputLaw {
 public:
  std::string name() const override { return "none"; }
  void evaluate(double, const QuadrotorState&, QuadrotorInputs& out) const override { out = QuadrotorInputs{}; }
};

/// u_i = -T_i R_i e3 (thrust along the body axis, magnitude T_i), constant body moments M_i.
class ConstantInputs final : public QuadrotorInputLaw {
 public:
  ConstantInputs(std::array<double, 2> thrust, std::array<Vec3, 2> moment) : thrust_(thrust), moment_(moment) {}
  std::string name() const override { return "constant"; }
  void evaluate(double, const QuadrotorState& s, QuadrotorInputs& out) const override;

 private:
  std::array<double, 2> thrust_;
  std::array<Vec3, 2> moment_;
};

/// Desired load trajectory y_d(t) and its derivatives up to order 4.
struct DesiredTrajectory {
  std::array<Vec3, 5> d;  // y_d, y_d', y_d'', y_d''', y_d''''
  /// The parabola of [P] 6.2 (authors' code): y_d(t) = (t - 2.5, 0, (t - 2.5)^2 - 7).
  static DesiredTrajectory parabola(double t);
};

struct GeometricGains {
  double k_y = 12.0, k_v = 5.0, k_q = 16.0, k_w = 5.0;
  std::array<Vec3, 2> formation{Vec3(0.5, 0.0, 0.8660254037844386), Vec3(-0.5, 0.0, 0.8660254037844386)};  // r_id
  Vec3 formation_axis = Vec3(0.0, -1.0, 0.0);                                                             // s
  Vec3 moment = Vec3(1.0, 1.0, 1.0);                                                                     // M_i
};

/// The tracking controller of [P] 6.2 (see the header comment).
class GeometricTracking final : public QuadrotorInputLaw {
 public:
  struct Detail {
    Vec3 Fd, e_y;
    std::array<Vec3, 2> q_d, q_d_dot, q_d_ddot, e_q;
  };
  GeometricTracking(double load_mass, std::array<double, 2> mass, std::array<double, 2> length, double gravity,
                    GeometricGains gains = {})
      : m_y_(load_mass), m_(mass), L_(length), g_(gravity), k_(gains) {}
  std::string name() const override { return "geometric"; }
  void evaluate(double t, const QuadrotorState& s, QuadrotorInputs& out) const override {
    Detail d;
    evaluate(t, s, out, d);
  }
  /// The same computation, also returning the desired directions and errors.
  void evaluate(double t, const QuadrotorState& s, QuadrotorInputs& out, Detail& d) const;

 private:
  double m_y_;
  std::array<double, 2> m_, L_;
  double g_;
  GeometricGains k_;
};

class Quadrotors final : public Model {
 public:
  Quadrotors(QuadrotorParameters p, std::unique_ptr<QuadrotorInputLaw> inputs, const par::Context* ctx = nullptr);
  /// The model's parameters and its input law (keys quadrotors.*).
  struct Options {
    QuadrotorParameters parameters;
    std::string inputs = "none";                          // none | constant | geometric
    std::array<double, 2> thrust{};                       // constant inputs
    std::array<Vec3, 2> moment{Vec3::Zero(), Vec3::Zero()};
  };
  /// Reads the model's keys into its options: the entry's parse function (at the plan only).
  static Options parse(const Config& cfg);
  /// Builds the model from its options (ModelEntry::create).
  static std::unique_ptr<Model> create(const ModelOptions& options, par::Context& ctx);

  std::string name() const override { return "quadrotors"; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return 1; }
  int state_dim_per_component() const override { return quad_layout::kStateDim; }
  void initial_state(double* y) const override;
  void vector_field(double t, const double* y, double* xi) override;
  void observables(double t, const double* y, Observables& out) override;
  std::vector<std::string> observable_names() const override;
  std::vector<TrajectoryField> trajectory_fields() const override;
  void trajectory_field(const std::string& name, const double* y, double* out) const override;
  std::string particle_group() const override { return "quadrotors"; }

  /// Right-hand side of (37)-(38) in the z variables: v', Omega_i', w_i' at state s and inputs u.
  struct Accelerations {
    Vec3 v_dot;
    std::array<Vec3, 2> Omega_dot, w_dot;
  };
  Accelerations accelerations(const QuadrotorState& s, const QuadrotorInputs& u) const;
  /// Kinetic and potential energy of [P] 6.
  double kinetic_energy(const QuadrotorState& s) const;
  double potential_energy(const QuadrotorState& s) const;
  /// Position of quadrotor i, y - L_i q_i.
  Vec3 quadrotor_position(const QuadrotorState& s, int i) const { return s.y - p_.length[i] * s.q[i]; }

  const QuadrotorParameters& parameters() const { return p_; }
  const QuadrotorInputLaw& inputs() const { return *inputs_; }

 private:
  QuadrotorParameters p_;
  std::unique_ptr<QuadrotorInputLaw> inputs_;
  RootOwned owner_;
  Space space_;
};

}  // namespace lie
