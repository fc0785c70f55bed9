#pragma once
// Studies: what `liebench run FILE.cfg` executes. The study kind is the key `study`
// (simulate, convergence, invariants, adaptive, scaling, ...). A kind is one .cpp file that
// registers a StudyEntry: the shape of its grid, its keys parsed into typed options, whether its
// runs are checkpointed, what each run writes and returns as its /summary row, the analysis of
// the whole summary and its report tables. One driver (studies/grid_driver.hpp) runs every kind:
// plan, checkpoints, result file, the loop over the runs, progress, run log; --part,
// ranks_per_run and `liebench merge` work for every kind alike. No code outside a kind's file
// looks at its name.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "io/config.hpp"
#include "io/h5.hpp"
#include "io/table.hpp"
#include "parallel/context.hpp"
#include "studies/plan.hpp"
#include "studies/summary.hpp"

namespace lie {

namespace studies {

class Checkpointer;
class StudyOutput;
/// What a report reads of a result file (report/tables.hpp: load_study_file).
struct StudyFile {
  std::string kind, title, model;
  double t0 = 0.0, t_final = 0.0;
  std::int64_t run_count = 0;
  std::vector<std::string> key_columns;
  std::map<std::string, std::string> parameters;  // resolved keys (attributes of /parameters)
  Summary summary;
  // run index -> phase -> seconds per rank (scaling table only)
  std::map<std::int64_t, std::map<std::string, std::vector<double>>> timings;
};


/// A report table (`liebench report FILE.h5 --table NAME`), built from the result file alone.
struct ReportTable {
  std::string name;
  std::function<std::vector<io::Table>(const StudyFile&, io::TableFormat)> build;
  bool needs_timings = false;  // reads the per-rank timings of the runs (load_study_file)
};

/// One job of a study (StudyEntry::start): its plan, context, result file and checkpoints.
struct StudyJob {
  const StudyPlan& plan;
  par::Context& ctx;
  StudyOutput& out;
  Checkpointer& ckpt;
};

/// One run as the driver hands it to its kind: the run's model and stepper (bound), its group
/// /runs/<id> in the result file (begun; the driver ends it with the returned row).
struct RunContext {
  const StudyPlan& plan;
  const RunSpec& spec;     // with the run's Integration and Sampling
  const PointPlan& point;  // its grid point, typed (model, methods, the kind's options)
  par::Context& ctx;
  StudyOutput& out;
  Checkpointer& ckpt;
  Model& model;
  Stepper& stepper;
  hid_t group;

  /// Integrates `integ` with `sampling` from the model's initial state as the checkpointed
  /// execution `label` (replayed or continued on restart; stop checks and progress); with
  /// sampling.states, the H5MD trajectory under `where`/particles. Collective.
  RunResult integrate(const std::string& label, hid_t where, Stepper& with, const Integration& integ,
                      const Sampling& sampling);
  /// The run itself: execution spec.id with spec.integration and spec.sampling.
  RunResult integrate() { return integrate(spec.id, group, stepper, spec.integration, spec.sampling); }
  /// Writes the result's time series, step record and timings and its final state into the group.
  void write(const RunResult& res);
  /// The cells every study shares (studies::base_row with the stepper's orders).
  Row base_row(const RunResult* res) const;
};

/// What a run adds besides its group: its /summary row, and whether the H5MD entry points
/// /particles and /observables at the root may link to its groups (the first such run's).
struct RunRecord {
  Row row;
  bool particles = false, observables = false;
};

/// The runs of one job of a kind: what it keeps from run to run (reference solutions, measured
/// constants) and the body of each run.
class KindRuns {
 public:
  virtual ~KindRuns() = default;
  /// Before the model of a run at grid point `point` is built (reference solutions).
  virtual void prepare(std::size_t point) { (void)point; }
  /// A model to bind the run's stepper to in place of the run's own (scaling: one that times the
  /// vector field); null: the run's model. It lives until the run has ended.
  virtual std::unique_ptr<Model> instrument(Model& model, const RunSpec& run) {
    (void)model;
    (void)run;
    return nullptr;
  }
  /// One run: integrates (RunContext::integrate), writes what the kind adds to the run's group.
  virtual RunRecord run(RunContext& run) = 0;
  /// Passes over the whole grid before the recorded one (default none; the timing kind makes
  /// the first repetitions of every run in separate passes, so that a slow period of the machine
  /// falls on one repetition of a run, not on all of them). rehearse() is one run of such a
  /// pass: it writes nothing (run.group is invalid), may call run.out.checkpoint for stop checks;
  /// runs the checkpoint already holds are not rehearsed.
  virtual std::size_t rehearsals() const { return 0; }
  virtual void rehearse(RunContext& run) { (void)run; }
};

/// StudyEntry::start of a kind whose runs keep nothing from one to the next.
std::function<std::unique_ptr<KindRuns>(StudyJob&)> each_run(std::function<RunRecord(RunContext&)> body);

}  // namespace studies

struct StudyEntry {
  std::string name;
  std::string summary;
  studies::PlanShape shape;
  /// Reads the kind's keys at each grid point into its typed options (studies::KindParse; the
  /// runs read them back with StudyPlan::kind_options<T>), with the checks beyond the plan's
  /// (reference solutions, observables), before any file exists. Null: the kind reads no key.
  studies::KindParse parse;
  /// Why the kind is not checkpointed (then the checkpoint keys and --restart are refused with
  /// this reason); "" = it is: its executions go through the job's Checkpointer.
  std::string not_checkpointed;
  /// Names of its report tables (ReportTableRegistry): `liebench report`'s default (--table: any).
  std::vector<std::string> tables;
  /// Tables under /analysis derived from the whole /summary (`parameters`: the resolved keys):
  /// after the runs, and again by `liebench merge` on the joined summary.
  std::function<void(const h5::File&, const studies::Summary&, const std::vector<std::string>& key_columns,
                     const std::map<std::string, std::string>& parameters)>
      analysis;
  /// The runs of one job, made once the result file exists.
  std::function<std::unique_ptr<studies::KindRuns>(studies::StudyJob&)> start;
  /// Columns the kind adds to /summary (unit and meaning; see describe_column).
  std::map<std::string, studies::ColumnInfo> columns;
};
using StudyRegistry = Registry<StudyEntry>;
/// Report tables by name: the report floor registers the built-in kinds' (report/tables.cpp), a
/// kind or plugin with a table of its own registers it from its file.
using ReportTableRegistry = Registry<studies::ReportTable>;

/// Looks up the study named by key `study` and runs it (validation first, then the runs).
// <edge> (declarations: the configuration enters the studies here)
void run_study(const Config& cfg, par::Context& ctx, const RunRequest& req);
/// Validates everything run_study would (configuration, grid, models, methods, output path)
/// and returns without creating any file (`liebench run FILE.cfg --check`).
void check_study(const Config& cfg, par::Context& ctx, const RunRequest& req);
// </edge>

}  // namespace lie
