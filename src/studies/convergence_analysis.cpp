#include "studies/convergence_analysis.hpp"

#include <algorithm>
#include <cmath>

#include "io/config.hpp"
#include "io/units.hpp"

namespace lie::studies {

namespace {

const bool kKeys = declare_options({
    {"convergence.fit_residual", OptionType::PositiveReal, "0.1",
     "observed order: largest |residual| (log10 units) of a point in the fitted range", {}, "convergence"},
    {"convergence.rate_tolerance", OptionType::PositiveReal, "0.1",
     "observed order: largest difference between a segment rate in the fitted range and the slope", {},
     "convergence"},
    {"convergence.floor_factor", OptionType::PositiveReal, "1000",
     "observed order: ignore errors below floor_factor x eps x |y(T)| (round-off floor)", {}, "convergence"},
    {"convergence.reference_factor", OptionType::PositiveReal, "10",
     "a run whose error at T is at most reference_factor x the reference solution's error estimate (and above "
     "the round-off floor) fails: the reference does not resolve it (convergence, adaptive); the observed order "
     "ignores such errors", {}, "convergence"},
    {"convergence.min_points", OptionType::PositiveInt, "3", "observed order: size of the finest window the fitted range grows from", {},
     "convergence"},
});

double param_double(const std::map<std::string, std::string>& p, const std::string& key, double fallback) {
  auto it = p.find(key);
  if (it == p.end() || it->second.empty()) return fallback;
  return parse_double(key, it->second);
}

}  // namespace

OrderFitRule fit_rule(const std::map<std::string, std::string>& p) {
  OrderFitRule r;
  r.max_residual = param_double(p, "convergence.fit_residual", r.max_residual);
  r.floor_factor = param_double(p, "convergence.floor_factor", r.floor_factor);
  r.rate_tolerance = param_double(p, "convergence.rate_tolerance", r.rate_tolerance);
  r.reference_factor = param_double(p, "convergence.reference_factor", r.reference_factor);
  r.min_points = static_cast<std::size_t>(param_double(p, "convergence.min_points", static_cast<double>(r.min_points)));
  return r;
}

std::vector<ConvergenceSeries> convergence_series(const Summary& s, const std::vector<std::string>& key_columns,
                                                  const OrderFitRule& rule) {
  std::vector<std::string> gcols;
  for (const auto& k : key_columns)
    if (!is_step_column(k) && s.has(k)) gcols.push_back(k);
  std::vector<ConvergenceSeries> out;
  for (std::size_t i = 0; i < s.rows(); ++i) {
    const std::string g = group_label(s, gcols, i);
    const std::string m = text_at(s, "method", i);
    ConvergenceSeries* se = nullptr;
    for (auto& x : out)
      if (x.group == g && x.method == m) se = &x;
    if (!se) {
      out.push_back({});
      se = &out.back();
      se->group = g;
      se->method = m;
      se->nominal_order = static_cast<std::int64_t>(real_at(s, "method_order", i));
    }
    (failed_at(s, i) ? se->failed_rows : se->rows).push_back(i);
  }
  for (auto& se : out) {
    std::stable_sort(se.rows.begin(), se.rows.end(),
                     [&](std::size_t a, std::size_t b) { return real_at(s, "h", a) > real_at(s, "h", b); });
    for (std::size_t r : se.rows) {
      se.h.push_back(real_at(s, "h", r));
      se.error.push_back(real_at(s, "error", r));
      const double sc = real_at(s, "error_scale", r), re = real_at(s, "reference_error", r);
      if (std::isfinite(sc)) se.scale = std::max(se.scale, sc);
      if (std::isfinite(re)) se.reference_error = std::max(se.reference_error, re);
    }
    se.fit = observed_order(se.h, se.error, se.scale, se.reference_error, rule);
    // why there is no order, with the failed runs the fit never sees
    if (se.rows.empty()) se.fit.no_order = "no order: every run failed";
    else if (!se.fit.no_order.empty() && !se.failed_rows.empty())
      se.fit.no_order += "; " + std::to_string(se.failed_rows.size()) + " failed run(s) left out";
  }
  return out;
}

void write_convergence_analysis(const h5::File& f, const Summary& s, const std::vector<std::string>& key_columns,
                                const OrderFitRule& rule) {
  const auto series = convergence_series(s, key_columns, rule);
  h5::Handle g = h5::create_group(f.id(), "analysis/convergence");
  h5::attr(g, "description", "observed order of every method (and grid point) from the runs in this file");
  h5::attr(g, "rule", rule.describe());
  std::vector<std::string> group, method;
  std::vector<std::int64_t> nominal, points;
  std::vector<double> order, hmin, hmax, floor, resid;
  std::vector<std::string> note;
  std::vector<std::int64_t> in_fit(s.rows(), 0);
  for (const auto& se : series) {
    group.push_back(se.group);
    method.push_back(se.method);
    nominal.push_back(se.nominal_order);
    points.push_back(static_cast<std::int64_t>(se.fit.points));
    order.push_back(se.fit.order);
    hmin.push_back(se.fit.h_min);
    hmax.push_back(se.fit.h_max);
    floor.push_back(se.fit.floor);
    resid.push_back(se.fit.max_residual);
    note.push_back(se.fit.no_order);
    for (std::size_t k = 0; k < se.rows.size(); ++k) in_fit[se.rows[k]] = se.fit.used[k] ? 1 : 0;
  }
  h5::write_vector(f, g, "group", group);
  h5::write_vector(f, g, "method", method);
  h5::write_vector(f, g, "nominal_order", nominal);
  h5::Handle d = h5::write_vector(f, g, "observed_order", order);
  h5::attr(d, "description", "least-squares slope of log10(error) vs log10(h) over the fit range");
  const io::Units units = io::Units::from_file(f.id());
  d = h5::write_vector(f, g, "fit_h_min", hmin);
  io::write_unit(d, units.time());
  d = h5::write_vector(f, g, "fit_h_max", hmax);
  io::write_unit(d, units.time());
  h5::write_vector(f, g, "fit_points", points);
  d = h5::write_vector(f, g, "error_floor", floor);
  h5::attr(d, "description", "errors at or below this were excluded (round-off / reference accuracy)");
  h5::write_vector(f, g, "fit_max_residual", resid);
  d = h5::write_vector(f, g, "no_order", note);
  h5::attr(d, "description", "why a series has no observed order (NaN): \"no order: ...\"; \"\" when it has one");
  d = h5::write_vector(f, g, "in_fit", in_fit);
  h5::attr(d, "description", "per /summary row: 1 if the run was used by its series' fit");
}

}  // namespace lie::studies
