#include "models/magnet_array.hpp"

#include <cmath>

#include "groups/maps.hpp"

namespace lie {

namespace {

const bool kKeys = declare_options({
    {"magnet_array.rows", OptionType::PositiveInt, "4", "rows of the grid of magnets ([L] Example 5: 4)", {},
     "magnet_array"},
    {"magnet_array.cols", OptionType::PositiveInt, "4", "columns of the grid of magnets ([L] Example 5: 4)", {},
     "magnet_array"},
    {"magnet_array.mass", OptionType::PositiveReal, "0.05", "mass m of every magnet [kg]", {}, "magnet_array"},
    {"magnet_array.length", OptionType::PositiveReal, "0.02", "length l of every magnet [m]", {}, "magnet_array"},
    {"magnet_array.spacing", OptionType::PositiveReal, "1.2", "grid edge in units of the length l", {},
     "magnet_array"},
    {"magnet_array.moment", OptionType::PositiveReal, "0.1", "magnitude nu of every dipole moment [A m^2]", {},
     "magnet_array"},
    {"magnet_array.permeability", OptionType::PositiveReal, "1.2566370614359173e-06",
     "permeability mu [N/A^2] (4 pi 1e-7)", {}, "magnet_array"},
});

}  // namespace

MagnetArray::MagnetArray(MagnetArrayParameters p, par::Context& ctx)
    : SpherePairModel(p.rows * p.cols, p.mass * p.length * p.length / 12.0, ctx), p_(p) {
  coupling_ = p_.permeability * p_.moment * p_.moment / (4.0 * 3.14159265358979323846);
  const std::size_t n = p_.rows * p_.cols;
  y0_all_.assign(6 * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) y0_all_[6 * i] = 1.0;  // q_i = e1
  if (n > 1) {
    double* q = &y0_all_[6 * (n - 1)];
    q[0] = std::sqrt(2.0) / 4.0, q[1] = std::sqrt(2.0) / 4.0, q[2] = -std::sqrt(3.0) / 2.0;
  }
  y0_all_[4] = 0.5;  // w_1 = (0, 0.5, 0)
}

// <edge> parse: the magnet_array.* keys
MagnetArray::Options MagnetArray::parse(const Config& cfg) {
  MagnetArrayParameters p;
  p.rows = static_cast<std::size_t>(cfg.get_int_at_least("magnet_array.rows", 1));
  p.cols = static_cast<std::size_t>(cfg.get_int_at_least("magnet_array.cols", 1));
  if (p.rows * p.cols < 2)
    throw UsageError("keys 'magnet_array.rows' x 'magnet_array.cols' give 1 magnet; the array needs at least 2");
  p.mass = cfg.get_positive("magnet_array.mass");
  p.length = cfg.get_positive("magnet_array.length");
  p.spacing = cfg.get_positive("magnet_array.spacing");
  p.moment = cfg.get_positive("magnet_array.moment");
  p.permeability = cfg.get_positive("magnet_array.permeability");
  return p;
}
// </edge>

std::unique_ptr<Model> MagnetArray::create(const ModelOptions& options, par::Context& ctx) {
  const Options& p = std::any_cast<const Options&>(options);
  return std::make_unique<MagnetArray>(p, ctx);
}

Vec3 MagnetArray::pivot(std::size_t i) const {
  const double a = p_.spacing * p_.length;
  return Vec3(a * static_cast<double>(i % p_.cols), a * static_cast<double>(i / p_.cols), 0.0);
}

void MagnetArray::pair_row(std::size_t gi, const double* q_all, double grad[3], double& energy) const {
  const double a = p_.spacing * p_.length, c = coupling_;
  const std::size_t cols = p_.cols;
  const double xi = a * static_cast<double>(gi % cols), yi = a * static_cast<double>(gi / cols);
  const double qx = q_all[3 * gi], qy = q_all[3 * gi + 1], qz = q_all[3 * gi + 2];
  double sums[4];
  // term: c/r^3 [q_j - 3 r (q_j.r)/r^2] (3 components) and the energy q_i . (that) / 2
  pairs::ordered_row<4>(n_spheres(), gi, [&](std::size_t j, double* t) {
    const double rx = a * static_cast<double>(j % cols) - xi, ry = a * static_cast<double>(j / cols) - yi;
    const double r2 = rx * rx + ry * ry;
    const double inv_r2 = 1.0 / r2, cr3 = c * inv_r2 / std::sqrt(r2);
    const double* qj = q_all + 3 * j;
    const double qr = qj[0] * rx + qj[1] * ry;  // r_z = 0
    const double gx = cr3 * (qj[0] - 3.0 * rx * qr * inv_r2);
    const double gy = cr3 * (qj[1] - 3.0 * ry * qr * inv_r2);
    const double gz = cr3 * qj[2];
    t[0] = gx, t[1] = gy, t[2] = gz;
    t[3] = 0.5 * (qx * gx + qy * gy + qz * gz);
  }, sums);
  grad[0] = sums[0], grad[1] = sums[1], grad[2] = sums[2];
  energy = sums[3];
}

std::vector<TrajectoryField> MagnetArray::trajectory_fields() const {
  return {{"direction", 3, "1", "q_i, unit vector from the pivot to the north pole"},
          {"angular_velocity", 3, "rad/s", "w_i, q_i' = w_i x q_i"},
          {"position", 3, "m", "north pole p_i + l/2 q_i"}};
}

void MagnetArray::trajectory_field(const std::string& name, const double* y, double* out) const {
  for (std::size_t li = 0; li < local_spheres(); ++li) {
    const Vec3 q = CMap3(y + 6 * li), w = CMap3(y + 6 * li + 3);
    if (name == "direction") Map3{out + 3 * li} = q;
    else if (name == "angular_velocity") Map3{out + 3 * li} = w;
    else if (name == "position") Map3{out + 3 * li} = pivot(global_offset() + li) + 0.5 * p_.length * q;
    else throw std::logic_error("magnet_array has no trajectory field '" + name + "'");
  }
}

LIEBENCH_REGISTER(ModelEntry, ModelEntry{"magnet_array",
                                         "array of magnetic dipoles (spherical compasses) on a planar grid, (S^2)^n, "
                                         "all pairs distributed (also for the variational integrators)",
                                         "[L] Example 5", &MagnetArray::create, &MagnetArray::parse})

}  // namespace lie
