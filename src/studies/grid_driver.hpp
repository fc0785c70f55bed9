#pragma once
// The one driver of every study kind (studies/study.hpp): validates the plan and the kind's
// keys, opens the checkpoint and the result file, runs the job's runs of the grid (model,
// stepper, the kind's body, its row), the kind's analysis, and finishes the file.
#include "studies/study.hpp"

namespace lie::studies {

/// make_plan with the kind's shape and its parse function (the edge). Collective.
// <edge>
StudyPlan checked_plan(const StudyEntry& kind, const Config& cfg, par::Context& ctx, const RunRequest& req);
// </edge>

/// Runs the job's runs of study `kind` and writes the result file (collective): output path
/// checked before anything is created (the plan, checked_plan, before it); checkpoints (unless the kind is not
/// checkpointed), progress, the run log; the file is renamed into place when complete.
void run_grid(const StudyEntry& kind, const StudyPlan& plan, par::Context& ctx, const RunRequest& req);

}  // namespace lie::studies
