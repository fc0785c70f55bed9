#include "methods/integrate.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace lie {

namespace {

const bool kControllerKeys = declare_options({
    {"safety", OptionType::PositiveReal, "0.9", "safety factor theta of the step-size controller [P] eq. (33), in (0, 1]",
     {}, "adaptive"},
    {"min_factor", OptionType::PositiveReal, "0.2", "smallest allowed ratio h_new / h of the controller (< 1)", {},
     "adaptive"},
    {"max_factor", OptionType::PositiveReal, "5", "largest allowed ratio h_new / h of the controller (> 1)", {},
     "adaptive"},
    {"h_min", OptionType::PositiveReal, "1e-14", "a step size below this stops an adaptive run (step size underflow)",
     {}, "adaptive"},
    {"h_max", OptionType::NonNegativeReal, "0", "largest step size of adaptive runs (0: no limit)", {}, "adaptive"},
    {"h0", OptionType::NonNegativeReal, "0", "first trial step of adaptive runs (0: 1e-3 (t_final - t0))", {},
     "adaptive"},
    {"atol", OptionType::String, "tol",
     "absolute tolerance of adaptive runs: a number, or 'tol' to follow the swept tolerance (key tol)", {}, "adaptive"},
    {"rtol", OptionType::String, "0",
     "relative tolerance of adaptive runs: a number, or 'tol' to follow the swept tolerance (key tol)", {},
     "adaptive"},
    {"error_norm", OptionType::Choice, "l2",
     "norm of the weighted local error estimate e_i/(atol + rtol |y_i|): l2 (the ||sigma - sigma~|| of [P] 4.1), rms "
     "or max",
     {"l2", "rms", "max"}, "adaptive"},
});

double tolerance_key(const Config& cfg, const std::string& key, std::optional<double> tol) {
  const std::string v = cfg.get_string(key);
  if (v == "tol") {
    if (!tol)
      throw UsageError("key '" + key + "' is 'tol' but this run has no tolerance; set key 'tol' or give '" + key +
                       "' a number");
    return *tol;
  }
  const double x = parse_double(key, v);
  if (x < 0.0) throw UsageError("key '" + key + "' has value '" + v + "'; allowed: 'tol' or a number >= 0");
  return x;
}

}  // namespace

AdaptiveOptions adaptive_options(const Config& cfg, const MethodInfo& method, double t0, double t_final,
                                 std::optional<double> tol) {
  if (method.embedded_order <= 0)
    throw UsageError("method '" + method.name + "' has no embedded error estimator, so it cannot run with a "
                     "tolerance; use an embedded pair (rkmk54, cf32a, cf32b, cf43, dopri54, ...) or fixed steps");
  if (tol && !(*tol > 0.0)) throw UsageError("key 'tol' has value " + std::to_string(*tol) + "; must be > 0");
  AdaptiveOptions o;
  o.t0 = t0;
  o.t_final = t_final;
  o.h0 = cfg.get_nonnegative("h0");
  o.controller = StepController::for_pair(method.order, method.embedded_order);
  o.controller.safety = cfg.get_positive("safety");
  o.controller.min_factor = cfg.get_positive("min_factor");
  o.controller.max_factor = cfg.get_positive("max_factor");
  o.controller.h_min = cfg.get_positive("h_min");
  const double h_max = cfg.get_nonnegative("h_max");
  o.controller.h_max = h_max > 0.0 ? h_max : INFINITY;
  if (o.controller.safety > 1.0)
    throw UsageError("key 'safety' has value " + cfg.get_string("safety") + "; allowed: 0 < safety <= 1");
  if (o.controller.min_factor >= 1.0)
    throw UsageError("key 'min_factor' has value " + cfg.get_string("min_factor") + "; allowed: 0 < min_factor < 1");
  if (o.controller.max_factor <= 1.0)
    throw UsageError("key 'max_factor' has value " + cfg.get_string("max_factor") + "; allowed: max_factor > 1");
  if (o.controller.h_min >= o.controller.h_max)
    throw UsageError("key 'h_min' (" + cfg.get_string("h_min") + ") must be smaller than 'h_max' (" +
                     cfg.get_string("h_max") + ")");
  o.norm.atol = tolerance_key(cfg, "atol", tol);
  o.norm.rtol = tolerance_key(cfg, "rtol", tol);
  if (!(o.norm.atol > 0.0 || o.norm.rtol > 0.0))
    throw UsageError("keys 'atol' and 'rtol' are both 0; at least one tolerance must be > 0");
  const std::string kind = cfg.get_choice("error_norm", {"l2", "rms", "max"});
  o.norm.kind = kind == "l2" ? ErrorNorm::Kind::L2 : kind == "rms" ? ErrorNorm::Kind::Rms : ErrorNorm::Kind::Max;
  return o;
}

std::string StepController::describe() const {
  std::ostringstream os;
  os << "h_new = " << safety << " * err^(-" << alpha << ") * h, ratio in [" << min_factor << ", " << max_factor
     << "], h_min = " << h_min << ", h_max = " << h_max << " ([P] eq. (33))";
  return os.str();
}

void integrate_fixed(Stepper& stepper, double* y, const FixedStepOptions& opt, const Observer& observer) {
  if (observer) observer(opt.t0, y, 0);
  for (std::uint64_t n = 0; n < opt.steps; ++n) {
    // t_n = t0 + n h (not accumulated) so that every run hits T = t0 + N h exactly.
    const double t = opt.t0 + static_cast<double>(n) * opt.h;
    stepper.step(t, opt.h, y);
    const std::uint64_t done = n + 1;
    if (observer && ((opt.stride && done % opt.stride == 0) || done == opt.steps))
      observer(opt.t0 + static_cast<double>(done) * opt.h, y, done);
  }
}

AdaptiveRecord integrate_adaptive(Stepper& stepper, const par::Context& ctx, double* y, const AdaptiveOptions& opt,
                                  const Observer& observer, std::size_t state_size) {
  AdaptiveRecord rec;
  std::vector<double> y_new(state_size);
  const double T = opt.t_final;
  double t = opt.t0;
  double h = std::clamp(opt.h0 > 0.0 ? opt.h0 : 1e-3 * std::fabs(T - t), opt.controller.h_min, opt.controller.h_max);
  double next_sample = opt.sample_dt > 0.0 ? t + opt.sample_dt : T;
  std::uint64_t sample_index = 0;
  if (observer) observer(t, y, 0);
  stepper.invalidate();
  const double eps_t = 64.0 * 2.220446049250313e-16 * std::max(1.0, std::fabs(T));
  while (T - t > eps_t) {
    if (rec.accepted >= opt.max_steps)
      throw NumericalError("adaptive integration exceeded max_steps = " + std::to_string(opt.max_steps) + " at t = " +
                           std::to_string(t));
    // Clip the step to land exactly on the next output time / the final time.
    const double target = std::min(next_sample, T);
    bool clipped = false;
    double h_try = h;
    if (t + h_try >= target - eps_t) {
      h_try = target - t;
      clipped = true;
    }
    const double err = stepper.try_step(t, h_try, y, y_new.data(), opt.norm);
    if (StepController::accept(err)) {
      std::copy(y_new.begin(), y_new.end(), y);
      stepper.accept();
      t = clipped ? target : t + h_try;
      rec.t.push_back(t);
      rec.h.push_back(h_try);
      rec.err.push_back(err);
      ++rec.accepted;
      const double h_next = opt.controller.propose(h_try, err);
      // A clipped step does not shrink the controller's step (it was limited by output, not error).
      h = clipped ? std::max(h, h_next) : h_next;
      h = std::min(h, opt.controller.h_max);
      if (clipped && opt.sample_dt > 0.0 && target < T) {
        ++sample_index;
        next_sample = opt.t0 + static_cast<double>(sample_index + 1) * opt.sample_dt;
        if (observer) observer(t, y, rec.accepted);
      } else if (opt.sample_dt <= 0.0 && observer && T - t > eps_t) {
        observer(t, y, rec.accepted);
      }
    } else {
      ++rec.rejected;
      stepper.count_rejected();
      rec.rejected_t.push_back(t);
      rec.rejected_h.push_back(h_try);
      h = opt.controller.propose(h_try, err);
      if (h < opt.controller.h_min) {
        std::ostringstream os;
        os << "step size underflow: h = " << h << " < h_min = " << opt.controller.h_min << " at t = " << t
           << " (error estimate " << err << "); loosen the tolerance or lower h_min";
        throw NumericalError(os.str());
      }
    }
    (void)ctx;
  }
  if (observer) observer(T, y, rec.accepted);
  return rec;
}

}  // namespace lie
