#include "models/elastic_rod.hpp"

#include <Eigen/LU>
#include <cmath>
#include <random>
#include <sstream>

#include "core/error.hpp"
#include "core/numeric.hpp"
#include "groups/maps.hpp"

namespace lie {

namespace {

const bool kKeys = declare_options({
    {"elastic_rod.n", OptionType::PositiveInt, "10", "number n of free rod elements ([L] Example 4: 10)", {},
     "elastic_rod"},
    {"elastic_rod.mass", OptionType::PositiveReal, "0.055", "total mass m of the n + 1 elements [kg]", {},
     "elastic_rod"},
    {"elastic_rod.length", OptionType::PositiveReal, "1.1", "total length l of the n + 1 elements [m]", {},
     "elastic_rod"},
    {"elastic_rod.stiffness", OptionType::NonNegativeReal, "1000", "spring constant kappa_i of every joint [Nm]",
     {}, "elastic_rod"},
    {"elastic_rod.gravity", OptionType::NonNegativeReal, "9.81",
     "gravitational acceleration g [m/s^2] (not stated in [L] Example 4)", {}, "elastic_rod"},
    {"elastic_rod.wall", OptionType::RealList, "1, 0, 0",
     "direction q_0 of the clamped element (unit vector; not stated in [L], e1: the rod starts unstressed)", {},
     "elastic_rod"},
    {"elastic_rod.inertia", OptionType::Choice, "printed",
     "printed: M_ij of [L] Example 4 as printed (= its eq. (36)); physical: the chain of uniform rods "
     "(M_ij = (m_j/2 + sum_{k>j} m_k) l_i l_j, i < j)",
     {"printed", "physical"}, "elastic_rod"},
    {"elastic_rod.initial", OptionType::Choice, "paper",
     "paper: q_i = e1, w_5 = (0, 0, 10) rad/s ([L] Example 4); random: q_i near q_0, w_i tangent (Gaussian, seed)",
     {"paper", "random"}, "elastic_rod"},
    {"elastic_rod.formulation", OptionType::Choice, "angular_velocity",
     "angular_velocity: state (q_i, w_i), [L] (10)-(11), every method; second_order: state (q_i, q_i') in R^6n "
     "integrating [L] (36), the equations of [L]'s RK45 baseline (classical methods only)",
     {"angular_velocity", "second_order"}, "elastic_rod"},
    {"elastic_rod.seed", OptionType::NonNegativeInt, "1", "seed of the random initial state", {}, "elastic_rod"},
});

}  // namespace

ElasticRod::ElasticRod(ElasticRodParameters p, const par::Context* ctx)
    : p_(std::move(p)), owner_(ctx), M_(p_.n, p_.n), A_(3 * p_.n, 3 * p_.n), b_(3 * p_.n), dw_(3 * p_.n),
      q_(3 * p_.n), dV_(3 * p_.n) {
  const std::size_t n = p_.n;
  if (p_.q0.empty()) {  // [L] Example 4
    p_.q0.assign(n, Vec3(1, 0, 0));
    p_.w0.assign(n, Vec3::Zero());
    if (n >= 5) p_.w0[4] = Vec3(0, 0, 10);
  }
  if (p_.q0.size() != n || p_.w0.size() != n) throw std::logic_error("ElasticRodParameters: q0, w0 need n entries");
  const double me = p_.mass / static_cast<double>(n + 1), le = p_.length / static_cast<double>(n + 1);
  const double u = me * le * le;
  const double dn = static_cast<double>(n);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      const auto ia = static_cast<Eigen::Index>(a), ib = static_cast<Eigen::Index>(b);
      const double top = static_cast<double>(std::max(a, b));  // 0-based max(i, j) - 1
      if (a == b) M_(ia, ib) = (1.0 / 3.0 + dn - static_cast<double>(a) - 1.0) * u;  // 1/3 m_i l_i^2 + (n - i) m l^2
      else if (p_.inertia == ElasticRodParameters::Inertia::Printed)
        M_(ia, ib) = 0.5 * (dn - top) * u;  // sum_{k=max(i,j)}^n m_k l_k^2 / 2
      else
        M_(ia, ib) = (dn - top - 0.5) * u;  // (m_j/2 + sum_{k>j} m_k) l_i l_j
    }
  if (p_.formulation == ElasticRodParameters::Formulation::AngularVelocity)
    space_.add(FactorKind::SE3OnTS2, owner_.local(n), "elements");
  else
    space_.add(FactorKind::Translation3, owner_.local(2 * n), "elements");  // q_1, q_1', q_2, q_2', ...
}

// <edge> parse: the elastic_rod.* keys
ElasticRod::Options ElasticRod::parse(const Config& cfg) {
  ElasticRodParameters p;
  p.n = static_cast<std::size_t>(cfg.get_int("elastic_rod.n"));
  p.mass = cfg.get_positive("elastic_rod.mass");
  p.length = cfg.get_positive("elastic_rod.length");
  p.stiffness = cfg.get_nonnegative("elastic_rod.stiffness");
  p.gravity = cfg.get_nonnegative("elastic_rod.gravity");
  if (cfg.get_choice("elastic_rod.formulation", {"angular_velocity", "second_order"}) == "second_order")
    p.formulation = ElasticRodParameters::Formulation::SecondOrder;
  const auto wall = cfg.get_double_list("elastic_rod.wall");
  if (wall.size() != 3 || std::fabs(Vec3(wall[0], wall[1], wall[2]).squaredNorm() - 1.0) > 1e-12)
    throw UsageError("key 'elastic_rod.wall' needs a unit vector of 3 values (the clamped element's direction), e.g. "
                     "1, 0, 0");
  p.wall = Vec3(wall[0], wall[1], wall[2]);
  p.inertia = cfg.get_choice("elastic_rod.inertia", {"printed", "physical"}) == "printed"
                  ? ElasticRodParameters::Inertia::Printed
                  : ElasticRodParameters::Inertia::Physical;
  if (cfg.get_choice("elastic_rod.initial", {"paper", "random"}) == "paper") {
    if (p.n < 5)
      throw UsageError("key 'elastic_rod.initial' has value 'paper', which kicks element 5, but elastic_rod.n = " +
                       std::to_string(p.n) + "; set n >= 5 or initial = random");
  } else {
    std::mt19937_64 rng(static_cast<std::uint64_t>(cfg.get_int("elastic_rod.seed")));
    std::normal_distribution<double> n01(0.0, 1.0);
    for (std::size_t i = 0; i < p.n; ++i) {
      const Vec3 q = (p.wall + 0.3 * Vec3(n01(rng), n01(rng), n01(rng))).normalized();
      Vec3 w = 3.0 * Vec3(n01(rng), n01(rng), n01(rng));
      w -= w.dot(q) * q;
      p.q0.push_back(q);
      p.w0.push_back(w);
    }
  }
  return p;
}
// </edge>

std::unique_ptr<Model> ElasticRod::create(const ModelOptions& options, par::Context& ctx) {
  const Options& p = std::any_cast<const Options&>(options);
  return std::make_unique<ElasticRod>(p, &ctx);
}

ModelCapabilities ElasticRod::capabilities() const {
  ModelCapabilities c;
  c.sphere_lagrangian = p_.formulation == ElasticRodParameters::Formulation::AngularVelocity;
  return c;
}

double ElasticRod::potential(const double* q) const {
  const std::size_t n = p_.n;
  const double me = p_.mass / static_cast<double>(n + 1), le = p_.length / static_cast<double>(n + 1);
  double V = 0.0, height = 0.0;  // height = sum_{j<i} l_j q_j . e3
  Vec3 prev = p_.wall;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3 qi = CMap3(q + 3 * i);
    V -= me * p_.gravity * (height + 0.5 * le * qi.z());
    height += le * qi.z();
    const double bend = 1.0 - prev.dot(qi);
    V += 0.5 * p_.stiffness * bend * bend;
    prev = qi;
  }
  return V;
}

void ElasticRod::potential_gradient(const double* q, double* dVdq) const {
  const std::size_t n = p_.n;
  const double me = p_.mass / static_cast<double>(n + 1), le = p_.length / static_cast<double>(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    // element i lifts its own centre by l_e/2 and the n - i - 1 elements beyond it by l_e (0-based i)
    const double beyond = static_cast<double>(n - i - 1);
    Map3{dVdq + 3 * i} = Vec3(0.0, 0.0, -p_.gravity * le * me * (0.5 + beyond));
  }
  for (std::size_t i = 0; i < n; ++i) {  // spring between q_{i-1} (q_0 = wall) and q_i
    const Vec3 qi = CMap3(q + 3 * i), prev = i == 0 ? p_.wall : Vec3(CMap3(q + 3 * (i - 1)));
    const double c = -p_.stiffness * (1.0 - prev.dot(qi));
    Map3{dVdq + 3 * i} += c * prev;
    if (i > 0) Map3{dVdq + 3 * (i - 1)} += c * qi;
  }
}

void ElasticRod::initial_state(double* y) const {
  if (!owner_.owns()) return;
  const bool second = p_.formulation == ElasticRodParameters::Formulation::SecondOrder;
  for (std::size_t i = 0; i < p_.n; ++i) {
    Map3{y + 6 * i} = p_.q0[i];
    Map3{y + 6 * i + 3} = second ? Vec3(p_.w0[i].cross(p_.q0[i])) : p_.w0[i];  // q' = w x q
  }
}

void ElasticRod::paper_accelerations(const double* q, const double* qdot, double* qddot) {
  const std::size_t n = p_.n;
  potential_gradient(q, dV_.data());
  // [L] (36) (= (8)): [M_ii I, -M_ij q^_i q^_i] q'' = [-M_ii (q_i'.q_i') q_i + q^_i^2 dV/dq_i]
  for (std::size_t i = 0; i < n; ++i) {
    const auto ri = static_cast<Eigen::Index>(3 * i);
    const Vec3 qi = CMap3(q + 3 * i), vi = CMap3(qdot + 3 * i);
    const Mat3 hh = so3::hat(qi) * so3::hat(qi);
    for (std::size_t j = 0; j < n; ++j)
      A_.block<3, 3>(ri, static_cast<Eigen::Index>(3 * j)) =
          i == j ? Mat3(inertia(i, i) * Mat3::Identity()) : Mat3(-inertia(i, j) * hh);
    b_.segment<3>(ri) = -inertia(i, i) * vi.squaredNorm() * qi + hh * Vec3(CMap3(&dV_[3 * i]));
  }
  dw_ = A_.partialPivLu().solve(b_);
  for (std::size_t k = 0; k < 3 * n; ++k) qddot[k] = dw_(static_cast<Eigen::Index>(k));
}

void ElasticRod::angular_accelerations(const double* y, double* dw) {
  const std::size_t n = p_.n;
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) q_[3 * i + c] = y[6 * i + c];
  potential_gradient(q_.data(), dV_.data());
  // [L] (11): [M_ii I, -M_ij q^_i q^_j] w' = [sum_{j != i} M_ij |w_j|^2 q^_i q_j - q^_i dV/dq_i]
  for (std::size_t i = 0; i < n; ++i) {
    const auto ri = static_cast<Eigen::Index>(3 * i);
    const Vec3 qi = CMap3(y + 6 * i);
    const Mat3 hi = so3::hat(qi);
    Vec3 rhs = -qi.cross(Vec3(CMap3(&dV_[3 * i])));
    for (std::size_t j = 0; j < n; ++j) {
      const auto rj = static_cast<Eigen::Index>(3 * j);
      const double Mij = inertia(i, j);
      if (i == j) {
        A_.block<3, 3>(ri, rj) = Mij * Mat3::Identity();
        continue;
      }
      const Vec3 qj = CMap3(y + 6 * j);
      A_.block<3, 3>(ri, rj) = -Mij * hi * so3::hat(qj);
      rhs += Mij * Vec3(CMap3(y + 6 * j + 3)).squaredNorm() * qi.cross(qj);
    }
    b_.segment<3>(ri) = rhs;
  }
  dw_ = A_.partialPivLu().solve(b_);
  // a singular system gives inf/NaN, which the study reports ('nonfinite'); no throw on rank 0 alone
  for (std::size_t k = 0; k < 3 * n; ++k) dw[k] = dw_(static_cast<Eigen::Index>(k));
}

void ElasticRod::vector_field(double, const double* y, double* xi) {
  ++n_rhs_;
  if (!owner_.owns()) return;
  if (p_.formulation == ElasticRodParameters::Formulation::SecondOrder) {  // translations: y' = f
    std::vector<double> v(3 * p_.n), a(3 * p_.n);
    for (std::size_t i = 0; i < p_.n; ++i)
      for (int c = 0; c < 3; ++c) q_[3 * i + c] = y[6 * i + c], v[3 * i + c] = y[6 * i + 3 + c];
    paper_accelerations(q_.data(), v.data(), a.data());
    for (std::size_t i = 0; i < p_.n; ++i) {
      Map3{xi + 6 * i} = CMap3(&v[3 * i]);
      Map3{xi + 6 * i + 3} = CMap3(&a[3 * i]);
    }
    return;
  }
  std::vector<double> dw(3 * p_.n);
  angular_accelerations(y, dw.data());
  for (std::size_t i = 0; i < p_.n; ++i) {
    Map3{xi + 6 * i} = CMap3(y + 6 * i + 3);                                    // u = w: q' = w x q
    Map3{xi + 6 * i + 3} = Vec3(CMap3(y + 6 * i)).cross(Vec3(CMap3(&dw[3 * i])));  // v = q x w': v x q = w'
  }
}

void ElasticRod::ambient_field(double t, const double* y, double* dy) {
  if (p_.formulation == ElasticRodParameters::Formulation::SecondOrder) {
    vector_field(t, y, dy);  // translations: psi_*(f) = f
    return;
  }
  ++n_rhs_;
  if (!owner_.owns()) return;
  std::vector<double> dw(3 * p_.n);
  angular_accelerations(y, dw.data());
  for (std::size_t i = 0; i < p_.n; ++i) {
    Map3{dy + 6 * i} = Vec3(CMap3(y + 6 * i + 3)).cross(Vec3(CMap3(y + 6 * i)));  // (10)
    Map3{dy + 6 * i + 3} = CMap3(&dw[3 * i]);                                     // (11)
  }
}

void ElasticRod::observables(double, const double* y, Observables& out) {
  double T = 0.0, V = 0.0, unit = 0.0, tang = 0.0;
  if (owner_.owns()) {
    const std::size_t n = p_.n;
    std::vector<Vec3> qdot(n);
    for (std::size_t i = 0; i < n; ++i) {
      const Vec3 qi = CMap3(y + 6 * i), x = CMap3(y + 6 * i + 3);
      const bool second = p_.formulation == ElasticRodParameters::Formulation::SecondOrder;
      qdot[i] = second ? x : Vec3(x.cross(qi));
      for (int c = 0; c < 3; ++c) q_[3 * i + c] = qi[c];
      unit = nan_max(unit, std::fabs(1.0 - qi.squaredNorm()));
      tang = nan_max(tang, std::fabs(qi.dot(x)));  // q.w, or q.q' (second_order)
    }
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) T += 0.5 * inertia(i, j) * qdot[i].dot(qdot[j]);
    V = potential(q_.data());
  }
  out.set("total_energy", owner_.broadcast(T + V));
  out.set("kinetic_energy", owner_.broadcast(T));
  out.set("potential_energy", owner_.broadcast(V));
  out.set("unit_norm_error", owner_.broadcast(unit));
  out.set("tangency_error", owner_.broadcast(tang));
}

std::vector<std::string> ElasticRod::observable_names() const {
  return {"total_energy", "kinetic_energy", "potential_energy", "unit_norm_error", "tangency_error"};
}

std::vector<TrajectoryField> ElasticRod::trajectory_fields() const {
  return {{"direction", 3, "1", "q_i, unit vector along element i"},
          {"angular_velocity", 3, "rad/s", "w_i, q_i' = w_i x q_i"},
          {"position", 3, "m", "free end of element i (the clamped element starts at the origin)"}};
}

void ElasticRod::trajectory_field(const std::string& name, const double* y, double* out) const {
  if (!owner_.owns()) return;
  const double le = p_.length / static_cast<double>(p_.n + 1);
  Vec3 end = le * p_.wall;
  for (std::size_t i = 0; i < p_.n; ++i) {
    const Vec3 q = CMap3(y + 6 * i);
    end += le * q;
    if (name == "direction") Map3{out + 3 * i} = q;
    else if (name == "angular_velocity")
      Map3{out + 3 * i} = p_.formulation == ElasticRodParameters::Formulation::SecondOrder
                              ? Vec3(q.cross(Vec3(CMap3(y + 6 * i + 3))))
                              : Vec3(CMap3(y + 6 * i + 3));
    else if (name == "position") Map3{out + 3 * i} = end;
    else throw std::logic_error("elastic_rod has no trajectory field '" + name + "'");
  }
}

LIEBENCH_REGISTER(ModelEntry, ModelEntry{"elastic_rod",
                                         "pure bending of an elastic rod clamped to a wall, n elements on (S^2)^n "
                                         "with a dense inertia matrix (implicit variational integrator)",
                                         "[L] Example 4", &ElasticRod::create, &ElasticRod::parse})

}  // namespace lie
