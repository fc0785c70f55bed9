#include "models/sphere_bodies.hpp"

#include "core/error.hpp"
#include "core/numeric.hpp"
#include "groups/maps.hpp"

#include <cmath>
#include <random>
#include <sstream>

namespace lie {

namespace {

const bool kKeys = declare_options({
    {"sphere_bodies.n", OptionType::PositiveInt, "3", "number of bodies n ([L] Example 2: 3)", {}, "sphere_bodies"},
    {"sphere_bodies.mass", OptionType::PositiveRealList, "1",
     "masses m_i: one value for every body, or n values ([L] Example 2: 1)", {}, "sphere_bodies"},
    {"sphere_bodies.gamma", OptionType::Real, "1",
     "gamma of V = -gamma/2 sum_{i != j} q_i.q_j / sqrt(1 - (q_i.q_j)^2) ([L] Example 2: 1)", {}, "sphere_bodies"},
    {"sphere_bodies.initial", OptionType::Choice, "paper",
     "paper: the initial state of [L] Example 2 (n = 3); random: q_i uniform on S^2 with |q_i.q_j| < 0.9, w_i "
     "tangent (Gaussian, seed key)",
     {"paper", "random"}, "sphere_bodies"},
    {"sphere_bodies.formulation", OptionType::Choice, "angular_velocity",
     "angular_velocity: state (q_i, w_i), [L] (9)-(10), every method; second_order: state (q_i, q_i') in R^6n "
     "integrating [L] (33), the equations of [L]'s RK2 baseline (classical methods only)",
     {"angular_velocity", "second_order"}, "sphere_bodies"},
    {"sphere_bodies.seed", OptionType::NonNegativeInt, "1", "seed of the random initial state", {}, "sphere_bodies"},
});

// 1 - (q_i.q_j)^2, zero at a collision or an antipodal pair, where V and dV/dq are singular:
// the field is then inf/NaN and the study marks the run 'nonfinite'. No exception here: the
// bodies live on rank 0 alone, and a throw on one rank would leave the others in a collective.
double separation(const Vec3& a, const Vec3& b) {
  const double x = a.dot(b);
  return 1.0 - x * x;
}

}  // namespace

SphereBodies::SphereBodies(SphereBodiesParameters p, const par::Context* ctx)
    : p_(std::move(p)), owner_(ctx), q_(3 * p_.n), dV_(3 * p_.n) {
  if (p_.mass.size() != p_.n || p_.q0.size() != p_.n || p_.w0.size() != p_.n)
    throw std::logic_error("SphereBodiesParameters: mass, q0 and w0 need n entries");
  if (p_.formulation == SphereBodiesParameters::Formulation::AngularVelocity)
    space_.add(FactorKind::SE3OnTS2, owner_.local(p_.n), "bodies");
  else
    space_.add(FactorKind::Translation3, owner_.local(2 * p_.n), "bodies");  // q_1, q_1', q_2, q_2', ...
}

// <edge> parse: the sphere_bodies.* keys
SphereBodies::Options SphereBodies::parse(const Config& cfg) {
  SphereBodiesParameters p;
  p.n = static_cast<std::size_t>(cfg.get_int("sphere_bodies.n"));
  const auto m = cfg.get_double_list("sphere_bodies.mass");
  if (m.size() != 1 && m.size() != p.n) {
    std::ostringstream os;
    os << "key 'sphere_bodies.mass' has " << m.size() << " values; give one (every body) or sphere_bodies.n = "
       << p.n;
    throw UsageError(os.str());
  }
  p.mass.assign(p.n, m[0]);
  if (m.size() == p.n) p.mass = m;
  p.gamma = cfg.get_double("sphere_bodies.gamma");
  if (cfg.get_choice("sphere_bodies.formulation", {"angular_velocity", "second_order"}) == "second_order")
    p.formulation = SphereBodiesParameters::Formulation::SecondOrder;
  if (cfg.get_choice("sphere_bodies.initial", {"paper", "random"}) == "paper") {
    if (p.n != 3)
      throw UsageError("key 'sphere_bodies.initial' has value 'paper', which is the state of 3 bodies, but "
                       "sphere_bodies.n = " + std::to_string(p.n) + "; set n = 3 or initial = random");
  } else {
    std::mt19937_64 rng(static_cast<std::uint64_t>(cfg.get_int("sphere_bodies.seed")));
    std::normal_distribution<double> n01(0.0, 1.0);
    p.q0.clear();
    p.w0.clear();
    while (p.q0.size() < p.n) {
      const Vec3 q = Vec3(n01(rng), n01(rng), n01(rng)).normalized();
      bool apart = true;
      for (const Vec3& other : p.q0) apart = apart && std::fabs(q.dot(other)) < 0.9;
      if (!apart) continue;
      Vec3 w(n01(rng), n01(rng), n01(rng));
      w -= w.dot(q) * q;
      p.q0.push_back(q);
      p.w0.push_back(w);
    }
  }
  return p;
}
// </edge>

std::unique_ptr<Model> SphereBodies::create(const ModelOptions& options, par::Context& ctx) {
  const Options& p = std::any_cast<const Options&>(options);
  return std::make_unique<SphereBodies>(p, &ctx);
}

ModelCapabilities SphereBodies::capabilities() const {
  ModelCapabilities c;
  c.sphere_lagrangian = p_.formulation == SphereBodiesParameters::Formulation::AngularVelocity;
  return c;
}

double SphereBodies::potential(const double* q) const {
  double V = 0.0;
  for (std::size_t i = 0; i < p_.n; ++i)
    for (std::size_t j = i + 1; j < p_.n; ++j) {
      const Vec3 a = CMap3(q + 3 * i), b = CMap3(q + 3 * j);
      V -= p_.gamma * a.dot(b) / std::sqrt(separation(a, b));  // each pair twice in [L]'s sum, times 1/2
    }
  return V;
}

void SphereBodies::potential_gradient(const double* q, double* dVdq) const {
  for (std::size_t k = 0; k < 3 * p_.n; ++k) dVdq[k] = 0.0;
  for (std::size_t i = 0; i < p_.n; ++i)
    for (std::size_t j = i + 1; j < p_.n; ++j) {
      const Vec3 a = CMap3(q + 3 * i), b = CMap3(q + 3 * j);
      const double s = separation(a, b);
      const double c = p_.gamma / (s * std::sqrt(s));  // d/dx [x / sqrt(1 - x^2)] = (1 - x^2)^(-3/2)
      Map3{dVdq + 3 * i} -= c * b;
      Map3{dVdq + 3 * j} -= c * a;
    }
}

void SphereBodies::initial_state(double* y) const {
  if (!owner_.owns()) return;
  const bool second = p_.formulation == SphereBodiesParameters::Formulation::SecondOrder;
  for (std::size_t i = 0; i < p_.n; ++i) {
    Map3{y + 6 * i} = p_.q0[i];
    Map3{y + 6 * i + 3} = second ? Vec3(p_.w0[i].cross(p_.q0[i])) : p_.w0[i];  // q' = w x q
  }
}

void SphereBodies::paper_accelerations(const double* q, const double* qdot, double* qddot) {
  // [L] (33): m_i q_i'' = -m_i (q_i'.q_i') q_i - q_i x (q_i x gamma sum_{j != i} q_j / (1 - (q_i.q_j)^2)^(3/2)),
  // where -gamma sum_j ... = dV/dq_i
  potential_gradient(q, dV_.data());
  for (std::size_t i = 0; i < p_.n; ++i) {
    const Vec3 qi = CMap3(q + 3 * i), vi = CMap3(qdot + 3 * i), dV = CMap3(&dV_[3 * i]);
    Map3{qddot + 3 * i} = -vi.squaredNorm() * qi + qi.cross(qi.cross(dV)) / p_.mass[i];
  }
}

void SphereBodies::vector_field(double, const double* y, double* xi) {
  ++n_rhs_;
  if (!owner_.owns()) return;
  for (std::size_t i = 0; i < p_.n; ++i)
    for (int c = 0; c < 3; ++c) q_[3 * i + c] = y[6 * i + c];
  if (p_.formulation == SphereBodiesParameters::Formulation::SecondOrder) {  // translations: y' = f
    std::vector<double> v(3 * p_.n), a(3 * p_.n);
    for (std::size_t i = 0; i < p_.n; ++i)
      for (int c = 0; c < 3; ++c) v[3 * i + c] = y[6 * i + 3 + c];
    paper_accelerations(q_.data(), v.data(), a.data());
    for (std::size_t i = 0; i < p_.n; ++i) {
      Map3{xi + 6 * i} = CMap3(&v[3 * i]);
      Map3{xi + 6 * i + 3} = CMap3(&a[3 * i]);
    }
    return;
  }
  potential_gradient(q_.data(), dV_.data());
  for (std::size_t i = 0; i < p_.n; ++i) {
    Map3{xi + 6 * i} = CMap3(y + 6 * i + 3);              // u = w: q' = w x q
    Map3{xi + 6 * i + 3} = CMap3(&dV_[3 * i]) / p_.mass[i];  // v x q = -q x dV/dq / m_i   ([L] (9))
  }
}

void SphereBodies::observables(double, const double* y, Observables& out) {
  double T = 0.0, V = 0.0, unit = 0.0, tang = 0.0;
  Vec3 L = Vec3::Zero();
  if (owner_.owns()) {
    for (std::size_t i = 0; i < p_.n; ++i) {
      const Vec3 qi = CMap3(y + 6 * i);
      const bool second = p_.formulation == SphereBodiesParameters::Formulation::SecondOrder;
      const Vec3 qdot = second ? Vec3(CMap3(y + 6 * i + 3)) : Vec3(Vec3(CMap3(y + 6 * i + 3)).cross(qi));
      const Vec3 wi = second ? Vec3(qi.cross(qdot)) : Vec3(CMap3(y + 6 * i + 3));  // tangency: q.q' there
      for (int c = 0; c < 3; ++c) q_[3 * i + c] = qi[c];
      T += 0.5 * p_.mass[i] * qdot.squaredNorm();
      L += p_.mass[i] * qi.cross(qdot);
      unit = nan_max(unit, std::fabs(1.0 - qi.squaredNorm()));
      tang = nan_max(tang, std::fabs(second ? qi.dot(qdot) : qi.dot(wi)));
    }
    V = potential(q_.data());
  }
  out.set("total_energy", owner_.broadcast(T + V));
  out.set("kinetic_energy", owner_.broadcast(T));
  out.set("potential_energy", owner_.broadcast(V));
  out.set("angular_momentum_x", owner_.broadcast(L.x()));
  out.set("angular_momentum_y", owner_.broadcast(L.y()));
  out.set("angular_momentum_z", owner_.broadcast(L.z()));
  out.set("unit_norm_error", owner_.broadcast(unit));
  out.set("tangency_error", owner_.broadcast(tang));
}

std::vector<std::string> SphereBodies::observable_names() const {
  return {"total_energy",       "kinetic_energy",     "potential_energy", "angular_momentum_x",
          "angular_momentum_y", "angular_momentum_z", "unit_norm_error",  "tangency_error"};
}

std::vector<TrajectoryField> SphereBodies::trajectory_fields() const {
  return {{"position", 3, "1", "q_i, the body's position on the unit sphere"},
          {"angular_velocity", 3, "rad/s", "w_i, q_i' = w_i x q_i"}};
}

void SphereBodies::trajectory_field(const std::string& name, const double* y, double* out) const {
  if (!owner_.owns()) return;
  for (std::size_t i = 0; i < p_.n; ++i) {
    if (name == "position") Map3{out + 3 * i} = CMap3(y + 6 * i);
    else if (name == "angular_velocity")
      Map3{out + 3 * i} = p_.formulation == SphereBodiesParameters::Formulation::SecondOrder
                              ? Vec3(Vec3(CMap3(y + 6 * i)).cross(Vec3(CMap3(y + 6 * i + 3))))
                              : Vec3(CMap3(y + 6 * i + 3));
    else throw std::logic_error("sphere_bodies has no trajectory field '" + name + "'");
  }
}

LIEBENCH_REGISTER(ModelEntry, ModelEntry{"sphere_bodies",
                                         "n point masses on the sphere under the spherical analogue of gravity on "
                                         "(S^2)^n (also for the variational integrators)",
                                         "[L] Example 2", &SphereBodies::create, &SphereBodies::parse})

}  // namespace lie
