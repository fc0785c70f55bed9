// An out-of-tree model: Neumann's problem, a unit-mass particle on the unit sphere in the
// quadratic potential V(q) = 1/2 q.Kq, K = diag(k1, k2, k3) (C. Neumann 1859; an integrable
// system). State (q, w) in TS^2 with q' = w x q, w' = q x F, F = -Kq the force. Lie group
// formulation on TS^2 with the SE(3) action of factor se3_on_ts2 ([P] 5.1):
//   psi_*(u, v)|(q, w) = (u x q, u x w + v x q)   =>   f(q, w) = (w, Kq).
// Invariants: |q| = 1, q.w = 0 (kept by every Lie group method to round-off) and the energy
// E = 1/2 |w|^2 + 1/2 q.Kq.
//
// Registered with the same one line as the built-in models (LIEBENCH_REGISTER at the end).
#include <cmath>
#include <memory>

#include "groups/so3.hpp"
#include "models/model.hpp"
#include "models/root_owned.hpp"

namespace example {

using lie::Vec3;

const bool kKeys = lie::declare_options({
    {"neumann.k", lie::OptionType::RealList, "1, 2, 4", "diagonal of K in V(q) = 1/2 q.Kq", {}, "neumann"},
    {"neumann.q0", lie::OptionType::RealList, "0.6, 0, 0.8", "initial position on the unit sphere", {}, "neumann"},
    {"neumann.w0", lie::OptionType::RealList, "0, 1, 0", "initial angular velocity (tangent: q0.w0 = 0)", {},
     "neumann"},
});

class Neumann final : public lie::Model {
 public:
  Neumann(Vec3 k, Vec3 q0, Vec3 w0, const lie::par::Context* ctx) : k_(k), q0_(q0), w0_(w0), owner_(ctx) {
    space_.add(lie::FactorKind::SE3OnTS2, owner_.local(1), "particle");
  }

  /// The model's parameters: what parse() reads from the keys neumann.* and create() builds from.
  struct Options {
    Vec3 k, q0, w0;
  };
  /// The entry's parse function: the only place the model reads keys (called once per grid
  /// point by the study plan). A bad value is a UsageError naming the key.
  static Options parse(const lie::Config& cfg) {
    auto vec3 = [&](const std::string& key) {
      const auto v = cfg.get_double_list(key);
      if (v.size() != 3) throw lie::UsageError("key '" + key + "' needs 3 values, got " + std::to_string(v.size()));
      return Vec3(v[0], v[1], v[2]);
    };
    const Vec3 q0 = vec3("neumann.q0"), w0 = vec3("neumann.w0");
    if (std::fabs(q0.norm() - 1.0) > 1e-12 || std::fabs(q0.dot(w0)) > 1e-12)
      throw lie::UsageError("keys 'neumann.q0' and 'neumann.w0' must satisfy |q0| = 1 and q0.w0 = 0");
    return {vec3("neumann.k"), q0, w0};
  }
  static std::unique_ptr<lie::Model> create(const lie::ModelOptions& options, lie::par::Context& ctx) {
    const auto& o = std::any_cast<const Options&>(options);
    return std::make_unique<Neumann>(o.k, o.q0, o.w0, &ctx);
  }

  std::string name() const override { return "neumann"; }
  const lie::Space& space() const override { return space_; }
  std::size_t global_components() const override { return 1; }
  int state_dim_per_component() const override { return 6; }

  void initial_state(double* y) const override {
    if (!owner_.owns()) return;
    for (int c = 0; c < 3; ++c) y[c] = q0_[c], y[3 + c] = w0_[c];
  }

  void vector_field(double, const double* y, double* xi) override {
    ++n_rhs_;
    if (!owner_.owns()) return;
    for (int c = 0; c < 3; ++c) xi[c] = y[3 + c], xi[3 + c] = k_[c] * y[c];  // f = (w, Kq)
  }

  void observables(double, const double* y, lie::Observables& out) override {
    double E = 0.0, unit = 0.0, tang = 0.0;
    if (owner_.owns()) {
      const Vec3 q(y[0], y[1], y[2]), w(y[3], y[4], y[5]);
      E = 0.5 * w.cross(q).squaredNorm() + 0.5 * q.dot(k_.cwiseProduct(q));
      unit = std::fabs(1.0 - q.squaredNorm());
      tang = std::fabs(q.dot(w));
    }
    out.set("total_energy", owner_.broadcast(E));
    out.set("unit_norm_error", owner_.broadcast(unit));
    out.set("tangency_error", owner_.broadcast(tang));
  }
  std::vector<std::string> observable_names() const override {
    return {"total_energy", "unit_norm_error", "tangency_error"};
  }

 private:
  Vec3 k_, q0_, w0_;
  lie::RootOwned owner_;
  lie::Space space_;
};

LIEBENCH_REGISTER(lie::ModelEntry, lie::ModelEntry{"neumann",
                                                   "example plugin: Neumann's problem, a particle on S^2 in the "
                                                   "potential 1/2 q.Kq",
                                                   "examples/plugin (C. Neumann 1859)", &Neumann::create, &Neumann::parse})

}  // namespace example
