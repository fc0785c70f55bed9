// study = simulate: one run per method of `methods` (one grid point, one step value) with time
// series of the observables (energy, invariants, manifold errors) and, with save_state = true,
// the state every state_every steps in the H5MD layout: /particles/<group>/<field>/{step,time,value}
// (value [frames][N][dim]) with /particles/<group>/box, and /observables/<name>/{step,time,value}.
// Both are hard links to the groups of the first method's run, /runs/run_00000; every method's
// run keeps its own under /runs/run_NNNNN.
#include "methods/stepper.hpp"
#include "studies/output.hpp"
#include "studies/study.hpp"

namespace lie::studies {

namespace {

// <edge>
EntryOptions parse(const Config& cfg, const StudyPlan& plan, std::size_t, const PointModel&, par::Context&) {
  if (cfg.get_bool("save_state") && plan.step_kind == StepKind::Tol && cfg.get_int("state_every") > 0 &&
      cfg.get_nonnegative("sample_dt") > 0.0)
    throw UsageError("keys 'state_every' and 'sample_dt' are both set for an adaptive run; states are saved at the "
                     "sample times, remove state_every");
  return {};
}
// </edge>

RunRecord run(RunContext& run) {
  const RunResult res = run.integrate();
  run.write(res);
  Row row = run.base_row(&res);
  if (!run.spec.integration.adaptive) row.set("sample_every", static_cast<std::int64_t>(run.spec.sampling.every));
  add_invariant_metrics(row, res.series);
  if (run.model.capabilities().exact_solution && res.ok()) {
    std::vector<double> ex(res.y.size());
    run.model.exact_solution(run.plan.t_final - run.plan.t0, ex.data());
    row.set("error", solution_distance(run.model, res.y.data(), ex.data(), run.ctx));
    row.set("reference", std::string("exact"));
  }
  add_step_size_metrics(row, res);
  return {std::move(row), run.spec.sampling.states, !res.series.step.empty()};
}

StudyEntry entry() {
  StudyEntry e;
  e.name = "simulate";
  e.summary = "one run per method: observables over time, optionally the state (H5MD /particles)";
  e.shape.step_kinds = {StepKind::Steps, StepKind::Dt, StepKind::Tol};
  e.shape.single_point = true;
  e.shape.sampling = SamplingRule::Stride;
  e.parse = parse;
  e.tables = {"invariants", "energy-drift"};
  e.start = each_run(run);
  return e;
}

}  // namespace

LIEBENCH_REGISTER(StudyEntry, entry())

}  // namespace lie::studies
