#pragma once
// Studies: what `liebench run FILE.cfg` executes. The study kind is the key `study`
// (simulate, convergence, invariants, adaptive, scaling, ...); each kind registers itself
// here from its own .cpp file and writes everything into one HDF5 result file.
#include <functional>
#include <string>

#include "core/registry.hpp"
#include "io/config.hpp"
#include "parallel/context.hpp"

namespace lie {

struct RunRequest {
  std::string output;        // final path of the result file (.h5)
  bool force = false;        // overwrite an existing result file
  bool progress = true;      // progress reports on rank 0 (stderr)
  long part_index = 0;       // run only grid points of part `part_index` of `part_count`
  long part_count = 1;
  std::string restart;       // checkpoint to continue from (default: <output>.ckpt.h5 if present)
  bool rank_group = false;   // one rank group of a ranks_per_run job (its part is merged at once)
};

struct StudyEntry {
  std::string name;
  std::string summary;
  std::string tables;  // report tables this study produces, e.g. "convergence"
  /// Validates the whole configuration (models, methods, grids) without running anything.
  std::function<void(const Config&, par::Context&)> check;
  /// Runs the study and writes the result file (collective). Validates everything `check`
  /// validates first, before any file is created.
  std::function<void(const Config&, par::Context&, const RunRequest&)> run;
};
using StudyRegistry = Registry<StudyEntry>;

/// Looks up the study named by key `study` and runs it (validation first, then the runs).
void run_study(const Config& cfg, par::Context& ctx, const RunRequest& req);
/// Validates everything run_study would (configuration, grid, models, methods, output path)
/// and returns without creating any file (`liebench run FILE.cfg --check`).
void check_study(const Config& cfg, par::Context& ctx, const RunRequest& req);

}  // namespace lie
