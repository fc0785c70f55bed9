#include "studies/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/quote.hpp"
#include "io/table.hpp"
#include "methods/stepper.hpp"
#include "studies/interrupt.hpp"
#include "studies/convergence_analysis.hpp"

namespace lie::studies {

namespace {

const bool kKeys = declare_options({
    {"reference.method", OptionType::String, "",
     "method of the reference solution for global errors when the model has no exact solution (or to override "
     "it), e.g. rkmk5 with reference.steps, or rkmk54 with reference.tol", {}, "reference"},
    {"reference.steps", OptionType::NonNegativeInt, "",
     "steps of a fixed-step reference run (unset or 0: 16 x the largest step count of the study, unless "
     "reference.tol is set)", {}, "reference"},
    {"reference.tol", OptionType::PositiveReal, "", "tolerance of an adaptive reference run (embedded pair)", {},
     "reference"},
});

/// reference.steps when set to a count (0 and unset mean "automatic").
std::int64_t explicit_reference_steps(const Config& cfg) {
  return cfg.was_set("reference.steps") ? cfg.get_int("reference.steps") : 0;
}

bool use_reference_run(const StudyPlan& plan, std::size_t point) {
  return plan.cfg.was_set("reference.method") || !plan.point_has_exact[point];
}

std::int64_t default_reference_steps(const StudyPlan& plan) {
  std::int64_t mx = 0;
  for (const auto& v : plan.step_values) mx = std::max(mx, v.steps);
  return mx > 0 ? 16 * mx : 0;
}

}  // namespace

void ReferenceSolutions::check(const StudyPlan& plan, par::Context& ctx) {
  const Config& cfg = plan.cfg;
  bool needed = false;
  for (std::size_t p = 0; p < plan.points(); ++p) needed = needed || use_reference_run(plan, p);
  if (!needed) return;
  if (!cfg.was_set("reference.method") || cfg.get_string("reference.method").empty())
    throw UsageError("model " + quote(cfg.get_string("model")) + " has no exact solution, so global errors need a reference "
                     "solution: set reference.method (e.g. rkmk5 with reference.steps = 8192, or rkmk54 with "
                     "reference.tol = 1e-12)");
  const std::string m = cfg.get_string("reference.method");
  const MethodEntry& e = method_entry(m, "method (key 'reference.method')");
  const bool by_tol = cfg.was_set("reference.tol");
  if (by_tol && explicit_reference_steps(cfg) > 0)
    throw UsageError("keys 'reference.steps' and 'reference.tol' are both set; give one (reference.steps = 0 "
                     "unsets it)");
  if (by_tol && e.info.embedded_order == 0)
    throw UsageError("key 'reference.method' has value " + quote(m) + ", which has no embedded error estimator, but "
                     "reference.tol is set; use an embedded pair (e.g. rkmk54) or reference.steps");
  if (!by_tol && explicit_reference_steps(cfg) == 0 && default_reference_steps(plan) == 0)
    throw UsageError("set reference.steps or reference.tol for the reference solution (reference.method = " + m + ")");
  for (std::size_t p = 0; p < plan.points(); ++p) {
    if (!use_reference_run(plan, p)) continue;
    auto model = make_model(plan.point_configs[p], ctx);
    make_stepper(m, plan.point_configs[p], *model);
  }
}

ReferenceSolutions::ReferenceSolutions(const StudyPlan& plan, par::Context& ctx, StudyOutput& out,
                                       Checkpointer* ckpt)
    : plan_(plan), ctx_(ctx), out_(out), ckpt_(ckpt) {}

const Reference& ReferenceSolutions::get(std::size_t point) {
  auto it = cache_.find(point);
  if (it != cache_.end()) return it->second;
  const Config& cfg = plan_.point_configs[point];
  auto model = make_model(cfg, ctx_);
  Reference ref;
  ref.y.resize(model->space().state_size());
  const double span = plan_.t_final - plan_.t0;
  std::string method;
  std::int64_t steps = 0;
  double tol = 0.0;
  std::vector<double> coarse;
  double diff = NAN;        // |y_fine - y_coarse| of the two reference runs
  std::string rough_text;   // the coarse run, e.g. "rkmk5 steps=2048"
  if (!use_reference_run(plan_, point)) {
    model->exact_solution(span, ref.y.data());
    ref.description = "exact";
  } else {
    method = method_display_name(plan_.cfg.get_string("reference.method"), cfg);
    auto stepper = make_stepper(method, cfg, *model);
    stepper->bind(*model, ctx_);
    RunHooks hooks;
    hooks.checkpoint = [this](double) { poll_interrupt(ctx_); };
    const bool by_tol = plan_.cfg.was_set("reference.tol");
    Integration fine, rough;
    if (by_tol) {
      tol = plan_.cfg.get_positive("reference.tol");
      fine = adaptive_integration(cfg, stepper->info(), plan_.t0, plan_.t_final, tol, 0.0);
      rough = adaptive_integration(cfg, stepper->info(), plan_.t0, plan_.t_final, 10.0 * tol, 0.0);
      ref.description = method + " tol=" + plan_.cfg.get_string("reference.tol");
    } else {
      steps = explicit_reference_steps(plan_.cfg) > 0 ? explicit_reference_steps(plan_.cfg) : default_reference_steps(plan_);
      fine = fixed_integration(plan_.t0, plan_.t_final, steps);
      rough = fixed_integration(plan_.t0, plan_.t_final, std::max<std::int64_t>(1, steps / 2));
      ref.description = method + " steps=" + std::to_string(steps);
    }
    char label[40];
    std::snprintf(label, sizeof label, "reference_%05zu", point);
    auto run = [&](const Integration& integ, const char* which) {
      if (!ckpt_) return execute_run(*model, *stepper, ctx_, integ, Sampling{.log = false}, hooks);
      return ckpt_->execute(std::string(label) + "/" + which, point, *model, *stepper, integ, Sampling{.log = false}, hooks,
                            [this](double f) { out_.progress().update(f); });
    };
    // A reference run that fails fails the runs measured against it (add_error_metrics), not
    // the program: the study writes its file and exits 3 like any failed run.
    const std::string fix = "; change the reference (reference.method, reference.steps, reference.tol)";
    const RunResult r = run(fine, "fine");
    ref.y = r.y;
    auto why = [](const std::string& status) {
      return status == "nonfinite" ? status + " (the state at T is not finite: the solution blew up)" : status;
    };
    rough_text = method + " " + (by_tol ? "tol=" + io::fmt_general(10.0 * tol) : "steps=" + std::to_string(rough.steps));
    if (!r.ok()) {
      ref.failure = "the reference run (" + ref.description + ") " + why(r.status) + fix;
    } else {
      const RunResult c = run(rough, "coarse");
      coarse = c.y;
      if (c.ok())
        diff = solution_distance(*model, ref.y.data(), coarse.data(), ctx_);
      else
        ref.failure = "the run that estimates the reference's error (" + rough_text + ") " + why(c.status) + fix;
    }
    if (by_tol) {
      ref.error_estimate = diff;  // |y(tol) - y(10 tol)|: an upper bound, no order argument
    } else {
      // Richardson: with error ~ C h^p, |y_n - y_m| = (r^p - 1) err_n for r = n/m
      const double ratio = static_cast<double>(steps) / static_cast<double>(std::max<std::int64_t>(1, steps / 2));
      const int p = std::max(1, stepper->info().order);
      ref.error_estimate = diff / (std::pow(ratio, p) - 1.0);
    }
  }
  ref.scale = solution_norm(*model, ref.y.data(), ctx_);
  // Two reference runs that differ by as much as the solution itself have no digit in common:
  // no error estimate (Richardson's assumes the asymptotic range) can be trusted.
  if (ref.failure.empty() && use_reference_run(plan_, point) && !(diff < ref.scale))
    ref.failure = "the reference has not converged: its runs " + ref.description + " and " + rough_text +
                  " differ by " + io::fmt_sci(diff, 2) + ", as much as |y(T)| = " + io::fmt_sci(ref.scale, 2) +
                  " (no correct digit); change the reference (reference.method, reference.steps, reference.tol) or "
                  "shorten t_final";
  {
    const auto pairs = cfg.resolved_pairs();
    const OrderFitRule rule = fit_rule({pairs.begin(), pairs.end()});
    ref.reference_factor = rule.reference_factor;
    ref.floor_factor = rule.floor_factor;
  }

  // store it
  char name[32];
  std::snprintf(name, sizeof name, "point_%05zu", point);
  h5::Handle g = h5::create_group(out_.file().id(), std::string("references/") + name);
  h5::attr(g, "grid_point", static_cast<std::int64_t>(point));
  std::string params;
  for (const auto& [k, v] : plan_.point_params(point)) params += (params.empty() ? "" : "; ") + k + "=" + v;
  h5::attr(g, "params", params);
  h5::attr(g, "description", ref.description);
  h5::attr(g, "error_estimate", ref.error_estimate);
  h5::attr(g, "status", ref.failure.empty() ? std::string("ok") : "failed: " + ref.failure);
  h5::attr(g, "scale", ref.scale);
  h5::attr(g, "error_estimate_rule",
           ref.description == "exact" ? std::string("exact solution (Model::exact_solution)")
                                      : std::string("fixed steps: |y_n - y_{n/2}| / (2^p - 1) (Richardson); "
                                                    "tolerance: |y(tol) - y(10 tol)|"));
  out_.write_state(g, "final_state", *model, ref.y.data(), plan_.t_final);
  return cache_.emplace(point, std::move(ref)).first->second;
}

std::string reference_problem(const Reference& ref, double error) {
  if (!ref.failure.empty()) return "reference failed: " + ref.failure;
  // Resolved: the error is well above the reference's own (reference_factor x its estimate),
  // or at the round-off floor, where no reference does better.
  const double roundoff = ref.floor_factor * std::numeric_limits<double>::epsilon() * ref.scale;
  const double resolved = ref.reference_factor * ref.error_estimate;
  if (!(error <= resolved) || error <= roundoff) return "";
  return "the reference does not resolve this run's error: error at T " + io::fmt_sci(error, 2) + " is not above " +
         io::fmt_general(ref.reference_factor) + " x the reference's estimated error " +
         io::fmt_sci(ref.error_estimate, 2) + " (" + ref.description +
         "); tighten the reference (more reference.steps, a smaller reference.tol or a higher-order "
         "reference.method)";
}

void add_error_metrics(Row& row, const Model& model, const RunResult& res, const Reference& ref,
                       const par::Context& ctx) {
  const double error =
      res.ok() && ref.failure.empty() ? solution_distance(model, res.y.data(), ref.y.data(), ctx) : NAN;
  row.set("error", error);
  row.set("error_scale", ref.scale);
  row.set("reference_error", ref.error_estimate);
  row.set("reference", ref.description);
  if (!res.ok()) return;  // the run's own failure comes first
  const std::string problem = reference_problem(ref, error);
  if (!problem.empty()) row.set("status", "failed: " + problem);
}

}  // namespace lie::studies
