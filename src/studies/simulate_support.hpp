#pragma once
// Helpers shared by the studies that sample observables (simulate, invariants, adaptive).
#include <cstdint>

#include "methods/stepper.hpp"
#include "studies/execute.hpp"
#include "studies/plan.hpp"

namespace lie::studies {

/// Steps between observable samples of a run: sample_every if set, else sample_dt / h for
/// fixed steps, else about 1000 samples per run. Adaptive runs: every accepted step, or (0)
/// only at the sample_dt times, which the driver hits exactly.
std::uint64_t sample_stride(const Config& cfg, const RunSpec& run);
/// Fixed steps from the run's step value, or adaptive steps for a tolerance.
Integration integration_for(const StudyPlan& plan, const RunSpec& run, const Config& point_cfg, const MethodInfo& info);

}  // namespace lie::studies
