#include "methods/controller.hpp"

#include <algorithm>
#include <sstream>

namespace lie {

namespace {

const bool kControllerKeys = declare_options({
    {"controller", OptionType::String, "P33",
     "step-size controller of adaptive runs, by its registered name (`liebench list controllers`; in-tree: P33 ([P] "
     "eq. (33)), I, PI, PID, H211; a plugin may register more)",
     {}, "adaptive"},
    {"controller.exponent", OptionType::PositiveReal, "",
     "exponent alpha of the controller (default 1/(1 + min(p, p~)); the authors' code of [P] uses 1/4)", {},
     "adaptive"},
    {"controller.k1", OptionType::Real, "", "PI/PID gain k1 on err_n (defaults: PI 0.8, PID 0.58; ARKODE)", {},
     "adaptive"},
    {"controller.k2", OptionType::Real, "", "PI/PID gain k2 on err_{n-1} (defaults: PI -0.31, PID -0.21; ARKODE)", {},
     "adaptive"},
    {"controller.k3", OptionType::Real, "", "PID gain k3 on err_{n-2} (default 0.1; ARKODE)", {}, "adaptive"},
    {"controller.b", OptionType::PositiveReal, "4", "filter parameter b of H211b (Soderlind 2003)", {}, "adaptive"},
    {"safety", OptionType::PositiveReal, "0.9", "safety factor theta of the step-size controller [P] eq. (33), in (0, 1]",
     {}, "adaptive"},
    {"limit_factors", OptionType::Bool, "true",
     "clamp the step ratio h_new / h to [min_factor, max_factor] (false: no limits, as the authors' code of [P])", {},
     "adaptive"},
    {"min_factor", OptionType::PositiveReal, "0.2", "smallest allowed ratio h_new / h of the controller (< 1)", {},
     "adaptive"},
    {"max_factor", OptionType::PositiveReal, "5", "largest allowed ratio h_new / h of the controller (> 1)", {},
     "adaptive"},
    {"strict_acceptance", OptionType::Bool, "false",
     "accept a step iff err < tol (true, the authors' code of [P]) instead of err <= tol", {}, "adaptive"},
    {"after_reject", OptionType::Choice, "auto",
     "step after a rejected trial: formula = the controller's err^-alpha formula ([P] eq. (33)), no_growth = the same "
     "but at most the rejected step (HNW I, II.4); auto: formula for P33, no_growth for the others",
     {"auto", "formula", "no_growth"}, "adaptive"},
    {"h_min", OptionType::PositiveReal, "1e-14", "a step size below this stops an adaptive run (step size underflow)",
     {}, "adaptive"},
    {"h_max", OptionType::NonNegativeReal, "0", "largest step size of adaptive runs (0: no limit)", {}, "adaptive"},
});

// Parameters in run metadata at full precision (describe()).
std::string number_text(double x) {
  std::ostringstream os;
  os.precision(17);
  os << x;
  return os.str();
}

double mempow(double x, double e) { return e == 0.0 ? 1.0 : std::pow(x, e); }

// P33 and I: rho = err^-alpha.
class ElementaryController final : public StepController {
 public:
  ElementaryController(std::string name, ControllerParams p) : StepController(p), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  std::unique_ptr<StepController> clone() const override { return std::make_unique<ElementaryController>(*this); }

 protected:
  double ratio(double, double err, const ControllerMemory&) const override { return std::pow(err, -p_.alpha); }
  std::string formula() const override { return "err^-alpha"; }

 private:
  std::string name_;
};

// PI / PID in ARKODE's convention: rho = err_n^-(k1 alpha) err_{n-1}^-(k2 alpha) err_{n-2}^-(k3 alpha).
class GainController final : public StepController {
 public:
  GainController(std::string name, ControllerParams p) : StepController(p), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  std::unique_ptr<StepController> clone() const override { return std::make_unique<GainController>(*this); }

 protected:
  double ratio(double, double err, const ControllerMemory& m) const override {
    const double a = p_.alpha;
    if (m.filled == 0) return std::pow(err, -a);
    double r = std::pow(err, -p_.k1 * a) * mempow(m.err1, -p_.k2 * a);
    if (m.filled >= 2) r *= mempow(m.err2, -p_.k3 * a);
    return r;
  }
  std::string formula() const override { return "err_n^-(k1 alpha) err_{n-1}^-(k2 alpha) err_{n-2}^-(k3 alpha)"; }
  std::string parameters_text() const override {
    return "k1 = " + number_text(p_.k1) + ", k2 = " + number_text(p_.k2) + ", k3 = " + number_text(p_.k3);
  }

 private:
  std::string name_;
};

// H211b: rho = err_n^-(alpha/b) err_{n-1}^-(alpha/b) (h_n/h_{n-1})^-(1/b).
class H211Controller final : public StepController {
 public:
  explicit H211Controller(ControllerParams p) : StepController(p) {}
  std::string name() const override { return "H211"; }
  std::unique_ptr<StepController> clone() const override { return std::make_unique<H211Controller>(*this); }

 protected:
  double ratio(double h, double err, const ControllerMemory& m) const override {
    if (m.filled == 0) return std::pow(err, -p_.alpha);
    const double e = -p_.alpha / p_.b;
    return std::pow(err, e) * std::pow(m.err1, e) * std::pow(h / m.h1, -1.0 / p_.b);
  }
  std::string formula() const override { return "err_n^-(alpha/b) err_{n-1}^-(alpha/b) (h_n/h_{n-1})^-(1/b)"; }
  std::string parameters_text() const override { return "b = " + number_text(p_.b); }
};

using AR = ControllerParams::AfterReject;

ControllerEntry entry(std::string name, std::string formula, std::string description, std::string source, AR after,
                      double k1, double k2, double k3) {
  ControllerEntry e;
  e.name = name;
  e.formula = std::move(formula);
  e.description = std::move(description);
  e.source = std::move(source);
  e.after_reject = after;
  e.k1 = k1, e.k2 = k2, e.k3 = k3;
  if (name == "P33" || name == "I") {
    e.create = [name](const ControllerParams& p) { return std::make_unique<ElementaryController>(name, p); };
  } else if (name == "H211") {
    e.create = [](const ControllerParams& p) { return std::make_unique<H211Controller>(p); };
    e.keys = {"controller.b"};
  } else {
    e.create = [name](const ControllerParams& p) { return std::make_unique<GainController>(name, p); };
    e.keys = {"controller.k1", "controller.k2", "controller.k3"};
  }
  return e;
}

}  // namespace

LIEBENCH_REGISTER(ControllerEntry,
                  entry("P33", "rho = err^-alpha, also after rejected steps",
                        "h_new = safety (tol/e)^alpha h after every trial; the authors' code: safety 0.85, alpha 1/4, "
                        "strict acceptance, no factor limits, h0 = T/100",
                        "[P] eq. (33)", AR::Formula, 1.0, 0.0, 0.0))
LIEBENCH_REGISTER(ControllerEntry, entry("I", "rho = err^-alpha; no growth after a rejected step",
                                         "elementary (integral) controller", "Hairer, Norsett & Wanner I, II.4 (4.13)",
                                         AR::NoGrowth, 1.0, 0.0, 0.0))
LIEBENCH_REGISTER(ControllerEntry,
                  entry("PI", "rho = err_n^-(k1 alpha) err_{n-1}^-(k2 alpha)", "k1 = 0.8, k2 = -0.31 (ARKODE defaults)",
                        "Gustafsson, ACM TOMS 17 (1991); ARKODE", AR::NoGrowth, 0.8, -0.31, 0.0))
LIEBENCH_REGISTER(ControllerEntry,
                  entry("PID", "rho = err_n^-(k1 alpha) err_{n-1}^-(k2 alpha) err_{n-2}^-(k3 alpha)",
                        "k1 = 0.58, k2 = -0.21, k3 = 0.1 (ARKODE defaults)",
                        "Soderlind, Numer. Algorithms 31 (2002); ARKODE", AR::NoGrowth, 0.58, -0.21, 0.1))
LIEBENCH_REGISTER(ControllerEntry,
                  entry("H211", "rho = err_n^-(alpha/b) err_{n-1}^-(alpha/b) (h_n/h_{n-1})^-(1/b)",
                        "H211b digital filter, b = 4 (key controller.b)", "Soderlind, ACM TOMS 29 (2003)",
                        AR::NoGrowth, 0.25, 0.25, 0.0))

double StepController::next_step(double h, double err, bool accepted, ControllerMemory& mem) const {
  double factor;
  if (!std::isfinite(err)) {
    factor = p_.limit_factors ? p_.min_factor : 0.1;
  } else {
    const double rho = accepted ? ratio(h, err, mem) : std::pow(err, -p_.alpha);
    factor = p_.safety * rho;
    // HNW I, II.4: "after a step rejection, facmax = 1" for the step that follows the accepted
    // retry (the retry itself shrinks anyway, err > 1)
    if ((!accepted || mem.rejected) && p_.after_reject == AR::NoGrowth) factor = std::min(factor, 1.0);
    if (p_.limit_factors) factor = std::clamp(factor, p_.min_factor, p_.max_factor);
  }
  mem.rejected = !accepted;
  if (accepted) {
    mem.err2 = mem.err1;
    mem.err1 = std::max(err, 1e-10);  // err = 0 would make the memory terms infinite (ARKODE's TINY)
    mem.h1 = h;
    mem.filled = std::min(mem.filled + 1, 2);
  }
  return std::min(h * factor, p_.h_max);
}

std::string StepController::describe() const {
  std::ostringstream os;
  os.precision(17);
  os << name() << ": h_new = " << p_.safety << " * rho * h, rho = " << formula() << ", alpha = " << p_.alpha;
  if (const std::string extra = parameters_text(); !extra.empty()) os << ", " << extra;
  if (p_.limit_factors) os << ", ratio in [" << p_.min_factor << ", " << p_.max_factor << "]";
  else os << ", ratio unlimited";
  os << ", accept iff err " << (p_.strict ? "<" : "<=") << " tol, after a rejection: "
     << (p_.after_reject == AR::Formula ? "formula" : "formula, no growth") << ", h_min = " << p_.h_min
     << ", h_max = " << p_.h_max;
  return os.str();
}

ControllerParams controller_defaults(const ControllerEntry& e, int order, int embedded_order) {
  ControllerParams p;
  p.alpha = 1.0 / (1.0 + std::min(order, embedded_order));
  p.after_reject = e.after_reject;
  p.k1 = e.k1;
  p.k2 = e.k2;
  p.k3 = e.k3;
  return p;
}

// <edge> parse: the [adaptive] controller keys -> ControllerParams
std::unique_ptr<StepController> make_controller(const Config& cfg, int order, int embedded_order) {
  const std::string name = cfg.get_string("controller");
  const ControllerEntry& e = ControllerRegistry::instance().get(name, "controller (key 'controller')");
  ControllerParams p = controller_defaults(e, order, embedded_order);
  if (cfg.has("controller.exponent")) p.alpha = cfg.get_positive("controller.exponent");
  p.safety = cfg.get_positive("safety");
  p.limit_factors = cfg.get_bool("limit_factors");
  p.min_factor = cfg.get_positive("min_factor");
  p.max_factor = cfg.get_positive("max_factor");
  p.h_min = cfg.get_positive("h_min");
  const double h_max = cfg.get_nonnegative("h_max");
  p.h_max = h_max > 0.0 ? h_max : INFINITY;
  p.strict = cfg.get_bool("strict_acceptance");
  const std::string after = cfg.get_choice("after_reject", {"auto", "formula", "no_growth"});
  p.after_reject = after == "auto" ? e.after_reject : after == "formula" ? AR::Formula : AR::NoGrowth;
  if (cfg.has("controller.k1")) p.k1 = cfg.get_double("controller.k1");
  if (cfg.has("controller.k2")) p.k2 = cfg.get_double("controller.k2");
  if (cfg.has("controller.k3")) p.k3 = cfg.get_double("controller.k3");
  p.b = cfg.get_positive("controller.b");
  if (p.safety > 1.0)
    throw UsageError("key 'safety' has value " + cfg.get_string("safety") + "; allowed: 0 < safety <= 1");
  if (p.min_factor >= 1.0)
    throw UsageError("key 'min_factor' has value " + cfg.get_string("min_factor") + "; allowed: 0 < min_factor < 1");
  if (p.max_factor <= 1.0)
    throw UsageError("key 'max_factor' has value " + cfg.get_string("max_factor") + "; allowed: max_factor > 1");
  if (p.h_min >= p.h_max)
    throw UsageError("key 'h_min' (" + cfg.get_string("h_min") + ") must be smaller than 'h_max' (" +
                     cfg.get_string("h_max") + ")");
  // A parameter key of another controller (its gains, its filter) would be silently ignored.
  for (const char* k : {"controller.k1", "controller.k2", "controller.k3", "controller.b"}) {
    if (!cfg.was_set(k) || std::find(e.keys.begin(), e.keys.end(), k) != e.keys.end()) continue;
    std::string users;
    for (const auto* other : ControllerRegistry::instance().all())
      if (std::find(other->keys.begin(), other->keys.end(), k) != other->keys.end())
        users += (users.empty() ? "" : " or ") + other->name;
    throw UsageError("key '" + std::string(k) + "' is set but controller = " + name + " does not read it" +
                     (users.empty() ? std::string() : "; use controller = " + users) + ", or remove the key");
  }
  return e.create(p);
}
// </edge>

std::unique_ptr<StepController> make_controller(const std::string& name, const ControllerParams& p) {
  return ControllerRegistry::instance().get(name, "controller (key 'controller')").create(p);
}

std::unique_ptr<StepController> make_controller(const std::string& name, int order, int embedded_order) {
  const ControllerEntry& e = ControllerRegistry::instance().get(name, "controller (key 'controller')");
  return e.create(controller_defaults(e, order, embedded_order));
}

}  // namespace lie
