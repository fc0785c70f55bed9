#include "models/free_rigid_body.hpp"

#include <cmath>
#include <random>

#include "groups/so3.hpp"

namespace lie {

namespace {

const bool kKeys = declare_options({
    {"free_rigid_body.inertia", OptionType::PositiveRealList, "1, 1.88, 2.88",
     "principal moments of inertia I1, I2, I3 ([K] 3.2 uses those of water)", {}, "free_rigid_body"},
    {"free_rigid_body.m0", OptionType::String, "random",
     "initial body angular momentum 'm1, m2, m3', or 'random' (normalised Gaussian, [K] 3.1)", {}, "free_rigid_body"},
    {"free_rigid_body.seed", OptionType::NonNegativeInt, "1", "seed of the random initial momentum", {},
     "free_rigid_body"},
    {"free_rigid_body.attitude", OptionType::Bool, "false", "also integrate the attitude Q in SO(3)", {},
     "free_rigid_body"},
});

}  // namespace

FreeRigidBody::FreeRigidBody(std::array<double, 3> inertia, std::array<double, 3> m0, bool attitude)
    : I_(inertia), m0_(m0), attitude_(attitude) {
  space_.add(FactorKind::SO3OnR3, 1, "momentum");
  if (attitude_) space_.add(FactorKind::SO3Right, 1, "attitude");
}

std::unique_ptr<Model> FreeRigidBody::create(const Config& cfg, par::Context&) {
  const auto I = cfg.get_double_list("free_rigid_body.inertia");
  if (I.size() != 3)
    throw UsageError("key 'free_rigid_body.inertia' needs 3 values (I1, I2, I3), got " + std::to_string(I.size()));
  std::array<double, 3> m0{};
  const std::string m0s = cfg.get_string("free_rigid_body.m0");
  if (m0s == "random") {
    std::mt19937_64 rng(static_cast<std::uint64_t>(cfg.get_int("free_rigid_body.seed")));
    std::normal_distribution<double> n01(0.0, 1.0);
    Vec3 v(n01(rng), n01(rng), n01(rng));
    v.normalize();
    m0 = {v.x(), v.y(), v.z()};
  } else {
    const auto items = split_list(m0s);
    if (items.size() != 3)
      throw UsageError("key 'free_rigid_body.m0' has value '" + m0s + "'; expected 'random' or three numbers");
    for (int i = 0; i < 3; ++i) m0[static_cast<std::size_t>(i)] = parse_double("free_rigid_body.m0", items[static_cast<std::size_t>(i)]);
  }
  return std::make_unique<FreeRigidBody>(std::array<double, 3>{I[0], I[1], I[2]}, m0,
                                         cfg.get_bool("free_rigid_body.attitude"));
}

void FreeRigidBody::initial_state(double* y) const {
  for (int i = 0; i < 3; ++i) y[i] = m0_[static_cast<std::size_t>(i)];
  if (attitude_) {
    for (int i = 0; i < 9; ++i) y[3 + i] = (i % 4 == 0) ? 1.0 : 0.0;
  }
}

void FreeRigidBody::vector_field(double, const double* y, double* xi) {
  ++n_rhs_;
  const double w[3] = {y[0] / I_[0], y[1] / I_[1], y[2] / I_[2]};
  for (int i = 0; i < 3; ++i) xi[i] = -w[i];  // m' = -w x m = generator(-w)
  if (attitude_)
    for (int i = 0; i < 3; ++i) xi[3 + i] = w[i];  // Q' = Q hat(w)
}

void FreeRigidBody::observables(double, const double* y, Observables& out) {
  const double H = 0.5 * (y[0] * y[0] / I_[0] + y[1] * y[1] / I_[1] + y[2] * y[2] / I_[2]);
  const double C = 0.5 * (y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
  out.set("total_energy", H);
  out.set("casimir", C);
  if (attitude_) {
    Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> Q(y + 3);
    out.set("orthogonality_error", so3::orthogonality_error(Q));
  }
}

std::vector<std::string> FreeRigidBody::observable_names() const {
  std::vector<std::string> n = {"total_energy", "casimir"};
  if (attitude_) n.push_back("orthogonality_error");
  return n;
}

LIEBENCH_REGISTER(ModelEntry, ModelEntry{"free_rigid_body",
                                         "free rigid body, Euler's equations on so(3)* (optionally with attitude)",
                                         "[K] 3.1, [P] Example 1", &FreeRigidBody::create})

}  // namespace lie
