#pragma once
// What global errors are measured against, per grid point: the model's exact solution when it
// has one (and reference.method is not set), otherwise a reference run with a tight
// method named in the experiment file:
//   reference.method = rkmk5, reference.steps = 4096     (fixed steps)
//   reference.method = rkmk54, reference.tol = 1e-12     (adaptive; an embedded pair)
// The reference's own error is estimated by a second run: with half the steps, Richardson's
// |y_n - y_{n/2}| / (2^p - 1) (p = the reference method's order); with 10x the tolerance,
// |y(tol) - y(10 tol)| (an upper bound). A reference must be well below the errors it
// measures: a run whose error at T is at most convergence.reference_factor (10) x this estimate,
// and above the round-off floor convergence.floor_factor (1000) x eps x |y(T)|, is marked failed
// ("the reference does not resolve ..."), and so is every run of a grid point whose reference
// run fails ("reference failed: ..."): the study writes its file and exits 3.
// Certified references (issue 25): with reference.check_method (and reference.check_steps or
// reference.check_tol) a second, independent method integrates the same point, and
// |y_ref(T) - y_check(T)| is stored as the reference's certified error; the error a reference is
// trusted to is then the larger of the estimate and this difference (Reference::error_bound).
// Reference solutions are stored under /references/point_NNNNN (with @certified_error, @check).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "studies/checkpoint.hpp"
#include "studies/output.hpp"
#include "studies/plan.hpp"

namespace lie::studies {

struct Reference {
  std::vector<double> y;         // local part of the solution at T
  double error_estimate = 0.0;   // 0 for an exact solution
  double certified_error = std::numeric_limits<double>::quiet_NaN();  // |y_ref - y_check| (NaN: no check)
  /// The error the reference is trusted to: its estimate, or the independent check's difference
  /// when larger.
  double error_bound() const { return std::isnan(certified_error) ? error_estimate : std::max(error_estimate, certified_error); }
  double scale = 0.0;            // |y(T)|
  std::string description;       // "exact" | "rkmk5 steps=4096" | "rkmk54 tol=1e-12"
  std::string failure;           // "" | why the reference run (or its error estimate run) failed
  double reference_factor = 10.0, floor_factor = 1e3;  // convergence.* keys (see above)
};

/// Why `error` (a run's error at T against `ref`) is not a result, or "" when it is: the
/// reference failed, or it does not resolve the error (see above).
std::string reference_problem(const Reference& ref, double error);

/// The reference of one grid point as the plan resolved it (parse_reference).
struct ReferencePlan {
  bool run = false;                 // a reference run (else the model's exact solution)
  MethodChoice method;              // its method (spec: the name results show)
  bool by_tol = false;              // adaptive (reference.tol), else fixed steps
  std::string tol_text;             // reference.tol as written
  std::int64_t steps = 0;           // fixed: steps of the fine run
  Integration fine, rough;          // the reference run and the run that estimates its error
  double reference_factor = 10.0, floor_factor = 1e3;  // convergence.* keys (see above)
  bool check = false;               // an independent check run (reference.check_method)
  MethodChoice check_method;
  Integration check_run;
  std::string check_description;   // "cf4 steps=4096"
};

/// Reads the reference keys at grid point `point` of the plan (before any file is created): a
/// reference method is registered, applicable to the model, embedded when reference.tol is
/// used, and set wherever the point's model (`model`, StudyPlan's PointModel) has no exact
/// solution. Collective.
// <edge>
ReferencePlan parse_reference(const Config& cfg, const StudyPlan& plan, std::size_t point, const PointModel& model);
// </edge>

class ReferenceSolutions {
 public:
  /// With a checkpointer, the reference runs are executions "reference_NNNNN/fine" and
  /// ".../coarse" of it (replayed or continued on restart).
  ReferenceSolutions(const StudyPlan& plan, par::Context& ctx, StudyOutput& out, Checkpointer* ckpt = nullptr);
  /// The solution at T for grid point `point` with its reference `how` (computed once, then
  /// cached). Collective.
  const Reference& get(std::size_t point, const ReferencePlan& how);

 private:
  const StudyPlan& plan_;
  par::Context& ctx_;
  StudyOutput& out_;
  Checkpointer* ckpt_ = nullptr;
  std::map<std::size_t, Reference> cache_;
};

/// Global error of a run against the reference, as metric cells: "error" (|y(T) - y_ref| by
/// solution_distance, NaN for a failed run or reference), "error_scale", "reference_error",
/// "reference"; a run whose error reference_problem() rejects gets status "failed: <why>".
void add_error_metrics(Row& row, const Model& model, const RunResult& res, const Reference& ref,
                       const par::Context& ctx);

}  // namespace lie::studies
