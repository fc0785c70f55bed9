#include "methods/composition.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/quote.hpp"
#include "core/stop.hpp"
#include "methods/butcher.hpp"

namespace lie {

namespace {

const bool kCompositionKeys = declare_options({
    {"composition.name", OptionType::String, "",
     "the composition of method `composition` (composition:<name> sets it): a shipped one (yoshida4, suzuki4, "
     "kahan_li6) or section [composition.<name>]", {}, "composition"},
    {"composition.base", OptionType::String, "",
     "base method of the compositions (a second-order time-symmetric method: dlm, no_squish, rotor_exact, lgvi, "
     "lgvi_explicit, slgi at slgi.theta = 0.5, slgi_kk); its own keys (lgvi.*, slgi.*) apply", {}, "composition"},
    {"composition.tolerance", OptionType::PositiveReal, "1e-10",
     "an order condition of a composition (sum c^3 = 0, ...) counts as satisfied when |residual| <= this", {},
     "composition"},
    {"composition.<name>.coefficients", OptionType::String, "",
     "c_1, ..., c_s of the composition Phi_{c_s h} o ... o Phi_{c_1 h} of that name (reals or fractions p/q; "
     "symmetric, summing to 1), or the name of a shipped set; method composition:<name>", {}, "composition"},
    {"composition.<name>.base", OptionType::String, "",
     "base method of the composition of that name (default: composition.base)", {}, "composition"},
});

// |sum c - 1| and |c_i - c_{s+1-i}| above this: not a symmetric composition of a consistent method.
constexpr double kExactTolerance = 1e-14;

}  // namespace

// The shipped compositions as data (the format of key composition.<name>.coefficients).
const std::vector<ShippedComposition>& shipped_compositions() {
  static const std::vector<ShippedComposition> sets = {
      // c1 = c3 = 1/(2 - 2^(1/3)), c2 = -2^(1/3)/(2 - 2^(1/3)) (30 digits: mpmath)
      {"yoshida4",
       "1.35120719195965763404768780897, -1.70241438391931526809537561794, 1.35120719195965763404768780897",
       "Yoshida, Phys. Lett. A 150, 262 (1990) (triple jump); GNI II.4 (4.4)"},
      // c1 = c2 = c4 = c5 = 1/(4 - 4^(1/3)), c3 = -4^(1/3)/(4 - 4^(1/3))
      {"suzuki4",
       "0.414490771794375737142354062861, 0.414490771794375737142354062861, -0.657963087177502948569416251443, "
       "0.414490771794375737142354062861, 0.414490771794375737142354062861",
       "Suzuki, Phys. Lett. A 146, 319 (1990) (five stages); GNI II.4 (4.5)"},
      // s9odr6a; GNI V.3.2 (3.12), 26 digits as printed there
      {"kahan_li6",
       "0.39216144400731413927925056, 0.33259913678935943859974864, -0.70624617255763935980996482, "
       "0.08221359629355080023149045, 0.79854399093482996339895035, 0.08221359629355080023149045, "
       "-0.70624617255763935980996482, 0.33259913678935943859974864, 0.39216144400731413927925056",
       "Kahan & Li, Math. Comp. 66, 1089 (1997) (s9odr6a); GNI V.3.2"},
  };
  return sets;
}

std::vector<double> composition_residuals(const std::vector<double>& c) {
  // GNI V.3.2: the conditions of order 2, 4, 6 of a symmetric composition of a symmetric method
  double s1 = 0.0, s3 = 0.0, s5 = 0.0, s33 = 0.0, before = 0.0;
  for (double ci : c) {
    const double mid = before + 0.5 * ci, c3 = ci * ci * ci;
    s1 += ci;
    s3 += c3;
    s5 += c3 * ci * ci;
    s33 += c3 * mid * mid;
    before += ci;
  }
  return {s1 - 1.0, s3, s5, s33};
}

int composition_order(const std::vector<double>& c, double tol) {
  const auto r = composition_residuals(c);
  if (!(std::fabs(r[0]) <= kExactTolerance)) return 0;
  if (!(std::fabs(r[1]) <= tol)) return 2;
  if (!(std::fabs(r[2]) <= tol && std::fabs(r[3]) <= tol)) return 4;
  return 6;
}

std::string composition_report(const std::string& name, const std::vector<double>& c, double tol) {
  std::ostringstream os;
  os << std::setprecision(17);
  os << "composition " << quote(name) << " (" << c.size() << " steps of the base)\n";
  bool symmetric = true;
  for (std::size_t i = 0; i < c.size(); ++i) {
    os << "  c_" << i + 1 << " = " << c[i] << "\n";
    symmetric = symmetric && std::fabs(c[i] - c[c.size() - 1 - i]) <= kExactTolerance * std::max(1.0, std::fabs(c[i]));
  }
  os << "symmetric (c_i = c_{s+1-i}): " << (symmetric ? "yes" : "NO (refused as a method)") << "\n"
     << "order conditions of a symmetric composition of a symmetric method (GNI V.3.2), tolerance " << tol
     << " (sum c_i = 1: 1e-14):\n";
  const auto r = composition_residuals(c);
  const char* what[] = {"sum c_i = 1                                  (order 2)",
                        "sum c_i^3 = 0                                (order 4)",
                        "sum c_i^5 = 0                                (order 6)",
                        "sum c_i^3 (c_1 + .. + c_{i-1} + c_i/2)^2 = 0 (order 6)"};
  os << std::setprecision(3) << std::scientific;
  for (std::size_t k = 0; k < r.size(); ++k)
    os << "  " << what[k] << "  residual " << std::setw(10) << r[k] << "  "
       << (std::fabs(r[k]) <= (k == 0 ? kExactTolerance : tol) ? "ok" : "VIOLATED") << "\n";
  const int p = composition_order(c, tol);
  if (p == 0) os << "order found: none (sum c_i != 1: refused as a method)\n";
  else os << "order found: " << p << (p == 6 ? " (or more: not checked)" : "") << "\n";
  return os.str();
}

CompositionStepper::CompositionStepper(MethodInfo info, std::unique_ptr<Stepper> base, std::vector<double> c)
    : info_(std::move(info)), base_(std::move(base)), c_(std::move(c)) {
  double before = 0.0;
  for (double ci : c_) {
    offset_.push_back(before);
    before += ci;
  }
}

void CompositionStepper::bind(Model& model, par::Context& ctx) {
  base_->bind(model, ctx);
  y_start_.assign(model.space().state_size(), 0.0);
}

void CompositionStepper::step(double t, double h, double* y) {
  const StepCounters before = base_->counters();
  const bool cache = base_->cache_valid();
  std::copy(y, y + y_start_.size(), y_start_.begin());
  try {
    for (std::size_t i = 0; i < c_.size(); ++i) base_->step(t + offset_[i] * h, c_[i] * h, y);
  } catch (const StopInStep&) {
    // StopInStep's contract (core/stop.hpp): the run stands at the start of the step, with the
    // cache the uninterrupted run holds there (the base put back only its own sub-step).
    std::copy(y_start_.begin(), y_start_.end(), y);
    if (cache) base_->rebuild_cache(t, y);
    else base_->invalidate();
    throw;
  }
  const StepCounters& after = base_->counters();
  ++counters_.steps;
  counters_.rhs += after.rhs - before.rhs;
  counters_.exp += after.exp - before.exp;
  counters_.dexpinv += after.dexpinv - before.dexpinv;
  counters_.brackets += after.brackets - before.brackets;
  counters_.iterations += after.iterations - before.iterations;
}

// ---------------------------------------------------------------- parsing and registration
bool takes_composition_name(const std::string& method) { return method == "composition"; }

namespace {

const ShippedComposition* shipped(const std::string& name) {
  for (const auto& s : shipped_compositions())
    if (name == s.name) return &s;
  return nullptr;
}

std::string shipped_names() {
  std::string s;
  for (const auto& c : shipped_compositions()) s += (s.empty() ? "" : ", ") + std::string(c.name);
  return s;
}

// The registered methods a composition can take as its base.
std::string symmetric_bases() {
  std::string s;
  for (const auto* e : MethodRegistry::instance().all())
    if (e->info.time_symmetric && e->info.order == 2)
      s += (s.empty() ? "" : ", ") + e->name + (e->name == "slgi" ? " (slgi.theta = 0.5)" : "");
  return s;
}

std::vector<double> parse_coefficients(const std::string& key, const std::string& text) {
  std::vector<double> c;
  for (const auto& item : split_list(text)) c.push_back(parse_coefficient(key, item));
  if (c.empty()) throw UsageError("key " + quote(key) + " is empty; expected the coefficients c_1, ..., c_s");
  return c;
}

}  // namespace

// <edge> parse: compositions (keys composition.*)
std::vector<double> composition_coefficients(const Config& cfg, const std::string& name, std::string* source) {
  // the section's (numbers or a shipped set's name), or the shipped set itself
  const std::string key = "composition." + name + ".coefficients";
  const std::string text = cfg.get_string(key, name);
  if (const ShippedComposition* s = shipped(text)) {
    if (source) *source = s->source;
    return parse_coefficients(key, s->coefficients);
  }
  if (!cfg.was_set(key))
    throw UsageError("composition " + quote(name) + ": section [composition." + name + "] has no key coefficients; "
                     "give c_1, ..., c_s (or the name of a shipped set: " + shipped_names() + ")");
  if (source) *source = "user composition (experiment file)";
  return parse_coefficients(key, text);
}

std::vector<std::string> user_composition_names(const Config& cfg) {
  std::vector<std::string> out;
  for (const auto& [k, v] : cfg.resolved_pairs()) {
    const std::string suffix = ".coefficients";
    if (k.rfind("composition.", 0) != 0 || k.size() <= 12 + suffix.size() || !cfg.was_set(k) ||
        k.compare(k.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    out.push_back(k.substr(12, k.size() - 12 - suffix.size()));
  }
  return out;
}

Config composition_config(const Config& cfg, const std::string& name, const std::string& spec,
                          const std::string& base) {
  const bool section = cfg.was_set("composition." + name + ".coefficients") || cfg.was_set("composition." + name + ".base");
  if (section && shipped(name))
    throw UsageError("method " + quote(spec) + ": section [composition." + name + "] has the name of a shipped "
                     "composition; give yours another name (shipped: " + shipped_names() + ")");
  if (!section && !shipped(name))
    throw UsageError("method " + quote(spec) + ": unknown composition " + quote(name) + "; shipped: " + shipped_names() +
                     ", or give its coefficients in section [composition." + name + "] (key coefficients)");
  return cfg.with({{"composition.name", base.empty() ? name : name + "@" + base}});
}

namespace {

CompositionOptions parse_composition(const Config& cfg) {
  CompositionOptions o;
  o.name = cfg.get_string("composition.name", "");
  std::string spec_base;  // composition:<name>@<base>
  if (const auto at = o.name.find('@'); at != std::string::npos) {
    spec_base = o.name.substr(at + 1);
    o.name.resize(at);
  }
  if (o.name.empty())
    throw UsageError("method 'composition' needs a composition: composition:<name> (shipped: " + shipped_names() +
                     "; or section [composition.<name>] with key coefficients)");
  const std::string spec = "composition:" + o.name + (spec_base.empty() ? "" : "@" + spec_base);
  const std::string ckey = "composition." + o.name + ".coefficients", bkey = "composition." + o.name + ".base";
  const std::string text = cfg.get_string(ckey, o.name);
  o.coefficients = composition_coefficients(cfg, o.name, &o.source);
  const std::vector<double>& c = o.coefficients;
  const std::size_t s = c.size();
  for (std::size_t i = 0; i < s; ++i)
    if (!(std::fabs(c[i] - c[s - 1 - i]) <= kExactTolerance * std::max(1.0, std::fabs(c[i]))))
      throw UsageError("method " + quote(spec) + ": coefficients " + quote(text) + " are not symmetric (c_" +
                       std::to_string(i + 1) + " = " + num(c[i]) + " but c_" + std::to_string(s - i) + " = " +
                       num(c[s - 1 - i]) + "); a composition needs c_i = c_{s+1-i}");
  const double sum_error = composition_residuals(c)[0];
  if (!(std::fabs(sum_error) <= kExactTolerance))
    throw UsageError("method " + quote(spec) + ": coefficients " + quote(text) + " sum to 1 + " + num(sum_error) +
                     "; they must sum to 1 (to 1e-14): give them to 17 significant digits");
  o.order = composition_order(c, cfg.get_double("composition.tolerance"));
  // the base: the spec's, else the section's, else composition.base
  if (!spec_base.empty() && cfg.was_set(bkey) && cfg.get_string(bkey) != spec_base)
    throw UsageError("method " + quote(spec) + " names base " + quote(spec_base) + " but key " + quote(bkey) + " = " +
                     quote(cfg.get_string(bkey)) + "; give the base in one place");
  const std::string base = !spec_base.empty() ? spec_base
                           : cfg.was_set(bkey) ? cfg.get_string(bkey)
                                               : cfg.get_string("composition.base", "");
  const std::string where = !spec_base.empty() ? "method " + quote(spec)
                            : "key " + quote(cfg.was_set(bkey) ? bkey : "composition.base");
  const std::string names_base = where + (spec_base.empty() ? " has value " : " has base ") + quote(base);
  if (base.empty())
    throw UsageError("method " + quote(spec) + " needs a base method: set composition.base (or " + bkey + ") to one of " +
                     symmetric_bases());
  if (parse_method_spec(base, where).method == "composition")
    throw UsageError(names_base + "; the base of a composition is a "
                     "second-order method, not a composition: one of " + symmetric_bases());
  o.base = parse_method(base, cfg, where);
  const auto probe = o.base.entry->create(o.base.options);  // its info as configured (slgi.theta)
  const MethodInfo& bi = probe->info();
  if (!bi.time_symmetric || bi.order != 2)
    throw UsageError(names_base + ", a method of order " +
                     std::to_string(bi.order) + (bi.time_symmetric ? "" : " that is not time-symmetric") +
                     "; a composition needs a second-order time-symmetric base: one of " + symmetric_bases());
  return o;
}

}  // namespace
// </edge>

namespace {

MethodInfo composition_entry_info() {
  MethodInfo m;
  m.name = "composition";
  m.family = "composition";
  m.order = 0;  // from the coefficients
  m.description =
      "symmetric composition Phi_{c_s h} o ... o Phi_{c_1 h} of a second-order time-symmetric method (key "
      "composition.base, or after '@': composition:yoshida4@dlm); composition:yoshida4, :suzuki4 (order 4), "
      ":kahan_li6 (order 6), or :<name> with coefficients in section [composition.<name>] (order from the conditions "
      "of GNI V.3.2)";
  m.source = "Yoshida 1990; Suzuki 1990; Kahan & Li 1997; Hairer, Lubich & Wanner, GNI II.4, V.3; [L] 3.4";
  m.needs = "base";
  m.time_symmetric = true;
  return m;
}

std::unique_ptr<Stepper> make_composition(const MethodOptions& opt) {
  if (!opt.has_value())
    throw UsageError("method 'composition' needs a composition and a base: composition:<name> with composition.base");
  const auto& o = std::any_cast<const CompositionOptions&>(opt);
  auto base = o.base.entry->create(o.base.options);
  const MethodInfo& bi = base->info();
  MethodInfo m = composition_entry_info();
  const int s = static_cast<int>(o.coefficients.size());
  m.order = o.order;
  m.stages = s * bi.stages;
  m.exps_per_step = s * bi.exps_per_step;
  m.is_explicit = bi.is_explicit;
  m.lie_group = bi.lie_group;
  m.needs = bi.needs;
  m.description = "composition:" + o.name + " (" + std::to_string(s) + " steps of " + o.base.spec + ", order " +
                  std::to_string(o.order) + ")";
  m.source = o.source + "; base: " + bi.source;
  return std::make_unique<CompositionStepper>(m, std::move(base), o.coefficients);
}

}  // namespace

LIEBENCH_REGISTER(MethodEntry, MethodEntry{"composition", composition_entry_info(), make_composition,
                                           // <edge>
                                           [](const Config& cfg) { return MethodOptions(parse_composition(cfg)); }
                                           // </edge>
                                           })

}  // namespace lie
