#pragma once
// Test-only model for the studies tests: n independent symmetric rigid bodies (I1 = I2 = 1,
// I3 = 2 + (i mod 3)/2) in body angular momentum m_i on so(3)* (Euler's equations
// m' = m x I^-1 m, [K] eq. (3.1)), split over the ranks like a chain model. A symmetric body
// has the closed-form solution
//   m3 = const,  (m1, m2)(t) = rotation of (m1, m2)(0) by -Omega t,  Omega = m3 (1/I3 - 1/I1),
// so convergence studies can measure errors against an exact solution, and the result of a
// study must not depend on how the n bodies are split across ranks.
// Registered as model `test_symmetric_tops` in the test binaries only (inline variables:
// one registration however many test files include this header).
#include <cmath>
#include <memory>
#include <random>

#include "models/model.hpp"

namespace lie::testing {

class SymmetricTops final : public Model {
 public:
  SymmetricTops(std::size_t n, std::uint64_t seed, par::Context& ctx) : n_(n), seed_(seed), ctx_(ctx) {
    const par::Range r = par::balanced_range(n, ctx.size(), ctx.rank());
    offset_ = r.begin;
    local_ = r.size();
    space_.add(FactorKind::SO3OnR3, local_, "bodies");
  }
  struct Options {
    std::size_t n = 5;
    std::uint64_t seed = 1;
  };
  static Options parse(const Config& cfg) {
    return {static_cast<std::size_t>(cfg.get_int("test_symmetric_tops.n")),
            static_cast<std::uint64_t>(cfg.get_int("test_symmetric_tops.seed"))};
  }
  static std::unique_ptr<Model> create(const ModelOptions& options, par::Context& ctx) {
    const auto o = options_as<Options>(options);
    return std::make_unique<SymmetricTops>(o.n, o.seed, ctx);
  }

  std::string name() const override { return "test_symmetric_tops"; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return n_; }
  std::size_t global_offset() const override { return offset_; }
  int state_dim_per_component() const override { return 3; }
  ModelCapabilities capabilities() const override {
    ModelCapabilities c;
    c.exact_solution = true;
    return c;
  }

  static double i3(std::size_t i) { return 2.0 + 0.5 * static_cast<double>(i % 3); }
  void initial_state(double* y) const override {
    for (std::size_t k = 0; k < local_; ++k) {
      std::mt19937_64 rng(seed_ * 1000003u + offset_ + k);
      std::normal_distribution<double> g(0.0, 1.0);
      double v[3] = {g(rng), g(rng), g(rng)};
      const double nv = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      for (int j = 0; j < 3; ++j) y[3 * k + j] = v[j] / nv;
    }
  }
  void vector_field(double, const double* y, double* xi) override {
    ++n_rhs_;
    for (std::size_t k = 0; k < local_; ++k) {
      xi[3 * k + 0] = -y[3 * k + 0];
      xi[3 * k + 1] = -y[3 * k + 1];
      xi[3 * k + 2] = -y[3 * k + 2] / i3(offset_ + k);
    }
  }
  void observables(double, const double* y, Observables& out) override {
    std::vector<double> h(local_), c(local_);
    for (std::size_t k = 0; k < local_; ++k) {
      const double* m = y + 3 * k;
      h[k] = 0.5 * (m[0] * m[0] + m[1] * m[1] + m[2] * m[2] / i3(offset_ + k));
      c[k] = 0.5 * (m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
    }
    out.set("total_energy", ctx_.sum(std::span<const double>(h)));
    out.set("casimir", ctx_.sum(std::span<const double>(c)));
  }
  std::vector<std::string> observable_names() const override { return {"total_energy", "casimir"}; }
  void exact_solution(double t, double* y) const override {
    initial_state(y);
    for (std::size_t k = 0; k < local_; ++k) {
      double* m = y + 3 * k;
      const double om = m[2] * (1.0 / i3(offset_ + k) - 1.0);
      const double a = m[0], b = m[1], c = std::cos(om * t), s = std::sin(om * t);
      m[0] = a * c + b * s;
      m[1] = -a * s + b * c;
    }
  }
  std::vector<TrajectoryField> trajectory_fields() const override {
    return {{"angular_momentum", 3, "1", "body angular momentum m_i"}};
  }
  void trajectory_field(const std::string&, const double* y, double* out) const override {
    std::copy(y, y + 3 * local_, out);
  }
  std::string particle_group() const override { return "bodies"; }

 private:
  std::size_t n_, offset_ = 0, local_ = 0;
  std::uint64_t seed_;
  par::Context& ctx_;
  Space space_;
};

inline const bool kSymmetricTopsKeys = declare_options({
    {"test_symmetric_tops.n", OptionType::PositiveInt, "5", "number of bodies (test model)", {}, "test_symmetric_tops"},
    {"test_symmetric_tops.seed", OptionType::NonNegativeInt, "1", "seed of the initial momenta (test model)", {},
     "test_symmetric_tops"},
});
inline const bool kSymmetricTopsRegistered = ModelRegistry::instance().add(
    ModelEntry{"test_symmetric_tops", "test only: independent symmetric rigid bodies with an exact solution", "tests",
               &SymmetricTops::create, &SymmetricTops::parse});

}  // namespace lie::testing
