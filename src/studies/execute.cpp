#include "studies/execute.hpp"

#include <chrono>
#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "core/stop.hpp"
#include "models/state_rows.hpp"
#include "studies/interrupt.hpp"
#include "studies/run_log.hpp"

namespace lie::studies {

namespace {

// The step-size control keys (atol, rtol, error_norm, safety, ..., h0) belong to the methods
// layer (adaptive_options, methods/integrate.hpp); studies add the step limit.
const bool kKeys = declare_options({
    {"max_steps", OptionType::PositiveInt, "100000000", "adaptive runs fail after this many accepted steps", {},
     "adaptive"},
});

using clock = std::chrono::steady_clock;
double seconds_since(clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); }

}  // namespace

const std::vector<double>* TimeSeries::find(const std::string& name) const {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return &values[i];
  return nullptr;
}

double solution_distance(const Model& model, const double* a, const double* b, const par::Context& ctx) {
  if (ctx.size() > 1 && io::state_rows(model, ctx).replicated) {
    const par::Context self(MPI_COMM_SELF, ctx.deterministic());
    return model.state_distance(a, b, self);
  }
  return model.state_distance(a, b, ctx);
}

double solution_norm(const Model& model, const double* y, const par::Context& ctx) {
  const std::size_t n = model.space().state_size();
  if (ctx.size() > 1 && io::state_rows(model, ctx).replicated) {
    const par::Context self(MPI_COMM_SELF, ctx.deterministic());
    return std::sqrt(self.sum_of_squares(y, n));
  }
  return std::sqrt(ctx.sum_of_squares(y, n));
}

std::uint64_t checkpoint_stride(const par::Context& ctx) { return ctx.size() > 1 ? 64 : 8; }

Integration fixed_integration(double t0, double t_final, std::int64_t steps) {
  Integration in;
  in.t0 = t0;
  in.t_final = t_final;
  in.steps = steps;
  in.h = (t_final - t0) / static_cast<double>(steps);
  return in;
}

// <edge>
Integration adaptive_integration(const Config& cfg, const MethodInfo& method, double t0, double t_final, double tol,
                                 double sample_dt) {
  Integration in;
  in.adaptive = true;
  in.t0 = t0;
  in.t_final = t_final;
  in.tol = tol;
  in.options = adaptive_options(cfg, method, t0, t_final, tol);
  in.options.sample_dt = sample_dt;
  in.options.max_steps = static_cast<std::uint64_t>(cfg.get_int_at_least("max_steps", 1));
  return in;
}
// </edge>

RunResult execute_run(Model& model, Stepper& stepper, par::Context& ctx, const Integration& integ,
                      const Sampling& sampling, const RunHooks& hooks, const std::vector<double>* y0,
                      const RunResume* resume, const TimeSeries* resume_series) {
  RunResult res;
  const std::size_t n = model.space().state_size();
  res.y.resize(n);
  if (y0) res.y = *y0;
  else model.initial_state(res.y.data());
  stepper.reset_counters();
  stepper.invalidate();
  // Run log lines every log_every steps: observables of the state, errors against the start
  // (computed here only when lines are due: no cost with log_every = 0).
  RunLog* log = sampling.log ? RunLog::active() : nullptr;
  const std::uint64_t log_every = log && log->started() ? log->every() : 0;
  Observables log_initial, log_obs;
  double t_log = 0.0;
  if (log_every) model.observables(integ.t0, res.y.data(), log_initial);
  if (resume) {
    res.y = resume->y;
    if (resume_series) res.series = *resume_series;
    stepper.set_counters(resume->counters);
    if (resume->cache_valid) stepper.rebuild_cache(resume->t, res.y.data());
    if (resume->stepper_state) stepper.restore_resume_state(*resume->stepper_state, res.y.data());
  }

  Observables obs;
  ctx.timers().enable();  // the run's "model.*" phases (par::Timers are off until asked)
  const std::map<std::string, double> timers_before = ctx.timers().all();
  double t_observables = 0.0, t_frames = 0.0;
  const double span = integ.t_final - integ.t0;
  const std::uint64_t check = checkpoint_stride(ctx);

  auto record = [&](double t, const double* y, std::uint64_t step) {
    const auto t1 = clock::now();
    obs.clear();
    model.observables(t, y, obs);
    if (res.series.names.empty()) {
      for (const auto& [k, v] : obs.items()) res.series.names.push_back(k);
      res.series.values.resize(res.series.names.size());
    }
    res.series.step.push_back(static_cast<std::int64_t>(step));
    res.series.time.push_back(t);
    for (std::size_t i = 0; i < res.series.names.size(); ++i)
      res.series.values[i].push_back(obs.has(res.series.names[i]) ? obs.get(res.series.names[i]) : NAN);
    t_observables += seconds_since(t1);
  };
  auto frame = [&](double t, const double* y, std::uint64_t step) {
    const auto t1 = clock::now();
    hooks.frame(t, y, step);
    t_frames += seconds_since(t1);
  };

  auto log_line = [&](double t, const double* y, std::uint64_t step, double h) {
    const auto t1 = clock::now();
    log_obs.clear();
    model.observables(t, y, log_obs);
    log->line(step, t, h, log_obs, log_initial);
    t_log += seconds_since(t1);
  };

  const auto start = clock::now();
  // The adaptive driver's state lives outside the try block: a run that fails (step size
  // underflow, max_steps) keeps its accepted and rejected steps and step-size history.
  std::optional<AdaptiveState> adaptive_state;
  try {
    if (!integ.adaptive) {
      const std::uint64_t steps = static_cast<std::uint64_t>(integ.steps);
      std::uint64_t stride = check;
      if (sampling.observables && sampling.every) stride = std::gcd(stride, sampling.every);
      if (sampling.states && sampling.state_every) stride = std::gcd(stride, sampling.state_every);
      if (log_every) stride = std::gcd(stride, log_every);
      FixedStepOptions opt;
      opt.t0 = integ.t0;
      opt.h = integ.h;
      opt.steps = steps;
      opt.stride = stride;
      if (resume) opt.first = resume->step;
      integrate_fixed(stepper, res.y.data(), opt, [&](double t, const double* y, std::uint64_t step) {
        const bool last = step == steps;
        if (sampling.observables && (step == 0 || last || (sampling.every && step % sampling.every == 0)))
          record(t, y, step);
        if (sampling.states && hooks.frame &&
            (step == 0 || last || (sampling.state_every && step % sampling.state_every == 0)))
          frame(t, y, step);
        if (log_every && (step % log_every == 0 || last)) log_line(t, y, step, integ.h);
        if (hooks.safe_point && step % check == 0 && !last && step != opt.first) {
          RunSnapshot snap;
          snap.t = t;
          snap.step = step;
          snap.y = y;
          snap.series = &res.series;
          snap.counters = stepper.counters();
          snap.cache_valid = stepper.cache_valid();
          snap.stepper = &stepper;
          hooks.safe_point(snap);
        }
        if (hooks.checkpoint && (step % check == 0 || last))
          hooks.checkpoint(static_cast<double>(step) / static_cast<double>(std::max<std::uint64_t>(steps, 1)));
      });
    } else {
      std::uint64_t calls = resume ? resume->calls : 0, trials = 0;
      const bool at_sample_times = integ.options.sample_dt > 0.0;
      const Observer observer = [&](double t, const double* y, std::uint64_t step) {
            const bool first = calls == 0;
            const bool last = t == integ.t_final;
            const bool sample = first || last || at_sample_times || (sampling.every && calls % sampling.every == 0);
            if (sampling.observables && sample) record(t, y, step);
            if (sampling.states && hooks.frame &&
                (first || last || at_sample_times || (sampling.state_every && calls % sampling.state_every == 0)))
              frame(t, y, step);
            if (hooks.checkpoint && (calls % check == 0 || last || at_sample_times))
              hooks.checkpoint((t - integ.t0) / span);
            ++calls;
          };
      // Safe points before every check-th trial step (not at the first one after a restart).
      const SafePoint safe_point = [&](const AdaptiveState& st, const double* y) {
        if (trials++ % check != 0 || trials == 1) return;
        RunSnapshot snap;
        snap.t = st.t;
        snap.step = st.record.accepted;
        snap.calls = calls;
        snap.y = y;
        snap.adaptive = &st;
        snap.series = &res.series;
        snap.counters = stepper.counters();
        snap.cache_valid = stepper.cache_valid();
        snap.stepper = &stepper;
        hooks.safe_point(snap);
      };
      // Log lines before the trial steps that follow every log_every-th accepted step.
      std::uint64_t logged = resume ? resume->step : 0;
      bool logged_any = resume != nullptr;
      auto log_accepted = [&](const AdaptiveState& st, const double* y) {
        const std::uint64_t a = st.record.accepted;
        if (logged_any && a == logged) return;
        logged = a;
        logged_any = true;
        log_line(st.t, y, a, st.record.h.empty() ? st.h : st.record.h.back());
      };
      const SafePoint on_trial = [&](const AdaptiveState& st, const double* y) {
        if (log_every && st.record.accepted % log_every == 0) log_accepted(st, y);
        if (hooks.safe_point) safe_point(st, y);
      };
      adaptive_state = resume && resume->adaptive ? *resume->adaptive : start_adaptive(integ.options);
      AdaptiveState& state = *adaptive_state;
      if (!resume) observer(state.t, res.y.data(), 0);
      continue_adaptive(stepper, ctx, res.y.data(), integ.options, observer, n, state,
                        hooks.safe_point || log_every ? on_trial : SafePoint{}, resume && resume->cache_valid);
      if (log_every) log_accepted(state, res.y.data());
      res.adaptive = std::move(state.record);
    }
  } catch (const NumericalError& e) {
    res.status = std::string("failed: ") + e.what();
    if (adaptive_state && !res.adaptive) res.adaptive = std::move(adaptive_state->record);
  } catch (const StopInStep& e) {
    // A long step abandoned on a stop request (core/stop.hpp), on every rank: the run stands at
    // the start of that step, a point it continues from bit for bit. A checkpointed study
    // writes its checkpoint there (its safe point sees the pending signal and throws
    // Checkpointed: exit 5); any other run stops (exit 128 + signal).
    if (e.located && hooks.safe_point) {
      RunSnapshot snap;
      snap.t = e.t;
      snap.step = e.steps_done;
      snap.y = res.y.data();
      snap.series = &res.series;
      snap.counters = stepper.counters();
      snap.cache_valid = stepper.cache_valid();
      snap.stepper = &stepper;
      hooks.safe_point(snap);
    }
    throw Interrupted(e.signal());
  }
  res.wall = seconds_since(start);
  res.counters = stepper.counters();
  if (res.adaptive) {
    res.counters.steps = res.adaptive->accepted;
    res.counters.rejected = res.adaptive->rejected;
  }
  bool finite = true;
  for (double v : res.y) finite = finite && std::isfinite(v);
  if (ctx.max(finite ? 0.0 : 1.0) > 0.0 && res.ok()) res.status = "nonfinite";

  res.phases["integrate"] = res.wall - t_observables - t_frames - t_log;
  if (log_every) res.phases["log"] = t_log;
  if (sampling.observables) res.phases["observables"] = t_observables;
  if (sampling.states) res.phases["io"] = t_frames;
  for (const auto& [k, v] : ctx.timers().all()) {
    auto it = timers_before.find(k);
    const double d = v - (it == timers_before.end() ? 0.0 : it->second);
    if (d > 0.0) res.phases["model." + k] = d;
  }
  return res;
}

}  // namespace lie::studies
