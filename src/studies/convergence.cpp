// study = convergence: a grid of methods x step counts (x grid axes); the global error at T
// against the exact solution or a reference run; the observed order per method by least
// squares over the asymptotic range (convergence_analysis.cpp, analysis.cpp).
#include <cmath>

#include "methods/stepper.hpp"
#include "studies/output.hpp"
#include "studies/reference.hpp"
#include "studies/study.hpp"
#include "studies/convergence_analysis.hpp"

namespace lie::studies {

namespace {

// The kind's options at a grid point: its reference (the fit rule's keys are read there too,
// declared in convergence_analysis.cpp).
// <edge>
EntryOptions parse(const Config& cfg, const StudyPlan& plan, std::size_t point, const PointModel& model,
                   par::Context&) {
  return parse_reference(cfg, plan, point, model);
}
// </edge>

class Runs final : public KindRuns {
 public:
  explicit Runs(StudyJob& job) : plan_(job.plan), refs_(job.plan, job.ctx, job.out, &job.ckpt) {}
  void prepare(std::size_t point) override { ref_ = &refs_.get(point, plan_.kind_options<ReferencePlan>(point)); }
  RunRecord run(RunContext& run) override {
    const RunResult res = run.integrate();
    run.write(res);
    Row row = run.base_row(&res);
    add_error_metrics(row, run.model, res, *ref_, run.ctx);
    return {std::move(row)};
  }

 private:
  const StudyPlan& plan_;
  ReferenceSolutions refs_;
  const Reference* ref_ = nullptr;
};

StudyEntry entry() {
  StudyEntry e;
  e.name = "convergence";
  e.summary = "global error at T over methods x step sizes (x grid); observed order per method";
  e.shape.step_kinds = {StepKind::Steps, StepKind::Dt};
  e.parse = parse;
  e.tables = {"convergence"};
  e.analysis = [](const h5::File& f, const Summary& s, const std::vector<std::string>& key_columns,
                  const std::map<std::string, std::string>& parameters) {
    write_convergence_analysis(f, s, key_columns, fit_rule(parameters));
  };
  e.start = [](StudyJob& job) -> std::unique_ptr<KindRuns> { return std::make_unique<Runs>(job); };
  return e;
}

}  // namespace

LIEBENCH_REGISTER(StudyEntry, entry())

}  // namespace lie::studies
