#pragma once
// Step-size controllers of adaptive runs, registered by name (key `controller`, group
// [adaptive]; `liebench list controllers`). All of them see the scaled error estimate
// err = e / tol of ErrorNorm (accept iff err <= 1, or err < 1 with strict_acceptance), the
// exponent alpha = 1/k, k = 1 + min(p, p~) (key controller.exponent overrides it), and propose
// the next step as
//   h_new = h * clamp(safety * rho, min_factor, max_factor),   h_new <= h_max,
// where rho is the controller's own ratio (below) on an accepted step. After a rejected step
// rho = err^-alpha (the formula of [P] eq. (33) with the error of the rejected trial), and with
// after_reject = no_growth the factor is at most 1 (Hairer, Norsett & Wanner I, II.4).
//
//   P33  rho = err_n^-alpha                       [P] eq. (33), the authors' controller
//   I    rho = err_n^-alpha, no growth after a rejection   (HNW I, II.4 eq. (4.13))
//   PI   rho = err_n^-(k1 alpha) err_{n-1}^-(k2 alpha)          (Gustafsson 1991; ARKODE
//        defaults k1 = 0.8, k2 = -0.31)
//   PID  rho = err_n^-(k1 alpha) err_{n-1}^-(k2 alpha) err_{n-2}^-(k3 alpha)   (Soderlind 2002;
//        ARKODE defaults k1 = 0.58, k2 = -0.21, k3 = 0.1)
//   H211 rho = err_n^-(alpha/b) err_{n-1}^-(alpha/b) (h_n/h_{n-1})^-(1/b)   (Soderlind 2003,
//        H211b digital filter, b = 4)
// The error/step memory (err_{n-1}, err_{n-2}, h_{n-1}) is a plain struct (ControllerMemory)
// kept in the driver's AdaptiveState so that a run can be stopped and resumed bit for bit;
// controllers with memory use the I formula until they have seen enough accepted steps.
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "io/config.hpp"

namespace lie {

/// What a controller remembers between steps (accepted steps only). Plain, copyable data.
struct ControllerMemory {
  double err1 = 1.0, err2 = 1.0;  // scaled errors of the last two accepted steps (newest first)
  double h1 = 1.0;                // size of the last accepted step
  int filled = 0;                 // accepted steps remembered so far (saturates at 2)
  bool rejected = false;          // the last trial was rejected (after_reject = no_growth: the step
                                  // after the next accepted one does not grow, HNW I, II.4)
};

struct ControllerParams {
  enum class AfterReject { Formula, NoGrowth };
  double safety = 0.9;       // theta of [P] eq. (33)
  double alpha = 0.2;        // 1/k, k = 1 + min(p, p~) unless set by controller.exponent
  bool limit_factors = true; // clamp h_new / h to [min_factor, max_factor]
  double min_factor = 0.2;
  double max_factor = 5.0;
  double h_min = 1e-14;      // a step below this is an error (NumericalError)
  double h_max = INFINITY;
  bool strict = false;       // accept iff err < 1 (the authors' code) instead of err <= 1
  AfterReject after_reject = AfterReject::Formula;
  double k1 = 1.0, k2 = 0.0, k3 = 0.0;  // PI / PID gains (ARKODE convention)
  double b = 4.0;                       // H211b filter parameter
};

class StepController {
 public:
  explicit StepController(ControllerParams p) : p_(p) {}
  virtual ~StepController() = default;
  virtual std::string name() const = 0;
  virtual std::unique_ptr<StepController> clone() const = 0;
  const ControllerParams& params() const { return p_; }
  ControllerParams& params() { return p_; }
  bool accept(double err) const { return p_.strict ? err < 1.0 : err <= 1.0; }
  /// The next trial step after a trial step of size h with scaled error err; on an accepted
  /// step the memory is updated (err_{n-1} <- err, ...).
  double next_step(double h, double err, bool accepted, ControllerMemory& mem) const;
  /// One line with the formula and every parameter (run metadata).
  std::string describe() const;

 protected:
  /// rho of an accepted step (see the table above); mem holds the steps before this one.
  virtual double ratio(double h, double err, const ControllerMemory& mem) const = 0;
  virtual std::string formula() const = 0;
  /// The controller's own parameters for describe() ("k1 = ..., k2 = ..."); empty: none.
  virtual std::string parameters_text() const { return {}; }
  ControllerParams p_;
};

struct ControllerEntry {
  std::string name;
  std::string formula;      // rho of an accepted step
  std::string description;  // defaults
  std::string source;
  ControllerParams::AfterReject after_reject = ControllerParams::AfterReject::Formula;
  std::function<std::unique_ptr<StepController>(const ControllerParams&)> create;
  /// The controller-specific keys it reads (controller.k1, controller.b, ...): any other of
  /// them set with this controller is refused rather than silently ignored.
  std::vector<std::string> keys;
  double k1 = 1.0, k2 = 0.0, k3 = 0.0;  // default gains
};
using ControllerRegistry = Registry<ControllerEntry>;

/// The controller named by key `controller` with the parameters of the [adaptive] keys, for an
/// embedded pair of orders (p, p~). Throws UsageError for inconsistent values.
std::unique_ptr<StepController> make_controller(const Config& cfg, int order, int embedded_order);
/// Name, p and p~ given directly (tests): parameters as the defaults of the keys.
std::unique_ptr<StepController> make_controller(const std::string& name, int order, int embedded_order);
/// The registered controller `name` with typed parameters (start from controller_defaults).
std::unique_ptr<StepController> make_controller(const std::string& name, const ControllerParams& p);
/// The defaults of the keys for controller entry `e` and an embedded pair of orders (p, p~):
/// alpha = 1/(1 + min(p, p~)), the entry's gains and after-reject rule.
ControllerParams controller_defaults(const ControllerEntry& e, int order, int embedded_order);

}  // namespace lie
