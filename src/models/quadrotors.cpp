#include "models/quadrotors.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <random>
#include <sstream>

#include "core/numeric.hpp"
#include "groups/maps.hpp"

namespace lie {

namespace {

using namespace quad_layout;

const bool kKeys = declare_options({
    {"quadrotors.inputs", OptionType::Choice, "none",
     "thrusts u_i and moments M_i: none (u = M = 0, energy conserved); constant (u_i = -T_i R_i e3 with "
     "T_i = quadrotors.thrust, M_i = quadrotors.moment); geometric (load tracking of the parabola of [P] 6.2, "
     "controller after Lee, Sreenath & Kumar 2013 with the authors' gains, M_i = (1, 1, 1))",
     {"none", "constant", "geometric"}, "quadrotors"},
    {"quadrotors.thrust", OptionType::RealList, "0, 0", "constant thrust magnitudes T_1, T_2 [N] (inputs = constant)",
     {}, "quadrotors"},
    {"quadrotors.moment", OptionType::RealList, "1, 1, 1, 1, 1, 1",
     "constant body moments M_1, M_2 [N m] (inputs = constant); [P]'s code uses (1, 1, 1) for both", {},
     "quadrotors"},
    {"quadrotors.load_mass", OptionType::PositiveReal, "0.4", "mass m_y of the load [kg] (authors' code for [P] 6)",
     {}, "quadrotors"},
    {"quadrotors.mass", OptionType::PositiveRealList, "0.755, 0.755", "masses m_1, m_2 of the quadrotors [kg]", {},
     "quadrotors"},
    {"quadrotors.inertia", OptionType::PositiveRealList, "0.0820, 0.0845, 0.1377",
     "diagonal inertia J_1 = J_2 of the quadrotors [kg m^2]", {}, "quadrotors"},
    {"quadrotors.length", OptionType::PositiveRealList, "0.6, 0.8", "link lengths L_1, L_2 [m]", {}, "quadrotors"},
    {"quadrotors.gravity", OptionType::NonNegativeReal, "9.81", "gravitational acceleration g [m/s^2] along +e3",
     {}, "quadrotors"},
    {"quadrotors.initial", OptionType::Choice, "paper",
     "paper: y = (-2, 0, 0), R_i = I, q_i = (+-sin 80deg, 0, cos 80deg), velocities 0; random: a genuinely 3-D "
     "state with nonzero velocities (seed key)",
     {"paper", "random"}, "quadrotors"},
    {"quadrotors.seed", OptionType::NonNegativeInt, "1", "seed of the random initial state", {}, "quadrotors"},
});

const Vec3 kE3(0.0, 0.0, 1.0);

// <edge> parse
std::vector<double> list_of(const Config& cfg, const std::string& key, std::size_t n) {
  auto v = cfg.get_double_list(key);
  if (v.size() != n) {
    std::ostringstream os;
    os << "key '" << key << "' needs " << n << " values, got " << v.size();
    throw UsageError(os.str());
  }
  return v;
}
// </edge>

}  // namespace

QuadrotorState QuadrotorState::read(const double* P) {
  QuadrotorState s;
  s.y = CMap3(P + kY);
  s.v = CMap3(P + kV);
  for (int i = 0; i < 2; ++i) {
    s.R[i] = CMapQ(P + kR[i]);
    s.Omega[i] = CMap3(P + kOmega[i]);
    s.q[i] = CMap3(P + kQ[i]);
    s.w[i] = CMap3(P + kW[i]);
  }
  return s;
}

void QuadrotorState::write(double* P) const {
  Map3{P + kY} = y;
  Map3{P + kV} = v;
  for (int i = 0; i < 2; ++i) {
    MapQ{P + kR[i]} = R[i];
    Map3{P + kOmega[i]} = Omega[i];
    Map3{P + kQ[i]} = q[i];
    Map3{P + kW[i]} = w[i];
  }
}

QuadrotorState QuadrotorParameters::paper_initial() {
  QuadrotorState s;
  const double a = 80.0 * 3.14159265358979323846 / 180.0;
  s.y = Vec3(-2.0, 0.0, 0.0);
  s.v = Vec3::Zero();
  for (int i = 0; i < 2; ++i) {
    s.R[i] = Mat3::Identity();
    s.Omega[i] = Vec3::Zero();
    s.w[i] = Vec3::Zero();
  }
  s.q[0] = Vec3(std::sin(a), 0.0, std::cos(a));
  s.q[1] = Vec3(-std::sin(a), 0.0, std::cos(a));
  return s;
}

void ConstantInputs::evaluate(double, const QuadrotorState& s, QuadrotorInputs& out) const {
  for (int i = 0; i < 2; ++i) {
    out.thrust[i] = -thrust_[i] * (s.R[i] * kE3);  // u_i = -T_i R_i e3 ([P] 6)
    out.moment[i] = moment_[i];
  }
}

DesiredTrajectory DesiredTrajectory::parabola(double t) {
  const double s = t - 2.5;
  DesiredTrajectory y;
  y.d = {Vec3(s, 0.0, s * s - 7.0), Vec3(1.0, 0.0, 2.0 * s), Vec3(0.0, 0.0, 2.0), Vec3::Zero(), Vec3::Zero()};
  return y;
}

namespace {
/// n = x/|x| and its first two time derivatives from those of x.
struct UnitDerivatives {
  Vec3 n, n1, n2;
};
UnitDerivatives unit_derivatives(const Vec3& x, const Vec3& x1, const Vec3& x2) {
  UnitDerivatives u;
  const double r = x.norm();
  u.n = x / r;
  const double r1 = u.n.dot(x1);
  u.n1 = (x1 - r1 * u.n) / r;
  const double r2 = u.n1.dot(x1) + u.n.dot(x2);
  u.n2 = (x2 - r2 * u.n - 2.0 * r1 * u.n1) / r;
  return u;
}
}  // namespace

void GeometricTracking::evaluate(double t, const QuadrotorState& s, QuadrotorInputs& out, Detail& d) const {
  const DesiredTrajectory yd = DesiredTrajectory::parabola(t);
  const Vec3 ge3 = g_ * kE3;
  // Load: desired force and tensions ([50] eqs. (15), (16), (19))
  d.e_y = s.y - yd.d[0];
  const Vec3 e_v = s.v - yd.d[1];
  d.Fd = m_y_ * (-k_.k_y * d.e_y - k_.k_v * e_v + yd.d[2] - ge3);
  const Vec3 rsum = k_.formation[0] + k_.formation[1];
  std::array<Vec3, 2> mu, q_dot;
  for (int i = 0; i < 2; ++i) {
    const double c = 1.0 / (k_.formation[i].dot(kE3) * rsum.norm());
    mu[i] = c * d.Fd.dot(s.q[i]) * s.q[i];
    q_dot[i] = s.w[i].cross(s.q[i]);
  }
  // Derivatives of F_d with the commanded load acceleration y'' = (mu_1 + mu_2)/m_y + g e3.
  const Vec3 e_a = (mu[0] + mu[1]) / m_y_ + ge3 - yd.d[2];
  const Vec3 Fd1 = m_y_ * (-k_.k_y * e_v - k_.k_v * e_a + yd.d[3]);
  Vec3 mu_dot_sum = Vec3::Zero();
  for (int i = 0; i < 2; ++i) {
    const double c = 1.0 / (k_.formation[i].dot(kE3) * rsum.norm());
    mu_dot_sum += c * ((Fd1.dot(s.q[i]) + d.Fd.dot(q_dot[i])) * s.q[i] + d.Fd.dot(s.q[i]) * q_dot[i]);
  }
  const Vec3 e_j = mu_dot_sum / m_y_ - yd.d[3];
  const Vec3 Fd2 = m_y_ * (-k_.k_y * e_a - k_.k_v * e_j + yd.d[4]);
  // Formation frame Q = [b1, b2, b3] ([50] eq. (17)) and its derivatives; b = -x/|x|.
  const Vec3& sd = k_.formation_axis;
  const Vec3 F = d.Fd;
  const UnitDerivatives b1 = unit_derivatives(F.cross(F.cross(sd)), Fd1.cross(F.cross(sd)) + F.cross(Fd1.cross(sd)),
                                              Fd2.cross(F.cross(sd)) + 2.0 * Fd1.cross(Fd1.cross(sd)) + F.cross(Fd2.cross(sd)));
  const UnitDerivatives b2 = unit_derivatives(F.cross(sd), Fd1.cross(sd), Fd2.cross(sd));
  const UnitDerivatives b3 = unit_derivatives(F, Fd1, Fd2);
  Mat3 Q, Q1, Q2;
  Q << -b1.n, -b2.n, -b3.n;
  Q1 << -b1.n1, -b2.n1, -b3.n1;
  Q2 << -b1.n2, -b2.n2, -b3.n2;
  for (int i = 0; i < 2; ++i) {
    const int j = 1 - i;
    const Vec3& q = s.q[i];
    const Mat3 qh = so3::hat(q), qh2 = qh * qh;
    d.q_d[i] = Q * k_.formation[i];  // ([50] eq. (18))
    d.q_d_dot[i] = Q1 * k_.formation[i];
    d.q_d_ddot[i] = Q2 * k_.formation[i];
    const Vec3 w_d = d.q_d[i].cross(d.q_d_dot[i]);
    const Vec3 w_d_dot = d.q_d[i].cross(d.q_d_ddot[i]);
    d.e_q[i] = d.q_d[i].cross(q);                   // ([50] eq. (23))
    const Vec3 e_w = s.w[i] + qh2 * w_d;
    const Vec3 u_par = mu[i] + m_[i] * L_[i] * s.w[i].squaredNorm() * q + (m_[i] / m_y_) * q * q.dot(mu[0] + mu[1]);
    const Vec3 u_perp = m_[i] * L_[i] * qh * (-k_.k_q * d.e_q[i] - k_.k_w * e_w - q.dot(w_d) * q_dot[i] - qh2 * w_d_dot) -
                        (m_[i] / m_y_) * qh2 * mu[j];  // hat(q_i)^2 mu_i = 0
    out.thrust[i] = u_par + u_perp;
    out.moment[i] = k_.moment;
  }
}

Quadrotors::Quadrotors(QuadrotorParameters p, std::unique_ptr<QuadrotorInputLaw> inputs, const par::Context* ctx)
    : p_(std::move(p)), inputs_(std::move(inputs)), owner_(ctx) {
  space_.add(FactorKind::Translation3, owner_.local(2), "load");        // y, v
  space_.add(FactorKind::TSO3Left, owner_.local(2), "quadrotors");     // (R_i, Omega_i)
  space_.add(FactorKind::SE3OnTS2, owner_.local(2), "links");          // (q_i, w_i)
}

// <edge> parse: the quadrotors.* keys
Quadrotors::Options Quadrotors::parse(const Config& cfg) {
  Options o;
  QuadrotorParameters& p = o.parameters;
  p.load_mass = cfg.get_positive("quadrotors.load_mass");
  const auto m = list_of(cfg, "quadrotors.mass", 2);
  const auto J = list_of(cfg, "quadrotors.inertia", 3);
  const auto L = list_of(cfg, "quadrotors.length", 2);
  for (int i = 0; i < 2; ++i) {
    p.mass[i] = m[i];
    p.length[i] = L[i];
    p.inertia[i] = Vec3(J[0], J[1], J[2]);
  }
  p.gravity = cfg.get_nonnegative("quadrotors.gravity");
  if (cfg.get_choice("quadrotors.initial", {"paper", "random"}) == "random") {
    std::mt19937_64 rng(static_cast<std::uint64_t>(cfg.get_int("quadrotors.seed")));
    std::normal_distribution<double> n01(0.0, 1.0);
    auto r3 = [&](double scale) {  // components drawn in a fixed order
      Vec3 r;
      for (int c = 0; c < 3; ++c) r[c] = scale * n01(rng);
      return r;
    };
    QuadrotorState& s = p.initial;
    s.y = r3(1.0);
    s.v = r3(1.0);
    for (int i = 0; i < 2; ++i) {
      s.R[i] = so3::exp(r3(1.0));
      s.Omega[i] = r3(1.0);
      s.q[i] = r3(1.0).normalized();
      s.w[i] = r3(1.5);
      s.w[i] -= s.w[i].dot(s.q[i]) * s.q[i];
    }
  }
  o.inputs = cfg.get_choice("quadrotors.inputs", {"none", "constant", "geometric"});
  if (o.inputs == "constant") {
    const auto T = list_of(cfg, "quadrotors.thrust", 2);
    const auto M = list_of(cfg, "quadrotors.moment", 6);
    o.thrust = {T[0], T[1]};
    o.moment = {Vec3(M[0], M[1], M[2]), Vec3(M[3], M[4], M[5])};
  }
  return o;
}
// </edge>

std::unique_ptr<Model> Quadrotors::create(const ModelOptions& options, par::Context& ctx) {
  const Options& o = std::any_cast<const Options&>(options);
  const QuadrotorParameters& p = o.parameters;
  std::unique_ptr<QuadrotorInputLaw> law;
  if (o.inputs == "geometric") law = std::make_unique<GeometricTracking>(p.load_mass, p.mass, p.length, p.gravity);
  else if (o.inputs == "constant") law = std::make_unique<ConstantInputs>(o.thrust, o.moment);
  else law = std::make_unique<NoInputs>();
  return std::make_unique<Quadrotors>(p, std::move(law), &ctx);
}

void Quadrotors::initial_state(double* y) const {
  if (!owner_.owns()) return;
  p_.initial.write(y);
}

Quadrotors::Accelerations Quadrotors::accelerations(const QuadrotorState& s, const QuadrotorInputs& u) const {
  const double g = p_.gravity;
  Accelerations a;
  // (37), second row: M_q v' = -sum m_i L_i |w_i|^2 q_i + M_q g e3 + sum u_i^par
  Mat3 Mq = p_.load_mass * Mat3::Identity();
  Vec3 rhs = Vec3::Zero();
  std::array<Vec3, 2> u_perp;
  for (int i = 0; i < 2; ++i) {
    const Vec3& q = s.q[i];
    Mq += p_.mass[i] * q * q.transpose();
    const Vec3 u_par = q * q.dot(u.thrust[i]);
    u_perp[i] = u.thrust[i] - u_par;
    rhs += -p_.mass[i] * p_.length[i] * s.w[i].squaredNorm() * q + u_par;
  }
  rhs += Mq * (g * kE3);
  a.v_dot = Mq.llt().solve(rhs);  // M_q is symmetric positive definite
  for (int i = 0; i < 2; ++i) {
    const Vec3& J = p_.inertia[i];
    const Vec3& W = s.Omega[i];
    // (37), rows 3-4: J_i Omega_i' = -Omega_i x J_i Omega_i + M_i
    a.Omega_dot[i] = (-W.cross(J.cwiseProduct(W)) + u.moment[i]).cwiseQuotient(J);
    // (37), rows 5-6: w_i' - (1/L_i) q_i x v' = -(g/L_i) q_i x e3 - 1/(m_i L_i) q_i x u_i^perp
    const double L = p_.length[i];
    a.w_dot[i] = s.q[i].cross(a.v_dot) / L - (g / L) * s.q[i].cross(kE3) -
                 s.q[i].cross(u_perp[i]) / (p_.mass[i] * L);
  }
  return a;
}

void Quadrotors::vector_field(double t, const double* P, double* xi) {
  ++n_rhs_;
  if (!owner_.owns()) return;
  const QuadrotorState s = QuadrotorState::read(P);
  QuadrotorInputs u;
  inputs_->evaluate(t, s, u);
  const Accelerations a = accelerations(s, u);
  // f(P) of [P] 6.1: (h1, h2, R1 Omega1, Omega1', R2 Omega2, Omega2', w1, q1 x w1', w2, q2 x w2')
  Map3{xi + 0} = s.v;
  Map3{xi + 3} = a.v_dot;
  for (int i = 0; i < 2; ++i) {
    Map3{xi + 6 + 6 * i} = s.R[i] * s.Omega[i];  // hat(R Omega) R = R hat(Omega)
    Map3{xi + 9 + 6 * i} = a.Omega_dot[i];
    Map3{xi + 18 + 6 * i} = s.w[i];              // q' = w x q
    Map3{xi + 21 + 6 * i} = s.q[i].cross(a.w_dot[i]);  // w' = (q x w') x q for w' . q = 0
  }
}

double Quadrotors::kinetic_energy(const QuadrotorState& s) const {
  double T = 0.5 * p_.load_mass * s.v.squaredNorm();
  for (int i = 0; i < 2; ++i) {
    const Vec3 yi_dot = s.v - p_.length[i] * s.w[i].cross(s.q[i]);
    T += 0.5 * p_.mass[i] * yi_dot.squaredNorm() + 0.5 * s.Omega[i].dot(p_.inertia[i].cwiseProduct(s.Omega[i]));
  }
  return T;
}

double Quadrotors::potential_energy(const QuadrotorState& s) const {
  double U = -p_.load_mass * p_.gravity * s.y.dot(kE3);
  for (int i = 0; i < 2; ++i) U -= p_.mass[i] * p_.gravity * quadrotor_position(s, i).dot(kE3);
  return U;
}

void Quadrotors::observables(double t, const double* P, Observables& out) {
  double T = 0.0, U = 0.0, unit = 0.0, tang = 0.0, orth = 0.0;
  if (owner_.owns()) {
    const QuadrotorState s = QuadrotorState::read(P);
    T = kinetic_energy(s);
    U = potential_energy(s);
    for (int i = 0; i < 2; ++i) {
      unit = nan_max(unit, std::fabs(1.0 - s.q[i].squaredNorm()));
      tang = nan_max(tang, std::fabs(s.q[i].dot(s.w[i])));
      orth = nan_max(orth, so3::orthogonality_error(s.R[i]));
    }
  }
  out.set("total_energy", owner_.broadcast(T + U));
  out.set("kinetic_energy", owner_.broadcast(T));
  out.set("potential_energy", owner_.broadcast(U));
  out.set("unit_norm_error", owner_.broadcast(unit));
  out.set("tangency_error", owner_.broadcast(tang));
  out.set("orthogonality_error", owner_.broadcast(orth));
  if (const auto* ctrl = dynamic_cast<const GeometricTracking*>(inputs_.get())) {
    // [P] Figs 15-17: load position error y - y_d(t) and link direction errors |q_id x q_i|
    Vec3 e = Vec3::Zero();
    std::array<double, 2> eq{0.0, 0.0};
    if (owner_.owns()) {
      QuadrotorInputs u;
      GeometricTracking::Detail d;
      ctrl->evaluate(t, QuadrotorState::read(P), u, d);
      e = d.e_y;
      eq = {d.e_q[0].norm(), d.e_q[1].norm()};
    }
    out.set("load_error_x", owner_.broadcast(e.x()));
    out.set("load_error_y", owner_.broadcast(e.y()));
    out.set("load_error_z", owner_.broadcast(e.z()));
    out.set("link1_direction_error", owner_.broadcast(eq[0]));
    out.set("link2_direction_error", owner_.broadcast(eq[1]));
  }
}

std::vector<std::string> Quadrotors::observable_names() const {
  std::vector<std::string> n = {"total_energy",   "kinetic_energy", "potential_energy",
                                "unit_norm_error", "tangency_error", "orthogonality_error"};
  if (dynamic_cast<const GeometricTracking*>(inputs_.get()) != nullptr)
    n.insert(n.end(), {"load_error_x", "load_error_y", "load_error_z", "link1_direction_error", "link2_direction_error"});
  return n;
}

std::vector<TrajectoryField> Quadrotors::trajectory_fields() const {
  return {{"load_position", 3, "m", "y, position of the load"},
          {"quadrotor_positions", 6, "m", "y_1 = y - L_1 q_1, y_2 = y - L_2 q_2"},
          {"link_directions", 6, "1", "q_1, q_2, unit vectors from the quadrotors to the load"}};
}

void Quadrotors::trajectory_field(const std::string& name, const double* P, double* out) const {
  if (!owner_.owns()) return;
  const QuadrotorState s = QuadrotorState::read(P);
  if (name == "load_position") {
    Map3{out} = s.y;
  } else if (name == "quadrotor_positions") {
    for (int i = 0; i < 2; ++i) Map3{out + 3 * i} = quadrotor_position(s, i);
  } else if (name == "link_directions") {
    for (int i = 0; i < 2; ++i) Map3{out + 3 * i} = s.q[i];
  } else {
    throw std::logic_error("quadrotors has no trajectory field '" + name + "'");
  }
}

LIEBENCH_REGISTER(ModelEntry, ModelEntry{"quadrotors",
                                         "two quadrotors carrying a point mass on R^6 x (SO(3) x so(3))^2 x (TS^2)^2 "
                                         "(inputs: key quadrotors.inputs)",
                                         "[P] 6", &Quadrotors::create, &Quadrotors::parse})

}  // namespace lie
