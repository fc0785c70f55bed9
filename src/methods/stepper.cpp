#include "methods/stepper.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace lie {

double ErrorNorm::operator()(const double* e, const double* ref, std::size_t n, const par::Context& ctx) const {
  // Called every trial step: the scaled errors go into a buffer kept across calls.
  std::vector<double>& s = scaled_;
  s.resize(n);
  int nonfinite = 0;
#pragma omp parallel for schedule(static) reduction(| : nonfinite) if (n >= 4096)
  for (std::size_t i = 0; i < n; ++i) {
    const double sc = atol + rtol * std::fabs(ref[i]);
    s[i] = e[i] / sc;
    if (!std::isfinite(s[i])) nonfinite = 1;
  }
  const int bad = ctx.max(nonfinite ? 1.0 : 0.0) > 0.0;
  if (bad) return std::numeric_limits<double>::infinity();
  switch (kind) {
    case Kind::Max: return ctx.max_abs(s.data(), n);
    case Kind::L2: return std::sqrt(ctx.sum_of_squares(s.data(), n));
    case Kind::Rms: {
      const double total = static_cast<double>(ctx.sum_u64(n));
      return std::sqrt(ctx.sum_of_squares(s.data(), n) / std::max(total, 1.0));
    }
  }
  return 0.0;
}

std::string ErrorNorm::describe() const {
  const char* k = kind == Kind::Max ? "max" : kind == Kind::L2 ? "l2" : "rms";
  return std::string(k) + " norm of e_i/(atol + rtol |y_i|), atol=" + std::to_string(atol) +
         ", rtol=" + std::to_string(rtol);
}

double Stepper::try_step(double, double, const double*, double*, const ErrorNorm&) {
  throw UsageError("method '" + info().name + "' has no embedded error estimator; choose an embedded pair (" +
                   "`liebench list methods` shows the embedded order) or use a fixed step");
}

std::unique_ptr<Stepper> make_stepper(const std::string& name, const Config& cfg, const Model& model) {
  const MethodEntry& e = MethodRegistry::instance().get(name, "method");
  const ModelCapabilities caps = model.capabilities();
  if (e.info.needs == "cotangent_hamiltonian" && !caps.cotangent_hamiltonian)
    throw UsageError("method '" + name + "' needs a Hamiltonian on a cotangent bundle T*G; model '" + model.name() +
                     "' does not provide one (use heavy_top with formulation = tstar_so3 or quadratic)");
  if (e.info.needs == "sphere_lagrangian" && !caps.sphere_lagrangian)
    throw UsageError("method '" + name + "' needs a Lagrangian on (S^2)^n; model '" + model.name() +
                     "' does not provide one (use nfold_pendulum or a model on (S^2)^n)");
  return e.create(cfg);
}

}  // namespace lie
