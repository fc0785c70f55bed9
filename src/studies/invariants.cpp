// study = invariants: manifold errors (|q_i| - 1, q_i.w_i, ||Q^T Q - I||), the relative
// energy error, Casimirs and momenta over time for a grid of methods x step sizes (or
// tolerances) x grid; per observable the max and mean error over the samples and the drift
// rate (slope of a least-squares line). Long runs sample every sample_every steps.
#include <algorithm>

#include "methods/stepper.hpp"
#include "studies/analysis.hpp"
#include "studies/checkpoint.hpp"
#include "studies/interrupt.hpp"
#include "studies/output.hpp"
#include "studies/simulate_support.hpp"

namespace lie::studies {

namespace {

const bool kKeys = declare_options({
    {"invariants.observables", OptionType::String, "auto",
     "observables to analyse: 'auto' (every manifold error, energy, Casimir and momentum the model reports) or a "
     "comma-separated list of names", {}, "invariants"},
});

PlanShape shape() {
  PlanShape s;
  s.step_kinds = {StepKind::Steps, StepKind::Dt, StepKind::Tol};
  return s;
}

std::vector<std::string> chosen_observables(const Config& cfg) {
  const std::string v = cfg.get_string("invariants.observables");
  if (v == "auto") return {};
  return split_list(v);
}

StudyPlan checked_plan(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  StudyPlan plan = make_plan("invariants", cfg, ctx, req, shape());
  const auto chosen = chosen_observables(cfg);
  for (std::size_t p = 0; p < plan.points() && !chosen.empty(); ++p) {
    auto model = make_model(plan.point_configs[p], ctx);
    const auto names = model->observable_names();
    for (const auto& c : chosen) {
      if (std::find(names.begin(), names.end(), c) == names.end()) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        throw UsageError("key 'invariants.observables' names '" + c + "', which model '" + model->name() +
                         "' does not report; it reports: " + list);
      }
      if (observable_role(c) == ObservableRole::Other)
        throw UsageError("key 'invariants.observables' names '" + c + "', which is not a conserved quantity or a "
                         "manifold error (names ending in _error, total_energy, casimir*, *momentum*)");
    }
  }
  return plan;
}

void run(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  InterruptGuard guard;
  io::SafeOutput::check(req.output, req.force, ctx.comm());
  const StudyPlan plan = checked_plan(cfg, ctx, req);
  const auto chosen = chosen_observables(cfg);
  Checkpointer ckpt(cfg, req, plan, ctx);
  StudyOutput out(plan, ctx, req, cfg);
  ckpt.attach(out);
  for (std::size_t i : plan.selected) {
    const RunSpec& r = plan.runs[i];
    const Config& pcfg = plan.point_configs[r.point];
    auto model = make_model(pcfg, ctx);
    auto stepper = make_stepper(r.method, pcfg, *model);
    stepper->bind(*model, ctx);
    h5::Handle g = out.begin_run(r, pcfg);
    Sampling sampling;
    sampling.observables = true;
    sampling.every = sample_stride(pcfg, r);
    sampling.states = pcfg.get_bool("save_state");  // the trajectory figures ([K] Fig 3.1, [P] Figs 2-3)
    const long se = pcfg.get_int("state_every");
    sampling.state_every = se > 0 ? static_cast<std::uint64_t>(se) : sampling.every;
    const Integration integ = integration_for(plan, r, pcfg, stepper->info());
    RunHooks hooks = out.hooks();
    std::unique_ptr<Trajectory> traj;  // save_state runs are not checkpointed (Checkpointer refuses them)
    if (sampling.states) {
      traj = std::make_unique<Trajectory>(out, g, *model);
      hooks.frame = [&](double t, const double* y, std::uint64_t step) { traj->frame(t, y, step); };
    }
    const RunResult res = ckpt.execute(r.id, r.point, *model, *stepper, integ, sampling, hooks,
                                       [&](double f) { out.progress().update(f); });
    if (traj) traj->finish();
    out.write_result(g, res);
    out.write_state(g, "final_state", *model, res.y.data(), plan.t_final);
    Row row = base_row(plan, r, &res, stepper->info());
    if (!integ.adaptive) row.set("sample_every", static_cast<std::int64_t>(sampling.every));
    add_invariant_metrics(row, res.series, chosen);
    add_step_size_metrics(row, res);
    out.end_run(g, r, std::move(row));
    g.reset();
    // a file with a trajectory: H5MD /particles and /observables at the root (first such run)
    out.link_entry_points(r, sampling.states, sampling.states);
  }
  ckpt.complete([&] { out.finish(); });
}

}  // namespace

LIEBENCH_REGISTER(StudyEntry,
                  StudyEntry{"invariants",
                             "manifold errors, energy, Casimirs, momenta over time: max, mean, drift rate",
                             "invariants, energy-drift",
                             [](const Config& cfg, par::Context& ctx) { checked_plan(cfg, ctx, RunRequest{}); }, run})

}  // namespace lie::studies
