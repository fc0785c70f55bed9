// An out-of-tree step-size controller: Gustafsson's predictive controller (Gustafsson, ACM TOMS
// 20 (1994) 496-517; Hairer & Wanner II, IV.8 eq. (8.25)):
//     h_new = safety h_n (h_n / h_{n-1}) (1/err_n)^alpha (err_{n-1}/err_n)^alpha,
// i.e. rho = (h_n/h_{n-1}) err_n^-(2 alpha) err_{n-1}^alpha on an accepted step once a previous
// accepted step is known (before that, and after a rejection, the elementary err^-alpha).
// Registered with the same one line as the built-in controllers and selected by name
// (`controller = gustafsson`); the suite's limits (safety, min/max_factor, h_min, h_max) apply.
#include <cmath>
#include <memory>

#include "methods/controller.hpp"

namespace example {

class GustafssonController final : public lie::StepController {
 public:
  explicit GustafssonController(lie::ControllerParams p) : StepController(p) {}
  std::string name() const override { return "gustafsson"; }
  std::unique_ptr<lie::StepController> clone() const override {
    return std::make_unique<GustafssonController>(*this);
  }

 protected:
  double ratio(double h, double err, const lie::ControllerMemory& m) const override {
    if (m.filled == 0) return std::pow(err, -p_.alpha);
    return (h / m.h1) * std::pow(err, -2.0 * p_.alpha) * std::pow(m.err1, p_.alpha);
  }
  std::string formula() const override { return "(h_n/h_{n-1}) err_n^-(2 alpha) err_{n-1}^alpha"; }
};

lie::ControllerEntry gustafsson_entry() {
  lie::ControllerEntry e;
  e.name = "gustafsson";
  e.formula = "rho = (h_n/h_{n-1}) err_n^-(2 alpha) err_{n-1}^alpha";
  e.description = "example plugin: predictive controller, no growth after a rejected step";
  e.source = "examples/plugin; Gustafsson, ACM TOMS 20 (1994); Hairer & Wanner II, IV.8 (8.25)";
  e.after_reject = lie::ControllerParams::AfterReject::NoGrowth;
  e.create = [](const lie::ControllerParams& p) { return std::make_unique<GustafssonController>(p); };
  return e;
}

LIEBENCH_REGISTER(lie::ControllerEntry, gustafsson_entry())

}  // namespace example
