#include "methods/integrate.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/quote.hpp"
#include "core/stop.hpp"

namespace lie {

namespace {

// The controller's own keys (controller, safety, limit_factors, min/max_factor, h_min, h_max,
// ...) are declared in controller.cpp; the driver's here.
const bool kDriverKeys = declare_options({
    {"h0", OptionType::NonNegativeReal, "0", "first trial step of adaptive runs (0: h0_fraction (t_final - t0))", {},
     "adaptive"},
    {"h0_fraction", OptionType::PositiveReal, "1e-3",
     "first trial step as a fraction of t_final - t0 when h0 = 0 (the authors' code of [P]: 0.01, h0 = T/100)", {},
     "adaptive"},
    {"end_slack", OptionType::String, "auto",
     "adaptive runs stop when t >= t_final - end_slack: a number, or auto = 64 eps max(1, |t_final|) (the authors' "
     "code of [P]: 5 eps = 1.1102230246251565e-15)",
     {}, "adaptive"},
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

// <edge> parse: the [adaptive] keys -> AdaptiveOptions
double tolerance_key(const Config& cfg, const std::string& key, std::optional<double> tol) {
  const std::string v = cfg.get_string(key);
  if (v == "tol") {
    if (!tol)
      throw UsageError("key " + quote(key) + " is 'tol' but this run has no tolerance; set key 'tol' or give '" + key +
                       "' a number");
    return *tol;
  }
  const double x = parse_double(key, v);
  if (x < 0.0) throw UsageError("key " + quote(key) + " has value " + quote(v) + "; allowed: 'tol' or a number >= 0");
  return x;
}
// </edge>

}  // namespace

// <edge> parse: the [adaptive] keys -> AdaptiveOptions
AdaptiveOptions adaptive_options(const Config& cfg, const MethodInfo& method, double t0, double t_final,
                                 std::optional<double> tol) {
  if (method.embedded_order <= 0)
    throw UsageError("method " + quote(method.name) + " has no embedded error estimator, so it cannot run with a "
                     "tolerance; use an embedded pair (rkmk54, cf32a, cf32b, cf43, dopri54, ...) or fixed steps");
  if (tol && !(*tol > 0.0)) throw UsageError("key 'tol' has value " + num(*tol) + "; must be > 0");
  AdaptiveOptions o;
  o.t0 = t0;
  o.t_final = t_final;
  o.h0 = cfg.get_nonnegative("h0");
  o.h0_fraction = cfg.get_positive("h0_fraction");
  const std::string slack = cfg.get_string("end_slack");
  if (slack != "auto") {
    o.end_slack = parse_double("end_slack", slack);
    if (!(o.end_slack >= 0.0))
      throw UsageError("key 'end_slack' has value " + quote(slack) + "; allowed: auto or a number >= 0");
  }
  o.controller = make_controller(cfg, method.order, method.embedded_order);
  o.norm.atol = tolerance_key(cfg, "atol", tol);
  o.norm.rtol = tolerance_key(cfg, "rtol", tol);
  if (!(o.norm.atol > 0.0 || o.norm.rtol > 0.0))
    throw UsageError("keys 'atol' and 'rtol' are both 0; at least one tolerance must be > 0");
  const std::string kind = cfg.get_choice("error_norm", {"l2", "rms", "max"});
  o.norm.kind = kind == "l2" ? ErrorNorm::Kind::L2 : kind == "rms" ? ErrorNorm::Kind::Rms : ErrorNorm::Kind::Max;
  return o;
}
// </edge>

void integrate_fixed(Stepper& stepper, double* y, const FixedStepOptions& opt, const Observer& observer) {
  if (observer && opt.first == 0) observer(opt.t0, y, 0);
  for (std::uint64_t n = opt.first; n < opt.steps; ++n) {
    // t_n = t0 + n h (not accumulated) so that every run hits T = t0 + N h exactly.
    const double t = opt.t0 + static_cast<double>(n) * opt.h;
    try {
      stepper.step(t, opt.h, y);
    } catch (StopInStep& e) {  // the step was abandoned: the run stands after n steps, at t
      e.located = true;
      e.steps_done = n;
      e.t = t;
      throw;
    }
    const std::uint64_t done = n + 1;
    if (observer && ((opt.stride && done % opt.stride == 0) || done == opt.steps))
      observer(opt.t0 + static_cast<double>(done) * opt.h, y, done);
  }
}

AdaptiveState start_adaptive(const AdaptiveOptions& opt) {
  AdaptiveState s;
  s.t = opt.t0;
  const double h0 = opt.h0 > 0.0 ? opt.h0 : opt.h0_fraction * std::fabs(opt.t_final - opt.t0);
  s.h = opt.controller ? std::clamp(h0, opt.controller->params().h_min, opt.controller->params().h_max) : h0;
  return s;
}

AdaptiveRecord integrate_adaptive(Stepper& stepper, const par::Context& ctx, double* y, const AdaptiveOptions& opt,
                                  const Observer& observer, std::size_t state_size) {
  AdaptiveState state = start_adaptive(opt);
  if (observer) observer(state.t, y, 0);
  continue_adaptive(stepper, ctx, y, opt, observer, state_size, state);
  return std::move(state.record);
}

void continue_adaptive(Stepper& stepper, const par::Context& ctx, double* y, const AdaptiveOptions& opt,
                       const Observer& observer, std::size_t state_size, AdaptiveState& s,
                       const SafePoint& safe_point, bool keep_stepper_cache) {
  // Options built by hand without a controller: P33 with the keys' defaults.
  std::shared_ptr<const StepController> fallback;
  if (!opt.controller)
    fallback = make_controller("P33", stepper.info().order, stepper.info().embedded_order);
  const StepController& ctl = opt.controller ? *opt.controller : *fallback;
  const ControllerParams& cp = ctl.params();
  AdaptiveRecord& rec = s.record;
  std::vector<double> y_new(state_size), y_sample(opt.sample_dt > 0.0 ? state_size : 0);
  const double T = opt.t_final;
  const double slack =
      opt.end_slack >= 0.0 ? opt.end_slack : 64.0 * 2.220446049250313e-16 * std::max(1.0, std::fabs(T));
  if (!keep_stepper_cache) stepper.invalidate();
  (void)ctx;
  // The loop of [P] 4 as in the authors' code: while t < T - slack, try h <- min(h, T - t);
  // accept or reject; h <- controller(h, err) after every trial.
  while (s.t < T - slack) {
    if (safe_point) safe_point(s, y);
    if (rec.accepted >= opt.max_steps)
      throw NumericalError("adaptive integration exceeded max_steps = " + std::to_string(opt.max_steps) + " at t = " +
                           std::to_string(s.t));
    const double h_try = std::min(s.h, T - s.t);
    const double err = stepper.try_step(s.t, h_try, y, y_new.data(), opt.norm);
    const bool accepted = ctl.accept(err);
    if (accepted) {
      const double t_new = s.t + h_try;
      const bool last = !(t_new < T - slack);
      // Output times inside the step from the continuous extension ([P] 4 with dense output):
      // the step itself was chosen without looking at them.
      bool dropped = false;
      if (opt.sample_dt > 0.0) {
        for (;;) {
          const double ts = opt.t0 + static_cast<double>(s.samples + 1) * opt.sample_dt;
          if (!(ts < t_new) || !(ts < T - slack)) break;
          dropped = stepper.dense_output(s.t, h_try, (ts - s.t) / h_try, y, y_sample.data(), state_size) || dropped;
          ++s.samples;
          if (observer) observer(ts, y_sample.data(), rec.accepted);
        }
      }
      std::copy(y_new.begin(), y_new.end(), y);
      stepper.accept();
      if (dropped) stepper.invalidate();
      s.t = t_new;
      rec.t.push_back(s.t);
      rec.h.push_back(h_try);
      rec.err.push_back(err);
      ++rec.accepted;
      if (opt.sample_dt > 0.0 && !last) {
        const double ts = opt.t0 + static_cast<double>(s.samples + 1) * opt.sample_dt;
        if (ts == s.t) {  // a sample time hit exactly by the step
          ++s.samples;
          if (observer) observer(ts, y, rec.accepted);
        }
      } else if (opt.sample_dt <= 0.0 && observer && !last) {
        observer(s.t, y, rec.accepted);
      }
    } else {
      ++rec.rejected;
      stepper.count_rejected();
      rec.rejected_t.push_back(s.t);
      rec.rejected_h.push_back(h_try);
    }
    s.h = ctl.next_step(h_try, err, accepted, s.memory);
    if (!accepted && !(s.h >= cp.h_min)) {
      std::ostringstream os;
      os << "step size underflow: h = " << s.h << " < h_min = " << cp.h_min << " at t = " << s.t
         << " (error estimate " << err << "); loosen the tolerance or lower h_min";
      throw NumericalError(os.str());
    }
  }
  if (observer) observer(T, y, rec.accepted);
}

}  // namespace lie
