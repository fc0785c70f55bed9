#include "models/sphere_md.hpp"

#include <algorithm>
#include <cmath>

#include "groups/maps.hpp"
#include "models/icosphere.hpp"

namespace lie {

namespace {

const bool kKeys = declare_options({
    {"sphere_md.level", OptionType::NonNegativeInt, "3",
     "subdivisions of the icosahedron whose vertices are the molecules: n = 10 4^level + 2 (3: 642, [L] Example 6)",
     {}, "sphere_md"},
    {"sphere_md.mass", OptionType::PositiveReal, "1", "mass m of every molecule", {}, "sphere_md"},
    {"sphere_md.epsilon", OptionType::PositiveReal, "0.01", "Lennard-Jones strength eps ([L]: 0.01)", {},
     "sphere_md"},
    {"sphere_md.sigma", OptionType::NonNegativeReal, "0",
     "Lennard-Jones sigma; 0: d_nn / 2^(1/6), zero force at the mean neighbour chord distance d_nn", {},
     "sphere_md"},
    {"sphere_md.vortex_separation", OptionType::NonNegativeReal, "30",
     "angle between the axes of the two initial vortices [degrees] ([L]: 30)", {}, "sphere_md"},
    {"sphere_md.vortex_strength", OptionType::NonNegativeReal, "1",
     "peak angular velocity Omega of each vortex [rad/s] (the suite's choice)", {}, "sphere_md"},
    {"sphere_md.vortex_width", OptionType::PositiveReal, "15",
     "angular width s of each vortex (Gaussian in the angle to its axis) [degrees] (the suite's choice)", {},
     "sphere_md"},
});

constexpr double kPi = 3.14159265358979323846;

}  // namespace

SphereMd::SphereMd(SphereMdParameters p, par::Context& ctx)
    : SpherePairModel(static_cast<std::size_t>(10 * (1L << (2 * p.level)) + 2), p.mass, ctx), p_(p) {
  const Icosphere mesh = make_icosphere(p_.level);
  const auto edges = mesh.edges();
  par::ExactSum sum;
  for (const auto& e : edges)
    sum.add((mesh.vertices[static_cast<std::size_t>(e[0])] - mesh.vertices[static_cast<std::size_t>(e[1])]).norm());
  d_nn_ = sum.value() / static_cast<double>(edges.size());
  sigma_ = p_.sigma > 0.0 ? p_.sigma : d_nn_ / std::pow(2.0, 1.0 / 6.0);
  const double half = 0.5 * p_.vortex_separation_deg * kPi / 180.0, s = p_.vortex_width_deg * kPi / 180.0;
  const Vec3 axes[2] = {Vec3(std::sin(half), 0.0, std::cos(half)), Vec3(-std::sin(half), 0.0, std::cos(half))};
  const std::size_t n = mesh.vertices.size();
  y0_all_.assign(6 * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3 q = mesh.vertices[i];
    Vec3 w = Vec3::Zero();
    for (const Vec3& a : axes) {
      const double theta = std::acos(std::clamp(q.dot(a), -1.0, 1.0));
      w += p_.vortex_strength * std::exp(-theta * theta / (2.0 * s * s)) * a;
    }
    w -= w.dot(q) * q;
    Map3{&y0_all_[6 * i]} = q;
    Map3{&y0_all_[6 * i + 3]} = w;
  }
}

// <edge> parse: the sphere_md.* keys
SphereMd::Options SphereMd::parse(const Config& cfg) {
  SphereMdParameters p;
  p.level = static_cast<int>(cfg.get_int_at_least("sphere_md.level", 0));
  if (p.level > 7)
    throw UsageError("key 'sphere_md.level' has value " + std::to_string(p.level) +
                     "; at most 7 (163842 molecules, all pairs)");
  p.mass = cfg.get_positive("sphere_md.mass");
  p.epsilon = cfg.get_positive("sphere_md.epsilon");
  p.sigma = cfg.get_nonnegative("sphere_md.sigma");
  p.vortex_separation_deg = cfg.get_nonnegative("sphere_md.vortex_separation");
  p.vortex_strength = cfg.get_nonnegative("sphere_md.vortex_strength");
  p.vortex_width_deg = cfg.get_positive("sphere_md.vortex_width");
  return p;
}
// </edge>

std::unique_ptr<Model> SphereMd::create(const ModelOptions& options, par::Context& ctx) {
  const Options& p = std::any_cast<const Options&>(options);
  return std::make_unique<SphereMd>(p, ctx);
}

void SphereMd::pair_row(std::size_t gi, const double* q_all, double grad[3], double& energy) const {
  const double e4 = 4.0 * p_.epsilon, sig2 = sigma_ * sigma_;
  const double qx = q_all[3 * gi], qy = q_all[3 * gi + 1], qz = q_all[3 * gi + 2];
  double sums[4];
  pairs::ordered_row<4>(n_spheres(), gi, [&](std::size_t j, double* t) {
    const double* qj = q_all + 3 * j;
    const double dx = qx - qj[0], dy = qy - qj[1], dz = qz - qj[2];
    const double inv_r2 = 1.0 / (dx * dx + dy * dy + dz * dz);
    const double s2 = sig2 * inv_r2, s6 = s2 * s2 * s2, s12 = s6 * s6;
    const double c = e4 * (6.0 * s6 - 12.0 * s12) * inv_r2;  // (dV_ij/dr)/r
    t[0] = c * dx, t[1] = c * dy, t[2] = c * dz;
    t[3] = 0.5 * e4 * (s12 - s6);
  }, sums);
  grad[0] = sums[0], grad[1] = sums[1], grad[2] = sums[2];
  energy = sums[3];
}

std::vector<TrajectoryField> SphereMd::trajectory_fields() const {
  return {{"direction", 3, "1", "q_i, position of the molecule on the unit sphere"},
          {"angular_velocity", 3, "1/s", "w_i, q_i' = w_i x q_i"},
          {"velocity", 3, "1/s", "q_i' = w_i x q_i"},
          {"kinetic_energy", 1, "J", "m |q_i'|^2 / 2"}};
}

void SphereMd::trajectory_field(const std::string& name, const double* y, double* out) const {
  for (std::size_t li = 0; li < local_spheres(); ++li) {
    const Vec3 q = CMap3(y + 6 * li), w = CMap3(y + 6 * li + 3);
    if (name == "direction") Map3{out + 3 * li} = q;
    else if (name == "angular_velocity") Map3{out + 3 * li} = w;
    else if (name == "velocity") Map3{out + 3 * li} = w.cross(q);
    else if (name == "kinetic_energy") out[li] = 0.5 * p_.mass * w.cross(q).squaredNorm();
    else throw std::logic_error("sphere_md has no trajectory field '" + name + "'");
  }
}

LIEBENCH_REGISTER(ModelEntry, ModelEntry{"sphere_md",
                                         "molecular dynamics on the sphere: Lennard-Jones molecules at the vertices "
                                         "of a subdivided icosahedron, two vortices, all pairs distributed",
                                         "[L] Example 6", &SphereMd::create, &SphereMd::parse})

}  // namespace lie
