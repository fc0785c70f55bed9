#pragma once
// Time-stepping drivers shared by all studies: fixed steps, and adaptive steps with an
// embedded pair and the controller of [P] 4. Both call `observer(t, y, step_index)` at the
// requested output times (every `stride` steps for fixed runs; at every multiple of
// `sample_dt` -- hit exactly by clipping the step -- for adaptive runs).
#include <functional>
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
};

/// Integrates `steps` fixed steps of size h. The observer sees t0 and the final time always.
void integrate_fixed(Stepper& stepper, double* y, const FixedStepOptions& opt, const Observer& observer);

struct AdaptiveOptions {
  double t0 = 0.0;
  double t_final = 1.0;
  double h0 = 0.0;           // initial step (0: 1e-3 (t_final - t0), then grown by the controller)
  double sample_dt = 0.0;    // observer spacing (0: every accepted step)
  std::uint64_t max_steps = 100000000;
  ErrorNorm norm;
  StepController controller;
};

struct AdaptiveRecord {
  std::vector<double> t;       // time at the end of every accepted step
  std::vector<double> h;       // accepted step sizes
  std::vector<double> err;     // scaled error estimate of every accepted step
  std::vector<double> rejected_t;  // times from which a step was rejected
  std::vector<double> rejected_h;  // sizes of the rejected trial steps
  std::uint64_t accepted = 0, rejected = 0;
};

/// Adaptive options from the controller keys (safety, min_factor, max_factor, h_min, h_max,
/// h0, atol, rtol, error_norm; `liebench run --help`, group [adaptive]) for an embedded pair
/// `method` (exponent alpha = 1/(1 + min(p, p~)), [P] 4). `tol` is the tolerance of this run
/// (one value of the study key `tol`): keys atol / rtol whose value is the word `tol` take it
/// (default: atol = tol, rtol = 0, i.e. e_{n+1} < tol as in [P] 4). Throws UsageError for
/// inconsistent values or a method without embedded estimator.
AdaptiveOptions adaptive_options(const Config& cfg, const MethodInfo& method, double t0, double t_final,
                                 std::optional<double> tol);

/// Integrates from t0 to t_final with step-size control. Throws NumericalError if h falls
/// below controller.h_min or max_steps is exceeded.
AdaptiveRecord integrate_adaptive(Stepper& stepper, const par::Context& ctx, double* y, const AdaptiveOptions& opt,
                                  const Observer& observer, std::size_t state_size);

}  // namespace lie
