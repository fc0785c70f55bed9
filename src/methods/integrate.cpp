#include "methods/integrate.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace lie {

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
  double h = opt.h0 > 0.0 ? opt.h0 : std::min(1e-3 * std::fabs(T - t), opt.controller.h_max);
  if (!(h > 0.0)) h = 1e-6;
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
      rec.rejected_t.push_back(t);
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
