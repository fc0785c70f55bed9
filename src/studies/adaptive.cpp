// study = adaptive: tolerance sweeps for embedded pairs ([P] 4, controller eq. (33)):
// accepted/rejected steps, the step-size history, the error at T against the exact or a
// reference solution, and -- with adaptive.compare_method -- a constant-step run of the same
// cost (the paper's RKMK(5,4) vs RKMK5 with the same number of steps, [P] Figs 8-11), over
// any grid (N, L_i, ...).
#include <algorithm>
#include <cmath>
#include <memory>

#include "methods/stepper.hpp"
#include "studies/checkpoint.hpp"
#include "studies/interrupt.hpp"
#include "studies/output.hpp"
#include "studies/reference.hpp"
#include "studies/simulate_support.hpp"

namespace lie::studies {

namespace {

const bool kKeys = declare_options({
    {"adaptive.compare_method", OptionType::String, "",
     "constant-step method run with the same cost as every adaptive run (e.g. rkmk5 for rkmk54, [P] Figs 8-11)", {},
     "adaptive"},
    {"adaptive.compare_cost", OptionType::Choice, "steps",
     "same cost means: 'steps' = the adaptive run's accepted steps ([P] 5.3), 'rhs' = its vector-field evaluations",
     {"steps", "rhs"}, "adaptive"},
});

PlanShape shape() {
  PlanShape s;
  s.step_kinds = {StepKind::Tol};
  s.embedded_only = true;
  return s;
}

StudyPlan checked_plan(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  StudyPlan plan = make_plan("adaptive", cfg, ctx, req, shape());
  ReferenceSolutions::check(plan, ctx);
  if (cfg.was_set("adaptive.compare_method") && !cfg.get_string("adaptive.compare_method").empty()) {
    const std::string m = cfg.get_string("adaptive.compare_method");
    method_entry(m, "method (key 'adaptive.compare_method')");
    for (std::size_t p = 0; p < plan.points(); ++p) {
      auto model = make_model(plan.point_configs[p], ctx);
      make_stepper(m, plan.point_configs[p], *model);
    }
  }
  cfg.get_choice("adaptive.compare_cost", {"steps", "rhs"});
  return plan;
}

void run(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  InterruptGuard guard;
  io::SafeOutput::check(req.output, req.force, ctx.comm());
  const StudyPlan plan = checked_plan(cfg, ctx, req);
  const std::string compare =
      cfg.was_set("adaptive.compare_method") ? method_display_name(cfg.get_string("adaptive.compare_method"), cfg) : "";
  const bool by_rhs = cfg.get_string("adaptive.compare_cost") == "rhs";
  Checkpointer ckpt(cfg, req, plan, ctx);
  StudyOutput out(plan, ctx, req, cfg);
  ckpt.attach(out);
  ReferenceSolutions refs(plan, ctx, out, &ckpt);
  const auto progress = [&](double f) { out.progress().update(f); };
  for (std::size_t i : plan.selected) {
    const RunSpec& r = plan.runs[i];
    const Config& pcfg = plan.point_configs[r.point];
    const Reference& ref = refs.get(r.point);
    auto model = make_model(pcfg, ctx);
    auto stepper = make_stepper(r.method, pcfg, *model);
    stepper->bind(*model, ctx);
    h5::Handle g = out.begin_run(r, pcfg);
    Sampling sampling;
    sampling.observables = true;
    sampling.every = static_cast<std::uint64_t>(pcfg.get_int("sample_every"));  // 0: t0 and T (and sample_dt times)
    // save_state: the trajectory at the accepted steps (state_every k: every k-th) or the sample_dt
    // times, for the solution and step-size figures of [P] Figs 9 and 11
    const bool states = pcfg.get_bool("save_state");
    sampling.states = states;
    sampling.state_every = static_cast<std::uint64_t>(std::max(1L, pcfg.get_int("state_every")));
    const Integration integ = integration_for(plan, r, pcfg, stepper->info());
    RunHooks hooks = out.hooks();
    std::unique_ptr<Trajectory> traj;
    if (states) {
      traj = std::make_unique<Trajectory>(out, g, *model);
      hooks.frame = [&](double t, const double* y, std::uint64_t step) { traj->frame(t, y, step); };
    }
    const RunResult res = ckpt.execute(r.id, r.point, *model, *stepper, integ, sampling, hooks, progress);
    if (traj) traj->finish();
    out.write_result(g, res);
    out.write_state(g, "final_state", *model, res.y.data(), plan.t_final);
    Row row = base_row(plan, r, &res, stepper->info());
    add_error_metrics(row, *model, res, ref, ctx);
    add_step_size_metrics(row, res);
    if (res.ok() && res.adaptive && !res.adaptive->h.empty())
      row.set("h_mean", (plan.t_final - plan.t0) / static_cast<double>(res.adaptive->accepted));
    add_invariant_metrics(row, res.series);
    if (!compare.empty() && res.ok()) {
      auto cstep = make_stepper(compare, pcfg, *model);
      cstep->bind(*model, ctx);
      const int stages = std::max(1, cstep->info().stages);
      const auto& a = *res.adaptive;
      const std::int64_t n =
          by_rhs ? std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(static_cast<double>(res.counters.rhs) /
                                                                                  stages)))
                 : std::max<std::int64_t>(1, static_cast<std::int64_t>(a.accepted));
      // <run>/compare: the comparison run's timings (work-precision diagrams) and, with save_state,
      // its trajectory at every step
      h5::Handle cg = h5::create_group(g, "compare");
      h5::attr(cg, "description", "the constant-step comparison run of equal cost (adaptive.compare_method)");
      Sampling csampling;
      csampling.states = states;
      csampling.state_every = 1;
      csampling.log = false;  // auxiliary run: no periodic log lines
      RunHooks chooks = out.hooks();
      std::unique_ptr<Trajectory> ctraj;
      if (states) {
        ctraj = std::make_unique<Trajectory>(out, cg, *model);
        chooks.frame = [&](double t, const double* y, std::uint64_t step) { ctraj->frame(t, y, step); };
      }
      const RunResult c = ckpt.execute(r.id + "/compare", r.point, *model, *cstep,
                                        fixed_integration(plan.t0, plan.t_final, n), csampling, chooks, progress);
      if (ctraj) ctraj->finish();
      out.write_result(cg, c);
      row.set("compare_method", compare);
      row.set("compare_steps", n);
      row.set("compare_rhs_evaluations", static_cast<std::int64_t>(c.counters.rhs));
      const double cerr = c.ok() && ref.failure.empty() ? solution_distance(*model, c.y.data(), ref.y.data(), ctx) : NAN;
      row.set("compare_error", cerr);
      // the comparison's error needs the reference as much as the run's (reference.hpp)
      const std::string problem = c.ok() ? reference_problem(ref, cerr) : "";
      const Value* st = row.find("status");
      if (!problem.empty() && st && std::get<std::string>(*st) == "ok")
        row.set("status", "failed: constant-step comparison run (" + compare + " steps=" + std::to_string(n) + "): " +
                              problem);
      out.write_state(g, "compare_final_state", *model, c.y.data(), plan.t_final);
    }
    out.end_run(g, r, std::move(row));
    g.reset();
    // a file with a trajectory: H5MD /particles and /observables at the root (first such run)
    out.link_entry_points(r, states, states);
  }
  ckpt.complete([&] { out.finish(); });
}

}  // namespace

LIEBENCH_REGISTER(StudyEntry,
                  StudyEntry{"adaptive",
                             "tolerance sweeps of embedded pairs: steps, step-size history, error at T, constant-step "
                             "comparison of equal cost",
                             "adaptive",
                             [](const Config& cfg, par::Context& ctx) { checked_plan(cfg, ctx, RunRequest{}); }, run})

}  // namespace lie::studies
