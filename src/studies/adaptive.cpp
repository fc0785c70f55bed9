// study = adaptive: tolerance sweeps for embedded pairs ([P] 4, controller eq. (33)):
// accepted/rejected steps, the step-size history, the error at T against the exact or a
// reference solution, and -- with adaptive.compare_method -- a constant-step run of the same
// cost (the paper's RKMK(5,4) vs RKMK5 with the same number of steps, [P] Figs 8-11), over
// any grid (N, L_i, ...).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include "io/table.hpp"
#include "methods/stepper.hpp"
#include "studies/analysis.hpp"
#include "studies/output.hpp"
#include "studies/reference.hpp"
#include "studies/study.hpp"

namespace lie::studies {

namespace {

const bool kKeys = declare_options({
    {"adaptive.compare_method", OptionType::String, "",
     "constant-step method run with the same cost as every adaptive run (e.g. rkmk5 for rkmk54, [P] Figs 8-11)", {},
     "adaptive"},
    {"adaptive.compare_cost", OptionType::Choice, "steps",
     "same cost means: 'steps' = the adaptive run's accepted steps ([P] 5.3), 'rhs' = its vector-field evaluations",
     {"steps", "rhs"}, "adaptive"},
});

/// The kind's options at a grid point.
struct AdaptiveKind {
  ReferencePlan reference;
  std::optional<MethodChoice> compare;  // adaptive.compare_method
  bool by_rhs = false;                  // adaptive.compare_cost = rhs
};

// <edge>
EntryOptions parse(const Config& cfg, const StudyPlan& plan, std::size_t point, const PointModel& model,
                   par::Context&) {
  AdaptiveKind k;
  k.reference = parse_reference(cfg, plan, point, model);
  if (cfg.was_set("adaptive.compare_method") && !cfg.get_string("adaptive.compare_method").empty()) {
    const std::string m = cfg.get_string("adaptive.compare_method");
    method_entry(m, "method (key 'adaptive.compare_method')");
    k.compare = parse_method(method_display_name(m, cfg), cfg);
    make_stepper(*k.compare, model());
  }
  k.by_rhs = cfg.get_choice("adaptive.compare_cost", {"steps", "rhs"}) == "rhs";
  return k;
}
// </edge>

class Runs final : public KindRuns {
 public:
  explicit Runs(StudyJob& job) : plan_(job.plan), refs_(job.plan, job.ctx, job.out, &job.ckpt) {}
  void prepare(std::size_t point) override {
    kind_ = &plan_.kind_options<AdaptiveKind>(point);
    ref_ = &refs_.get(point, kind_->reference);
  }
  RunRecord run(RunContext& run) override;

 private:
  const StudyPlan& plan_;
  ReferenceSolutions refs_;
  const AdaptiveKind* kind_ = nullptr;
  const Reference* ref_ = nullptr;
};

// save_state: the trajectory at the accepted steps (state_every k: every k-th) or the sample_dt
// times, for the solution and step-size figures of [P] Figs 9 and 11
RunRecord Runs::run(RunContext& run) {
  const StudyPlan& plan = run.plan;
  const Reference& ref = *ref_;
  const RunResult res = run.integrate();
  run.write(res);
  Row row = run.base_row(&res);
  add_error_metrics(row, run.model, res, ref, run.ctx);
  add_step_size_metrics(row, res);
  if (res.ok() && res.adaptive && !res.adaptive->h.empty())
    row.set("h_mean", (plan.t_final - plan.t0) / static_cast<double>(res.adaptive->accepted));
  add_invariant_metrics(row, res.series);
  const bool states = run.spec.sampling.states;
  if (kind_->compare && res.ok()) {
    const std::string& compare = kind_->compare->spec;
    auto cstep = make_stepper(*kind_->compare, run.model);
    cstep->bind(run.model, run.ctx);
    const int stages = std::max(1, cstep->info().stages);
    const auto& a = *res.adaptive;
    const std::int64_t n =
        kind_->by_rhs ? std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(static_cast<double>(res.counters.rhs) /
                                                                                 stages)))
                : std::max<std::int64_t>(1, static_cast<std::int64_t>(a.accepted));
    // <run>/compare: the comparison run's timings (work-precision diagrams) and, with save_state,
    // its trajectory at every step
    h5::Handle cg = h5::create_group(run.group, "compare");
    h5::attr(cg, "description", "the constant-step comparison run of equal cost (adaptive.compare_method)");
    Sampling csampling;
    csampling.states = states;
    csampling.state_every = 1;
    csampling.log = false;  // auxiliary run: no periodic log lines
    const RunResult c = run.integrate(run.spec.id + "/compare", cg, *cstep, fixed_integration(plan.t0, plan.t_final, n),
                                      csampling);
    run.out.write_result(cg, c);
    row.set("compare_method", compare);
    row.set("compare_steps", n);
    row.set("compare_rhs_evaluations", static_cast<std::int64_t>(c.counters.rhs));
    const double cerr =
        c.ok() && ref.failure.empty() ? solution_distance(run.model, c.y.data(), ref.y.data(), run.ctx) : NAN;
    row.set("compare_error", cerr);
    // the comparison's error needs the reference as much as the run's (reference.hpp)
    const std::string problem = c.ok() ? reference_problem(ref, cerr) : "";
    const Value* st = row.find("status");
    if (!problem.empty() && st && std::get<std::string>(*st) == "ok")
      row.set("status", "failed: constant-step comparison run (" + compare + " steps=" + std::to_string(n) + "): " +
                            problem);
    run.out.write_state(run.group, "compare_final_state", run.model, c.y.data(), plan.t_final);
  }
  // a file with a trajectory: H5MD /particles and /observables at the root (first such run)
  return {std::move(row), states, states};
}

/// Table `tolerance`: per grid point and method, DETEST's tolerance proportionality and
/// reliability over its sweep (tolerance_fit, studies/analysis.hpp), from the summary alone.
std::vector<io::Table> tolerance_tables(const StudyFile& f, io::TableFormat format) {
  const Summary& s = f.summary;
  if (!s.has("tol") || !s.has("method")) throw UsageError("the file has no tolerance sweep (table tolerance)");
  auto text = [&](const std::string& c, std::size_t i) { return s.has(c) ? s.get(c).text(i) : std::string(); };
  auto real = [&](const std::string& c, std::size_t i) { return s.has(c) ? s.get(c).real(i) : NAN; };
  std::vector<std::string> groups;
  for (const auto& k : f.key_columns)
    if (k != "method" && k != "tol" && k != "layout" && s.has(k)) groups.push_back(k);
  // series in order of first appearance: grid values and method
  std::vector<std::string> keys;
  std::map<std::string, std::vector<std::size_t>> rows;
  for (std::size_t i = 0; i < s.rows(); ++i) {
    std::string k;
    for (const auto& g : groups) k += text(g, i) + '\x1f';
    k += text("method", i);
    if (!rows.count(k)) keys.push_back(k);
    rows[k].push_back(i);
  }
  const bool csv = format == io::TableFormat::Csv;
  io::Table t;
  t.title = "Tolerance proportionality and reliability (DETEST): log10(error at T) = a + b log10(tol) over each "
            "method's sweep; b near 1 with small scatter is proportional";
  for (const auto& g : groups) {
    t.header.push_back(g);
    t.numeric.push_back(false);
  }
  for (const char* c : {"method", "tolerances", "slope b", "scatter", "a", "max error/tol", "error > tol"}) {
    t.header.push_back(c);
    t.numeric.push_back(std::string(c) != "method");
  }
  t.key_columns = groups.size() + 1;
  std::size_t short_sweeps = 0;
  for (const auto& k : keys) {
    const auto& r = rows[k];
    std::vector<double> tol, err;
    for (std::size_t i : r) {
      if (run_failed(text("status", i))) continue;  // failed and unresolved runs are no result
      tol.push_back(real("tol", i));
      err.push_back(real("error", i));
    }
    const ToleranceFit fit = tolerance_fit(tol, err);
    std::vector<std::string> row;
    for (const auto& g : groups) row.push_back(text(g, r.front()));
    row.push_back(text("method", r.front()));
    row.push_back(std::to_string(fit.runs) + (fit.runs < r.size() ? " of " + std::to_string(r.size()) : ""));
    const bool has = !std::isnan(fit.slope);
    short_sweeps += has ? 0 : 1;
    row.push_back(has ? (csv ? io::fmt_general(fit.slope) : io::fmt_fixed(fit.slope, 2)) : "-");
    row.push_back(has ? (csv ? io::fmt_general(fit.scatter) : io::fmt_fixed(fit.scatter, 2)) : "-");
    row.push_back(has ? (csv ? io::fmt_general(fit.intercept) : io::fmt_fixed(fit.intercept, 2)) : "-");
    row.push_back(std::isnan(fit.worst_ratio) ? "-" : io::fmt_sci(fit.worst_ratio, csv ? 6 : 2));
    row.push_back(std::to_string(fit.above));
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back("runs that failed or whose error the reference does not resolve are left out; scatter = "
                    "largest |residual| of the fit in decades");
  if (short_sweeps) t.notes.push_back("- : fewer than 3 tolerances with a result (no fit)");
  return {t};
}

StudyEntry entry() {
  StudyEntry e;
  e.name = "adaptive";
  e.summary = "tolerance sweeps of embedded pairs: steps, step-size history, error at T, constant-step comparison of "
              "equal cost";
  e.shape.step_kinds = {StepKind::Tol};
  e.shape.embedded_only = true;
  e.shape.sampling = SamplingRule::AsGiven;
  e.parse = parse;
  e.tables = {"adaptive", "tolerance"};
  e.start = [](StudyJob& job) -> std::unique_ptr<KindRuns> { return std::make_unique<Runs>(job); };
  e.columns = {
      {"h_mean", {"s", "(t_final - t0) / accepted"}},
      {"compare_method", {"", "constant-step method run with the same cost ([P] Figs 8-11)"}},
      {"compare_steps", {"", "steps of the constant-step comparison run"}},
      {"compare_error", {"", "global error at T of the constant-step comparison run"}},
      {"compare_rhs_evaluations", {"", "vector-field evaluations of the comparison run"}},
  };
  return e;
}

}  // namespace

LIEBENCH_REGISTER(StudyEntry, entry())
LIEBENCH_REGISTER(ReportTable, {"tolerance", tolerance_tables})

}  // namespace lie::studies
