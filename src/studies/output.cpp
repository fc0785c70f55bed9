#include "studies/output.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <set>

#include "methods/stepper.hpp"
#include "studies/analysis.hpp"
#include "studies/checkpoint.hpp"
#include "studies/interrupt.hpp"
#include "studies/run_log.hpp"

namespace lie::studies {

namespace {

const bool kFailureKeys = declare_options({
    {"failures", OptionType::Choice, "error",
     "a run that fails (step size underflow, no convergence, non-finite state): `error` = the study still writes "
     "its file (failed rows marked `failed`) but exits with status 3; `expected` = failures are data (e.g. step "
     "sizes beyond a stability limit): reported on stderr, exit status 0",
     {"error", "expected"}, "run"},
    {"author", OptionType::String, "",
     "the H5MD author of the result file (/h5md/author name); default: $LIEBENCH_AUTHOR, else $USER, else 'unknown'",
     {}, "run"},
    {"author_email", OptionType::String, "",
     "the author's email (/h5md/author email); default: $LIEBENCH_AUTHOR_EMAIL, else none", {}, "run"},
});

/// A key's value, else environment variable, else fallback (decided on rank 0: the environment
/// may differ).
std::string key_env_or(std::string v, const char* env, const std::string& fallback, const par::Context& ctx) {
  if (v.empty()) {
    const char* e = std::getenv(env);
    v = e && *e ? e : fallback;
  }
  return par::broadcast_string(v, 0, ctx.comm());
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool parses_as_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}

/// Union of names over all ranks (sorted), so that collective dataset creation matches.
std::vector<std::string> union_names(const par::Context& ctx, const std::vector<std::string>& mine) {
  std::string packed;
  for (const auto& n : mine) packed += n + '\n';
  int len = static_cast<int>(packed.size());
  std::vector<int> lens(static_cast<std::size_t>(ctx.size()));
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, ctx.comm());
  std::vector<int> displs(lens.size(), 0);
  int total = 0;
  for (std::size_t i = 0; i < lens.size(); ++i) {
    displs[i] = total;
    total += lens[i];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Allgatherv(packed.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, ctx.comm());
  std::set<std::string> names;
  std::string cur;
  for (char c : all) {
    if (c == '\n') {
      if (!cur.empty()) names.insert(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return {names.begin(), names.end()};
}

void write_cell_attr(hid_t g, const std::string& name, const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) h5::attr(g, name, *i);
  else if (const auto* d = std::get_if<double>(&v)) h5::attr(g, name, *d);
  else h5::attr(g, name, std::get<std::string>(v));
}

void write_series_element(const h5::File& f, hid_t parent, const std::string& name, const std::vector<std::int64_t>& step,
                          const std::vector<double>& time, const std::vector<double>& value, const std::string& unit,
                          const std::string& description, const io::Units& units) {
  h5::Handle g = h5::create_group(parent, name);
  {
    h5::Handle st = h5::write_vector(f, g, "step", step);
    h5::attr(st, "description", "step number (accepted steps for adaptive runs)");
  }
  {
    h5::Handle t = h5::write_vector(f, g, "time", time);
    io::write_unit(t, units.time());
  }
  h5::Handle v = h5::write_vector(f, g, "value", value);
  io::write_unit(v, unit);
  if (!description.empty()) h5::attr(v, "description", description);
}

std::string observable_description(const std::string& name) {
  switch (observable_role(name)) {
    case ObservableRole::ManifoldError: return "manifold error " + name + " (Model::observables)";
    case ObservableRole::Energy: return "total energy (conserved); report uses (H - H0)/|H0|";
    case ObservableRole::Conserved: return "conserved quantity; report uses x - x0";
    case ObservableRole::Other: return "observable " + name + " (Model::observables)";
  }
  return "";
}

// Before anything is created: the result file (io::SafeOutput::check) and the run log next to
// it (RunLog, cli) are both replaced by rename, so neither may be a device, FIFO, ... (issue 29).
const std::string& checked_output(const RunRequest& req, par::Context& ctx) {
  io::SafeOutput::check(req.output, req.force, ctx.comm());
  if (const RunLog* log = RunLog::active())
    io::check_replaceable(log->path(), "run log", "remove it or choose another --output", ctx.comm());
  return req.output;
}

}  // namespace

double run_work(const RunSpec& run) {
  if (run.step.kind == StepKind::Steps || run.step.kind == StepKind::Dt) return static_cast<double>(run.step.steps);
  if (run.step.kind == StepKind::Tol) return 1000.0;
  return 1.0;
}

void write_header(const h5::File& f, const StudyPlan& plan, const std::string& author, const std::string& email) {
  const StudySettings& set = plan.settings;
  const hid_t root = f.id();
  h5::attr(root, "liebench_format", kFormat);
  h5::attr(root, "study", plan.kind);
  h5::attr(root, "title", set.title);
  h5::attr(root, "run_count", static_cast<std::int64_t>(plan.runs.size()));
  h5::attr(root, "layout_documentation", "results/README.md of the liebench sources");
  {
    h5::Handle g = h5::create_group(root, "h5md");
    h5::attr(g, "version", std::vector<std::int64_t>{1, 1});
    h5::Handle a = h5::create_group(g, "author");
    h5::attr(a, "name", author.empty() ? std::string("unknown") : author);
    if (!email.empty()) h5::attr(a, "email", email);
    h5::Handle c = h5::create_group(g, "creator");
    h5::attr(c, "name", "liebench");
    h5::attr(c, "version", io::code_version());
    io::write_units_module(g, set.units);
  }
  {
    h5::Handle g = h5::create_group(root, "parameters");
    h5::attr(g, "description",
             "the fully resolved configuration: one attribute per key (file values, command-line overrides and "
             "defaults), the experiment file text and the resolved key = value list");
    h5::attr(g, "config_text", set.source_text);
    h5::attr(g, "resolved_config", set.resolved_text);
    for (const auto& [k, v] : set.resolved_pairs) h5::attr(g, k, v);
  }
  {
    h5::Handle g = h5::create_group(root, "study");
    h5::attr(g, "kind", plan.kind);
    h5::attr(g, "run_count", static_cast<std::int64_t>(plan.runs.size()));
    h5::attr(g, "point_count", static_cast<std::int64_t>(plan.points()));
    h5::attr(g, "methods", plan.methods);
    h5::attr(g, "step_axis", step_kind_key(plan.step_kind));
    std::vector<std::string> sv;
    for (const auto& v : plan.step_values) sv.push_back(v.text);
    h5::attr(g, "step_values", sv);
    std::vector<std::string> axes;
    for (const auto& a : plan.axes) axes.push_back(a.key);
    h5::attr(g, "grid_axes", axes);
    h5::attr(g, "key_columns", plan.key_columns);
    h5::attr(g, "t0", plan.t0);
    h5::attr(g, "t_final", plan.t_final);
    h5::attr(g, "model", set.model);
    h5::attr(g, "run_order",
             "lexicographic: [layout] x grid axes (in order) x methods x step axis (last fastest); ids run_NNNNN");
    if (plan.layout_axis) {
      std::vector<std::string> l;
      for (const auto& x : plan.layouts) l.push_back(x.text());
      h5::attr(g, "layouts", l);
    }
    h5::Handle ax = h5::create_group(g, "axes");
    for (const auto& a : plan.axes) h5::write_vector(f, ax, a.key, a.values);
  }
}

StudyOutput::StudyOutput(const StudyPlan& plan, par::Context& ctx, const RunRequest& req)
    : plan_(plan), ctx_(ctx), safe_(checked_output(req, ctx), req.force, ctx.comm()) {
  const StudySettings& set = plan.settings;
  start_ = now_seconds();
  units_ = set.units;
  failures_expected_ = set.failures_expected;
  prov_ = io::collect_provenance(ctx_, set.command_line);
  file_ = h5::File::create(safe_.temp_path(), ctx_.comm());
  safe_.arm();  // a stop signal now removes the temporary file at once
  write_header(file_, plan_, key_env_or(set.author, "LIEBENCH_AUTHOR", prov_.user, ctx_),
               key_env_or(set.author_email, "LIEBENCH_AUTHOR_EMAIL", "", ctx_));
  double total = 0.0;
  for (std::size_t i : plan_.selected) total += run_work(plan_.runs[i]);
  progress_ = std::make_unique<Progress>(req.progress && ctx_.is_root(), total, plan_.selected.size(),
                                         set.progress_interval);
  if (req.progress && ctx_.is_root()) {
    std::cerr << "liebench: study " << plan_.kind << ", " << plan_.selected.size() << " of " << plan_.runs.size()
              << " runs";
    if (plan_.part_count > 1) std::cerr << " (part " << plan_.part_index + 1 << "/" << plan_.part_count << ")";
    std::cerr << " on " << ctx_.size() << " rank(s) x " << ctx_.threads() << " thread(s) -> " << req.output << "\n";
  }
  if (RunLog* log = RunLog::active()) {
    const bool restarting = !req.restart.empty() || ::access(checkpoint_path(req.output).c_str(), F_OK) == 0;
    log->start(set, plan_.kind, plan_.selected.size(), ctx_.size(), ctx_.threads(), restarting);
  }
}

StudyOutput::~StudyOutput() {
  // On an exception (thrown on every rank at the same point, see h5::File::agree): close the
  // file, then safe_ removes the temporary file. The file is detached first (its descriptors
  // point to memory), so that closing cannot fail on a full disk.
  if (!safe_.committed()) safe_.detach();
  file_.close_quietly();
}

h5::Handle StudyOutput::begin_run(const RunSpec& run, const PointPlan& point) {
  progress_->begin_run(static_cast<std::size_t>(std::find(plan_.selected.begin(), plan_.selected.end(), run.index) -
                                                plan_.selected.begin()),
                       run.label(), run_work(run));
  if (RunLog* log = RunLog::active()) log->begin_run(run.id, run.label());
  h5::Handle g = h5::create_group(file_.id(), "runs/" + run.id);
  h5::attr(g, "run_id", run.id);
  h5::attr(g, "run_index", static_cast<std::int64_t>(run.index));
  h5::attr(g, "grid_point", static_cast<std::int64_t>(run.point));
  h5::attr(g, "method", run.method);
  h5::attr(g, "params", run.params_text());
  for (const auto& [k, v] : run.params) h5::attr(g, k, v);
  if (run.layout) h5::attr(g, "layout", run.layout->text());
  // The configuration of this run alone (liebench run on it repeats exactly this run).
  std::vector<std::pair<std::string, std::string>> single = {{"methods", run.method}, {"grid", ""}};
  if (run.step.kind != StepKind::None) single.emplace_back(step_kind_key(run.step.kind), run.step.text);
  if (run.layout) single.emplace_back("scaling.layouts", run.layout->text());
  h5::attr(g, "config", point.config_text(single));
  return g;
}

void StudyOutput::write_result(hid_t g, const RunResult& res) {
  if (!res.series.step.empty()) {
    h5::Handle og = h5::create_group(g, "observables");
    h5::attr(og, "description", "observables sampled during the run (H5MD time-series elements)");
    for (std::size_t i = 0; i < res.series.names.size(); ++i) {
      const std::string& name = res.series.names[i];
      write_series_element(file_, og, name, res.series.step, res.series.time, res.series.values[i],
                           units_.observable(name), observable_description(name), units_);
    }
  }
  if (res.adaptive) {
    const AdaptiveRecord& a = *res.adaptive;
    std::vector<std::int64_t> steps(a.t.size());
    for (std::size_t i = 0; i < steps.size(); ++i) steps[i] = static_cast<std::int64_t>(i + 1);
    write_series_element(file_, g, "step_size", steps, a.t, a.h, units_.time(),
                         "size of every accepted step; time = end of the step", units_);
    write_series_element(file_, g, "error_estimate", steps, a.t, a.err, "",
                         "scaled local error estimate of every accepted step (accepted when <= 1)", units_);
    h5::Handle d = h5::write_vector(file_, g, "rejected_time", a.rejected_t);
    io::write_unit(d, units_.time());
    h5::attr(d, "description", "times from which a trial step was rejected");
  }
  // per-phase timings, one value per rank
  std::vector<std::string> mine;
  for (const auto& [k, v] : res.phases) mine.push_back(k);
  const auto names = union_names(ctx_, mine);
  h5::Handle tg = h5::create_group(g, "timings");
  h5::attr(tg, "description",
           "wall-clock seconds per phase on every rank (dataset index = rank; attrs min, mean, max over ranks); "
           "integrate = time stepping "
           "without sampling; model.<phase> = timers the model/methods recorded in par::Context");
  for (const auto& name : names) {
    auto it = res.phases.find(name);
    double mine_v = it == res.phases.end() ? 0.0 : it->second;
    std::vector<double> all(static_cast<std::size_t>(ctx_.size()));
    MPI_Allgather(&mine_v, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, ctx_.comm());
    h5::Handle d = h5::write_vector(file_, tg, name, all);
    io::write_unit(d, "s");  // wall-clock seconds, whatever the model's unit system
    double mn = all.empty() ? 0.0 : all[0], mx = mn, sum = 0.0;
    for (double v : all) {
      mn = std::min(mn, v);
      mx = std::max(mx, v);
      sum += v;
    }
    h5::attr(d, "min", mn);
    h5::attr(d, "mean", all.empty() ? 0.0 : sum / static_cast<double>(all.size()));
    h5::attr(d, "max", mx);
    if (RunLog* log = RunLog::active()) log->timings(name, all);
  }
}

void StudyOutput::write_state(hid_t group, const std::string& name, const Model& model, const double* y, double t) {
  const io::StateRows layout = io::state_rows(model, ctx_);
  const auto t1 = std::chrono::steady_clock::now();
  io::write_state(file_, group, name, model, layout, y);
  (void)t1;
  h5::Handle d = h5::open_dataset(group, name);
  h5::attr(d, "time", t);
  h5::attr(d, "model", model.name());
  std::string cols;
  for (const Block& b : model.space().blocks())
    cols += (cols.empty() ? "" : ", ") + (b.label.empty() ? std::string("block") : b.label) + "(" +
            factor_info(b.kind).name + ", " + std::to_string(b.state_dim) + ")";
  h5::attr(d, "description", "rows: the model's " + std::to_string(layout.global_rows) +
                                 " components; columns: the state values of one component, block by block: " + cols);
}

void StudyOutput::end_run(hid_t g, const RunSpec& run, Row row) {
  row.run_index = static_cast<std::int64_t>(run.index);
  for (const auto& [k, v] : row.cells) write_cell_attr(g, k, v);
  if (const Value* st = row.find("status")) {
    const auto* text = std::get_if<std::string>(st);
    if (text && run_failed(*text)) {
      failures_.push_back(run.id + " (" + run.label() + "): " + *text +
                          (*text == "nonfinite" ? " (the state at the end is not finite: the solution blew up)" : ""));
      if (ctx_.is_root()) std::cerr << "liebench: run " << failures_.back() << "\n";
    }
  }
  if (RunLog* log = RunLog::active()) log->end_run(row);
  rows_.push_back(std::move(row));
  progress_->end_run();
  checkpoint(0.0);
}

void StudyOutput::link_entry_points(const RunSpec& run, bool particles, bool observables) {
  const hid_t root = file_.id();
  for (const auto& [wanted, name] : {std::pair<bool, const char*>{particles, "particles"}, {observables, "observables"}}) {
    const std::string target = "runs/" + run.id + "/" + name;
    if (wanted && !h5::exists(root, name) && h5::exists(root, target)) h5::hard_link(root, target, name);
  }
}

void StudyOutput::stop_check() {
  if (stop_) stop_();
  else poll_interrupt(ctx_);
}

void StudyOutput::checkpoint(double fraction) {
  stop_check();
  progress_->update(fraction);
}

RunHooks StudyOutput::hooks() {
  RunHooks h;
  h.checkpoint = [this](double f) { checkpoint(f); };
  return h;
}

void StudyOutput::finish(const std::function<void(const h5::File&, const Summary&)>& analysis) {
  stop_check();
  const Summary summary(rows_, plan_.key_columns);
  summary.write(file_, file_.id(), units_);
  if (analysis) analysis(file_, summary);
  io::finish_provenance(prov_, ctx_, now_seconds() - start_);
  if (RunLog* log = RunLog::active()) log->memory(prov_.max_rss_kib);
  {
    h5::Handle g = h5::create_group(file_.id(), "provenance/job_0");
    io::write_provenance(file_, g, prov_);
    h5::attr(g, "part", std::to_string(plan_.part_index + 1) + "/" + std::to_string(plan_.part_count));
    h5::attr(g, "layout", std::to_string(ctx_.size()) + "x" + std::to_string(ctx_.threads()));
    std::vector<std::int64_t> idx;
    for (std::size_t i : plan_.selected) idx.push_back(static_cast<std::int64_t>(i));
    h5::Handle d = h5::write_vector(file_, g, "run_indices", idx);
    h5::attr(d, "description", "indices of the runs this job computed");
  }
  h5::attr(file_.id(), "runs_in_file", static_cast<std::int64_t>(rows_.size()));
  stop_check();
  // From here on the study completes (a later signal no longer removes the temporary file); a
  // signal since the check has removed it: stop as the check does.
  if (const int sig = safe_.disarm()) {
    stop_check();
    throw Interrupted(sig);
  }
  file_.close();
  safe_.commit();
  if (ctx_.is_root())
    progress_->finish("wrote " + safe_.final_path() + " (" + std::to_string(rows_.size()) + " runs)");
  if (failures_.empty()) return;
  std::string ids;
  for (std::size_t i = 0; i < failures_.size() && i < 5; ++i)
    ids += (i ? ", " : "") + failures_[i].substr(0, failures_[i].find(' '));
  if (failures_.size() > 5) ids += ", ...";
  const std::string what = std::to_string(failures_.size()) + " of " + std::to_string(rows_.size()) + " runs failed (" +
                           ids + "; reasons above); their rows in " + safe_.final_path() + " are marked failed";
  if (!failures_expected_) throw RunsFailed(what);
  if (ctx_.is_root()) std::cerr << "liebench: " << what << " (failures = expected: exit status 0)\n";
}

Row base_row(const StudyPlan& plan, const RunSpec& run, const RunResult* res, const MethodInfo& info) {
  Row row;
  row.run_index = static_cast<std::int64_t>(run.index);
  row.set("run_id", run.id);
  for (std::size_t a = 0; a < plan.axes.size(); ++a) {
    bool numeric = true;
    for (const auto& v : plan.axes[a].values) numeric = numeric && parses_as_number(v);
    for (const auto& [k, v] : run.params)
      if (k == plan.axes[a].key) row.set(k, numeric ? Value(std::strtod(v.c_str(), nullptr)) : Value(v));
  }
  if (run.layout) {
    row.set("layout", run.layout->text());
    row.set("ranks", static_cast<std::int64_t>(run.layout->ranks));
    row.set("threads", static_cast<std::int64_t>(run.layout->threads));
    row.set("cores", static_cast<std::int64_t>(run.layout->ranks * run.layout->threads));
  }
  row.set("method", run.method);
  row.set("method_order", static_cast<std::int64_t>(info.order));
  row.set("method_embedded_order", static_cast<std::int64_t>(info.embedded_order));
  if (run.step.kind == StepKind::Steps || run.step.kind == StepKind::Dt) {
    row.set("steps", run.step.steps);
    row.set("h", run.step.h);
  } else if (run.step.kind == StepKind::Tol) {
    row.set("tol", run.step.tol);
  }
  row.set("t_final", plan.t_final);
  if (res) {
    row.set("status", res->status);
    row.set("rhs_evaluations", static_cast<std::int64_t>(res->counters.rhs));
    row.set("exponentials", static_cast<std::int64_t>(res->counters.exp));
    if (res->adaptive) {
      row.set("accepted", static_cast<std::int64_t>(res->adaptive->accepted));
      row.set("rejected", static_cast<std::int64_t>(res->adaptive->rejected));
    }
    if (!res->series.step.empty()) row.set("samples", static_cast<std::int64_t>(res->series.step.size()));
  }
  return row;
}

void add_step_size_metrics(Row& row, const RunResult& res) {
  if (!res.adaptive || res.adaptive->h.empty()) return;
  const auto& h = res.adaptive->h;
  row.set("h_min", *std::min_element(h.begin(), h.end()));
  row.set("h_max", *std::max_element(h.begin(), h.end()));
}

void add_invariant_metrics(Row& row, const TimeSeries& series, const std::vector<std::string>& only) {
  for (std::size_t i = 0; i < series.names.size(); ++i) {
    const std::string& name = series.names[i];
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
    const std::string prefix = error_metric_prefix(name);
    if (prefix.empty()) continue;
    const auto errs = observable_errors(name, series.values[i]);
    const SeriesStats s = series_stats(series.time, errs);
    row.set(prefix + ".max", s.max_abs);
    row.set(prefix + ".mean", s.mean_abs);
    row.set(prefix + ".drift", s.drift);
    row.set(prefix + ".final", s.final_value);
    // a relative energy error of 0.1 or more: the energy is lost, no growth law (studies/analysis.hpp)
    const GrowthFit g = growth_law(series.time, errs,
                                   observable_role(name) == ObservableRole::Energy ? 0.1 : std::numeric_limits<double>::infinity());
    row.set(prefix + ".growth", g.exponent);
    row.set(prefix + ".law", g.law);
  }
}

}  // namespace lie::studies
