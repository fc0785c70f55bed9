#include "models/heavy_top.hpp"

#include <cmath>
#include "groups/maps.hpp"
#include <sstream>

namespace lie {

namespace {

const bool kKeys = declare_options({
    {"heavy_top.formulation", OptionType::Choice, "tstar_so3",
     "tstar_so3: (Q, pi) on T*SO(3), [P] eqs. (21)-(22); lie_poisson: (Pi, Gamma) on se(3)*, eqs. (23)-(24); "
     "quadratic: (Q, pi, q, p) on T*(SO(3) x R^3), eqs. (29)-(32)",
     {"tstar_so3", "lie_poisson", "quadratic"}, "heavy_top"},
    {"heavy_top.mass", OptionType::PositiveReal, "15", "mass M ([P] 3.4.4)", {}, "heavy_top"},
    {"heavy_top.length", OptionType::PositiveReal, "2", "distance l from the fixed point to the centre of mass", {},
     "heavy_top"},
    {"heavy_top.inertia", OptionType::PositiveRealList, "0.234375, 0.46875, 0.234375",
     "diagonal body inertia about the fixed point", {}, "heavy_top"},
    {"heavy_top.com_direction", OptionType::RealList, "0, 1, 0",
     "X: body-fixed unit vector from the fixed point to the centre of mass", {}, "heavy_top"},
    {"heavy_top.gamma0", OptionType::RealList, "0, 0, -9.81",
     "Gamma0 of [P] 3.4.4 read as g times the upward unit vector: potential M l Gamma0.(Q X)", {}, "heavy_top"},
    {"heavy_top.omega0", OptionType::RealList, "0, 150, -4.61538",
     "initial body angular velocity; pi(0) = Q(0) I omega0", {}, "heavy_top"},
    {"heavy_top.attitude0", OptionType::RealList, "0, 0, 0",
     "initial attitude Q(0) = exp(hat(v)) as a rotation vector v (axis times angle)", {}, "heavy_top"},
});


// <edge> parse
Vec3 vec3_key(const Config& cfg, const std::string& key) {
  const auto v = cfg.get_double_list(key);
  if (v.size() != 3) {
    std::ostringstream os;
    os << "key '" << key << "' needs 3 values, got " << v.size();
    throw UsageError(os.str());
  }
  return Vec3(v[0], v[1], v[2]);
}
// </edge>

}  // namespace

HeavyTop::HeavyTop(HeavyTopParameters p, HeavyTopFormulation f, const par::Context* ctx)
    : p_(std::move(p)), form_(f), owner_(ctx), Ml_(p_.mass * p_.length) {
  const std::size_t n = owner_.local(1);
  switch (form_) {
    case HeavyTopFormulation::TstarSO3:
      space_.add(FactorKind::TstarSO3RightTriv, n, "top");
      state_dim_ = 12;
      break;
    case HeavyTopFormulation::LiePoisson:
      space_.add(FactorKind::SE3Coadjoint, n, "top");
      state_dim_ = 6;
      break;
    case HeavyTopFormulation::Quadratic:
      space_.add(FactorKind::TstarSO3RightTriv, n, "top");
      space_.add(FactorKind::Translation3, n, "q");
      space_.add(FactorKind::Translation3, n, "p");
      state_dim_ = 18;
      break;
  }
}

// <edge> parse: the heavy_top.* keys
HeavyTop::Options HeavyTop::parse(const Config& cfg) {
  HeavyTopParameters p;
  p.mass = cfg.get_positive("heavy_top.mass");
  p.length = cfg.get_positive("heavy_top.length");
  p.inertia = vec3_key(cfg, "heavy_top.inertia");
  p.com_direction = vec3_key(cfg, "heavy_top.com_direction");
  if (std::fabs(p.com_direction.norm() - 1.0) > 1e-12) {
    std::ostringstream os;
    os << "key 'heavy_top.com_direction' has value '" << cfg.get_string("heavy_top.com_direction")
       << "'; must be a unit vector (|X| = " << p.com_direction.norm() << "), the length is heavy_top.length";
    throw UsageError(os.str());
  }
  p.gamma0 = vec3_key(cfg, "heavy_top.gamma0");
  p.omega0 = vec3_key(cfg, "heavy_top.omega0");
  p.attitude0 = so3::exp(vec3_key(cfg, "heavy_top.attitude0"));
  const std::string f = cfg.get_choice("heavy_top.formulation", {"tstar_so3", "lie_poisson", "quadratic"});
  const HeavyTopFormulation form = f == "tstar_so3"     ? HeavyTopFormulation::TstarSO3
                                   : f == "lie_poisson" ? HeavyTopFormulation::LiePoisson
                                                        : HeavyTopFormulation::Quadratic;
  return {p, form};
}
// </edge>

std::unique_ptr<Model> HeavyTop::create(const ModelOptions& options, par::Context& ctx) {
  const Options& o = std::any_cast<const Options&>(options);
  return std::make_unique<HeavyTop>(o.parameters, o.formulation, &ctx);
}

ModelCapabilities HeavyTop::capabilities() const {
  ModelCapabilities c;
  c.cotangent_hamiltonian = form_ != HeavyTopFormulation::LiePoisson;
  c.rigid_bodies = form_ == HeavyTopFormulation::TstarSO3;
  return c;
}

void HeavyTop::initial_state(double* y) const {
  if (!owner_.owns()) return;
  const Mat3& Q = p_.attitude0;
  const Vec3 Pi = p_.inertia.cwiseProduct(p_.omega0);
  switch (form_) {
    case HeavyTopFormulation::LiePoisson:
      Map3{y} = Pi;
      Map3{y + 3} = Q.transpose() * p_.gamma0;
      break;
    case HeavyTopFormulation::Quadratic:
      Map3{y + 12} = Vec3::Zero();               // q(0)
      Map3{y + 15} = -Ml_ * p_.com_direction;    // p = -M l X
      [[fallthrough]];
    case HeavyTopFormulation::TstarSO3:
      MapQ{y} = Q;
      Map3{y + 9} = Q * Pi;
      break;
  }
}

// ------------------------------------------------------------------ cotangent structure
void HeavyTop::check_cotangent() const {
  if (form_ == HeavyTopFormulation::LiePoisson)
    throw UsageError("heavy_top with formulation = lie_poisson is not a system on a cotangent bundle T*G; use "
                     "tstar_so3 or quadratic");
}

CotangentGroup HeavyTop::cotangent_group() const {
  check_cotangent();
  CotangentGroup g;
  g.rotations = owner_.local(1);
  g.translations = form_ == HeavyTopFormulation::Quadratic ? 3 * owner_.local(1) : 0;
  return g;
}

void HeavyTop::split_state(const double* y, double* g, double* mu) const {
  check_cotangent();
  if (!owner_.owns()) return;
  std::copy(y, y + 9, g);       // Q
  std::copy(y + 9, y + 12, mu);  // pi
  if (form_ == HeavyTopFormulation::Quadratic) {
    std::copy(y + 12, y + 15, g + 9);   // q
    std::copy(y + 15, y + 18, mu + 3);  // p
  }
}

void HeavyTop::join_state(const double* g, const double* mu, double* y) const {
  check_cotangent();
  if (!owner_.owns()) return;
  std::copy(g, g + 9, y);
  std::copy(mu, mu + 3, y + 9);
  if (form_ == HeavyTopFormulation::Quadratic) {
    std::copy(g + 9, g + 12, y + 12);
    std::copy(mu + 3, mu + 6, y + 15);
  }
}

void HeavyTop::hamiltonian_map(double, const double* g, const double* mu, double* f1, double* f2) {
  check_cotangent();
  ++n_rhs_;
  if (!owner_.owns()) return;
  const Mat3 Q = CMapQ(g);
  const Vec3 pi = CMap3(mu);
  const Vec3 w = Q * inv_inertia(Q.transpose() * pi);  // dH/dpi = Q I^-1 Q^T pi
  Map3{f1} = w;
  if (form_ == HeavyTopFormulation::TstarSO3) {
    // <R_Q^* dH/dQ, eta> = d/de H(exp(e eta) Q, pi) = eta.(w x pi + M l (Q X) x Gamma0)
    Map3{f2} = pi.cross(w) + Ml_ * p_.gamma0.cross(Q * p_.com_direction);
  } else {
    // quadratic: H = 1/2 pi.w + 1/2 |p|^2 - p.Q^T Gamma0;  R^* dH/dQ = w x pi + Gamma0 x Q p
    const Vec3 p = CMap3(mu + 3);
    Map3{f2} = pi.cross(w) - p_.gamma0.cross(Q * p);
    Map3{f1 + 3} = p - Q.transpose() * p_.gamma0;  // dH/dp
    Map3{f2 + 3} = Vec3::Zero();                   // -dH/dq
  }
}

double HeavyTop::hamiltonian(const double* g, const double* mu) {
  check_cotangent();
  double H = 0.0;
  if (owner_.owns()) {
    const Mat3 Q = CMapQ(g);
    const Vec3 Pi = Q.transpose() * CMap3(mu);
    const Vec3 Gamma = Q.transpose() * p_.gamma0;
    H = 0.5 * Pi.dot(inv_inertia(Pi));
    if (form_ == HeavyTopFormulation::TstarSO3) {
      H += Ml_ * Gamma.dot(p_.com_direction);
    } else {
      const Vec3 p = CMap3(mu + 3);
      H += 0.5 * (p - Gamma).squaredNorm() - 0.5 * Gamma.squaredNorm();
    }
  }
  return owner_.broadcast(H);
}

// ------------------------------------------------------------------ rigid body (splittings)
void HeavyTop::check_rigid_body() const {
  if (form_ == HeavyTopFormulation::LiePoisson)
    throw UsageError(std::string("heavy_top with formulation = lie_poisson carries no attitude Q; ") + kRigidBodyModels);
  if (form_ == HeavyTopFormulation::Quadratic)
    throw UsageError(std::string("heavy_top with formulation = quadratic has no separable Hamiltonian (its potential "
                                 "part depends on p); ") + kRigidBodyModels);
}

RigidBodyLayout HeavyTop::rigid_body_layout() const {
  check_rigid_body();
  RigidBodyLayout l;
  l.bodies = owner_.local(1);
  l.stride = 12;
  l.attitude = 0;
  l.angular_momentum = 9;
  l.spatial_momentum = true;  // pi = Q Pi
  l.inertia = {p_.inertia[0], p_.inertia[1], p_.inertia[2]};
  return l;
}

void HeavyTop::forces_and_torques(double, const double* y, double*, double* tau) {
  check_rigid_body();
  ++n_rhs_;
  if (!owner_.owns()) return;
  const Vec3 Gamma = CMapQ(y).transpose() * p_.gamma0;
  Map3{tau} = Ml_ * Gamma.cross(p_.com_direction);  // tau = -rot(Q^T dV/dQ) = M l Gamma x X
}

// ------------------------------------------------------------------ Model
void HeavyTop::vector_field(double t, const double* y, double* xi) {
  if (form_ == HeavyTopFormulation::LiePoisson) {
    ++n_rhs_;
    if (!owner_.owns()) return;
    // Pi' = Pi x w + M l Gamma x X, Gamma' = Gamma x w  (eqs. (23)-(24)) = generator of
    // (x, u) = -(dH/dPi, dH/dGamma) for the coadjoint action psi_*(x, u) = (x x Pi + u x Gamma, x x Gamma).
    Map3{xi} = -inv_inertia(CMap3(y));
    Map3{xi + 3} = -Ml_ * p_.com_direction;
    return;
  }
  // T*G: psi_*(f1, f2)|(Q, pi) = (hat(f1) Q, f2 + f1 x pi) = (R_Q* f1, f2 - ad*_f1 pi), eq. (12).
  double g[12], mu[6], f1[6], f2[6];
  if (owner_.owns()) split_state(y, g, mu);
  hamiltonian_map(t, g, mu, f1, f2);
  if (!owner_.owns()) return;
  std::copy(f1, f1 + 3, xi);  // tstar_so3_right algebra (xi, alpha)
  std::copy(f2, f2 + 3, xi + 3);
  if (form_ == HeavyTopFormulation::Quadratic) {
    std::copy(f1 + 3, f1 + 6, xi + 6);  // q' = dH/dp
    std::copy(f2 + 3, f2 + 6, xi + 9);  // p' = -dH/dq
  }
}

void HeavyTop::body_variables(const double* y, Vec3& Pi, Vec3& Gamma) const {
  if (form_ == HeavyTopFormulation::LiePoisson) {
    Pi = CMap3(y);
    Gamma = CMap3(y + 3);
    return;
  }
  const Mat3 Q = CMapQ(y);
  Pi = Q.transpose() * CMap3(y + 9);
  Gamma = Q.transpose() * p_.gamma0;
}

Mat3 HeavyTop::attitude(const double* y) const {
  if (form_ == HeavyTopFormulation::LiePoisson)
    throw std::logic_error("heavy_top: the lie_poisson formulation carries no attitude");
  return CMapQ(y);
}

double HeavyTop::energy(const double* y) const {
  Vec3 Pi, Gamma;
  body_variables(y, Pi, Gamma);
  const double T = 0.5 * Pi.dot(inv_inertia(Pi));
  if (form_ == HeavyTopFormulation::Quadratic) return T - CMap3(y + 15).dot(Gamma);
  return T + Ml_ * Gamma.dot(p_.com_direction);
}

void HeavyTop::observables(double, const double* y, Observables& out) {
  double E = 0.0, gn = 0.0, pg = 0.0, orth = 0.0;
  if (owner_.owns()) {
    Vec3 Pi, Gamma;
    body_variables(y, Pi, Gamma);
    E = energy(y);
    gn = Gamma.norm();
    pg = Pi.dot(Gamma);
    if (form_ != HeavyTopFormulation::LiePoisson) orth = so3::orthogonality_error(CMapQ(y));
  }
  out.set("total_energy", owner_.broadcast(E));
  out.set("casimir_gamma_norm", owner_.broadcast(gn));
  out.set("casimir_pi_dot_gamma", owner_.broadcast(pg));
  if (form_ != HeavyTopFormulation::LiePoisson) out.set("orthogonality_error", owner_.broadcast(orth));
}

std::vector<std::string> HeavyTop::observable_names() const {
  std::vector<std::string> n = {"total_energy", "casimir_gamma_norm", "casimir_pi_dot_gamma"};
  if (form_ != HeavyTopFormulation::LiePoisson) n.push_back("orthogonality_error");
  return n;
}

std::vector<TrajectoryField> HeavyTop::trajectory_fields() const {
  std::vector<TrajectoryField> f = {
      {"body_momentum", 3, "kg m^2/s", "Pi, body angular momentum about the fixed point"},
      {"body_gravity", 3, "m/s^2", "Gamma = Q^T Gamma0, gravity vector in the body frame"}};
  if (form_ != HeavyTopFormulation::LiePoisson)
    f.push_back({"centre_of_mass", 3, "m", "l Q X, spatial position of the centre of mass"});
  return f;
}

void HeavyTop::trajectory_field(const std::string& name, const double* y, double* out) const {
  if (!owner_.owns()) return;
  Vec3 Pi, Gamma;
  body_variables(y, Pi, Gamma);
  if (name == "body_momentum") Map3{out} = Pi;
  else if (name == "body_gravity") Map3{out} = Gamma;
  else if (name == "centre_of_mass" && form_ != HeavyTopFormulation::LiePoisson)
    Map3{out} = p_.length * (CMapQ(y) * p_.com_direction);
  else throw std::logic_error("heavy_top has no trajectory field '" + name + "'");
}

LIEBENCH_REGISTER(ModelEntry, ModelEntry{"heavy_top",
                                         "heavy top in three formulations: T*SO(3), Lie-Poisson on se(3)*, quadratic "
                                         "Hamiltonian on T*(SO(3) x R^3) (key heavy_top.formulation)",
                                         "[P] 3.4", &HeavyTop::create, &HeavyTop::parse})

}  // namespace lie
