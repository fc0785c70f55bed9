#pragma once
// Joining the part files of one study (runs split with --part I/N, one job per scaling
// layout, or the rank groups of ranks_per_run) into the file a single job would have written.
#include <string>
#include <vector>

namespace lie::studies {

/// Serial (call on one rank). Checks that the parts come from one configuration and cover every
/// run exactly once; writes `output` atomically (replacing it only if `force`). Throws
/// UsageError on bad parts.
void merge_study_files(const std::vector<std::string>& inputs, const std::string& output, bool force);

}  // namespace lie::studies
