#pragma once
// Checkpoint and restart of a study run (issue 14, first part: single-run studies simulate and
// invariants without save_state). A checkpoint is one HDF5 file `<output>.ckpt.h5`, written
// collectively to a temporary name and renamed (io::SafeOutput): the run's identity (study,
// model, method, state shape, resolved configuration), the distributed state (rows of
// io::write_state, so a restart may use another layout), t, step counters, the adaptive
// driver's state (controller memory, step record) and the time series so far. Written every
// `checkpoint_every` steps, every `checkpoint_seconds` of wall time and on SIGTERM / SIGUSR1 /
// SIGINT (then liebench exits with status 5). `liebench run ... --restart FILE`, or the same
// command again (it finds `<output>.ckpt.h5`), continues bit for bit.
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "io/config.hpp"
#include "studies/execute.hpp"
#include "studies/plan.hpp"
#include "studies/study.hpp"

namespace lie::studies {

inline constexpr const char* kCheckpointFormat = "liebench-checkpoint/1";

/// A checkpoint was written after a signal: the study stops (exit status 5).
class Checkpointed : public std::runtime_error {
 public:
  Checkpointed(const std::string& path, int signal);
};

/// `<output>.ckpt.h5`
std::string checkpoint_path(const std::string& output);

class Checkpointer {
 public:
  /// Validates the keys against the plan (UsageError when checkpoints are asked for a study
  /// they do not cover yet). Collective.
  Checkpointer(const Config& cfg, const RunRequest& req, const StudyPlan& plan, par::Context& ctx);
  bool active() const { return active_; }
  const std::string& path() const { return path_; }

  /// Reads the checkpoint to continue from (req.restart, or `<output>.ckpt.h5` if present) for
  /// the run `run` of `model`/`method`; refuses (UsageError) a corrupt or mismatched one.
  /// Collective. Returns nothing when there is none.
  std::optional<RunResume> load(const RunSpec& run, const Model& model, TimeSeries& series);
  /// The hook for RunHooks::safe_point of that run.
  void safe_point(const RunSpec& run, const Model& model, const RunSnapshot& snap);
  /// Wires the hooks of that run when checkpoints are on: safe points write checkpoints, and a
  /// signal no longer stops the run at hooks.checkpoint (which then only shows `progress`) but
  /// is checkpointed at the next safe point.
  void attach(const RunSpec& run, const Model& model, RunHooks& hooks, std::function<void(double)> progress);
  /// Finishes the result file (`finish_output`, collective) and removes the checkpoint, also
  /// when the file was written with failed runs (RunsFailed is rethrown).
  void complete(const std::function<void()>& finish_output);

 private:
  void write(const RunSpec& run, const Model& model, const RunSnapshot& snap);
  std::string identity(const RunSpec& run, const Model& model) const;

  const Config& cfg_;
  const StudyPlan& plan_;
  par::Context& ctx_;
  std::string path_, restart_;
  bool active_ = false;
  std::int64_t every_ = 0;
  double seconds_ = 0.0, last_time_ = 0.0;
  std::uint64_t last_step_ = 0;
};

}  // namespace lie::studies
