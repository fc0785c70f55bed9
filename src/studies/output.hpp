#pragma once
// The result file of one study job (layout documented in results/README.md):
//
//   /                     attrs: liebench_format, study, title, run_count
//   /h5md                 H5MD 1.1 header (version, author, creator)
//   /parameters           attrs: every resolved key; config_text, resolved_config
//   /study                attrs: kind, run_count, methods, step axis, grid axes, key_columns
//   /study/axes/<key>     values of each grid axis
//   /provenance/job_<k>   code version, build, hosts, ranks, threads, times, max RSS per rank
//   /runs/run_NNNNN       attrs: run_id, run_index, method, grid values, params, config, metrics
//       observables/<name>/{step,time,value}    sampled observables (H5MD time-series layout)
//       step_size/{step,time,value}, error_estimate/{...}, rejected_time   (adaptive runs)
//       final_state       [global_components][values per component], written collectively
//       timings/<phase>   [ranks] seconds per rank
//   /references/point_NNNNN   reference solutions (attrs, final_state)
//   /summary/<column>     one row per run
//   /analysis/<table>     derived tables (observed orders)
//
// Written to a temporary name and renamed when complete (io/safe_output.hpp).
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/h5.hpp"
#include "io/provenance.hpp"
#include "io/safe_output.hpp"
#include "studies/state_file.hpp"
#include "io/units.hpp"
#include "studies/execute.hpp"
#include "studies/plan.hpp"
#include "studies/progress.hpp"
#include "studies/summary.hpp"

namespace lie::studies {

inline constexpr const char* kFormat = "liebench-study/1";

class StudyOutput {
 public:
  /// Checks the output path, creates the temporary file and writes the header groups.
  /// Collective. Call only after the plan (and everything else) has been validated.
  StudyOutput(const StudyPlan& plan, par::Context& ctx, const RunRequest& req);
  ~StudyOutput();
  StudyOutput(const StudyOutput&) = delete;
  StudyOutput& operator=(const StudyOutput&) = delete;

  const h5::File& file() const { return file_; }
  par::Context& ctx() { return ctx_; }
  Progress& progress() { return *progress_; }

  /// Creates /runs/<id> with the run's parameters as attributes.
  h5::Handle begin_run(const RunSpec& run, const PointPlan& point);
  /// Writes the run's time series, step-size history and timings into its group.
  void write_result(hid_t run_group, const RunResult& res);
  /// Writes a final state [global_components][values per component].
  void write_state(hid_t group, const std::string& name, const Model& model, const double* y, double t);
  /// H5MD entry points at the root: hard links /particles and /observables to the groups of the
  /// first run of this file that has them (the same data, two names). Collective.
  void link_entry_points(const RunSpec& run, bool particles, bool observables);
  /// Adds the metrics as attributes of the run group and as a /summary row.
  void end_run(hid_t run_group, const RunSpec& run, Row row);

  /// Called between steps (via RunHooks) and between runs: collective stop check, progress.
  void checkpoint(double fraction);
  RunHooks hooks();
  /// Replaces the stop check between runs and before the file is finished (default:
  /// poll_interrupt): a study with checkpoints writes one there instead (Checkpointer::attach).
  void set_stop_check(std::function<void()> stop) { stop_ = std::move(stop); }

  /// Writes /summary, calls `analysis` (for /analysis tables), the provenance end, closes the
  /// file and renames it to its final name. Collective. Then, if runs failed (status not "ok")
  /// and key `failures` is not `expected`, throws RunsFailed (exit status 3) on every rank.
  void finish(const std::function<void(const h5::File&, const Summary&)>& analysis = {});

  const std::vector<Row>& rows() const { return rows_; }
  /// The unit system of the study (key `units`).
  const io::Units& units() const { return units_; }

 private:
  const StudyPlan& plan_;
  par::Context& ctx_;
  io::SafeOutput safe_;
  h5::File file_;
  io::Provenance prov_;
  io::Units units_;
  std::unique_ptr<Progress> progress_;
  std::vector<Row> rows_;
  std::vector<std::string> failures_;  // "run_00003 (lgvi, steps=10): failed: ..."
  bool failures_expected_ = false;
  double start_ = 0.0;
  std::function<void()> stop_;
  void stop_check();
};

/// A failed run's status ("failed: <reason>" or "nonfinite"); every other status is "ok".
inline bool run_failed(const std::string& status) { return !status.empty() && status != "ok"; }

/// Row cells every study shares: run id, grid values, method and its orders, step values,
/// status, counters.
Row base_row(const StudyPlan& plan, const RunSpec& run, const RunResult* res, const MethodInfo& method);

/// Writes the header groups (/h5md, /parameters, /study) of a study file (collective).
void write_header(const h5::File& f, const StudyPlan& plan, const std::string& author, const std::string& email = "");

/// Error statistics of the time series (see analysis.hpp) as metric cells:
/// "<prefix>.max", ".mean", ".drift", ".final" for each observable with a role.
void add_invariant_metrics(Row& row, const TimeSeries& series, const std::vector<std::string>& only = {});

/// Smallest and largest accepted step ("h_min", "h_max") of an adaptive run; nothing for fixed runs.
void add_step_size_metrics(Row& row, const RunResult& res);

/// Progress weight of a run (steps for fixed runs).
double run_work(const RunSpec& run);

}  // namespace lie::studies
