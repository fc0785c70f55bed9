#pragma once
// What global errors are measured against, per grid point: the model's exact solution when it
// has one (and reference.method is not set), otherwise a reference run with a tight
// method named in the experiment file:
//   reference.method = rkmk5, reference.steps = 4096     (fixed steps)
//   reference.method = rkmk54, reference.tol = 1e-12     (adaptive; an embedded pair)
// The reference's own error is estimated by a second run: with half the steps, Richardson's
// |y_n - y_{n/2}| / (2^p - 1) (p = the reference method's order); with 10x the tolerance,
// |y(tol) - y(10 tol)| (an upper bound). Convergence fits ignore errors below 10x this.
// Reference solutions are stored under /references/point_NNNNN.
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
  double scale = 0.0;            // |y(T)|
  std::string description;       // "exact" | "rkmk5 steps=4096" | "rkmk54 tol=1e-12"
};

class ReferenceSolutions {
 public:
  /// Validates the reference keys for the plan (before any file is created): a reference
  /// method is registered, applicable to the model, embedded when reference.tol is used, and
  /// set whenever some grid point's model has no exact solution. Collective.
  static void check(const StudyPlan& plan, par::Context& ctx);

  /// With a checkpointer, the reference runs are executions "reference_NNNNN/fine" and
  /// ".../coarse" of it (replayed or continued on restart).
  ReferenceSolutions(const StudyPlan& plan, par::Context& ctx, StudyOutput& out, Checkpointer* ckpt = nullptr);
  /// The solution at T for grid point `point` (computed once, then cached). Collective.
  const Reference& get(std::size_t point);

 private:
  const StudyPlan& plan_;
  par::Context& ctx_;
  StudyOutput& out_;
  Checkpointer* ckpt_ = nullptr;
  std::map<std::size_t, Reference> cache_;
};

/// Global error of a run against the reference, as metric cells: "error" (|y(T) - y_ref| by
/// solution_distance, NaN for a failed run), "error_scale", "reference_error", "reference".
void add_error_metrics(Row& row, const Model& model, const RunResult& res, const Reference& ref,
                       const par::Context& ctx);

}  // namespace lie::studies
