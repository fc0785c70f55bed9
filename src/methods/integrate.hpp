#pragma once
// Time-stepping drivers shared by all studies: fixed steps, and adaptive steps with an
// embedded pair and a step-size controller (controller.hpp). Both call
// `observer(t, y, step_index)` at the requested output times (every `stride` steps for fixed
// runs; every accepted step or every multiple of `sample_dt` for adaptive runs, the latter
// from the stepper's dense output so that output never changes the steps).
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "methods/controller.hpp"
#include "methods/stepper.hpp"

namespace lie {

using Observer = std::function<void(double t, const double* y, std::uint64_t step)>;

struct FixedStepOptions {
  double t0 = 0.0;
  double h = 0.0;
  std::uint64_t steps = 0;
  std::uint64_t stride = 0;  // observer every `stride` steps (0: only at start and end)
  std::uint64_t first = 0;   // steps already done (restart: y is the state at t0 + first h; the
                             // observer is then not called at the start)
};

/// Integrates `steps` fixed steps of size h. The observer sees t0 and the final time always.
/// A step abandoned on a stop request (StopInStep, core/stop.hpp) is passed on with where the
/// run stands (steps done, t).
void integrate_fixed(Stepper& stepper, double* y, const FixedStepOptions& opt, const Observer& observer);

struct AdaptiveOptions {
  double t0 = 0.0;
  double t_final = 1.0;
  double h0 = 0.0;           // initial step (0: h0_fraction (t_final - t0))
  double h0_fraction = 1e-3; // the authors' code of [P]: T/100
  double end_slack = -1.0;   // loop while t < t_final - end_slack (< 0: 64 eps max(1, |t_final|));
                             // the authors' code: 5 eps
  double sample_dt = 0.0;    // observer spacing (0: every accepted step); dense output, the
                             // accepted steps do not depend on it
  std::uint64_t max_steps = 100000000;
  ErrorNorm norm;
  std::shared_ptr<const StepController> controller;  // make_controller (key `controller`); null: P33 defaults
};

struct AdaptiveRecord {
  std::vector<double> t;       // time at the end of every accepted step
  std::vector<double> h;       // accepted step sizes
  std::vector<double> err;     // scaled error estimate of every accepted step
  std::vector<double> rejected_t;  // times from which a step was rejected
  std::vector<double> rejected_h;  // sizes of the rejected trial steps
  std::uint64_t accepted = 0, rejected = 0;
};

/// Everything the adaptive driver carries from one trial step to the next: plain, copyable
/// data, so that a run stopped after any step and continued with continue_adaptive() from a
/// copy of this state (and the state vector y at t) takes bitwise the same steps.
struct AdaptiveState {
  double t = 0.0;                   // time of y
  double h = 0.0;                   // next trial step (before h <- min(h, T - t))
  std::uint64_t samples = 0;        // sample times t0 + k sample_dt, k = 1..samples, done
  ControllerMemory memory;          // the controller's error/step memory
  AdaptiveRecord record;            // step history and counters
};

/// Adaptive options from the controller keys (`controller`, safety, limit_factors, min_factor,
/// max_factor, strict_acceptance, after_reject, controller.*, h_min, h_max, h0, h0_fraction,
/// end_slack, atol, rtol, error_norm; `liebench run --help`, group [adaptive]) for an embedded
/// pair `method` (default exponent alpha = 1/(1 + min(p, p~)), [P] 4). `tol` is the tolerance
/// of this run (one value of the study key `tol`): keys atol / rtol whose value is the word
/// `tol` take it (default: atol = tol, rtol = 0, i.e. e_{n+1} < tol as in [P] 4). Throws
/// UsageError for inconsistent values or a method without embedded estimator.
// <edge> (declaration of the parse function)
AdaptiveOptions adaptive_options(const Config& cfg, const MethodInfo& method, double t0, double t_final,
                                 std::optional<double> tol);
// </edge>

/// The state at t0: h = h0 (or h0_fraction (T - t0)).
AdaptiveState start_adaptive(const AdaptiveOptions& opt);

/// Integrates from t0 to t_final with step-size control: the observer sees t0, then every
/// accepted step (sample_dt = 0) or the sample times t0 + k sample_dt < T from the stepper's
/// dense output, and T. Throws NumericalError if h falls below h_min or max_steps is exceeded.
AdaptiveRecord integrate_adaptive(Stepper& stepper, const par::Context& ctx, double* y, const AdaptiveOptions& opt,
                                  const Observer& observer, std::size_t state_size);
/// Called before every trial step with the driver's complete state (a point from which
/// continue_adaptive() resumes bit for bit): checkpoints.
using SafePoint = std::function<void(const AdaptiveState& state, const double* y)>;
/// Continues from `state` (y is the solution at state.t) to t_final; the observer is not
/// called at state.t. Same steps as an uninterrupted run. The stepper's cached stage data is
/// dropped first unless `keep_stepper_cache` (the caller restored it).
void continue_adaptive(Stepper& stepper, const par::Context& ctx, double* y, const AdaptiveOptions& opt,
                       const Observer& observer, std::size_t state_size, AdaptiveState& state,
                       const SafePoint& safe_point = {}, bool keep_stepper_cache = false);

}  // namespace lie
