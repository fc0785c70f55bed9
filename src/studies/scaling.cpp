// study = scaling: times `steps` fixed steps of a model/method on the current MPI x OpenMP
// layout and records per-phase times per rank (rhs = model vector field, algebra = the rest of
// the time stepping, io = writing the final state collectively, plus every phase the model
// records in par::Context::timers(), e.g. comm). Every layout of scaling.layouts is a separate
// job (`mpirun -n P` with OMP_NUM_THREADS=T) that computes the runs of its own layout;
// studies/scaling/run_layouts.sh launches them and merges the files; `liebench report
// --table scaling` prints speedup and efficiency.
// Weak scaling multiplies the model key scaling.size_key by the number of cores P x T.
#include <chrono>
#include <cmath>

#include "methods/stepper.hpp"
#include "studies/interrupt.hpp"
#include "studies/output.hpp"

namespace lie::studies {

namespace {

const bool kKeys = declare_options({
    {"scaling.layouts", OptionType::String, "1x1",
     "layouts RANKSxTHREADS, e.g. \"1x1 2x1 1x2\"; each is one job (studies/scaling/run_layouts.sh)", {}, "scaling"},
    {"scaling.mode", OptionType::Choice, "strong",
     "strong: the same problem on every layout; weak: scaling.size_key x (ranks x threads)", {"strong", "weak"},
     "scaling"},
    {"scaling.size_key", OptionType::String, "",
     "weak scaling: the integer model key that sets the problem size, e.g. nfold_pendulum.N (its value is the size "
     "per core)", {}, "scaling"},
    {"scaling.warmup", OptionType::NonNegativeInt, "2", "untimed steps before the timed run (page faults, caches)", {},
     "scaling"},
});

using clock = std::chrono::steady_clock;

/// Forwards everything to the wrapped model and times vector_field / ambient_field ("rhs").
class TimedModel final : public Model {
 public:
  explicit TimedModel(Model& inner) : m_(inner) {}
  double rhs_seconds = 0.0;

  std::string name() const override { return m_.name(); }
  const Space& space() const override { return m_.space(); }
  std::size_t global_components() const override { return m_.global_components(); }
  std::size_t global_offset() const override { return m_.global_offset(); }
  int state_dim_per_component() const override { return m_.state_dim_per_component(); }
  void initial_state(double* y) const override { m_.initial_state(y); }
  void vector_field(double t, const double* y, double* xi) override {
    const auto t1 = clock::now();
    m_.vector_field(t, y, xi);
    rhs_seconds += std::chrono::duration<double>(clock::now() - t1).count();
    ++n_rhs_;
  }
  void observables(double t, const double* y, Observables& out) override { m_.observables(t, y, out); }
  std::vector<std::string> observable_names() const override { return m_.observable_names(); }
  ModelCapabilities capabilities() const override { return m_.capabilities(); }
  void exact_solution(double t, double* y) const override { m_.exact_solution(t, y); }
  void ambient_field(double t, const double* y, double* dy) override {
    const auto t1 = clock::now();
    m_.ambient_field(t, y, dy);
    rhs_seconds += std::chrono::duration<double>(clock::now() - t1).count();
    ++n_rhs_;
  }
  double state_distance(const double* a, const double* b, const par::Context& ctx) const override {
    return m_.state_distance(a, b, ctx);
  }
  std::vector<TrajectoryField> trajectory_fields() const override { return m_.trajectory_fields(); }
  void trajectory_field(const std::string& n, const double* y, double* out) const override {
    m_.trajectory_field(n, y, out);
  }
  std::string particle_group() const override { return m_.particle_group(); }

 private:
  Model& m_;
};

PlanShape shape() {
  PlanShape s;
  s.step_kinds = {StepKind::Steps, StepKind::Dt};
  s.layouts = true;
  s.layout_overrides = [](const Layout& l, const Config& cfg) -> std::vector<std::pair<std::string, std::string>> {
    if (cfg.get_string("scaling.mode") != "weak") return {};
    const std::string key = cfg.get_string("scaling.size_key", "");
    const long per_core = cfg.get_int(key);
    return {{key, std::to_string(per_core * l.ranks * l.threads)}};
  };
  return s;
}

StudyPlan checked_plan(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  if (cfg.get_choice("scaling.mode", {"strong", "weak"}) == "weak") {
    if (!cfg.was_set("scaling.size_key") || cfg.get_string("scaling.size_key").empty())
      throw UsageError("scaling.mode = weak needs scaling.size_key, the integer model key of the problem size (e.g. "
                       "nfold_pendulum.N)");
    const std::string key = cfg.get_string("scaling.size_key");
    const OptionSpec* spec = OptionCatalog::instance().find(key);
    if (!spec)
      throw UsageError("key 'scaling.size_key' names unknown key '" + key + "'; run `liebench run --help` for the keys");
    if (spec->type != OptionType::Int && spec->type != OptionType::PositiveInt && spec->type != OptionType::NonNegativeInt)
      throw UsageError("key 'scaling.size_key' names '" + key + "', which is not an integer key");
    if (!cfg.has(key)) throw UsageError("key '" + key + "' (scaling.size_key) has no value; set the size per core");
  }
  return make_plan("scaling", cfg, ctx, req, shape());
}

void run(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  InterruptGuard guard;
  io::SafeOutput::check(req.output, req.force, ctx.comm());
  const StudyPlan plan = checked_plan(cfg, ctx, req);
  StudyOutput out(plan, ctx, req, cfg);
  const long warmup = cfg.get_int("scaling.warmup");
  for (std::size_t i : plan.selected) {
    const RunSpec& r = plan.runs[i];
    const Config& pcfg = plan.point_configs[r.point];
    auto model = make_model(pcfg, ctx);
    // Time the vector field through a forwarding wrapper, unless the method needs a model
    // interface beyond Model (it casts the model it is bound to).
    const MethodInfo& info = method_entry(r.method, "method").info;
    std::unique_ptr<TimedModel> timed;
    Model* bound = model.get();
    if (info.needs.empty()) {
      timed = std::make_unique<TimedModel>(*model);
      bound = timed.get();
    }
    auto stepper = make_stepper(r.method, pcfg, *bound);
    stepper->bind(*bound, ctx);
    h5::Handle g = out.begin_run(r, pcfg);
    if (warmup > 0) {
      const double h = r.step.h;
      execute_run(*bound, *stepper, ctx, fixed_integration(plan.t0, plan.t0 + h * static_cast<double>(warmup), warmup),
                  Sampling{.log = false}, out.hooks());
    }
    if (timed) timed->rhs_seconds = 0.0;
    ctx.barrier();
    RunResult res = execute_run(*bound, *stepper, ctx, fixed_integration(plan.t0, plan.t_final, r.step.steps),
                                Sampling{.log = false}, out.hooks());
    if (timed) {
      res.phases["rhs"] = timed->rhs_seconds;
      res.phases["algebra"] = res.phases["integrate"] - timed->rhs_seconds;
    }
    const auto t_io = clock::now();
    out.write_state(g, "final_state", *model, res.y.data(), plan.t_final);
    res.phases["io"] = std::chrono::duration<double>(clock::now() - t_io).count();
    out.write_result(g, res);
    Row row = base_row(plan, r, &res, stepper->info());
    row.set("components", static_cast<std::int64_t>(model->global_components()));
    out.end_run(g, r, std::move(row));
  }
  out.finish();
}

}  // namespace

LIEBENCH_REGISTER(StudyEntry,
                  StudyEntry{"scaling",
                             "per-phase times of a fixed number of steps on the current ranks x threads layout "
                             "(one job per layout, merged)",
                             "scaling",
                             [](const Config& cfg, par::Context& ctx) { checked_plan(cfg, ctx, RunRequest{}); }, run})

}  // namespace lie::studies
