#pragma once
// Integrating one run of a study: fixed steps or adaptive steps (methods/integrate.hpp
// drivers), with observables sampled into time series, optional state frames, and a
// checkpoint hook called at the same steps on every rank (graceful stop, progress).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/model.hpp"
#include "parallel/context.hpp"

namespace lie::studies {

/// The time integration of a run.
struct Integration {
  bool adaptive = false;
  double t0 = 0.0, t_final = 1.0;
  std::int64_t steps = 0;  // fixed
  double h = 0.0;          // fixed
  double tol = 0.0;        // adaptive
  AdaptiveOptions options; // adaptive (norm, controller, h0, sample_dt, max_steps)
};
Integration fixed_integration(double t0, double t_final, std::int64_t steps);
/// Adaptive run with tolerance `tol`: error norm and controller [P] eq. (33) from the methods
/// layer's keys (adaptive_options: atol, rtol, error_norm, safety, min_factor, max_factor,
/// h_min, h_max, h0), plus max_steps and the sample spacing. A parse function: called at the plan.
// <edge>
Integration adaptive_integration(const Config& cfg, const MethodInfo& method, double t0, double t_final, double tol,
                                 double sample_dt);
// </edge>

struct Sampling {
  bool observables = false;     // record Model::observables time series
  std::uint64_t every = 0;      // fixed: every k steps; adaptive without sample_dt: every k accepted steps;
                                // 0: at t0 and T only
  bool states = false;          // call RunHooks::frame
  std::uint64_t state_every = 0;
  bool log = true;              // periodic lines in the run log (studies/run_log.hpp, key log_every);
                                // false for auxiliary runs (references, warm-ups, comparisons)
};

struct TimeSeries;

/// A point of a run from which it can be continued bit for bit (collective: the same points on
/// every rank): what a checkpoint stores.
struct RunSnapshot {
  double t = 0.0;
  std::uint64_t step = 0;             // fixed: steps done; adaptive: accepted steps
  std::uint64_t calls = 0;            // observer calls so far (adaptive sampling)
  const double* y = nullptr;          // local state at t
  const AdaptiveState* adaptive = nullptr;
  const TimeSeries* series = nullptr;
  StepCounters counters;
  bool cache_valid = false;           // the stepper's cached stage data (rebuilt on restart)
  const Stepper* stepper = nullptr;   // its resume_state() (collective), asked only when written
};

/// Where a restarted run continues (read from a checkpoint).
struct RunResume {
  double t = 0.0;
  std::uint64_t step = 0, calls = 0;
  std::vector<double> y;              // local state
  std::optional<AdaptiveState> adaptive;
  StepCounters counters;
  bool cache_valid = false;
  std::optional<std::vector<double>> stepper_state;  // Stepper::resume_state() (absent in old checkpoints)
};

struct RunHooks {
  /// Called every checkpoint_stride() steps (adaptive: trial steps) at points from which the
  /// run continues bit for bit; identical on every rank (collective operations allowed).
  std::function<void(const RunSnapshot&)> safe_point;
  /// Called at identical points on every rank (collective operations allowed); fraction of the
  /// run done in [0, 1].
  std::function<void(double fraction)> checkpoint;
  /// A state frame (collective).
  std::function<void(double t, const double* y, std::uint64_t step)> frame;
};

struct TimeSeries {
  std::vector<std::int64_t> step;
  std::vector<double> time;
  std::vector<std::string> names;
  std::vector<std::vector<double>> values;  // [name][sample]
  const std::vector<double>* find(const std::string& name) const;
};

struct RunResult {
  std::vector<double> y;                   // final local state
  TimeSeries series;
  std::optional<AdaptiveRecord> adaptive;
  StepCounters counters;
  double wall = 0.0;                       // integration wall time on this rank (s)
  std::map<std::string, double> phases;    // per-phase seconds on this rank
  std::map<std::string, double> metrics;   // numbers a study kind derives while it runs the execution (the same
                                           // on every rank; timing: its repetitions), kept by checkpoints
  std::string status = "ok";               // ok | nonfinite | failed: ...
  bool ok() const { return status == "ok"; }
};

/// Integrates from the model's initial state (or from `y0` if given). NumericalErrors become
/// status "failed: ..."; a non-finite final state becomes "nonfinite". Collective.
RunResult execute_run(Model& model, Stepper& stepper, par::Context& ctx, const Integration& integ,
                      const Sampling& sampling, const RunHooks& hooks, const std::vector<double>* y0 = nullptr,
                      const RunResume* resume = nullptr, const TimeSeries* resume_series = nullptr);

/// Model::state_distance(a, b), except that models which replicate their components on every
/// rank (io::StateRows::replicated) are measured on one rank (their state is complete
/// everywhere; reducing over ranks would count it P times). Collective.
double solution_distance(const Model& model, const double* a, const double* b, const par::Context& ctx);
/// |y| with the same convention.
double solution_norm(const Model& model, const double* y, const par::Context& ctx);

/// Steps between collective stop checks (cheap on one rank, an allreduce otherwise).
std::uint64_t checkpoint_stride(const par::Context& ctx);

}  // namespace lie::studies
