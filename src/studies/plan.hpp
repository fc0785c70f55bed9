#pragma once
// A study plan: the grid of runs a study executes, built and validated from the
// configuration before any file is created.
//
// Runs are numbered 0, 1, ... (ids run_00000, ...) in lexicographic grid order:
//   [scaling layouts] x [zip] x [grid axes, in the order written in `grid`] x methods x step axis
// (the last varies fastest). The `zip` keys are paired, not multiplied: value k of every zipped
// key together form one grid point (e.g. each N with its own step count; a zipped step key
// replaces the step axis: each point then has its one step value). A run is fully described by its grid point (values of the grid
// axes), its method and its step value; every run is independent of the others, so a study can
// be split into parts (contiguous index ranges, `--part I/N`) and merged.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/registry.hpp"
#include "io/config.hpp"
#include "io/units.hpp"
#include "methods/stepper.hpp"
#include "models/model.hpp"
#include "parallel/context.hpp"
#include "studies/execute.hpp"

namespace lie {

/// What `liebench run` asks of a study job (besides the configuration).
struct RunRequest {
  std::string output;        // final path of the result file (.h5)
  bool force = false;        // overwrite an existing result file
  bool progress = true;      // progress reports on rank 0 (stderr)
  long part_index = 0;       // run only grid points of part `part_index` of `part_count`
  long part_count = 1;
  std::string restart;       // checkpoint to continue from (default: <output>.ckpt.h5 if present)
  bool rank_group = false;   // one rank group of a ranks_per_run job (its part is merged at once)
};

}  // namespace lie

namespace lie::studies {

enum class StepKind { None, Steps, Dt, Tol };
std::string step_kind_key(StepKind k);  // "steps", "dt", "tol", ""

struct StepValue {
  StepKind kind = StepKind::None;
  std::int64_t steps = 0;  // Steps, Dt: number of steps over [t0, T]
  double h = 0.0;          // Steps, Dt: (T - t0) / steps
  double tol = 0.0;        // Tol
  std::string text;        // as written (for labels)
};

struct GridAxis {
  std::string key;
  std::vector<std::string> values;
};

struct Layout {
  int ranks = 1, threads = 1;
  std::string text() const { return std::to_string(ranks) + "x" + std::to_string(threads); }
};

struct RunSpec {
  std::size_t index = 0;
  std::string id;                 // run_00000
  std::size_t point = 0;          // grid point index (layout x grid axes)
  std::vector<std::pair<std::string, std::string>> params;  // grid key -> value
  std::string method;
  std::size_t method_index = 0;   // in StudyPlan::methods (and PointPlan::methods)
  StepValue step;
  std::optional<Layout> layout;   // scaling studies
  Integration integration;        // fixed steps over [t0, T], or adaptive with its tolerance (plan-resolved)
  Sampling sampling;              // observables and states of the run (PlanShape::sampling)
  std::string label() const;      // "rkmk4 steps=64 free_rigid_body.seed=2"
  std::string params_text() const;  // "free_rigid_body.seed=2; method=rkmk4; steps=64"
};

/// How the runs of a study kind sample the observables and the state (RunSpec::sampling).
enum class SamplingRule {
  None,     // no time series (convergence, scaling)
  Stride,   // observables every sample_every steps (0: about 1000 samples; adaptive runs: every accepted step)
            // or at the sample_dt times; with save_state the state every state_every steps (0: at every
            // sample) -- simulate, invariants
  AsGiven,  // observables every sample_every-th accepted step (0: at t0, T and the sample_dt times); with
            // save_state the state every state_every-th accepted step (0: every one) -- adaptive
};

/// What a study kind accepts.
struct PlanShape {
  std::vector<StepKind> step_kinds;  // allowed step axes (empty: none)
  bool step_required = true;
  bool single_point = false;         // simulate: one grid point and one step value (one run per method)
  bool layouts = false;              // scaling: outermost axis over scaling.layouts
  bool embedded_only = false;        // adaptive: every method must be an embedded pair
  SamplingRule sampling = SamplingRule::None;
  bool timed = false;                // the runs measure wall time: no run-log lines inside them (scaling)
  /// scaling: extra key overrides of a grid point for a layout (weak scaling sizes); a parse
  /// function (the edge).
  // <edge>
  std::function<std::vector<std::pair<std::string, std::string>>(const Layout&, const Config&)> layout_overrides;
  // </edge>
};

/// The study-wide settings, read once at the plan: everything the driver, the result file, the
/// checkpoints and the run log need of the configuration. The configuration's text is kept only
/// as provenance (written to files, compared on restart), never read for keys below the plan.
struct StudySettings {
  std::string model;                 // key model
  std::string title;
  io::Units units;
  bool failures_expected = false;    // failures = expected
  std::string author, author_email;  // keys (""; the result file falls back to the environment)
  double progress_interval = 10.0;
  std::uint64_t log_every = 0;
  std::int64_t checkpoint_every = 0;
  double checkpoint_seconds = 0.0;
  bool save_state = false;
  std::string source_text, resolved_text, command_line;             // provenance
  std::vector<std::pair<std::string, std::string>> resolved_pairs;  // provenance, /parameters
};

/// One grid point, typed: its model and methods with their parsed options and the kind's own
/// options (StudyEntry::parse), all read at the plan.
struct PointPlan {
  std::vector<std::pair<std::string, std::string>> params;  // grid key -> value (with layout overrides)
  ModelChoice model;
  std::vector<MethodChoice> methods;  // StudyPlan::methods' order
  EntryOptions kind;                  // the kind's options (StudyPlan::kind_options<T>)
  bool has_exact = false;             // the model has an exact solution here
  /// The resolved configuration text of a run at this point with `overrides` (its method, step
  /// value, ...): provenance of the run's group, "liebench run" on it repeats that run.
  std::function<std::string(const std::vector<std::pair<std::string, std::string>>&)> config_text;
};

struct StudyPlan;
/// A study kind's parse function (StudyEntry::parse): reads the kind's keys at grid point `point`
/// of the configuration `point_cfg` into its typed options, with every check beyond the plan's
/// (reference methods, observables, ...); called by make_plan for every point once the point is
/// validated. `model()` is the point's model (the one the plan validated; built at the first call
/// otherwise). Collective.
using PointModel = std::function<Model&()>;
// <edge>
using KindParse = std::function<EntryOptions(const Config& point_cfg, const StudyPlan& plan, std::size_t point,
                                             const PointModel& model, par::Context& ctx)>;
// </edge>

struct StudyPlan {
  std::string kind;
  StudySettings settings;            // the study-wide keys, read at the plan
  double t0 = 0.0, t_final = 1.0;
  std::vector<Layout> layouts;
  std::vector<GridAxis> axes;        // the zipped keys first (zipped_axes of them), then `grid`
  std::size_t zipped_axes = 0;
  std::size_t zip_length = 0;         // values per zipped key (0: no zip)
  bool zipped_step = false;           // the step axis is zipped: point k uses step_values[k]
  std::vector<std::string> methods;
  StepKind step_kind = StepKind::None;
  std::vector<StepValue> step_values;
  std::vector<RunSpec> runs;                 // every run of the study
  std::vector<std::size_t> selected;         // runs this job executes (part / layout)
  std::vector<PointPlan> point_plans;        // per grid point
  std::vector<std::string> key_columns;      // summary key columns
  bool layout_axis = false;                  // scaling.layouts is the outermost axis (PlanShape::layouts)
  long part_index = 0, part_count = 1;

  std::size_t points() const { return point_plans.size(); }
  const PointPlan& point(std::size_t p) const { return point_plans.at(p); }
  std::vector<std::pair<std::string, std::string>> point_params(std::size_t point) const;
  /// The kind's options at grid point `p` (StudyEntry::parse's type T).
  template <class T>
  const T& kind_options(std::size_t p) const { return std::any_cast<const T&>(point_plans.at(p).kind); }
};

/// Builds and validates the plan: keys, grid values, methods (registered, applicable to the
/// model, embedded where needed), step sizes (at most 2^62 steps), and one model of every grid
/// point (constructed, initial state finite); resolves the integration and sampling of every
/// run once, and parses every point's model and methods into typed options. Throws UsageError
/// naming the key, the value and the fix. (The kind's own keys: StudyEntry::parse, checked_plan.)
// <edge> (declarations of the parse functions)
StudyPlan make_plan(const std::string& kind, const Config& cfg, par::Context& ctx, const RunRequest& req,
                    const PlanShape& shape, const KindParse& kind_parse = {});

/// Expands a list of step counts: integers ("64", "1e3"), powers ("2^6") and doubling ranges
/// ("2^4..2^10" or "16..1024": 16, 32, ..., 1024).
std::vector<std::int64_t> parse_step_counts(const std::string& key, const std::string& text);
/// Parses `grid` ("key=v1,v2; key2=a,b"; use '|' between values that contain commas).
std::vector<GridAxis> parse_grid(const std::string& text);
/// Parses `zip` (same syntax as `grid`; also the step keys steps, dt, tol): every key must
/// have the same number of values, else a UsageError naming both keys and lengths.
std::vector<GridAxis> parse_zip(const std::string& text);
/// Parses scaling.layouts ("1x1 2x1 1x2").
std::vector<Layout> parse_layouts(const std::string& key, const std::string& text);
// </edge>

/// Run id of index i ("run_00042"; wider when there are more than 10^5 runs).
std::string run_id(std::size_t index, std::size_t total);

}  // namespace lie::studies
