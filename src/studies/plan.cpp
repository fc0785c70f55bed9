#include "studies/plan.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/quote.hpp"
#include "models/state_rows.hpp"
#include "methods/controller.hpp"
#include "methods/stepper.hpp"
#include "models/model.hpp"

namespace lie::studies {

// The plan is the edge of the studies: every function below that sees the configuration reads
// it here, once, into the typed plan (StudySettings, PointPlan, RunSpec); nothing below the plan
// reads a key (tests/cli/no_raw_keys.sh).
// <edge>

namespace {

const bool kKeys = declare_options({
    {"t0", OptionType::Real, "0", "initial time", {}, "study"},
    {"t_final", OptionType::Real, "1", "final time T (> t0)", {}, "study"},
    {"methods", OptionType::StringList, "rkmk4",
     "integration methods, comma separated (a grid axis; `liebench list methods`), or `applicable`: every method "
     "that runs on the model (of the first grid point), then the compositions composition:<set>@<base> of every "
     "shipped set and section [composition.<name>] over every applicable second-order time-symmetric method", {}, "study"},
    {"steps", OptionType::String, "",
     "step counts over [t0, T] (a grid axis, h = (T - t0)/steps): integers, powers 2^k, or doubling ranges "
     "2^4..2^10 (= 16, 32, ..., 1024)", {}, "study"},
    {"dt", OptionType::PositiveRealList, "",
     "step sizes (a grid axis; each must divide t_final - t0); alternative to steps", {}, "study"},
    {"tol", OptionType::PositiveRealList, "",
     "tolerances of adaptive runs (a grid axis; embedded pairs only); see the [adaptive] keys atol, rtol, "
     "error_norm", {}, "study"},
    {"grid", OptionType::String, "",
     "grid over other keys, e.g. \"free_rigid_body.seed=1,2,3; free_rigid_body.attitude=false,true\" (use '|' "
     "between values that contain commas)", {}, "study"},
    {"zip", OptionType::String, "",
     "paired grid axes: \"key1 = a1, a2, a3 ; key2 = b1, b2, b3\" runs the points (a1, b1), (a2, b2), (a3, b3) "
     "instead of the product (every key the same number of values); may pair a step key, e.g. \"nfold_pendulum.N "
     "= 2, 4, 8 ; steps = 100, 200, 400\" gives each N its own step count (then steps/dt/tol is not set "
     "separately); multiplied with `grid`, methods and the step axis", {}, "study"},
    {"sample_every", OptionType::NonNegativeInt, "0",
     "record observables every k steps (0: automatic, about 1000 samples per run)", {}, "study"},
    {"sample_dt", OptionType::NonNegativeReal, "0",
     "record observables every sample_dt time units instead (fixed steps: rounded to whole steps; adaptive runs "
     "land exactly on these times)", {},
     "study"},
    {"save_state", OptionType::Bool, "false",
     "simulate, invariants, adaptive: also write the state (H5MD <run>/particles/<group>/...) every state_every steps "
     "(adaptive: accepted steps, or the sample_dt times; the comparison run: every step)", {}, "study"},
    {"state_every", OptionType::NonNegativeInt, "0", "steps between saved states (0: at every observable sample)", {},
     "study"},
    {"title", OptionType::String, "", "free text describing the experiment (stored in the result file)", {},
     "study"},
    {"progress_interval", OptionType::PositiveReal, "10",
     "seconds between progress lines when stderr is not a terminal", {}, "study"},
});

// Keys that shape the study itself and cannot be grid axes.
const std::set<std::string> kStructural = {"study",       "grid",        "zip",        "methods",    "steps",       "dt",
                                           "tol",         "sample_every", "sample_dt", "save_state",  "state_every",
                                           "scaling.layouts", "reference.method", "reference.steps", "reference.tol",
                                           "progress_interval", "title"};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n\"");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n\"");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::int64_t parse_count(const std::string& key, const std::string& item) {
  const std::string t = trim(item);
  std::int64_t v = 0;
  if (t.rfind("2^", 0) == 0) {
    const long k = parse_int(key, t.substr(2));
    if (k < 0 || k > 62) throw UsageError("key " + quote(key) + " has value " + quote(t) + "; 2^k needs 0 <= k <= 62");
    v = std::int64_t{1} << k;
  } else {
    v = parse_int(key, t);
  }
  if (v < 1) throw UsageError("key " + quote(key) + " has value " + quote(t) + "; every step count must be an integer >= 1");
  return v;
}

std::string fmt(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

/// The observables and states a run samples (PlanShape::sampling), from its grid point's keys.
Sampling run_sampling(const PlanShape& shape, const Config& cfg, const StepValue& step) {
  Sampling s;
  s.log = !shape.timed;
  if (shape.sampling == SamplingRule::None) return s;
  s.observables = true;
  s.states = cfg.get_bool("save_state");
  const long every = cfg.get_int("sample_every"), state_every = cfg.get_int("state_every");
  if (shape.sampling == SamplingRule::AsGiven) {
    s.every = static_cast<std::uint64_t>(every);
    s.state_every = static_cast<std::uint64_t>(std::max(1L, state_every));
    return s;
  }
  // Stride: sample_every if set; else sample_dt / h for fixed steps (adaptive: the driver lands on the
  // sample_dt times, 0), else about 1000 samples per run (adaptive: every accepted step)
  const double dt = cfg.get_nonnegative("sample_dt");
  if (every > 0) s.every = static_cast<std::uint64_t>(every);
  else if (step.kind == StepKind::Tol) s.every = dt > 0.0 ? 0 : 1;
  else if (dt > 0.0) s.every = static_cast<std::uint64_t>(std::max(1.0, std::round(dt / step.h)));
  else s.every = static_cast<std::uint64_t>(std::max<std::int64_t>(1, step.steps / 1000));
  s.state_every = state_every > 0 ? static_cast<std::uint64_t>(state_every) : s.every;
  return s;
}

/// The study-wide keys (StudySettings); their declarations are with the code that uses them
/// (output.cpp, checkpoint.cpp, run_log.cpp, io/units.cpp).
StudySettings read_settings(const Config& cfg) {
  StudySettings s;
  s.model = cfg.get_string("model");
  s.title = cfg.get_string("title", "");
  s.units = io::Units::from_config(cfg);
  s.failures_expected = cfg.get_choice("failures", {"error", "expected"}) == "expected";
  s.author = cfg.get_string("author", "");
  s.author_email = cfg.get_string("author_email", "");
  s.progress_interval = cfg.get_positive("progress_interval");
  s.log_every = static_cast<std::uint64_t>(cfg.get_int("log_every"));
  s.checkpoint_every = cfg.get_int("checkpoint_every");
  s.checkpoint_seconds = cfg.get_nonnegative("checkpoint_seconds");
  s.save_state = cfg.get_bool("save_state", false);
  s.source_text = cfg.source_text();
  s.resolved_text = cfg.resolved_text();
  s.command_line = cfg.command_line();
  s.resolved_pairs = cfg.resolved_pairs();
  return s;
}

}  // namespace

std::string step_kind_key(StepKind k) {
  switch (k) {
    case StepKind::Steps: return "steps";
    case StepKind::Dt: return "dt";
    case StepKind::Tol: return "tol";
    default: return "";
  }
}

std::vector<std::int64_t> parse_step_counts(const std::string& key, const std::string& text) {
  std::vector<std::int64_t> out;
  for (const std::string& item : split_list(text)) {
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
      out.push_back(parse_count(key, item));
      continue;
    }
    const std::int64_t a = parse_count(key, item.substr(0, dots)), b = parse_count(key, item.substr(dots + 2));
    if (a > b) throw UsageError("key " + quote(key) + " has range " + quote(item) + "; the first count must not exceed the last");
    for (std::int64_t v = a; v <= b; v *= 2) {
      out.push_back(v);
      if (v > (std::int64_t{1} << 61)) break;
    }
  }
  if (out.empty()) throw UsageError("key " + quote(key) + " is empty; give step counts, e.g. steps = 2^4..2^10");
  return out;
}

namespace {
bool is_step_key(const std::string& k) { return k == "steps" || k == "dt" || k == "tol"; }

std::vector<GridAxis> parse_axes(const std::string& text, const std::string& what) {
  std::vector<GridAxis> axes;
  const OptionCatalog& cat = OptionCatalog::instance();
  const bool zip = what == "zip";
  for (const std::string& part : split(text, ';')) {
    if (trim(part).empty()) continue;
    const auto eq = part.find('=');
    if (eq == std::string::npos)
      throw UsageError("key " + quote(what) + " has entry " + quote(trim(part)) + "; expected key=v1,v2 (entries separated by ';')");
    GridAxis ax;
    ax.key = trim(part.substr(0, eq));
    const std::string vals = part.substr(eq + 1);
    if (!cat.find(ax.key))
      throw UsageError("key " + quote(what) + " names unknown key " + quote(ax.key) +
                       "; run `liebench run --help` for the list of keys");
    if ((kStructural.count(ax.key) && !(zip && is_step_key(ax.key))) || ax.key.rfind("scaling.", 0) == 0)
      throw UsageError("key " + quote(what) + " names " + quote(ax.key) + ", which shapes the study itself; set it directly " +
                       (zip ? "(of the study keys only steps, dt or tol can be zipped)"
                            : "(methods, steps, dt and tol are grid axes already)"));
    for (const auto& a : axes)
      if (a.key == ax.key) throw UsageError("key " + quote(what) + " names " + quote(ax.key) + " twice");
    const char sep = vals.find('|') != std::string::npos ? '|' : ',';
    for (const std::string& v : split(vals, sep)) {
      const std::string t = trim(v);
      if (t.empty()) throw UsageError("key " + quote(what) + " has an empty value for " + quote(ax.key));
      if (!is_step_key(ax.key)) cat.validate(ax.key, t);
      ax.values.push_back(t);
    }
    axes.push_back(std::move(ax));
  }
  return axes;
}
}  // namespace

std::vector<GridAxis> parse_grid(const std::string& text) { return parse_axes(text, "grid"); }

std::vector<GridAxis> parse_zip(const std::string& text) {
  std::vector<GridAxis> axes = parse_axes(text, "zip");
  if (axes.empty()) throw UsageError("key 'zip' is empty; give key = v1, v2 ; key2 = w1, w2 (or remove it)");
  std::size_t steps_keys = 0;
  for (const auto& a : axes) {
    steps_keys += is_step_key(a.key) ? 1 : 0;
    if (a.values.size() != axes[0].values.size())
      throw UsageError("key 'zip' pairs " + quote(axes[0].key) + " (" + std::to_string(axes[0].values.size()) +
                       " values) with " + quote(a.key) + " (" + std::to_string(a.values.size()) +
                       " values); zipped keys need the same number of values (use `grid` for the full product)");
  }
  if (steps_keys > 1) throw UsageError("key 'zip' names more than one of steps, dt, tol; zip one step axis");
  return axes;
}

std::vector<Layout> parse_layouts(const std::string& key, const std::string& text) {
  std::vector<Layout> out;
  for (const std::string& item : split_list(text)) {
    const auto x = item.find('x');
    if (x == std::string::npos)
      throw UsageError("key " + quote(key) + " has value " + quote(item) + "; layouts are RANKSxTHREADS, e.g. 2x1");
    Layout l;
    l.ranks = static_cast<int>(parse_int(key, item.substr(0, x)));
    l.threads = static_cast<int>(parse_int(key, item.substr(x + 1)));
    if (l.ranks < 1 || l.threads < 1)
      throw UsageError("key " + quote(key) + " has value " + quote(item) + "; ranks and threads must be >= 1");
    for (const auto& o : out)
      if (o.ranks == l.ranks && o.threads == l.threads) throw UsageError("key " + quote(key) + " lists " + quote(item) + " twice");
    out.push_back(l);
  }
  if (out.empty()) throw UsageError("key " + quote(key) + " is empty; list layouts such as 1x1 2x1 1x2");
  return out;
}

std::string run_id(std::size_t index, std::size_t total) {
  std::size_t width = 5;
  for (std::size_t t = 100000; t < total; t *= 10) ++width;
  std::string s = std::to_string(index);
  return "run_" + std::string(width > s.size() ? width - s.size() : 0, '0') + s;
}

std::string RunSpec::label() const {
  std::string s = method;
  if (step.kind != StepKind::None) s += " " + step_kind_key(step.kind) + "=" + step.text;
  for (const auto& [k, v] : params) s += " " + k + "=" + v;
  if (layout) s += " layout=" + layout->text();
  return s;
}

std::string RunSpec::params_text() const {
  std::string s;
  auto add = [&](const std::string& k, const std::string& v) { s += (s.empty() ? "" : "; ") + k + "=" + v; };
  if (layout) add("layout", layout->text());
  for (const auto& [k, v] : params) add(k, v);
  add("method", method);
  if (step.kind != StepKind::None) add(step_kind_key(step.kind), step.text);
  return s;
}

std::vector<std::pair<std::string, std::string>> StudyPlan::point_params(std::size_t point) const {
  for (const auto& r : runs)
    if (r.point == point) return r.params;
  return {};
}

StudyPlan make_plan(const std::string& kind, const Config& cfg, par::Context& ctx, const RunRequest& req,
                    const PlanShape& shape, const KindParse& kind_parse) {
  StudyPlan plan;
  plan.kind = kind;
  plan.settings = read_settings(cfg);
  plan.part_index = req.part_index;
  plan.part_count = req.part_count;
  plan.t0 = cfg.get_double("t0");
  plan.t_final = cfg.get_double("t_final");
  if (!(plan.t_final > plan.t0))
    throw UsageError("key 't_final' has value " + quote(cfg.get_string("t_final")) + "; must be greater than t0 = " +
                     cfg.get_string("t0"));
  const double span = plan.t_final - plan.t0;

  // ---- zipped axes (parsed first: a zipped step key is the step axis)
  std::vector<GridAxis> zip_axes;
  std::vector<std::string> zip_step_items;
  StepKind zip_step_kind = StepKind::None;
  if (cfg.was_set("zip") && !cfg.get_string("zip").empty()) {
    for (auto& a : parse_zip(cfg.get_string("zip"))) {
      plan.zip_length = a.values.size();
      if (is_step_key(a.key)) {
        zip_step_kind = a.key == "steps" ? StepKind::Steps : a.key == "dt" ? StepKind::Dt : StepKind::Tol;
        zip_step_items = a.values;
      } else {
        zip_axes.push_back(std::move(a));
      }
    }
  }
  plan.zipped_step = zip_step_kind != StepKind::None;

  // ---- step axis
  std::vector<StepKind> given;
  for (StepKind k : {StepKind::Steps, StepKind::Dt, StepKind::Tol})
    if (cfg.was_set(step_kind_key(k)) && !cfg.get_string(step_kind_key(k)).empty()) {
      if (plan.zipped_step)
        throw UsageError("key " + quote(step_kind_key(k)) + " is set and key 'zip' pairs '" + step_kind_key(zip_step_kind) +
                         "' with the grid; give the step values in one place (remove " + quote(step_kind_key(k)) + ")");
      given.push_back(k);
    }
  if (plan.zipped_step) given.push_back(zip_step_kind);
  for (StepKind k : given)
    if (std::find(shape.step_kinds.begin(), shape.step_kinds.end(), k) == shape.step_kinds.end()) {
      std::string allowed;
      for (StepKind a : shape.step_kinds) allowed += (allowed.empty() ? "" : " or ") + step_kind_key(a);
      throw UsageError("key " + quote(step_kind_key(k)) + " is not used by study " + quote(kind) +
                       (allowed.empty() ? std::string() : "; it takes " + allowed) + " (remove the key)");
    }
  if (given.size() > 1)
    throw UsageError("keys " + quote(step_kind_key(given[0])) + " and '" + step_kind_key(given[1]) +
                     "' are both set; give only one step axis");
  if (given.empty() && shape.step_required) {
    std::string allowed;
    for (StepKind a : shape.step_kinds) allowed += (allowed.empty() ? "" : " or ") + step_kind_key(a);
    throw UsageError("study " + quote(kind) + " needs " + allowed + " (e.g. steps = 2^4..2^8" +
                     (std::find(shape.step_kinds.begin(), shape.step_kinds.end(), StepKind::Tol) != shape.step_kinds.end()
                          ? ", or tol = 1e-4, 1e-6"
                          : "") +
                     ")");
  }
  plan.step_kind = given.empty() ? StepKind::None : given[0];
  const std::string step_key = plan.zipped_step ? std::string("zip") : step_kind_key(plan.step_kind);
  switch (plan.step_kind) {
    case StepKind::Steps: {
      std::vector<std::int64_t> counts;
      if (plan.zipped_step) {
        for (const std::string& item : zip_step_items) {
          const auto c = parse_step_counts("zip", item);
          if (c.size() != 1)
            throw UsageError("key 'zip' has step value " + quote(item) + "; a zipped step count is one integer per point");
          counts.push_back(c[0]);
        }
      } else {
        counts = parse_step_counts("steps", cfg.get_string("steps"));
      }
      for (std::int64_t n : counts) {
        StepValue v;
        v.kind = StepKind::Steps;
        v.steps = n;
        v.h = span / static_cast<double>(n);
        v.text = std::to_string(n);
        plan.step_values.push_back(v);
      }
      break;
    }
    case StepKind::Dt:
      for (const std::string& item : plan.zipped_step ? zip_step_items : cfg.get_list("dt")) {
        const double dt = parse_double(step_key, item);
        constexpr double kMaxSteps = 4611686018427387904.0;  // 2^62, the largest count `steps` accepts
        if (dt > 0.0 && !(span / dt <= kMaxSteps))
          throw UsageError("key " + quote(step_key) + " has value " + quote(item) + ": (t_final - t0)/dt = " +
                           num(span / dt) + " steps, more than 2^62; use a larger dt");
        const double n = std::round(span / dt);
        if (n < 1 || std::fabs(n * dt - span) > 1e-9 * span)
          throw UsageError("key " + quote(step_key) + " has dt value " + quote(item) + "; it must divide t_final - t0 = " +
                           fmt(span) + " (use steps = N instead, or a dt such as " + fmt(span / std::max(1.0, n)) + ")");
        StepValue v;
        v.kind = StepKind::Dt;
        v.steps = static_cast<std::int64_t>(n);
        v.h = span / n;
        v.text = item;
        plan.step_values.push_back(v);
      }
      break;
    case StepKind::Tol:
      for (const std::string& item : plan.zipped_step ? zip_step_items : cfg.get_list("tol")) {
        StepValue v;
        v.kind = StepKind::Tol;
        v.tol = parse_double(step_key, item);
        if (!(v.tol > 0.0)) throw UsageError("key " + quote(step_key) + " has tol value " + quote(item) + "; must be > 0");
        v.text = item;
        plan.step_values.push_back(v);
      }
      break;
    case StepKind::None: plan.step_values.push_back(StepValue{}); break;
  }

  // ---- methods
  plan.methods = cfg.get_list("methods");
  if (plan.methods.empty()) throw UsageError("key 'methods' is empty; name at least one method (`liebench list methods`)");
  const bool needs_embedded = shape.embedded_only || plan.step_kind == StepKind::Tol;
  if (std::find(plan.methods.begin(), plan.methods.end(), "applicable") != plan.methods.end()) {
    // methods = applicable: every registered method that runs on the model of the first grid
    // point (its first values of zip and grid), in the registry's order (applicable_methods)
    if (plan.methods.size() != 1)
      throw UsageError("key 'methods' lists 'applicable' with other methods; give applicable alone (every method that "
                       "runs on the model) or a list of names");
    std::vector<std::pair<std::string, std::string>> first;
    for (const auto& a : zip_axes) first.emplace_back(a.key, a.values[0]);
    if (cfg.was_set("grid"))
      for (const auto& a : parse_grid(cfg.get_string("grid"))) first.emplace_back(a.key, a.values[0]);
    const Config pcfg = first.empty() ? cfg : cfg.with(first);
    const auto model = make_model(parse_model(pcfg), ctx);
    plan.methods = applicable_methods(pcfg, *model, ctx, needs_embedded);
    if (plan.methods.empty())
      throw UsageError("key 'methods' = applicable: no registered method runs on model " + quote(model->name()) +
                       (needs_embedded ? " with a tolerance (embedded pairs)" : "") + "; name the methods");
  }
  // A user tableau's name is part of the method's name (rkmk_user:rkmk38), unless tableau.name
  // is itself a grid axis (then the axis names it).
  bool name_on_grid = false;
  for (const auto& a : zip_axes) name_on_grid = name_on_grid || a.key == "tableau.name";
  if (cfg.was_set("grid"))
    for (const auto& a : parse_grid(cfg.get_string("grid"))) name_on_grid = name_on_grid || a.key == "tableau.name";
  for (std::size_t i = 0; i < plan.methods.size(); ++i) {
    method_entry(plan.methods[i], "method (key 'methods')");
    if (!name_on_grid) plan.methods[i] = method_display_name(plan.methods[i], cfg);
    for (std::size_t j = 0; j < i; ++j)
      if (plan.methods[j] == plan.methods[i]) throw UsageError("key 'methods' lists " + quote(plan.methods[i]) + " twice");
  }

  // ---- grid axes and layouts
  plan.axes = zip_axes;
  plan.zipped_axes = zip_axes.size();
  if (cfg.was_set("grid"))
    for (auto& a : parse_grid(cfg.get_string("grid"))) {
      for (const auto& z : zip_axes)
        if (z.key == a.key) throw UsageError("key " + quote(a.key) + " is in both 'zip' and 'grid'; name it in one of them");
      plan.axes.push_back(std::move(a));
    }
  if (shape.layouts) plan.layouts = parse_layouts("scaling.layouts", cfg.get_string("scaling.layouts"));
  else plan.layouts.push_back(Layout{});

  const std::size_t zip_points = plan.zip_length > 0 ? plan.zip_length : 1;
  std::size_t grid_points = zip_points;
  for (std::size_t a = plan.zipped_axes; a < plan.axes.size(); ++a) grid_points *= plan.axes[a].values.size();
  const std::size_t points = grid_points * plan.layouts.size();
  const std::size_t steps_per_point = plan.zipped_step ? 1 : plan.step_values.size();
  const std::size_t total = points * plan.methods.size() * steps_per_point;
  if (shape.single_point && points * steps_per_point != 1)
    throw UsageError("study " + quote(kind) + " runs each method once, but step values x grid points give " +
                     std::to_string(points * steps_per_point) +
                     "; give one step value and no grid or zip (use study = invariants or convergence for grids)");

  // ---- points and runs (lexicographic: layout, grid axes in order, method, step)
  std::vector<Config> point_configs;  // the configuration of every grid point (parsed below)
  std::vector<std::size_t> digit(plan.axes.size(), 0);
  for (std::size_t l = 0; l < plan.layouts.size(); ++l) {
    std::fill(digit.begin(), digit.end(), 0);
    for (std::size_t g = 0; g < grid_points; ++g) {
      // decode g into axis digits (last axis fastest; the zipped axes share one digit, outermost)
      std::size_t rem = g;
      for (std::size_t a = plan.axes.size(); a-- > plan.zipped_axes;) {
        digit[a] = rem % plan.axes[a].values.size();
        rem /= plan.axes[a].values.size();
      }
      const std::size_t zip_index = rem;
      for (std::size_t a = 0; a < plan.zipped_axes; ++a) digit[a] = zip_index;
      std::vector<std::pair<std::string, std::string>> params;
      for (std::size_t a = 0; a < plan.axes.size(); ++a) params.emplace_back(plan.axes[a].key, plan.axes[a].values[digit[a]]);
      const std::size_t point = l * grid_points + g;
      Config pcfg = params.empty() ? cfg : cfg.with(params);
      if (shape.layout_overrides) {
        const auto extra = shape.layout_overrides(plan.layouts[l], pcfg);
        if (!extra.empty()) pcfg = pcfg.with(extra);
      }
      PointPlan pp;
      pp.params = params;
      pp.config_text = [c = pcfg](const std::vector<std::pair<std::string, std::string>>& overrides) {
        return c.with(overrides).resolved_text();
      };
      point_configs.push_back(std::move(pcfg));
      plan.point_plans.push_back(std::move(pp));
      for (std::size_t mi = 0; mi < plan.methods.size(); ++mi)
        for (std::size_t si = 0; si < plan.step_values.size(); ++si) {
          if (plan.zipped_step && si != zip_index) continue;
          const StepValue& sv = plan.step_values[si];
          RunSpec r;
          r.index = plan.runs.size();
          r.id = run_id(r.index, total);
          r.point = point;
          r.params = params;
          r.method = plan.methods[mi];
          r.method_index = mi;
          r.step = sv;
          if (shape.layouts) r.layout = plan.layouts[l];
          // fixed steps here; adaptive runs get theirs below, from their method's orders
          if (sv.kind == StepKind::Steps || sv.kind == StepKind::Dt)
            r.integration = fixed_integration(plan.t0, plan.t_final, sv.steps);
          r.sampling = run_sampling(shape, point_configs.back(), sv);
          plan.runs.push_back(std::move(r));
        }
    }
  }

  // ---- key columns of the summary
  plan.layout_axis = shape.layouts;
  if (shape.layouts) plan.key_columns = {"layout"};
  for (const auto& a : plan.axes) plan.key_columns.push_back(a.key);
  plan.key_columns.push_back("method");
  if (plan.step_kind == StepKind::Steps || plan.step_kind == StepKind::Dt) {
    plan.key_columns.push_back("steps");
    plan.key_columns.push_back("h");
  } else if (plan.step_kind == StepKind::Tol) {
    plan.key_columns.push_back("tol");
  }

  // ---- which runs this job executes
  // --part I/N with N > runs leaves parts empty: refused for every I (so that the `--check` of
  // slurm/submit.sh, which checks part 1/N, refuses the submission), rather than empty part
  // files that merge and report would have to take for a study. Rank groups (ranks_per_run)
  // split the grid internally and may have idle groups.
  if (!req.rank_group && req.part_count > 1 && static_cast<std::size_t>(req.part_count) > plan.runs.size())
    throw UsageError("option --part has value '" + std::to_string(req.part_index + 1) + "/" +
                     std::to_string(req.part_count) + "' but the study has " + std::to_string(plan.runs.size()) +
                     " run(s), so " + std::to_string(static_cast<std::size_t>(req.part_count) - plan.runs.size()) +
                     " of the " + std::to_string(req.part_count) + " parts would hold none; use at most " +
                     std::to_string(plan.runs.size()) + " part(s)");
  const par::Range range = par::balanced_range(plan.runs.size(), static_cast<int>(req.part_count),
                                               static_cast<int>(req.part_index));
  const Layout here{ctx.size(), ctx.threads()};
  bool layout_listed = !shape.layouts;
  for (const auto& l : plan.layouts)
    if (l.ranks == here.ranks && l.threads == here.threads) layout_listed = true;
  if (!layout_listed) {
    std::string list;
    for (const auto& l : plan.layouts) {
      if (!list.empty()) list += ' ';
      list += l.text();
    }
    throw UsageError("this job runs as " + here.text() + " (MPI ranks x OpenMP threads) but scaling.layouts = " + list +
                     "; launch one job per listed layout (scripts/run_layouts.sh does this) or add " +
                     here.text() + " to scaling.layouts");
  }
  for (std::size_t i = range.begin; i < range.end; ++i) {
    const RunSpec& r = plan.runs[i];
    if (r.layout && (r.layout->ranks != here.ranks || r.layout->threads != here.threads)) continue;
    plan.selected.push_back(i);
  }

  // The kind's own keys at point p (StudyEntry::parse), given the point's model when it is built
  // already (else built on demand, at most once).
  auto parse_kind = [&](std::size_t p, std::unique_ptr<Model> built) {
    if (!kind_parse) return;
    const PointModel model = [&]() -> Model& {
      if (!built) built = make_model(plan.point_plans[p].model, ctx);
      return *built;
    };
    plan.point_plans[p].kind = kind_parse(point_configs[p], plan, p, model, ctx);
  };
  // ---- every grid point: its model and methods parsed into typed options; the points of this
  // job's layout also validated: model built, initial state finite, state layout, methods
  // applicable (the other layouts' points have the same grid values)
  for (std::size_t p = 0; p < points; ++p) {
    const std::size_t l = p / grid_points;
    const bool validate = !shape.layouts || (plan.layouts[l].ranks == here.ranks && plan.layouts[l].threads == here.threads);
    const Config& pcfg = point_configs[p];
    PointPlan& pp = plan.point_plans[p];
    std::string where;
    for (const auto& [k, v] : plan.point_params(p)) where += (where.empty() ? "" : ", ") + k + "=" + v;
    std::unique_ptr<Model> model;  // this point's, built once: validation, then the kind's parse
    try {
      pp.model = parse_model(pcfg);
      if (validate) {
        model = make_model(pp.model, ctx);
        std::vector<double> y(model->space().state_size());
        model->initial_state(y.data());
        bool finite = true;
        for (double v : y) finite = finite && std::isfinite(v);
        if (ctx.max(finite ? 0.0 : 1.0) > 0.0)
          throw UsageError("the initial state of model " + quote(model->name()) + " is not finite; check its keys "
                           "(`liebench run --help`, section [" + model->name() + "])");
        io::state_rows(*model, ctx);
        pp.has_exact = model->capabilities().exact_solution;
      }
      for (std::size_t mi = 0; mi < plan.methods.size(); ++mi) {
        const std::string& m = plan.methods[mi];
        pp.methods.push_back(parse_method(m, pcfg));
        if (!validate) continue;
        // the stepper's own info: methods from a user tableau know their orders only now; bound
        // here, so that what a method checks of the model and of the ranks holding it at bind
        // (lgvi_explicit: a diagonal inertia; lgvi: every sphere on one rank) is refused before
        // any file exists, not in the middle of the grid
        const auto stepper = make_stepper(pp.methods.back(), *model);
        stepper->bind(*model, ctx);
        if (needs_embedded && stepper->info().embedded_order == 0)
          throw UsageError("method " + quote(m) + " has no embedded error estimator, so it cannot run with a tolerance; "
                           "use an embedded pair (`liebench list methods`, column 'embedded'), e.g. rkmk54");
        // adaptive runs: error norm and controller from the point's keys and the method's orders
        if (plan.step_kind == StepKind::Tol)
          for (RunSpec& r : plan.runs)
            if (r.point == p && r.method_index == mi && r.step.kind == StepKind::Tol)
              r.integration =
                  adaptive_integration(pcfg, stepper->info(), plan.t0, plan.t_final, r.step.tol, pcfg.get_nonnegative("sample_dt"));
      }
    } catch (const UsageError& e) {
      if (where.empty()) throw;
      throw UsageError("grid point " + where + ": " + e.what());
    }
    if (validate) parse_kind(p, std::move(model));
  }
  if (shape.layouts) {
    // copy exactness from the validated layout to the others
    std::size_t here_l = 0;
    for (std::size_t l = 0; l < plan.layouts.size(); ++l)
      if (plan.layouts[l].ranks == here.ranks && plan.layouts[l].threads == here.threads) here_l = l;
    for (std::size_t p = 0; p < points; ++p) {
      plan.point_plans[p].has_exact = plan.point_plans[here_l * grid_points + p % grid_points].has_exact;
      if (p / grid_points != here_l) parse_kind(p, nullptr);
    }
  }
  return plan;
}

// </edge>

}  // namespace lie::studies
