#include "studies/grid_driver.hpp"

#include "methods/stepper.hpp"
#include "studies/checkpoint.hpp"
#include "studies/interrupt.hpp"
#include "studies/output.hpp"
#include "studies/trajectory.hpp"

namespace lie::studies {

namespace {

/// KindRuns of a kind without state between its runs.
class EachRun final : public KindRuns {
 public:
  explicit EachRun(std::function<RunRecord(RunContext&)> body) : body_(std::move(body)) {}
  RunRecord run(RunContext& run) override { return body_(run); }

 private:
  std::function<RunRecord(RunContext&)> body_;
};

}  // namespace

std::function<std::unique_ptr<KindRuns>(StudyJob&)> each_run(std::function<RunRecord(RunContext&)> body) {
  return [body = std::move(body)](StudyJob&) -> std::unique_ptr<KindRuns> { return std::make_unique<EachRun>(body); };
}

RunResult RunContext::integrate(const std::string& label, hid_t where, Stepper& with, const Integration& integ,
                                const Sampling& sampling) {
  RunHooks hooks = out.hooks();
  std::unique_ptr<Trajectory> traj;  // save_state runs are not checkpointed (Checkpointer refuses them)
  if (sampling.states) {
    traj = std::make_unique<Trajectory>(out, where, model);
    hooks.frame = [&](double t, const double* y, std::uint64_t step) { traj->frame(t, y, step); };
  }
  RunResult res = ckpt.execute(label, spec.point, model, with, integ, sampling, hooks,
                               [this](double f) { out.progress().update(f); });
  if (traj) traj->finish();
  return res;
}

void RunContext::write(const RunResult& res) {
  out.write_result(group, res);
  out.write_state(group, "final_state", model, res.y.data(), plan.t_final);
}

Row RunContext::base_row(const RunResult* res) const { return studies::base_row(plan, spec, res, stepper.info()); }

// <edge>
StudyPlan checked_plan(const StudyEntry& kind, const Config& cfg, par::Context& ctx, const RunRequest& req) {
  return make_plan(kind.name, cfg, ctx, req, kind.shape, kind.parse);
}
// </edge>

void run_grid(const StudyEntry& kind, const StudyPlan& plan, par::Context& ctx, const RunRequest& req) {
  InterruptGuard guard;
  io::SafeOutput::check(req.output, req.force, ctx.comm());
  Checkpointer ckpt(req, plan, ctx);
  StudyOutput out(plan, ctx, req);
  ckpt.attach(out);
  StudyJob job{plan, ctx, out, ckpt};
  const std::unique_ptr<KindRuns> runs = kind.start(job);
  // One run's model (instrumented by the kind where it asks) and its bound stepper.
  struct Built {
    std::unique_ptr<Model> model, instrumented;
    std::unique_ptr<Stepper> stepper;
  };
  auto build = [&](const RunSpec& r, const PointPlan& point) {
    runs->prepare(r.point);
    Built b;
    b.model = make_model(point.model, ctx);
    b.instrumented = runs->instrument(*b.model, r);
    Model& bound = b.instrumented ? *b.instrumented : *b.model;
    b.stepper = make_stepper(point.methods.at(r.method_index), bound);
    b.stepper->bind(bound, ctx);
    return b;
  };
  // Rehearsal passes (KindRuns::rehearsals): every run not yet finished, with nothing written.
  for (std::size_t pass = 0; pass < runs->rehearsals(); ++pass)
    for (std::size_t i : plan.selected) {
      const RunSpec& r = plan.runs[i];
      if (ckpt.has_finished(r.id)) continue;
      const PointPlan& point = plan.point(r.point);
      Built b = build(r, point);
      RunContext run{plan, r, point, ctx, out, ckpt, *b.model, *b.stepper, H5I_INVALID_HID};
      runs->rehearse(run);
    }
  for (std::size_t i : plan.selected) {
    const RunSpec& r = plan.runs[i];
    const PointPlan& point = plan.point(r.point);
    Built b = build(r, point);
    h5::Handle g = out.begin_run(r, point);
    RunContext run{plan, r, point, ctx, out, ckpt, *b.model, *b.stepper, g.id()};
    RunRecord rec = runs->run(run);
    out.end_run(g, r, std::move(rec.row));
    g.reset();
    // H5MD entry points at the root (hard links: the same data, two names).
    out.link_entry_points(r, rec.particles, rec.observables);
  }
  const auto& pairs = plan.settings.resolved_pairs;
  const std::map<std::string, std::string> params(pairs.begin(), pairs.end());
  ckpt.complete([&] {
    if (!kind.analysis) return out.finish();
    out.finish([&](const h5::File& f, const Summary& s) { kind.analysis(f, s, plan.key_columns, params); });
  });
}

}  // namespace lie::studies
