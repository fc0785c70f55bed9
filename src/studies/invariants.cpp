// study = invariants: manifold errors (|q_i| - 1, q_i.w_i, ||Q^T Q - I||), the relative
// energy error, Casimirs and momenta over time for a grid of methods x step sizes (or
// tolerances) x grid; per observable the max and mean error over the samples and the drift
// rate (slope of a least-squares line). Long runs sample every sample_every steps.
#include <algorithm>

#include "core/quote.hpp"
#include "methods/stepper.hpp"
#include "studies/analysis.hpp"
#include "studies/output.hpp"
#include "studies/study.hpp"

namespace lie::studies {

namespace {

const bool kKeys = declare_options({
    {"invariants.observables", OptionType::String, "auto",
     "observables to analyse: 'auto' (every manifold error, energy, Casimir and momentum the model reports) or a "
     "comma-separated list of names", {}, "invariants"},
});

/// The kind's options at a grid point: the observables analysed (empty: every one the model
/// reports, invariants.observables = auto).
struct InvariantsKind {
  std::vector<std::string> observables;
};

// <edge>
EntryOptions parse(const Config& cfg, const StudyPlan&, std::size_t, const PointModel& model, par::Context&) {
  InvariantsKind k;
  const std::string v = cfg.get_string("invariants.observables");
  if (v != "auto") k.observables = split_list(v);
  if (k.observables.empty()) return k;
  const auto names = model().observable_names();
  for (const auto& c : k.observables) {
    if (std::find(names.begin(), names.end(), c) == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw UsageError("key 'invariants.observables' names " + quote(c) + ", which model '" + model().name() +
                       "' does not report; it reports: " + list);
    }
    if (observable_role(c) == ObservableRole::Other)
      throw UsageError("key 'invariants.observables' names " + quote(c) + ", which is not a conserved quantity or a "
                       "manifold error (names ending in _error, total_energy, casimir*, *momentum*)");
  }
  return k;
}
// </edge>

// save_state: the trajectory figures ([K] Fig 3.1, [P] Figs 2-3)
RunRecord run(RunContext& run) {
  const RunResult res = run.integrate();
  run.write(res);
  Row row = run.base_row(&res);
  if (!run.spec.integration.adaptive) row.set("sample_every", static_cast<std::int64_t>(run.spec.sampling.every));
  add_invariant_metrics(row, res.series, run.plan.kind_options<InvariantsKind>(run.spec.point).observables);
  add_step_size_metrics(row, res);
  // a file with a trajectory: H5MD /particles and /observables at the root (first such run)
  return {std::move(row), run.spec.sampling.states, run.spec.sampling.states};
}

StudyEntry entry() {
  StudyEntry e;
  e.name = "invariants";
  e.summary = "manifold errors, energy, Casimirs, momenta over time: max, mean, drift rate";
  e.shape.step_kinds = {StepKind::Steps, StepKind::Dt, StepKind::Tol};
  e.shape.sampling = SamplingRule::Stride;
  e.parse = parse;
  e.tables = {"invariants", "energy-drift"};
  e.start = each_run(run);
  return e;
}

}  // namespace

LIEBENCH_REGISTER(StudyEntry, entry())

}  // namespace lie::studies
