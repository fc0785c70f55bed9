#include "report/tables.hpp"

#include "io/units.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/error.hpp"
#include "core/quote.hpp"
#include "io/config.hpp"
#include "studies/output.hpp"

namespace lie::studies {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kFailed = "failed";
/// The scaling table flags a simulated run whose cost-model seconds per step differ from the
/// simulated ones by more than this fraction (|model - sim| / sim).
constexpr double kModelFlag = 0.20;

std::string param(const std::map<std::string, std::string>& p, const std::string& key, const std::string& fallback) {
  auto it = p.find(key);
  return it == p.end() || it->second.empty() ? fallback : it->second;
}

/// Grid columns: key columns that are not the method or the step axis.
std::vector<std::string> group_columns(const StudyFile& f) {
  std::vector<std::string> out;
  for (const auto& k : f.key_columns)
    if (!is_step_column(k) && k != "layout" && f.summary.has(k)) out.push_back(k);
  return out;
}

std::string int_text(const Summary& s, const std::string& col, std::size_t row) {
  const double v = real_at(s, col, row);
  if (!std::isfinite(v)) return "";
  return std::to_string(static_cast<long long>(v));
}

/// A result cell: "failed" for a failed run, else the number.
std::string metric_sci(const Summary& s, const std::string& col, std::size_t row, int digits) {
  return failed_at(s, row) ? kFailed : io::fmt_sci(real_at(s, col, row), digits);
}

void add_failures(const StudyFile& f, io::Table& t) {
  if (!f.summary.has("status")) return;
  const Column& st = f.summary.get("status");
  for (std::size_t i = 0; i < f.summary.rows(); ++i)
    if (run_failed(st.text(i)))
      t.notes.push_back("run " + text_at(f.summary, "run_id", i) + " (" + text_at(f.summary, "method", i) + "): " +
                        st.text(i));
}

std::string step_column(const StudyFile& f) {
  if (f.summary.has("steps")) return "steps";
  if (f.summary.has("tol")) return "tol";
  return "";
}

std::string step_text(const StudyFile& f, std::size_t i) {
  if (f.summary.has("steps")) return int_text(f.summary, "steps", i);
  if (f.summary.has("tol")) return io::fmt_sci(real_at(f.summary, "tol", i), 1);
  return "";
}

std::string range_text(double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b)) return "-";
  std::string s = "[";
  s += io::fmt_sci(a, 2);
  s += ", ";
  s += io::fmt_sci(b, 2);
  s += ']';
  return s;
}

// ------------------------------------------------------------------ convergence
/// The observed-order cell: the slope, or "no order" (the reason is a note, add_no_order_notes).
std::string order_text(const OrderFit& fit, int decimals) {
  return fit.no_order.empty() ? io::fmt_fixed(fit.order, decimals) : "no order";
}

/// One note per series without an order: "<method> (<group>): no order: <why>".
void add_no_order_notes(const std::vector<ConvergenceSeries>& series, io::Table& t) {
  for (const auto& se : series)
    if (!se.fit.no_order.empty())
      t.notes.push_back(se.method + (se.group.empty() ? "" : " (" + se.group + ")") + ": " + se.fit.no_order);
}

std::vector<io::Table> convergence_tables(const StudyFile& f, io::TableFormat format) {
  const Summary& s = f.summary;
  if (!s.has("error") || !s.has("h")) throw UsageError("the file has no global errors per step size (table convergence)");
  const auto series = convergence_series(s, f.key_columns, fit_rule(f.parameters));
  const auto rule = fit_rule(f.parameters);
  std::vector<io::Table> out;
  if (format == io::TableFormat::Csv) {
    io::Table t;
    t.title = "convergence: global error at T = " + io::fmt_general(f.t_final) + " per step size, observed order";
    t.header = {"group", "method", "nominal_order", "steps", "h", "error", "rate", "in_fit", "observed_order",
                "fit_h_min", "fit_h_max", "fit_points"};
    t.numeric = {false, false, true, true, true, true, true, true, true, true, true, true};
    t.notes.push_back("observed order: " + rule.describe());
    add_no_order_notes(series, t);
    for (const auto& se : series)
      for (std::size_t k = 0; k < se.rows.size(); ++k) {
        const double rate = k == 0 ? kNaN : std::log(se.error[k - 1] / se.error[k]) / std::log(se.h[k - 1] / se.h[k]);
        t.rows.push_back({se.group, se.method, std::to_string(se.nominal_order), int_text(s, "steps", se.rows[k]),
                          io::fmt_sci(se.h[k], 6), io::fmt_sci(se.error[k], 6), k == 0 ? "" : io::fmt_fixed(rate, 3),
                          se.fit.used[k] ? "1" : "0", order_text(se.fit, 3), io::fmt_sci(se.fit.h_min, 6),
                          io::fmt_sci(se.fit.h_max, 6), std::to_string(se.fit.points)});
      }
    for (const auto& se : series)
      for (std::size_t r : se.failed_rows)
        t.rows.push_back({se.group, se.method, std::to_string(se.nominal_order), int_text(s, "steps", r),
                          io::fmt_sci(real_at(s, "h", r), 6), kFailed, kFailed, "0", order_text(se.fit, 3),
                          io::fmt_sci(se.fit.h_min, 6), io::fmt_sci(se.fit.h_max, 6), std::to_string(se.fit.points)});
    add_failures(f, t);
    out.push_back(std::move(t));
    return out;
  }
  // one error table and one order table per group
  std::vector<std::string> groups;
  for (const auto& se : series)
    if (std::find(groups.begin(), groups.end(), se.group) == groups.end()) groups.push_back(se.group);
  for (const auto& g : groups) {
    std::vector<const ConvergenceSeries*> ss;
    for (const auto& se : series)
      if (se.group == g) ss.push_back(&se);
    // all step sizes of the group, coarse first
    std::vector<double> hs;
    for (const auto* se : ss) {
      std::vector<double> all_h = se->h;
      for (std::size_t r : se->failed_rows) all_h.push_back(real_at(s, "h", r));
      for (double h : all_h)
        if (std::find(hs.begin(), hs.end(), h) == hs.end()) hs.push_back(h);
    }
    std::sort(hs.begin(), hs.end(), std::greater<>());
    io::Table t;
    t.title = "Global error at T = " + io::fmt_general(f.t_final) + (g.empty() ? "" : " (" + g + ")") +
              ", model " + f.model + "; rate = log(e_coarse/e_fine)/log(h_coarse/h_fine)";
    t.header = {"steps", "h"};
    t.numeric = {true, true};
    t.key_columns = 2;
    t.column_stride = 2;  // a method's error and rate stay together
    for (const auto* se : ss) {
      t.header.push_back(se->method);
      t.header.push_back("rate");
      t.numeric.push_back(true);
      t.numeric.push_back(true);
    }
    for (double h : hs) {
      std::vector<std::string> row;
      std::string steps;
      for (const auto* se : ss)
        for (std::size_t k = 0; k < se->h.size(); ++k)
          if (se->h[k] == h) steps = int_text(s, "steps", se->rows[k]);
      for (const auto* se : ss)
        for (std::size_t r : se->failed_rows)
          if (real_at(s, "h", r) == h) steps = int_text(s, "steps", r);
      row.push_back(steps);
      row.push_back(io::fmt_sci(h, 3));
      for (const auto* se : ss) {
        std::string e, r;
        for (std::size_t k = 0; k < se->h.size(); ++k)
          if (se->h[k] == h) {
            e = io::fmt_sci(se->error[k], 3) + (se->fit.used[k] ? "" : "*");
            if (k > 0) r = io::fmt_fixed(std::log(se->error[k - 1] / se->error[k]) / std::log(se->h[k - 1] / se->h[k]), 2);
          }
        for (std::size_t fr : se->failed_rows)
          if (real_at(s, "h", fr) == h) e = kFailed;
        row.push_back(e);
        row.push_back(r);
      }
      t.rows.push_back(std::move(row));
    }
    t.notes.push_back("* = outside the range used for the observed order");
    if (!ss.empty() && !ss.front()->rows.empty() && s.has("reference")) {
      const std::string ref = text_at(s, "reference", ss.front()->rows.front());
      t.notes.push_back("errors against: " + ref +
                        (ref == "exact" ? "" : " (estimated reference error " + io::fmt_sci(ss.front()->reference_error, 2) + ")"));
    }
    out.push_back(std::move(t));

    io::Table o;
    o.title = "Observed order" + (g.empty() ? std::string() : " (" + g + ")");
    o.header = {"method", "nominal order", "observed order", "difference", "h range of the fit", "points"};
    o.numeric = {false, true, true, true, false, true};
    std::vector<ConvergenceSeries> without;
    for (const auto* se : ss) {
      const bool none = !se->fit.no_order.empty();
      o.rows.push_back({se->method, std::to_string(se->nominal_order), order_text(se->fit, 2),
                        none ? "-" : io::fmt_fixed(se->fit.order - static_cast<double>(se->nominal_order), 2),
                        range_text(se->fit.h_min, se->fit.h_max), std::to_string(se->fit.points)});
      if (none) without.push_back(*se);
    }
    o.notes.push_back("observed order: " + rule.describe());
    add_no_order_notes(without, o);
    out.push_back(std::move(o));
  }
  if (!out.empty()) add_failures(f, out.back());
  return out;
}

// ------------------------------------------------------------------ invariants
struct MetricPrefix {
  std::string prefix;
};

std::vector<std::string> metric_prefixes(const Summary& s, bool energy_only) {
  std::vector<std::string> out;
  for (const auto& c : s.columns()) {
    const std::string& n = c.name;
    if (n.size() < 5 || n.compare(n.size() - 4, 4, ".max") != 0) continue;
    const std::string p = n.substr(0, n.size() - 4);
    if (!s.has(p + ".mean") || !s.has(p + ".drift")) continue;
    const std::string base = p.substr(0, p.find('.'));
    const bool energy = observable_role(base) == ObservableRole::Energy;
    if (energy_only && !energy) continue;
    out.push_back(p);
  }
  return out;
}

std::vector<io::Table> invariants_tables(const StudyFile& f, io::TableFormat format) {
  const Summary& s = f.summary;
  const auto prefixes = metric_prefixes(s, false);
  if (prefixes.empty()) throw UsageError("the file has no invariant statistics (table invariants)");
  const auto groups = group_columns(f);
  io::Table t;
  t.title = "Invariant errors over [" + io::fmt_general(f.t0) + ", " + io::fmt_general(f.t_final) +
            "] (max and mean of |error| over samples; drift = slope of a least-squares line, per unit time)";
  const std::string sc = step_column(f);
  for (const auto& g : groups) {
    t.header.push_back(g);
    t.numeric.push_back(false);
  }
  t.header.push_back("method");
  t.numeric.push_back(false);
  if (!sc.empty()) {
    t.header.push_back(sc);
    t.numeric.push_back(true);
  }
  const int digits = format == io::TableFormat::Csv ? 6 : 2;
  if (format == io::TableFormat::Latex) {
    // long layout (one row per run and invariant): the observables' names are too long for
    // column headers of a table that fits the page
    t.header.push_back("invariant");
    t.numeric.push_back(false);
    t.key_columns = t.header.size();
    for (const char* w : {"max", "mean", "drift"}) {
      t.header.push_back(w);
      t.numeric.push_back(true);
    }
    for (std::size_t i = 0; i < s.rows(); ++i)
      for (const auto& p : prefixes) {
        std::vector<std::string> row;
        for (const auto& g : groups) row.push_back(s.get(g).text(i));
        row.push_back(text_at(s, "method", i));
        if (!sc.empty()) row.push_back(step_text(f, i));
        row.push_back(p);
        for (const char* w : {".max", ".mean", ".drift"}) row.push_back(metric_sci(s, p + w, i, digits));
        t.rows.push_back(std::move(row));
      }
    t.notes.push_back("rel_error = (H - H0)/|H0|; abs_error = x - x0; *_error = the manifold error itself");
    add_failures(f, t);
    return {t};
  }
  for (const auto& p : prefixes)
    for (const char* w : {" max", " mean", " drift"}) {
      t.header.push_back(p + w);
      t.numeric.push_back(true);
    }
  for (std::size_t i = 0; i < s.rows(); ++i) {
    std::vector<std::string> row;
    for (const auto& g : groups) row.push_back(s.get(g).text(i));
    row.push_back(text_at(s, "method", i));
    if (!sc.empty()) row.push_back(step_text(f, i));
    for (const auto& p : prefixes)
      for (const char* w : {".max", ".mean", ".drift"}) row.push_back(metric_sci(s, p + w, i, digits));
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back("rel_error = (H - H0)/|H0|; abs_error = x - x0; *_error = the manifold error itself");
  add_failures(f, t);
  return {t};
}

std::vector<io::Table> energy_drift_tables(const StudyFile& f, io::TableFormat format) {
  const Summary& s = f.summary;
  const auto prefixes = metric_prefixes(s, true);
  // files written before the growth law (studies/analysis.hpp: growth_law) have no such columns
  bool growth = false;
  for (const auto& p : prefixes) growth = growth || s.has(p + ".law");
  if (prefixes.empty()) throw UsageError("the file has no energy error statistics (table energy-drift)");
  const auto groups = group_columns(f);
  const std::string sc = step_column(f);
  const bool csv = format == io::TableFormat::Csv;
  const int digits = csv ? 6 : 2;
  auto header = [&](io::Table& t) {
    for (const auto& g : groups) {
      t.header.push_back(g);
      t.numeric.push_back(false);
    }
    if (csv) {
      t.header.push_back("observable");
      t.numeric.push_back(false);
    }
    t.header.push_back("method");
    t.numeric.push_back(false);
    if (!sc.empty()) {
      t.header.push_back(sc);
      t.numeric.push_back(true);
    }
    if (s.has("h")) {
      t.header.push_back("h");
      t.numeric.push_back(true);
    }
    t.key_columns = t.header.size();
    for (const char* c : {"samples", "max |dH/H0|", "mean |dH/H0|", "drift", "at T"}) {
      const std::string name = c;
      t.header.push_back(csv ? name.substr(0, name.find(" |")) : name);
      t.numeric.push_back(true);
    }
    if (growth) {
      t.header.push_back(csv ? "growth_exponent" : "growth t^b");
      t.numeric.push_back(true);
      t.header.push_back("law");
      t.numeric.push_back(false);
    }
  };
  auto add_rows = [&](io::Table& t, const std::string& p) {
    for (std::size_t i = 0; i < s.rows(); ++i) {
      std::vector<std::string> row;
      for (const auto& g : groups) row.push_back(s.get(g).text(i));
      if (csv) row.push_back(p);
      row.push_back(text_at(s, "method", i));
      if (!sc.empty()) row.push_back(step_text(f, i));
      if (s.has("h")) row.push_back(io::fmt_sci(real_at(s, "h", i), digits));
      row.push_back(int_text(s, "samples", i));
      for (const char* w : {".max", ".mean", ".drift", ".final"}) row.push_back(metric_sci(s, p + w, i, digits));
      if (growth && failed_at(s, i)) {  // a failed run has no law either: failed, as every result cell
        row.push_back(kFailed);
        row.push_back(kFailed);
      } else if (growth) {
        const double b = s.has(p + ".growth") ? real_at(s, p + ".growth", i) : NAN;
        row.push_back(std::isnan(b) ? std::string() : csv ? io::fmt_general(b) : io::fmt_fixed(b, 2));
        row.push_back(s.has(p + ".law") ? text_at(s, p + ".law", i) : std::string());
      }
      t.rows.push_back(std::move(row));
    }
  };
  const std::string span = " over [" + io::fmt_general(f.t0) + ", " + io::fmt_general(f.t_final) + "]";
  if (csv) {  // one long table, a column naming the energy observable
    io::Table t;
    t.title = "Energy errors" + span;
    header(t);
    for (const auto& p : prefixes) add_rows(t, p);
    return {t};
  }
  std::vector<io::Table> out;  // one table per energy observable
  for (const auto& p : prefixes) {
    io::Table t;
    t.title = "Energy error " + p + span +
              ": max, mean, drift rate (slope of a least-squares line, per unit time), value at T" +
              (growth ? " and growth law (|dH| ~ t^b: bounded, sqrt(t), linear)" : "");
    header(t);
    add_rows(t, p);
    add_failures(f, t);
    out.push_back(std::move(t));
  }
  return out;
}

// ------------------------------------------------------------------ adaptive
std::vector<io::Table> adaptive_tables(const StudyFile& f, io::TableFormat format) {
  const Summary& s = f.summary;
  // "tol" alone: a study whose every run failed before its first accepted step still has a table
  if (!s.has("tol")) throw UsageError("the file has no adaptive runs (table adaptive)");
  const auto groups = group_columns(f);
  const bool cmp = s.has("compare_error");
  const int digits = format == io::TableFormat::Csv ? 6 : 2;
  io::Table t;
  t.title = "Adaptive steps over [" + io::fmt_general(f.t0) + ", " + io::fmt_general(f.t_final) + "]" +
            (cmp ? "; constant-step comparison at the same cost ([P] Figs 8-11)" : "");
  for (const auto& g : groups) {
    t.header.push_back(g);
    t.numeric.push_back(false);
  }
  for (const char* c : {"method", "tol", "accepted", "rejected", "f evals", "h min", "h max", "error at T"}) {
    t.header.push_back(c);
    t.numeric.push_back(std::string(c) != "method");
  }
  t.key_columns = groups.size() + 2;  // grid, method, tol
  if (cmp)
    for (const char* c : {"constant-step method", "constant-step steps", "constant-step error at T",
                          "error ratio const/adaptive"}) {
      t.header.push_back(c);
      t.numeric.push_back(std::string(c) != "constant-step method");
    }
  for (std::size_t i = 0; i < s.rows(); ++i) {
    std::vector<std::string> row;
    for (const auto& g : groups) row.push_back(s.get(g).text(i));
    row.push_back(text_at(s, "method", i));
    row.push_back(io::fmt_sci(real_at(s, "tol", i), 1));
    row.push_back(int_text(s, "accepted", i));
    row.push_back(int_text(s, "rejected", i));
    row.push_back(int_text(s, "rhs_evaluations", i));
    row.push_back(metric_sci(s, "h_min", i, digits));
    row.push_back(metric_sci(s, "h_max", i, digits));
    row.push_back(metric_sci(s, "error", i, digits));
    if (cmp) {
      row.push_back(text_at(s, "compare_method", i));
      row.push_back(int_text(s, "compare_steps", i));
      row.push_back(metric_sci(s, "compare_error", i, digits));
      row.push_back(failed_at(s, i) ? kFailed
                                    : io::fmt_fixed(real_at(s, "compare_error", i) / real_at(s, "error", i), 2));
    }
    t.rows.push_back(std::move(row));
  }
  if (s.has("reference") && s.rows()) t.notes.push_back("errors against: " + text_at(s, "reference", 0));
  add_failures(f, t);
  return {t};
}

// ------------------------------------------------------------------ scaling
std::vector<io::Table> scaling_tables(const StudyFile& f, io::TableFormat format) {
  const Summary& s = f.summary;
  if (!s.has("layout") || f.timings.empty()) throw UsageError("the file has no scaling runs (table scaling)");
  const std::string mode = param(f.parameters, "scaling.mode", "strong");
  const auto groups = group_columns(f);
  auto max_of = [&](std::size_t i, const std::string& phase) {
    auto it = f.timings.find(s.run_index()[i]);
    if (it == f.timings.end()) return kNaN;
    auto jt = it->second.find(phase);
    if (jt == it->second.end() || jt->second.empty()) return kNaN;
    return *std::max_element(jt->second.begin(), jt->second.end());
  };
  // phases present in any run, besides integrate
  std::set<std::string> phases;
  for (const auto& [r, m] : f.timings)
    for (const auto& [p, v] : m)
      if (p != "integrate") phases.insert(p);
  io::Table t;
  t.title = std::string(mode == "weak" ? "Weak" : "Strong") +
            " scaling: wall time of the time stepping (max over ranks), speedup and efficiency against the smallest "
            "layout of each group";
  for (const auto& g : groups) {
    t.header.push_back(g);
    t.numeric.push_back(false);
  }
  for (const char* c : {"method", "layout", "cores", "components", "steps", "time [s]", "per step [s]", "speedup",
                        "efficiency"}) {
    t.header.push_back(c);
    t.numeric.push_back(std::string(c) != "method" && std::string(c) != "layout");
  }
  t.key_columns = groups.size() + 2;  // grid, method, layout
  for (const auto& p : phases) {
    t.header.push_back(p + " [s]");
    t.numeric.push_back(true);
  }
  // Simulated studies (scripts/smpi/import_summaries.py) carry the cost model's seconds per
  // step: its efficiency by the same rule, and the relative difference of the seconds per step.
  const bool with_model = s.has("model_per_step");
  if (with_model)
    for (const char* c : {"model per step [s]", "model efficiency", "model vs sim", "flag"}) {
      t.header.push_back(c);
      t.numeric.push_back(std::string(c) != "flag");
    }
  const int digits = format == io::TableFormat::Csv ? 6 : 3;
  for (std::size_t i = 0; i < s.rows(); ++i) {
    const std::string key = group_label(s, groups, i) + "|" + text_at(s, "method", i);
    // baseline: fewest cores in the same group and method
    std::size_t base = i;
    for (std::size_t j = 0; j < s.rows(); ++j)
      if (group_label(s, groups, j) + "|" + text_at(s, "method", j) == key &&
          real_at(s, "cores", j) < real_at(s, "cores", base))
        base = j;
    const double t_i = max_of(i, "integrate"), t_b = max_of(base, "integrate");
    const double cores = real_at(s, "cores", i), cores_b = real_at(s, "cores", base);
    const double speedup = t_b / t_i;
    const double eff = mode == "weak" ? t_b / t_i : speedup * cores_b / cores;
    std::vector<std::string> row;
    for (const auto& g : groups) row.push_back(s.get(g).text(i));
    row.push_back(text_at(s, "method", i));
    row.push_back(text_at(s, "layout", i));
    row.push_back(int_text(s, "cores", i));
    row.push_back(int_text(s, "components", i));
    row.push_back(int_text(s, "steps", i));
    const bool bad = failed_at(s, i) || failed_at(s, base);
    row.push_back(failed_at(s, i) ? kFailed : io::fmt_sci(t_i, digits));
    row.push_back(failed_at(s, i) ? kFailed : io::fmt_sci(t_i / real_at(s, "steps", i), digits));
    row.push_back(bad ? kFailed : io::fmt_fixed(speedup, 2));
    row.push_back(bad ? kFailed : io::fmt_fixed(eff, 2));
    for (const auto& p : phases) row.push_back(failed_at(s, i) ? kFailed : io::fmt_sci(max_of(i, p), digits));
    if (with_model) {
      const double m_i = real_at(s, "model_per_step", i), m_b = real_at(s, "model_per_step", base);
      const double m_eff = mode == "weak" ? m_b / m_i : m_b * cores_b / (m_i * cores);
      const double per_step = t_i / real_at(s, "steps", i);
      const double diff = (m_i - per_step) / per_step;  // relative difference of the seconds per step
      row.push_back(io::fmt_sci(m_i, digits));
      row.push_back(io::fmt_fixed(m_eff, 2));
      row.push_back(failed_at(s, i) ? kFailed : io::fmt_fixed(100.0 * diff, 0) + " %");
      row.push_back(!failed_at(s, i) && std::fabs(diff) > kModelFlag ? "> 20 %" : "");
    }
    t.rows.push_back(std::move(row));
  }
  add_failures(f, t);
  if (with_model)
    t.notes.push_back("simulated runs (SimGrid SMPI): time = simulated seconds of the stepping loop; model = the cost "
                      "model of scripts/smpi/README.md (\"Cost model\"), its efficiency by the same rule; model vs sim "
                      "= (model - sim) / sim of the seconds per step; flag: |model vs sim| > 20 %");
  if (!with_model)
    t.notes.push_back("time = phase 'integrate' (time stepping without sampling); rhs = model vector field (timed by "
                      "liebench), algebra = integrate - rhs, io = writing the final state; timings vary between runs");
  return {t};
}

}  // namespace

StudyFile load_study_file(const std::string& path, bool with_timings) {
  StudyFile out;
  h5::File f;
  try {
    f = h5::File::open_read(path);
  } catch (const h5::Error& e) {
    throw UsageError(e.what());
  }
  const hid_t root = f.id();
  if (!h5::has_attr(root, "liebench_format") || !h5::exists(root, "study"))
    throw UsageError(quote(path) + " is not a liebench study file (no /study group or liebench_format attribute)");
  if (h5::attr_string(root, "liebench_format") != kFormat)
    throw UsageError(quote(path) + " has format " + quote(h5::attr_string(root, "liebench_format")) + "; this liebench reads " +
                     kFormat);
  h5::Handle st = h5::open_group(root, "study");
  out.kind = h5::attr_string(st, "kind");
  out.run_count = h5::attr_int(st, "run_count");
  out.key_columns = h5::attr_strings(st, "key_columns");
  out.t0 = h5::attr_double(st, "t0");
  out.t_final = h5::attr_double(st, "t_final");
  out.model = h5::attr_string(st, "model");
  out.title = h5::has_attr(root, "title") ? h5::attr_string(root, "title") : "";
  h5::Handle pg = h5::open_group(root, "parameters");
  for (const auto& a : h5::attr_names(pg))
    if (a != "config_text" && a != "resolved_config" && a != "description") out.parameters[a] = h5::attr_text(pg, a);
  try {
    out.summary = Summary::read(root);
  } catch (const UsageError& e) {
    throw UsageError(quote(path) + ": " + e.what());
  }
  if (with_timings && h5::exists(root, "runs")) {
    h5::Handle runs = h5::open_group(root, "runs");
    for (const auto& r : h5::list(runs)) {
      h5::Handle rg = h5::open_group(runs, r);
      if (!h5::exists(rg, "timings")) continue;
      const std::int64_t idx = h5::attr_int(rg, "run_index");
      h5::Handle tg = h5::open_group(rg, "timings");
      for (const auto& p : h5::list(tg)) out.timings[idx][p] = h5::read_doubles(tg, p);
    }
  }
  return out;
}

// The tables of the built-in kinds; a kind names its defaults (StudyEntry::tables), a kind that
// brings its own table registers it in its file (timing.cpp).
LIEBENCH_REGISTER(ReportTable, {"convergence", convergence_tables})
LIEBENCH_REGISTER(ReportTable, {"invariants", invariants_tables})
LIEBENCH_REGISTER(ReportTable, {"energy-drift", energy_drift_tables})
LIEBENCH_REGISTER(ReportTable, {"adaptive", adaptive_tables})
LIEBENCH_REGISTER(ReportTable, {"scaling", scaling_tables, true})

std::vector<std::string> default_tables(const std::string& kind) {
  if (const StudyEntry* e = StudyRegistry::instance().find(kind)) return e->tables;
  return {};
}

std::vector<std::string> all_table_names() {
  std::vector<std::string> out;  // the kinds' in their order, then any no kind names
  for (const StudyEntry* e : StudyRegistry::instance().all())
    for (const auto& t : e->tables)
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  for (const ReportTable* t : ReportTableRegistry::instance().all())
    if (std::find(out.begin(), out.end(), t->name) == out.end()) out.push_back(t->name);
  return out;
}

const ReportTable& find_table(const std::string& name) {
  if (const ReportTable* t = ReportTableRegistry::instance().find(name)) return *t;
  std::string all;
  for (const auto& n : all_table_names()) all += (all.empty() ? "" : ", ") + n;
  throw UsageError("option --table has value " + quote(name) + "; allowed: " + all);
}

std::vector<io::Table> build_table(const StudyFile& f, const std::string& name, io::TableFormat format) {
  return find_table(name).build(f, format);
}

}  // namespace lie::studies
