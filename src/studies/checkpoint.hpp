#pragma once
// Checkpoint and restart of a study (issue 14): every kind with an empty
// StudyEntry::not_checkpointed (without save_state), with any number of runs, also as one
// `--part` of a grid. A
// checkpoint is one HDF5 file `<output>.ckpt.h5`, written collectively to a temporary name and
// renamed (io::SafeOutput). It holds the study's identity (study, model, the resolved keys
// without checkpoint_*, the part), every finished *execution* of the study (a run, the
// constant-step comparison run of an adaptive run, the two runs of a reference solution: its
// final state as rows of io::write_state, time series, step record, counters, status) and the
// execution in progress (state, t, counters, the adaptive driver's state, time series so far).
// A restart replays the finished executions from the checkpoint (everything the result file
// gets from them is computed from the same numbers, bit for bit) and continues the one in
// progress (executions checkpointed at their ends only, execute_whole, are computed again).
// Written every `checkpoint_every` steps, every `checkpoint_seconds` of wall time and
// on SIGTERM / SIGUSR1 / SIGINT (then liebench exits with status 5). `liebench run ... --restart
// FILE`, or the same command again (it finds `<output>.ckpt.h5`), continues.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "io/config.hpp"
#include "studies/execute.hpp"
#include "studies/plan.hpp"
#include "studies/study.hpp"

namespace lie::studies {

inline constexpr const char* kCheckpointFormat = "liebench-checkpoint/4";  // 4: sealed (io/seal.hpp)
/// Checkpoints of earlier versions, still continued: without the seal (3), without the
/// checksum over their attributes too (2).
inline constexpr const char* kCheckpointFormatWithoutSeal = "liebench-checkpoint/3";
inline constexpr const char* kCheckpointFormatWithoutAttributeSum = "liebench-checkpoint/2";

/// A checkpoint was written after a signal: the study stops (exit status 5).
class Checkpointed : public std::runtime_error {
 public:
  Checkpointed(const std::string& path, int signal);
};

/// `<output>.ckpt.h5`
std::string checkpoint_path(const std::string& output);

/// Why checkpoints are not available for this study (empty: they are). The checkpoint keys and
/// --restart are refused (UsageError) where this is not empty.
std::string checkpoint_unsupported(const std::string& study, bool save_state, const RunRequest& req);

class StudyOutput;

class Checkpointer {
 public:
  /// Validates the keys, then reads the checkpoint to continue from (req.restart, or
  /// `<output>.ckpt.h5` if present); refuses (UsageError) a corrupt or mismatched one. Call
  /// before the result file is created. Collective.
  Checkpointer(const RunRequest& req, const StudyPlan& plan, par::Context& ctx);
  bool active() const { return active_; }
  /// The checkpoint this job continues holds execution `label` finished (it will be replayed).
  bool has_finished(const std::string& label) const { return finished_.count(label) != 0; }
  const std::string& path() const { return path_; }

  /// Between executions (StudyOutput's stop check, see attach): on a signal (any rank) writes a
  /// checkpoint and throws Checkpointed; writes one when checkpoint_seconds have passed.
  void attach(StudyOutput& out);

  /// Runs execution `label` (unique within the study, e.g. "run_00003", "run_00003/compare",
  /// "reference_00001/fine") of grid point `point` as execute_run would; replays it when the
  /// checkpoint has it finished, continues it when the checkpoint stopped inside it. Safe points
  /// write checkpoints; `hooks.checkpoint` is replaced by `progress`. Collective.
  RunResult execute(const std::string& label, std::size_t point, Model& model, Stepper& stepper,
                    const Integration& integ, const Sampling& sampling, RunHooks hooks,
                    const std::function<void(double)>& progress);

  /// Runs execution `label` of grid point `point`, checkpointed at its ends only (runs that
  /// measure wall time): replays it when the checkpoint has it finished, else calls `compute`,
  /// from the start; a stop inside it (StudyOutput's stop checks) writes a checkpoint of the
  /// finished executions, and the restart computes it again. With checkpoint_every > 0 a
  /// checkpoint is written after it. Collective.
  RunResult execute_whole(const std::string& label, std::size_t point, const std::function<RunResult()>& compute,
                          const std::function<void(double)>& progress);

  /// Finishes the result file (`finish_output`, collective) and removes the checkpoint, also
  /// when the file was written with failed runs (RunsFailed is rethrown).
  void complete(const std::function<void()>& finish_output);

 private:
  struct Current {  // the execution running now
    std::string label;
    std::size_t point = 0;
  };
  struct Finished {
    std::size_t point = 0;
    RunResult result;
  };
  void load(const std::string& path);
  void keep(const std::string& label, std::size_t point, const RunResult& res);
  void safe_point(const RunSnapshot& snap);
  void between_runs();
  void write(const RunSnapshot* snap);
  const Model& model_for(std::size_t point);
  std::string identity() const;

  const StudyPlan& plan_;
  par::Context& ctx_;
  std::string path_, restart_;
  bool active_ = false;
  std::int64_t every_ = 0;
  double seconds_ = 0.0, last_time_ = 0.0;
  std::uint64_t last_step_ = 0;
  std::vector<std::string> order_;                  // labels of finished executions, in order
  std::map<std::string, Finished> finished_;
  std::optional<RunResume> resume_;                 // the execution the checkpoint stopped in
  TimeSeries resume_series_;
  std::string resume_label_;
  Current current_;
  std::map<std::size_t, std::unique_ptr<Model>> models_;  // per grid point, for the state layout
};

}  // namespace lie::studies
