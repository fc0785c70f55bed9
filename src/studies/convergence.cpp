// study = convergence: a grid of methods x step counts (x grid axes); the global error at T
// against the exact solution or a reference run; the observed order per method by least
// squares over the asymptotic range (tables.cpp, analysis.cpp).
#include <cmath>

#include "methods/stepper.hpp"
#include "studies/checkpoint.hpp"
#include "studies/interrupt.hpp"
#include "studies/output.hpp"
#include "studies/reference.hpp"
#include "studies/tables.hpp"

namespace lie::studies {

namespace {

PlanShape shape() {
  PlanShape s;
  s.step_kinds = {StepKind::Steps, StepKind::Dt};
  return s;
}

StudyPlan checked_plan(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  StudyPlan plan = make_plan("convergence", cfg, ctx, req, shape());
  ReferenceSolutions::check(plan, ctx);
  fit_rule({});  // keys are declared in tables.cpp
  return plan;
}

void run(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  InterruptGuard guard;
  io::SafeOutput::check(req.output, req.force, ctx.comm());
  const StudyPlan plan = checked_plan(cfg, ctx, req);
  Checkpointer ckpt(cfg, req, plan, ctx);
  StudyOutput out(plan, ctx, req, cfg);
  ckpt.attach(out);
  ReferenceSolutions refs(plan, ctx, out, &ckpt);
  for (std::size_t i : plan.selected) {
    const RunSpec& r = plan.runs[i];
    const Config& pcfg = plan.point_configs[r.point];
    const Reference& ref = refs.get(r.point);
    auto model = make_model(pcfg, ctx);
    auto stepper = make_stepper(r.method, pcfg, *model);
    stepper->bind(*model, ctx);
    h5::Handle g = out.begin_run(r, pcfg);
    const RunResult res = ckpt.execute(r.id, r.point, *model, *stepper,
                                       fixed_integration(plan.t0, plan.t_final, r.step.steps), Sampling{}, out.hooks(),
                                       [&](double f) { out.progress().update(f); });
    out.write_result(g, res);
    out.write_state(g, "final_state", *model, res.y.data(), plan.t_final);
    Row row = base_row(plan, r, &res, stepper->info());
    add_error_metrics(row, *model, res, ref, ctx);
    out.end_run(g, r, std::move(row));
  }
  const auto pairs = cfg.resolved_pairs();
  const std::map<std::string, std::string> params(pairs.begin(), pairs.end());
  ckpt.complete([&] {
    out.finish([&](const h5::File& f, const Summary& s) {
      write_convergence_analysis(f, s, plan.key_columns, fit_rule(params));
    });
  });
}

}  // namespace

LIEBENCH_REGISTER(StudyEntry,
                  StudyEntry{"convergence",
                             "global error at T over methods x step sizes (x grid); observed order per method",
                             "convergence",
                             [](const Config& cfg, par::Context& ctx) { checked_plan(cfg, ctx, RunRequest{}); }, run})

}  // namespace lie::studies
