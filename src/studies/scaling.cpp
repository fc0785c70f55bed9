// study = scaling: times `steps` fixed steps of a model/method on the current MPI x OpenMP
// layout and records per-phase times per rank (rhs = model vector field, algebra = the rest of
// the time stepping, io = writing the final state collectively, plus every phase the model
// records in par::Context::timers(), e.g. comm). Every layout of scaling.layouts is a separate
// job (`mpirun -n P` with OMP_NUM_THREADS=T) that computes the runs of its own layout;
// scripts/run_layouts.sh launches them and merges the files; `liebench report
// --table scaling` prints speedup and efficiency.
// Weak scaling multiplies the model key scaling.size_key by the number of cores P x T.
#include <chrono>
#include <cmath>

#include "core/quote.hpp"
#include "methods/stepper.hpp"
#include "studies/output.hpp"
#include "studies/study.hpp"

namespace lie::studies {

namespace {

const bool kKeys = declare_options({
    {"scaling.layouts", OptionType::String, "1x1",
     "layouts RANKSxTHREADS, e.g. \"1x1 2x1 1x2\"; each is one job (scripts/run_layouts.sh)", {}, "scaling"},
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

/// Weak scaling: the model key scaling.size_key times the cores of the layout; its keys are
/// checked here, before the first grid point is built.
// <edge>
std::vector<std::pair<std::string, std::string>> weak_sizes(const Layout& l, const Config& cfg) {
  if (cfg.get_choice("scaling.mode", {"strong", "weak"}) != "weak") return {};
  if (!cfg.was_set("scaling.size_key") || cfg.get_string("scaling.size_key").empty())
    throw UsageError("scaling.mode = weak needs scaling.size_key, the integer model key of the problem size (e.g. "
                     "nfold_pendulum.N)");
  const std::string key = cfg.get_string("scaling.size_key");
  const OptionSpec* spec = OptionCatalog::instance().find(key);
  if (!spec)
    throw UsageError("key 'scaling.size_key' names unknown key " + quote(key) + "; run `liebench run --help` for the keys");
  if (spec->type != OptionType::Int && spec->type != OptionType::PositiveInt && spec->type != OptionType::NonNegativeInt)
    throw UsageError("key 'scaling.size_key' names " + quote(key) + ", which is not an integer key");
  if (!cfg.has(key)) throw UsageError("key " + quote(key) + " (scaling.size_key) has no value; set the size per core");
  const long per_core = cfg.get_int(key);
  return {{key, std::to_string(per_core * l.ranks * l.threads)}};
}

/// The kind's options at a grid point: warm-up steps before the timed run.
struct ScalingKind {
  long warmup = 0;
};

EntryOptions parse(const Config& cfg, const StudyPlan&, std::size_t, const PointModel&, par::Context&) {
  return ScalingKind{cfg.get_int("scaling.warmup")};
}
// </edge>

class Runs final : public KindRuns {
 public:
  explicit Runs(StudyJob& job) : plan_(job.plan) {}
  // Time the vector field through a forwarding wrapper, unless the method needs a model
  // interface beyond Model (it casts the model it is bound to).
  std::unique_ptr<Model> instrument(Model& model, const RunSpec& run) override {
    timed_ = nullptr;
    if (!method_entry(run.method, "method").info.needs.empty()) return nullptr;
    auto timed = std::make_unique<TimedModel>(model);
    timed_ = timed.get();
    return timed;
  }
  RunRecord run(RunContext& run) override;

 private:
  const StudyPlan& plan_;
  TimedModel* timed_ = nullptr;  // the wrapper of the current run (instrument), or null
};

RunRecord Runs::run(RunContext& run) {
  const StudyPlan& plan = run.plan;
  const long warmup_ = plan_.kind_options<ScalingKind>(run.spec.point).warmup;
  if (warmup_ > 0) {
    const double h = run.spec.step.h;
    execute_run(run.model, run.stepper, run.ctx,
                fixed_integration(plan.t0, plan.t0 + h * static_cast<double>(warmup_), warmup_), run.spec.sampling,
                run.out.hooks());
  }
  if (timed_) timed_->rhs_seconds = 0.0;
  run.ctx.barrier();
  RunResult res = execute_run(run.model, run.stepper, run.ctx, run.spec.integration, run.spec.sampling, run.out.hooks());
  if (timed_) {
    res.phases["rhs"] = timed_->rhs_seconds;
    res.phases["algebra"] = res.phases["integrate"] - timed_->rhs_seconds;
  }
  const auto t_io = clock::now();
  run.out.write_state(run.group, "final_state", run.model, res.y.data(), plan.t_final);
  res.phases["io"] = std::chrono::duration<double>(clock::now() - t_io).count();
  run.out.write_result(run.group, res);
  Row row = run.base_row(&res);
  row.set("components", static_cast<std::int64_t>(run.model.global_components()));
  return {std::move(row)};
}

StudyEntry entry() {
  StudyEntry e;
  e.name = "scaling";
  e.summary = "per-phase times of a fixed number of steps on the current ranks x threads layout (one job per layout, "
              "merged)";
  e.shape.step_kinds = {StepKind::Steps, StepKind::Dt};
  e.shape.layouts = true;
  e.shape.layout_overrides = weak_sizes;
  e.parse = parse;
  e.shape.timed = true;
  e.not_checkpointed = "study = scaling measures wall time (a stopped and continued timing is no timing); it is not "
                       "checkpointed";
  e.tables = {"scaling"};
  e.start = [](StudyJob& job) -> std::unique_ptr<KindRuns> { return std::make_unique<Runs>(job); };
  e.columns = {
      {"components", {"", "global number of model components (links, bodies)"}},
  };
  return e;
}

}  // namespace

LIEBENCH_REGISTER(StudyEntry, entry())

}  // namespace lie::studies
