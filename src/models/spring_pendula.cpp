#include "models/spring_pendula.hpp"

#include "core/numeric.hpp"
#include "groups/maps.hpp"

#include <cmath>
#include <random>
#include <sstream>

namespace lie {

namespace {

constexpr std::size_t kN = SpringPendulaParameters::n;

const bool kKeys = declare_options({
    {"spring_pendula.mass", OptionType::PositiveReal, "0.1", "mass m_i of every bob [kg] ([L] Example 3)", {},
     "spring_pendula"},
    {"spring_pendula.length", OptionType::PositiveReal, "0.1",
     "length l_i of every link [m]; also the side of the square of pivots", {}, "spring_pendula"},
    {"spring_pendula.gravity", OptionType::NonNegativeReal, "9.81", "gravitational acceleration g [m/s^2]", {},
     "spring_pendula"},
    {"spring_pendula.stiffness", OptionType::RealList, "10, 20, 30, 40",
     "spring constants kappa_12, kappa_23, kappa_34, kappa_41 [N/m]", {}, "spring_pendula"},
    {"spring_pendula.initial", OptionType::Choice, "paper",
     "paper: the initial state of [L] Example 3; random: q_i near e3, w_i tangent (Gaussian, seed key)",
     {"paper", "random"}, "spring_pendula"},
    {"spring_pendula.seed", OptionType::NonNegativeInt, "1", "seed of the random initial state", {},
     "spring_pendula"},
});


}  // namespace

SpringPendula::SpringPendula(SpringPendulaParameters p, const par::Context* ctx) : p_(std::move(p)), owner_(ctx) {
  space_.add(FactorKind::SE3OnTS2, owner_.local(kN), "pendula");
  const double l = p_.length;
  // r_12 = l e1, r_23 = -l e2, r_34 = -l e1, r_41 = l e2
  pivots_ = {Vec3(0, 0, 0), Vec3(l, 0, 0), Vec3(l, -l, 0), Vec3(0, -l, 0)};
}

// <edge> parse: the spring_pendula.* keys
SpringPendula::Options SpringPendula::parse(const Config& cfg) {
  SpringPendulaParameters p;
  p.mass = cfg.get_positive("spring_pendula.mass");
  p.length = cfg.get_positive("spring_pendula.length");
  p.gravity = cfg.get_nonnegative("spring_pendula.gravity");
  const auto k = cfg.get_double_list("spring_pendula.stiffness");
  if (k.size() != kN) {
    std::ostringstream os;
    os << "key 'spring_pendula.stiffness' needs 4 values (kappa_12, kappa_23, kappa_34, kappa_41), got " << k.size();
    throw UsageError(os.str());
  }
  for (std::size_t i = 0; i < kN; ++i) {
    if (k[i] < 0.0) throw UsageError("key 'spring_pendula.stiffness' has a negative value; spring constants are >= 0");
    p.stiffness[i] = k[i];
  }
  if (cfg.get_choice("spring_pendula.initial", {"paper", "random"}) == "random") {
    std::mt19937_64 rng(static_cast<std::uint64_t>(cfg.get_int("spring_pendula.seed")));
    std::normal_distribution<double> n01(0.0, 1.0);
    for (std::size_t i = 0; i < kN; ++i) {
      const Vec3 q = (Vec3(0, 0, 1) + 0.6 * Vec3(n01(rng), n01(rng), n01(rng))).normalized();
      Vec3 w = 4.0 * Vec3(n01(rng), n01(rng), n01(rng));
      w -= w.dot(q) * q;
      p.q0[i] = q;
      p.w0[i] = w;
    }
  }
  return p;
}
// </edge>

std::unique_ptr<Model> SpringPendula::create(const ModelOptions& options, par::Context& ctx) {
  const Options& p = std::any_cast<const Options&>(options);
  return std::make_unique<SpringPendula>(p, &ctx);
}

ModelCapabilities SpringPendula::capabilities() const {
  ModelCapabilities c;
  c.sphere_lagrangian = true;
  return c;
}

double SpringPendula::inertia(std::size_t i, std::size_t j) const {
  return i == j ? p_.mass * p_.length * p_.length : 0.0;
}

double SpringPendula::potential(const double* q) const {
  const double m = p_.mass, l = p_.length, g = p_.gravity;
  double V = 0.0;
  for (std::size_t i = 0; i < kN; ++i) V -= m * g * l * q[3 * i + 2];
  for (std::size_t i = 0; i < kN; ++i) {
    const std::size_t j = (i + 1) % kN;
    const Vec3 r = pivots_[j] - pivots_[i];
    const Vec3 s = r + 0.5 * l * CMap3(q + 3 * j) - 0.5 * l * CMap3(q + 3 * i);
    const double stretch = s.norm() - r.norm();
    V += 0.5 * p_.stiffness[i] * stretch * stretch;
  }
  return V;
}

void SpringPendula::potential_gradient(const double* q, double* dVdq) const {
  const double m = p_.mass, l = p_.length, g = p_.gravity;
  for (std::size_t i = 0; i < kN; ++i) Map3{dVdq + 3 * i} = Vec3(0.0, 0.0, -m * g * l);
  for (std::size_t i = 0; i < kN; ++i) {
    const std::size_t j = (i + 1) % kN;
    const Vec3 r = pivots_[j] - pivots_[i];
    const Vec3 s = r + 0.5 * l * CMap3(q + 3 * j) - 0.5 * l * CMap3(q + 3 * i);
    const double sn = s.norm();
    const Vec3 force = p_.stiffness[i] * (sn - r.norm()) / sn * s;  // dE/ds
    Map3{dVdq + 3 * j} += 0.5 * l * force;
    Map3{dVdq + 3 * i} -= 0.5 * l * force;
  }
}

void SpringPendula::initial_state(double* y) const {
  if (!owner_.owns()) return;
  for (std::size_t i = 0; i < kN; ++i) {
    Map3{y + 6 * i} = p_.q0[i];
    Map3{y + 6 * i + 3} = p_.w0[i];
  }
}

void SpringPendula::vector_field(double, const double* y, double* xi) {
  ++n_rhs_;
  if (!owner_.owns()) return;
  double q[3 * kN], dV[3 * kN];
  for (std::size_t i = 0; i < kN; ++i)
    for (int c = 0; c < 3; ++c) q[3 * i + c] = y[6 * i + c];
  potential_gradient(q, dV);
  for (std::size_t i = 0; i < kN; ++i) {
    Map3{xi + 6 * i} = CMap3(y + 6 * i + 3);                      // u = w: q' = w x q
    Map3{xi + 6 * i + 3} = CMap3(dV + 3 * i) / inertia(i, i);     // v x q = -q x dV/dq / M_ii
  }
}

void SpringPendula::observables(double, const double* y, Observables& out) {
  double T = 0.0, V = 0.0, unit = 0.0, tang = 0.0;
  if (owner_.owns()) {
    double q[3 * kN];
    for (std::size_t i = 0; i < kN; ++i) {
      const Vec3 qi = CMap3(y + 6 * i), wi = CMap3(y + 6 * i + 3);
      for (int c = 0; c < 3; ++c) q[3 * i + c] = qi[c];
      T += 0.5 * inertia(i, i) * wi.cross(qi).squaredNorm();
      unit = nan_max(unit, std::fabs(1.0 - qi.squaredNorm()));
      tang = nan_max(tang, std::fabs(qi.dot(wi)));
    }
    V = potential(q);
  }
  out.set("total_energy", owner_.broadcast(T + V));
  out.set("kinetic_energy", owner_.broadcast(T));
  out.set("potential_energy", owner_.broadcast(V));
  out.set("unit_norm_error", owner_.broadcast(unit));
  out.set("tangency_error", owner_.broadcast(tang));
}

std::vector<std::string> SpringPendula::observable_names() const {
  return {"total_energy", "kinetic_energy", "potential_energy", "unit_norm_error", "tangency_error"};
}

std::vector<TrajectoryField> SpringPendula::trajectory_fields() const {
  return {{"direction", 3, "1", "q_i, unit vector from pivot to bob"},
          {"angular_velocity", 3, "rad/s", "w_i, q_i' = w_i x q_i"},
          {"position", 3, "m", "bob position p_i + l_i q_i"}};
}

void SpringPendula::trajectory_field(const std::string& name, const double* y, double* out) const {
  if (!owner_.owns()) return;
  for (std::size_t i = 0; i < kN; ++i) {
    const Vec3 q = CMap3(y + 6 * i), w = CMap3(y + 6 * i + 3);
    if (name == "direction") Map3{out + 3 * i} = q;
    else if (name == "angular_velocity") Map3{out + 3 * i} = w;
    else if (name == "position") Map3{out + 3 * i} = pivots_[i] + p_.length * q;
    else throw std::logic_error("spring_pendula has no trajectory field '" + name + "'");
  }
}

LIEBENCH_REGISTER(ModelEntry, ModelEntry{"spring_pendula",
                                         "four spherical pendula joined by linear springs on (S^2)^4 (also for the "
                                         "variational integrators)",
                                         "[L] Example 3", &SpringPendula::create, &SpringPendula::parse})

}  // namespace lie
