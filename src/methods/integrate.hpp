#pragma once
// Time-stepping drivers shared by all studies: fixed steps, and adaptive steps with an
// embedded pair and the controller of [P] 4. Both call `observer(t, y, step_index)` at the
// requested output times (every `stride` steps for fixed runs; at every multiple of
// `sample_dt` -- hit exactly by clipping the step -- for adaptive runs).
#include <functional>
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
  double h0 = 0.0;           // initial step (0: chosen from the first error estimate)
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
  std::uint64_t accepted = 0, rejected = 0;
};

/// Integrates from t0 to t_final with step-size control. Throws NumericalError if h falls
/// below controller.h_min or max_steps is exceeded.
AdaptiveRecord integrate_adaptive(Stepper& stepper, const par::Context& ctx, double* y, const AdaptiveOptions& opt,
                                  const Observer& observer, std::size_t state_size);

}  // namespace lie
