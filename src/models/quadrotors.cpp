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
     "T_i = quadrotors.thrust, M_i = quadrotors.moment)",
     {"none", "constant"}, "quadrotors"},
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

std::vector<double> list_of(const Config& cfg, const std::string& key, std::size_t n) {
  auto v = cfg.get_double_list(key);
  if (v.size() != n) {
    std::ostringstream os;
    os << "key '" << key << "' needs " << n << " values, got " << v.size();
    throw UsageError(os.str());
  }
  return v;
}

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

Quadrotors::Quadrotors(QuadrotorParameters p, std::unique_ptr<QuadrotorInputLaw> inputs, const par::Context* ctx)
    : p_(std::move(p)), inputs_(std::move(inputs)), owner_(ctx) {
  space_.add(FactorKind::Translation3, owner_.local(2), "load");        // y, v
  space_.add(FactorKind::TSO3Left, owner_.local(2), "quadrotors");     // (R_i, Omega_i)
  space_.add(FactorKind::SE3OnTS2, owner_.local(2), "links");          // (q_i, w_i)
}

std::unique_ptr<Model> Quadrotors::create(const Config& cfg, par::Context& ctx) {
  QuadrotorParameters p;
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
  std::unique_ptr<QuadrotorInputLaw> law;
  const std::string kind = cfg.get_choice("quadrotors.inputs", {"none", "constant"});
  if (kind == "none") {
    law = std::make_unique<NoInputs>();
  } else {
    const auto T = list_of(cfg, "quadrotors.thrust", 2);
    const auto M = list_of(cfg, "quadrotors.moment", 6);
    law = std::make_unique<ConstantInputs>(std::array<double, 2>{T[0], T[1]},
                                           std::array<Vec3, 2>{Vec3(M[0], M[1], M[2]), Vec3(M[3], M[4], M[5])});
  }
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

void Quadrotors::observables(double, const double* P, Observables& out) {
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
}

std::vector<std::string> Quadrotors::observable_names() const {
  return {"total_energy", "kinetic_energy", "potential_energy", "unit_norm_error", "tangency_error",
          "orthogonality_error"};
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
                                         "[P] 6", &Quadrotors::create})

}  // namespace lie
