// study = simulate: one run per method of `methods` (one grid point, one step value) with time
// series of the observables (energy, invariants, manifold errors) and, with save_state = true,
// the state every state_every steps in the H5MD layout: /particles/<group>/<field>/{step,time,value}
// (value [frames][N][dim]) with /particles/<group>/box, and /observables/<name>/{step,time,value}.
// Both are hard links to the groups of the first method's run, /runs/run_00000; every method's
// run keeps its own under /runs/run_NNNNN.
#include <algorithm>
#include <cmath>

#include "methods/stepper.hpp"
#include "studies/checkpoint.hpp"
#include "studies/interrupt.hpp"
#include "studies/output.hpp"
#include "studies/simulate_support.hpp"

namespace lie::studies {

std::uint64_t sample_stride(const Config& cfg, const RunSpec& r) {
  const long every = cfg.get_int("sample_every");
  if (every > 0) return static_cast<std::uint64_t>(every);
  const double dt = cfg.get_nonnegative("sample_dt");
  if (r.step.kind == StepKind::Tol) return dt > 0.0 ? 0 : 1;  // adaptive: the driver lands on sample_dt times,
                                                               // otherwise every accepted step
  if (dt > 0.0) return static_cast<std::uint64_t>(std::max(1.0, std::round(dt / r.step.h)));
  return static_cast<std::uint64_t>(std::max<std::int64_t>(1, r.step.steps / 1000));
}

Integration integration_for(const StudyPlan& plan, const RunSpec& r, const Config& pcfg, const MethodInfo& info) {
  if (r.step.kind == StepKind::Tol)
    return adaptive_integration(pcfg, info, plan.t0, plan.t_final, r.step.tol, pcfg.get_nonnegative("sample_dt"));
  return fixed_integration(plan.t0, plan.t_final, r.step.steps);
}

Trajectory::Trajectory(StudyOutput& out, hid_t run_group, Model& model) : out_(out), model_(model) {
  layout_ = io::state_rows(model, out.ctx());
  fields_ = model.trajectory_fields();
  if (fields_.empty())
    fields_.push_back({"state", model.state_dim_per_component(), "1", "the raw state rows (see final_state)"});
  const std::string group = "particles/" + model.particle_group();
  root_ = h5::create_group(run_group, group);
  {
    h5::Handle box = h5::create_group(root_, "box");
    h5::attr(box, "dimension", static_cast<std::int64_t>(3));
    h5::attr(box, "boundary", std::vector<std::string>{"none", "none", "none"});
  }
  for (const auto& fld : fields_) {
    h5::Handle g = h5::create_group(root_, fld.name);
    writers_.emplace_back(out.file(), g, "value", layout_.global_rows, static_cast<std::size_t>(fld.dim));
    h5::attr(writers_.back().id(), "unit", fld.unit);
    if (!fld.description.empty()) h5::attr(writers_.back().id(), "description", fld.description);
  }
}

void Trajectory::frame(double t, const double* y, std::uint64_t step) {
  steps_.push_back(static_cast<std::int64_t>(step));
  times_.push_back(t);
  const bool mine = !layout_.replicated || out_.file().writer();
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    const std::size_t dim = static_cast<std::size_t>(fields_[i].dim);
    if (fields_[i].name == "state" && model_.trajectory_fields().empty()) {
      const auto rows = io::pack_rows(model_, layout_, y);
      writers_[i].append(layout_.row_offset, mine ? layout_.local_rows : 0, rows.data());
    } else {
      buf_.assign(layout_.local_rows * dim, 0.0);
      model_.trajectory_field(fields_[i].name, y, buf_.data());
      writers_[i].append(layout_.row_offset, mine ? layout_.local_rows : 0, buf_.data());
    }
  }
}

void Trajectory::finish() {
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    writers_[i].close();
    h5::Handle g = h5::open_group(root_, fields_[i].name);
    h5::write_vector(out_.file(), g, "step", steps_);
    h5::Handle t = h5::write_vector(out_.file(), g, "time", times_);
    h5::attr(t, "unit", "time");
  }
  root_.reset();
}

namespace {

PlanShape shape() {
  PlanShape s;
  s.step_kinds = {StepKind::Steps, StepKind::Dt, StepKind::Tol};
  s.single_point = true;
  return s;
}

StudyPlan checked_plan(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  StudyPlan plan = make_plan("simulate", cfg, ctx, req, shape());
  if (cfg.get_bool("save_state") && plan.step_kind == StepKind::Tol && cfg.get_int("state_every") > 0 &&
      cfg.get_nonnegative("sample_dt") > 0.0)
    throw UsageError("keys 'state_every' and 'sample_dt' are both set for an adaptive run; states are saved at the "
                     "sample times, remove state_every");
  return plan;
}

void run(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  InterruptGuard guard;
  io::SafeOutput::check(req.output, req.force, ctx.comm());
  const StudyPlan plan = checked_plan(cfg, ctx, req);
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
    sampling.states = pcfg.get_bool("save_state");
    const long se = pcfg.get_int("state_every");
    sampling.state_every = se > 0 ? static_cast<std::uint64_t>(se) : sampling.every;
    std::unique_ptr<Trajectory> traj;
    RunHooks hooks = out.hooks();
    if (sampling.states) {
      traj = std::make_unique<Trajectory>(out, g, *model);
      hooks.frame = [&](double t, const double* y, std::uint64_t step) { traj->frame(t, y, step); };
    }
    const Integration integ = integration_for(plan, r, pcfg, stepper->info());
    RunResult res = ckpt.execute(r.id, r.point, *model, *stepper, integ, sampling, hooks,
                                 [&](double f) { out.progress().update(f); });
    if (traj) traj->finish();
    out.write_result(g, res);
    out.write_state(g, "final_state", *model, res.y.data(), plan.t_final);
    Row row = base_row(plan, r, &res, stepper->info());
    if (!integ.adaptive) row.set("sample_every", static_cast<std::int64_t>(sampling.every));
    add_invariant_metrics(row, res.series);
    if (model->capabilities().exact_solution && res.ok()) {
      std::vector<double> ex(res.y.size());
      model->exact_solution(plan.t_final - plan.t0, ex.data());
      row.set("error", solution_distance(*model, res.y.data(), ex.data(), ctx));
      row.set("reference", std::string("exact"));
    }
    add_step_size_metrics(row, res);
    const bool has_particles = sampling.states;
    const bool has_obs = !res.series.step.empty();
    out.end_run(g, r, std::move(row));
    g.reset();
    // H5MD entry points at the root (hard links: the same data, two names).
    if (r.index == 0 && has_particles) h5::hard_link(out.file().id(), "runs/" + r.id + "/particles", "particles");
    if (r.index == 0 && has_obs) h5::hard_link(out.file().id(), "runs/" + r.id + "/observables", "observables");
  }
  ckpt.complete([&] { out.finish(); });
}

}  // namespace

LIEBENCH_REGISTER(StudyEntry,
                  StudyEntry{"simulate",
                             "one run per method: observables over time, optionally the state (H5MD /particles)",
                             "invariants, energy-drift",
                             [](const Config& cfg, par::Context& ctx) { checked_plan(cfg, ctx, RunRequest{}); }, run})

}  // namespace lie::studies
