// study = timing: the cost of every run of a grid (methods x steps, dt or tol x grid axes). Each
// run's integration is repeated from the same initial state until the repetitions took
// timing.min_seconds of wall time in total (Google Benchmark's minimum time) and at least
// timing.min_repeats of them ran; the wall time of a repetition is that of the slowest rank.
// Interleaved (timing.interleave, the default): the first min_repeats - 1 repetitions of every run
// are made in separate passes over the whole grid before the recorded pass (KindRuns::rehearse),
// so that a slow period of the machine (measured on a 2-core VM: about a second, 40 % slower)
// falls on one repetition of a run, not on all of them.
// Per run: the repetitions, the minimum wall time (the estimate least disturbed by other
// processes, as Python's timeit advises), median and maximum, the minimum per step and per
// vector-field evaluation, and the timer's own cost per call, measured once per job. Runs are
// checkpointed at their ends: finished runs are kept, a run stopped inside is repeated from its
// start. Where the grid point has an exact solution or a reference (reference.method, certified
// with reference.check_method: studies/reference.hpp), the run's global error at T is measured
// too (columns error, reference_error, ...): a fixed-step work-precision study with trustworthy
// cost (issue 25), the benchmark's work-precision decks. `liebench report FILE` prints the table
// `timing`.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "methods/stepper.hpp"
#include "studies/checkpoint.hpp"
#include "studies/output.hpp"
#include "studies/reference.hpp"
#include "studies/study.hpp"

namespace lie::studies {

namespace {

const bool kKeys = declare_options({
    {"timing.min_seconds", OptionType::NonNegativeReal, "0.2",
     "repeat each run until its repetitions took at least this many seconds of wall time in total", {}, "timing"},
    {"timing.min_repeats", OptionType::PositiveInt, "3", "and at least this many repetitions of each run", {},
     "timing"},
    {"timing.interleave", OptionType::Bool, "true",
     "make the first timing.min_repeats - 1 repetitions of every run in separate passes over the grid (a slow "
     "period of the machine then falls on one repetition of a run, not on all)", {}, "timing"},
});

/// The kind's options at a grid point.
struct TimingKind {
  double min_seconds = 0.2;
  std::size_t min_repeats = 3;
  bool interleave = true;
  bool error = false;       // measure the error at T (an exact solution or reference.method)
  ReferencePlan reference;  // against this
};

// <edge>
EntryOptions parse(const Config& cfg, const StudyPlan& plan, std::size_t point, const PointModel& model,
                   par::Context&) {
  TimingKind k;
  k.min_seconds = cfg.get_nonnegative("timing.min_seconds");
  k.min_repeats = static_cast<std::size_t>(cfg.get_int("timing.min_repeats"));
  k.interleave = cfg.get_bool("timing.interleave");
  k.error = plan.point(point).has_exact || (cfg.was_set("reference.method") && !cfg.get_string("reference.method").empty());
  if (k.error) k.reference = parse_reference(cfg, plan, point, model);
  return k;
}
// </edge>

using clock = std::chrono::steady_clock;

/// Seconds per call of the timer every wall time here is read with (steady_clock::now()): the
/// least mean over 5 batches of 10^4 calls, the slowest rank's.
double timer_overhead(const par::Context& ctx) {
  double best = INFINITY;
  for (int b = 0; b < 5; ++b) {
    const auto t0 = clock::now();
    auto t = t0;
    for (int i = 0; i < 10000; ++i) t = clock::now();
    best = std::min(best, std::chrono::duration<double>(t - t0).count() / 10000.0);
  }
  return ctx.max(best);
}

class Runs final : public KindRuns {
 public:
  explicit Runs(StudyJob& job) : overhead_(timer_overhead(job.ctx)), plan_(job.plan), refs_(job.plan, job.ctx, job.out, &job.ckpt) {
    // interleaved: min_repeats - 1 rehearsal passes (the least over the grid points that ask for it)
    std::size_t passes = 0;
    bool first = true;
    for (std::size_t i : job.plan.selected) {
      const TimingKind& k = job.plan.kind_options<TimingKind>(job.plan.runs[i].point);
      const std::size_t p = k.interleave ? k.min_repeats - 1 : 0;
      passes = first ? p : std::min(passes, p);
      first = false;
    }
    rehearsals_ = passes;
  }
  void prepare(std::size_t point) override {
    const TimingKind& k = plan_.kind_options<TimingKind>(point);
    ref_ = k.error ? &refs_.get(point, k.reference) : nullptr;
  }
  RunRecord run(RunContext& run) override;
  std::size_t rehearsals() const override { return rehearsals_; }
  void rehearse(RunContext& run) override;

 private:
  RunResult repeat(RunContext& run) const;
  double overhead_;
  std::size_t rehearsals_ = 0;                         // passes before the recorded one
  std::map<std::string, std::vector<double>> early_;  // run id -> wall times of its rehearsals
  const StudyPlan& plan_;
  ReferenceSolutions refs_;
  const Reference* ref_ = nullptr;  // the point's reference (nullptr: no error measured)
};

/// The repetitions of one run; the result of the fastest (or of the first failed one) with the
/// statistics as its metrics. Every rank takes the same decisions (reduced wall times).
RunResult Runs::repeat(RunContext& run) const {
  const TimingKind& opt = run.plan.kind_options<TimingKind>(run.spec.point);
  const double min_seconds = opt.min_seconds;
  const std::size_t min_repeats = opt.min_repeats;
  std::vector<double> walls;
  if (auto it = early_.find(run.spec.id); it != early_.end()) walls = it->second;  // interleaved repetitions
  const std::size_t interleaved = walls.size();
  double total = 0.0;
  for (double w : walls) total += w;
  clock::time_point started;
  RunHooks hooks;
  hooks.checkpoint = [&](double f) {  // stop checks; progress: the lesser share of the two targets
    const double now = total + std::chrono::duration<double>(clock::now() - started).count();
    const double by_time = min_seconds > 0.0 ? now / min_seconds : 1.0;
    const double by_count = (static_cast<double>(walls.size()) + f) / static_cast<double>(min_repeats);
    run.out.checkpoint(std::min(1.0, std::min(by_time, by_count)));
  };
  RunResult best;
  double best_wall = INFINITY;
  for (;;) {
    run.ctx.barrier();
    started = clock::now();
    RunResult res = execute_run(run.model, run.stepper, run.ctx, run.spec.integration, run.spec.sampling, hooks);
    const double wall = run.ctx.max(res.wall);
    walls.push_back(wall);
    total += wall;
    // the result kept (its timings written): this pass's fastest repetition (the numbers are the
    // same bits in every repetition; wall_min is the least over every pass)
    if (wall < best_wall || !res.ok()) {  // (the first repetition: best_wall is infinite)
      best_wall = wall;
      best = std::move(res);
    }
    if (!best.ok() || (total >= min_seconds && walls.size() >= min_repeats)) break;
  }
  std::sort(walls.begin(), walls.end());
  const std::size_t n = walls.size();
  best.metrics["repeats"] = static_cast<double>(n);
  best.metrics["repeats_interleaved"] = static_cast<double>(interleaved);
  best.metrics["wall_min"] = walls.front();
  best.metrics["wall_median"] = n % 2 ? walls[n / 2] : 0.5 * (walls[n / 2 - 1] + walls[n / 2]);
  best.metrics["wall_max"] = walls.back();
  best.metrics["wall_total"] = total;
  best.metrics["timer_overhead"] = overhead_;
  return best;
}

/// One repetition of the run in a rehearsal pass: timed like the recorded ones (barrier, the
/// slowest rank's wall time), kept only when it finished ok; stop checks between steps.
void Runs::rehearse(RunContext& run) {
  RunHooks hooks;
  hooks.checkpoint = [&](double) { run.out.checkpoint(0.0); };
  run.ctx.barrier();
  const RunResult res = execute_run(run.model, run.stepper, run.ctx, run.spec.integration, run.spec.sampling, hooks);
  const double wall = run.ctx.max(res.wall);
  if (run.ctx.max(res.ok() ? 0.0 : 1.0) == 0.0) early_[run.spec.id].push_back(wall);
}

RunRecord Runs::run(RunContext& run) {
  const RunResult res = run.ckpt.execute_whole(run.spec.id, run.spec.point, [&] { return repeat(run); },
                                               [&](double f) { run.out.progress().update(f); });
  run.write(res);  // timings: those of the fastest repetition
  Row row = run.base_row(&res);
  const auto& m = res.metrics;
  row.set("repeats", static_cast<std::int64_t>(m.at("repeats")));
  row.set("repeats_interleaved", static_cast<std::int64_t>(m.at("repeats_interleaved")));
  for (const char* k : {"wall_min", "wall_median", "wall_max", "wall_total", "timer_overhead"}) row.set(k, m.at(k));
  row.set("wall_per_step_min", m.at("wall_min") / static_cast<double>(res.counters.steps));
  row.set("wall_per_rhs_min", m.at("wall_min") / static_cast<double>(res.counters.rhs));
  if (ref_) add_error_metrics(row, run.model, res, *ref_, run.ctx);  // the fastest repetition's (all are equal)
  return {std::move(row)};
}

// ------------------------------------------------------------------ report table
std::vector<io::Table> timing_tables(const StudyFile& f, io::TableFormat format) {
  const Summary& s = f.summary;
  if (!s.has("repeats") || !s.has("wall_min")) throw UsageError("the file has no timed runs (table timing)");
  auto text = [&](const std::string& c, std::size_t i) { return s.has(c) ? s.get(c).text(i) : std::string(); };
  auto real = [&](const std::string& c, std::size_t i) { return s.has(c) ? s.get(c).real(i) : NAN; };
  const int digits = format == io::TableFormat::Csv ? 6 : 3;
  std::vector<std::string> groups;
  for (const auto& k : f.key_columns)
    if (k != "method" && k != "steps" && k != "h" && k != "tol" && k != "layout" && s.has(k)) groups.push_back(k);
  const std::string step = s.has("steps") ? "steps" : s.has("tol") ? "tol" : "";
  io::Table t;
  t.title = "Wall time of the integration over [" + io::fmt_general(f.t0) + ", " + io::fmt_general(f.t_final) +
            "], repeated from the same initial state (slowest rank per repetition): minimum, median, maximum";
  for (const auto& g : groups) {
    t.header.push_back(g);
    t.numeric.push_back(false);
  }
  t.header.push_back("method");
  t.numeric.push_back(false);
  if (!step.empty()) {
    t.header.push_back(step);
    t.numeric.push_back(true);
  }
  t.key_columns = t.header.size();
  const bool csv = format == io::TableFormat::Csv;  // CSV has no notes: the timer's overhead is a column
  std::vector<std::string> cells = {"wall_min", "wall_median", "wall_max", "wall_total", "wall_per_step_min",
                                    "wall_per_rhs_min"};
  if (csv) cells.push_back("timer_overhead");
  const bool error = s.has("error");  // a work-precision study: the error at T beside the cost
  if (error) cells.push_back("error");
  for (const char* c : {"repeats", "min [s]", "median [s]", "max [s]", "total [s]", "min per step [s]",
                        "min per rhs [s]", "timer overhead [s]", "rhs evaluations", "error at T"}) {
    if (!csv && std::string(c) == "timer overhead [s]") continue;
    if (!error && (std::string(c) == "rhs evaluations" || std::string(c) == "error at T")) continue;
    t.header.push_back(c);
    t.numeric.push_back(true);
  }
  double lo = INFINITY, hi = 0.0;
  for (std::size_t i = 0; i < s.rows(); ++i) {
    const bool failed = run_failed(text("status", i));
    std::vector<std::string> row;
    for (const auto& g : groups) row.push_back(text(g, i));
    row.push_back(text("method", i));
    if (step == "steps") row.push_back(text("steps", i));
    if (step == "tol") row.push_back(io::fmt_sci(real("tol", i), 1));
    row.push_back(text("repeats", i));
    for (const auto& c : cells) {
      if (c == "error") row.push_back(text("rhs_evaluations", i));  // the cost axis beside the error
      row.push_back(failed ? "failed" : io::fmt_sci(real(c, i), digits));
    }
    t.rows.push_back(std::move(row));
    lo = std::min(lo, real("timer_overhead", i));
    hi = std::max(hi, real("timer_overhead", i));
    if (failed) t.notes.push_back("run " + text("run_id", i) + " (" + text("method", i) + "): " + text("status", i));
  }
  auto key = [&](const std::string& k) {
    auto it = f.parameters.find(k);
    return it == f.parameters.end() ? std::string("?") : it->second;
  };
  t.notes.push_back("repetitions until timing.min_seconds = " + key("timing.min_seconds") +
                    " s in total and at least timing.min_repeats = " + key("timing.min_repeats") +
                    "; timer overhead per call " +
                    (io::fmt_sci(lo, 2) == io::fmt_sci(hi, 2) ? io::fmt_sci(lo, 2)
                                                              : io::fmt_sci(lo, 2) + " to " + io::fmt_sci(hi, 2)) +
                    " s; wall times vary between runs and machines");
  return {t};
}

StudyEntry entry() {
  StudyEntry e;
  e.name = "timing";
  e.summary = "wall time of every run of a grid, repeated to a minimum time and count: minimum, median, maximum, per "
              "step and per rhs evaluation";
  e.shape.step_kinds = {StepKind::Steps, StepKind::Dt, StepKind::Tol};
  e.shape.timed = true;
  e.parse = parse;
  e.tables = {"timing"};
  e.start = [](StudyJob& job) -> std::unique_ptr<KindRuns> { return std::make_unique<Runs>(job); };
  const std::string slowest = " of the repetitions' wall times (the slowest rank's in each)";
  e.columns = {
      {"repeats", {"", "repetitions of the run (until timing.min_seconds in total and timing.min_repeats)"}},
      {"repeats_interleaved", {"", "of them, made in earlier passes over the grid (timing.interleave)"}},
      {"wall_min", {"s", "minimum" + slowest, true}},
      {"wall_median", {"s", "median" + slowest, true}},
      {"wall_max", {"s", "maximum" + slowest, true}},
      {"wall_total", {"s", "sum" + slowest, true}},
      {"wall_per_step_min", {"s", "wall_min / steps (accepted steps of an adaptive run)", true}},
      {"wall_per_rhs_min", {"s", "wall_min / vector-field evaluations of one repetition", true}},
      {"timer_overhead", {"s", "seconds per call of the timer (steady_clock::now), measured once per job", true}},
  };
  return e;
}

}  // namespace

LIEBENCH_REGISTER(StudyEntry, entry())
LIEBENCH_REGISTER(ReportTable, {"timing", timing_tables})

}  // namespace lie::studies
