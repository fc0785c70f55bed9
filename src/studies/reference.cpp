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
    {"reference.check_method", OptionType::String, "",
     "a second, independent method that certifies the reference run: |y_ref(T) - y_check(T)| is stored as the "
     "reference's certified error, and errors below reference_factor x max(estimate, certified) are unresolved",
     {}, "reference"},
    {"reference.check_steps", OptionType::NonNegativeInt, "",
     "steps of the check run (unset or 0: the reference's own steps, or its tolerance when reference.tol is set)", {},
     "reference"},
    {"reference.check_tol", OptionType::PositiveReal, "", "tolerance of an adaptive check run (embedded pair)", {},
     "reference"},
});

std::int64_t default_reference_steps(const StudyPlan& plan) {
  std::int64_t mx = 0;
  for (const auto& v : plan.step_values) mx = std::max(mx, v.steps);
  return mx > 0 ? 16 * mx : 0;
}

}  // namespace

// <edge>
ReferencePlan parse_reference(const Config& cfg, const StudyPlan& plan, std::size_t point, const PointModel& model) {
  ReferencePlan how;
  {
    const auto pairs = cfg.resolved_pairs();
    const OrderFitRule rule = fit_rule({pairs.begin(), pairs.end()});
    how.reference_factor = rule.reference_factor;
    how.floor_factor = rule.floor_factor;
  }
  const bool named = cfg.was_set("reference.method") && !cfg.get_string("reference.method").empty();
  how.run = cfg.was_set("reference.method") || !plan.point(point).has_exact;
  if (!how.run) return how;
  if (!named)
    throw UsageError("model " + quote(cfg.get_string("model")) + " has no exact solution, so global errors need a reference "
                     "solution: set reference.method (e.g. rkmk5 with reference.steps = 8192, or rkmk54 with "
                     "reference.tol = 1e-12)");
  const std::string m = cfg.get_string("reference.method");
  const MethodEntry& e = method_entry(m, "method (key 'reference.method')");
  how.by_tol = cfg.was_set("reference.tol");
  const std::int64_t explicit_steps = cfg.was_set("reference.steps") ? cfg.get_int("reference.steps") : 0;
  if (how.by_tol && explicit_steps > 0)
    throw UsageError("keys 'reference.steps' and 'reference.tol' are both set; give one (reference.steps = 0 "
                     "unsets it)");
  if (how.by_tol && e.info.embedded_order == 0)
    throw UsageError("key 'reference.method' has value " + quote(m) + ", which has no embedded error estimator, but "
                     "reference.tol is set; use an embedded pair (e.g. rkmk54) or reference.steps");
  if (!how.by_tol && explicit_steps == 0 && default_reference_steps(plan) == 0)
    throw UsageError("set reference.steps or reference.tol for the reference solution (reference.method = " + m + ")");
  how.method = parse_method(method_display_name(m, cfg), cfg);
  const auto stepper = make_stepper(how.method, model());  // applicable; a user tableau's orders
  if (how.by_tol) {
    const double tol = cfg.get_positive("reference.tol");
    how.tol_text = cfg.get_string("reference.tol");
    how.fine = adaptive_integration(cfg, stepper->info(), plan.t0, plan.t_final, tol, 0.0);
    how.rough = adaptive_integration(cfg, stepper->info(), plan.t0, plan.t_final, 10.0 * tol, 0.0);
  } else {
    how.steps = explicit_steps > 0 ? explicit_steps : default_reference_steps(plan);
    how.fine = fixed_integration(plan.t0, plan.t_final, how.steps);
    how.rough = fixed_integration(plan.t0, plan.t_final, std::max<std::int64_t>(1, how.steps / 2));
  }
  // the independent route (issue 25): another method, by steps or by tolerance
  if (!cfg.was_set("reference.check_method") || cfg.get_string("reference.check_method").empty()) return how;
  const std::string cm = cfg.get_string("reference.check_method");
  const MethodEntry& ce = method_entry(cm, "method (key 'reference.check_method')");
  if (method_display_name(cm, cfg) == how.method.spec)
    throw UsageError("key 'reference.check_method' has value " + quote(cm) + ", the reference's own method; the check "
                     "must be an independent route: name another method (e.g. a different family or order)");
  const std::int64_t check_steps = cfg.was_set("reference.check_steps") ? cfg.get_int("reference.check_steps") : 0;
  const bool check_by_tol = cfg.was_set("reference.check_tol") || (check_steps == 0 && how.by_tol);
  if (cfg.was_set("reference.check_tol") && check_steps > 0)
    throw UsageError("keys 'reference.check_steps' and 'reference.check_tol' are both set; give one");
  if (check_by_tol && ce.info.embedded_order == 0)
    throw UsageError("key 'reference.check_method' has value " + quote(cm) + ", which has no embedded error estimator, "
                     "but the check runs by tolerance (reference.check_tol, or reference.tol when reference.check_steps "
                     "is not set); use an embedded pair or set reference.check_steps");
  how.check = true;
  how.check_method = parse_method(method_display_name(cm, cfg), cfg);
  const auto check_stepper = make_stepper(how.check_method, model());
  if (check_by_tol) {
    const std::string tol_key = cfg.was_set("reference.check_tol") ? "reference.check_tol" : "reference.tol";
    how.check_run = adaptive_integration(cfg, check_stepper->info(), plan.t0, plan.t_final, cfg.get_positive(tol_key), 0.0);
    how.check_description = how.check_method.spec + " tol=" + cfg.get_string(tol_key);
  } else {
    const std::int64_t n = check_steps > 0 ? check_steps : how.steps;
    how.check_run = fixed_integration(plan.t0, plan.t_final, n);
    how.check_description = how.check_method.spec + " steps=" + std::to_string(n);
  }
  return how;
}
// </edge>

ReferenceSolutions::ReferenceSolutions(const StudyPlan& plan, par::Context& ctx, StudyOutput& out,
                                       Checkpointer* ckpt)
    : plan_(plan), ctx_(ctx), out_(out), ckpt_(ckpt) {}

const Reference& ReferenceSolutions::get(std::size_t point, const ReferencePlan& how) {
  auto it = cache_.find(point);
  if (it != cache_.end()) return it->second;
  auto model = make_model(plan_.point(point).model, ctx_);
  Reference ref;
  ref.y.resize(model->space().state_size());
  const double span = plan_.t_final - plan_.t0;
  const std::string& method = how.method.spec;
  const bool by_tol = how.by_tol;
  const std::int64_t steps = how.steps;
  const Integration& fine = how.fine;
  const Integration& rough = how.rough;
  std::vector<double> coarse;
  double diff = NAN;        // |y_fine - y_coarse| of the two reference runs
  std::string rough_text;   // the coarse run, e.g. "rkmk5 steps=2048"
  if (!how.run) {
    model->exact_solution(span, ref.y.data());
    ref.description = "exact";
  } else {
    auto stepper = make_stepper(how.method, *model);
    stepper->bind(*model, ctx_);
    RunHooks hooks;
    hooks.checkpoint = [this](double) { poll_interrupt(ctx_); };
    ref.description = method + (by_tol ? " tol=" + how.tol_text : " steps=" + std::to_string(steps));
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
    rough_text = method + " " + (by_tol ? "tol=" + io::fmt_general(rough.tol) : "steps=" + std::to_string(rough.steps));
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
    if (how.check && ref.failure.empty()) {
      // the independent route: |y_ref - y_check| certifies the reference (to the check's accuracy)
      auto check_stepper = make_stepper(how.check_method, *model);
      check_stepper->bind(*model, ctx_);
      const RunResult c =
          ckpt_ ? ckpt_->execute(std::string(label) + "/check", point, *model, *check_stepper, how.check_run,
                                 Sampling{.log = false}, hooks, [this](double f) { out_.progress().update(f); })
                : execute_run(*model, *check_stepper, ctx_, how.check_run, Sampling{.log = false}, hooks);
      if (c.ok())
        ref.certified_error = solution_distance(*model, ref.y.data(), c.y.data(), ctx_);
      else
        ref.failure = "the independent check of the reference (" + how.check_description + ") " + why(c.status) + fix;
      ref.description += "; checked by " + how.check_description;
    }
  }
  ref.scale = solution_norm(*model, ref.y.data(), ctx_);
  // Two reference runs that differ by as much as the solution itself have no digit in common:
  // no error estimate (Richardson's assumes the asymptotic range) can be trusted.
  if (ref.failure.empty() && how.check && !(ref.certified_error < ref.scale))
    ref.failure = "the reference and its independent check (" + how.check_description + ") differ by " +
                  io::fmt_sci(ref.certified_error, 2) + ", as much as |y(T)| = " + io::fmt_sci(ref.scale, 2) +
                  " (no correct digit); tighten both (reference.*, reference.check_*) or shorten t_final";
  if (ref.failure.empty() && how.run && !(diff < ref.scale))
    ref.failure = "the reference has not converged: its runs " + ref.description + " and " + rough_text +
                  " differ by " + io::fmt_sci(diff, 2) + ", as much as |y(T)| = " + io::fmt_sci(ref.scale, 2) +
                  " (no correct digit); change the reference (reference.method, reference.steps, reference.tol) or "
                  "shorten t_final";
  ref.reference_factor = how.reference_factor;
  ref.floor_factor = how.floor_factor;

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
  if (how.check) {
    h5::attr(g, "certified_error", ref.certified_error);
    h5::attr(g, "check", how.check_description);
  }
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
  const double resolved = ref.reference_factor * ref.error_bound();
  if (!(error <= resolved) || error <= roundoff) return "";
  return "the reference does not resolve this run's error: error at T " + io::fmt_sci(error, 2) + " is not above " +
         io::fmt_general(ref.reference_factor) + " x the reference's " +
         (std::isnan(ref.certified_error) ? "estimated error " : "error (estimate or independent check, the larger) ") +
         io::fmt_sci(ref.error_bound(), 2) + " (" + ref.description +
         "); tighten the reference (more reference.steps, a smaller reference.tol or a higher-order "
         "reference.method)";
}

void add_error_metrics(Row& row, const Model& model, const RunResult& res, const Reference& ref,
                       const par::Context& ctx) {
  const double error =
      res.ok() && ref.failure.empty() ? solution_distance(model, res.y.data(), ref.y.data(), ctx) : NAN;
  row.set("error", error);
  row.set("error_scale", ref.scale);
  row.set("reference_error", ref.error_bound());
  if (!std::isnan(ref.certified_error)) row.set("reference_certified", ref.certified_error);
  row.set("reference", ref.description);
  if (!res.ok()) return;  // the run's own failure comes first
  const std::string problem = reference_problem(ref, error);
  if (!problem.empty()) row.set("status", "failed: " + problem);
}

}  // namespace lie::studies
