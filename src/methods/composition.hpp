#pragma once
// Symmetric compositions of a second-order time-symmetric method (Hairer, Lubich & Wanner, GNI
// II.4 and V.3.2; [L] 3.4 raises the variational integrators' order this way):
//   Psi_h = Phi_{c_s h} o ... o Phi_{c_1 h},   c_i = c_{s+1-i},   sum_i c_i = 1,
// Phi_{c_1 h} acting first. Psi_h is symmetric; its order is 4 if also sum c_i^3 = 0, and 6 if
// moreover sum c_i^5 = 0 and sum_i c_i^3 (c_1 + ... + c_{i-1} + c_i/2)^2 = 0 (GNI V.3.2: with
// Phi_h = exp(h A + h^3 B + h^5 C + ...) the h^3 term of log Psi_h is sum c_i^3 B, the h^5 terms
// are sum c_i^5 C and a multiple of [A, [A, B]] that vanishes with the last sum).
//
// Coefficients are data: method `composition:<name>` takes them from section [composition.<name>]
// of the experiment file (keys coefficients, base) or from the shipped sets (yoshida4, suzuki4,
// kahan_li6; kShippedCompositions in composition.cpp); the base method from the spec
// (composition:yoshida4@dlm: one name carries the base, as `methods = applicable` lists them),
// else composition.base (or the section's base). The base is any registered method with MethodInfo::time_symmetric and
// order 2 (the rigid-body splittings, the variational integrators, SLGI at theta = 1/2).
#include <memory>
#include <string>
#include <vector>

#include "methods/stepper.hpp"

namespace lie {

/// A composition as read from its data (options of method `composition`).
struct CompositionOptions {
  std::string name;           // yoshida4, or the name of section [composition.<name>]
  std::vector<double> coefficients;
  int order = 0;              // the order the coefficients satisfy (2, 4 or 6; 6: "at least 6")
  std::string source;         // citation of a shipped set, "user composition (experiment file)"
  MethodChoice base;          // the base method with its own keys (lgvi.*, slgi.*)
};

/// Residuals of the order conditions of a symmetric composition of a symmetric second-order
/// method: sum c - 1, sum c^3, sum c^5, sum c_i^3 (c_1 + ... + c_{i-1} + c_i/2)^2.
std::vector<double> composition_residuals(const std::vector<double>& c);
/// The order the coefficients satisfy with |residual| <= tol: 2, 4 or 6 (0: sum c_i != 1).
int composition_order(const std::vector<double>& c, double tol);

/// The order conditions with their residuals and the order found (`liebench tableau`).
std::string composition_report(const std::string& name, const std::vector<double>& c, double tol);

/// The shipped compositions: name, coefficients (17+ significant digits), source.
struct ShippedComposition {
  const char* name;
  const char* coefficients;
  const char* source;
};
const std::vector<ShippedComposition>& shipped_compositions();

/// Method `composition` takes a name after ':' (composition:yoshida4): the configuration under
/// which it builds composition `name` (cfg with composition.name = name); UsageError naming
/// `spec` for a name that is neither shipped nor a section [composition.<name>].
bool takes_composition_name(const std::string& method);
/// The coefficients of composition `name`: section [composition.<name>] (numbers or the name of a
/// shipped set), else the shipped set `name`; `source` gets its citation. UsageError if neither.
std::vector<double> composition_coefficients(const Config& cfg, const std::string& name, std::string* source = nullptr);
/// Names of the sections [composition.<name>] with key coefficients (`liebench tableau FILE.cfg`).
std::vector<std::string> user_composition_names(const Config& cfg);
/// The configuration under which method `spec` (composition:<name>[@<base>]) builds composition
/// `name`: cfg with composition.name = name[@base]; a base after '@' overrides composition.base.
Config composition_config(const Config& cfg, const std::string& name, const std::string& spec, const std::string& base = "");

class CompositionStepper final : public Stepper {
 public:
  CompositionStepper(MethodInfo info, std::unique_ptr<Stepper> base, std::vector<double> c);
  const MethodInfo& info() const override { return info_; }
  void bind(Model& model, par::Context& ctx) override;
  /// The sub-steps Phi_{c_i h} from t + (c_1 + ... + c_{i-1}) h; the counters add the base's
  /// (f evaluations, exponentials, iterations), one step per composed step. A stop request inside
  /// a sub-step (StopInStep) puts y, the counters and the base's cache back to the start of the step.
  void step(double t, double h, double* y) override;
  void invalidate() override { base_->invalidate(); }
  bool cache_valid() const override { return base_->cache_valid(); }
  void rebuild_cache(double t, const double* y) override { base_->rebuild_cache(t, y); }
  bool has_resume_state() const override { return base_->has_resume_state(); }
  std::vector<double> resume_state() const override { return base_->resume_state(); }
  void restore_resume_state(const std::vector<double>& s, const double* y) override {
    base_->restore_resume_state(s, y);
  }

 private:
  MethodInfo info_;
  std::unique_ptr<Stepper> base_;
  std::vector<double> c_, offset_;  // c_i and c_1 + ... + c_{i-1}
  std::vector<double> y_start_;     // y at the start of a step (restored on a stop request)
};

}  // namespace lie
