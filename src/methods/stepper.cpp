#include "methods/stepper.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include <omp.h>
#include <stdexcept>

#include "core/quote.hpp"
#include "methods/butcher.hpp"
#include "methods/composition.hpp"
#include "methods/rigid_splitting.hpp"

namespace lie {

double ErrorNorm::operator()(const double* e, const double* ref, std::size_t n, const par::Context& ctx) const {
  // Called every trial step: the scaled errors go into a buffer kept across calls.
  std::vector<double>& s = scaled_;
  s.resize(n);
  int nonfinite = 0;
  auto scale = [&](std::size_t i) {
    const double sc = atol + rtol * std::fabs(ref[i]);
    s[i] = e[i] / sc;
    return std::isfinite(s[i]) ? 0 : 1;
  };
  if (n >= 4096 && omp_get_max_threads() > 1) {
#pragma omp parallel for schedule(static) reduction(| : nonfinite)
    for (std::size_t i = 0; i < n; ++i) nonfinite |= scale(i);
  } else {  // no parallel region for small systems
    for (std::size_t i = 0; i < n; ++i) nonfinite |= scale(i);
  }
  const int bad = ctx.max(nonfinite ? 1.0 : 0.0) > 0.0;
  if (bad) return std::numeric_limits<double>::infinity();
  switch (kind) {
    case Kind::Max: return ctx.max_abs(s.data(), n);
    case Kind::L2: return std::sqrt(ctx.sum_of_squares(s.data(), n));
    case Kind::Rms: {
      const double total = static_cast<double>(ctx.sum_u64(n));
      return std::sqrt(ctx.sum_of_squares(s.data(), n) / std::max(total, 1.0));
    }
  }
  return 0.0;
}

std::string ErrorNorm::describe() const {
  const char* k = kind == Kind::Max ? "max" : kind == Kind::L2 ? "l2" : "rms";
  return std::string(k) + " norm of e_i/(atol + rtol |y_i|), atol=" + std::to_string(atol) +
         ", rtol=" + std::to_string(rtol);
}

double Stepper::try_step(double, double, const double*, double*, const ErrorNorm&) {
  throw UsageError("method '" + info().name + "' has no embedded error estimator; choose an embedded pair (" +
                   "`liebench list methods` shows the embedded order) or use a fixed step");
}

bool Stepper::dense_output(double t, double h, double theta, const double* y, double* out, std::size_t n) {
  const StepCounters before = counters_;
  std::copy(y, y + n, out);
  if (theta > 0.0) step(t, theta * h, out);
  counters_.steps = before.steps;  // not an accepted step of the run
  return true;
}

int dense_weights(const ButcherTable& table, double theta, double* w) {
  static const ButcherTable& dp = butcher_table("dopri5");
  if (table.stages != 7 || table.b != dp.b || table.A != dp.A) return 0;
  // Hairer, Norsett & Wanner I, II.6, dense output of DOPRI5 (order 4):
  //   b_i(theta) = theta^2 (3 - 2 theta) b_i + theta (theta - 1)^2 [i = 1] - theta^2 (theta - 1)^2 d_i(theta)
  const double t = theta, t2 = t * t, tm = t - 1.0, q = t2 * tm * tm, hermite = t2 * (3.0 - 2.0 * t);
  w[0] = hermite * dp.b[0] + t * tm * tm - q * 5.0 * (2558722523.0 - 31403016.0 * t) / 11282082432.0;
  w[1] = 0.0;
  w[2] = hermite * dp.b[2] + q * 100.0 * (882725551.0 - 15701508.0 * t) / 32700410799.0;
  w[3] = hermite * dp.b[3] - q * 25.0 * (443332067.0 - 31403016.0 * t) / 1880347072.0;
  w[4] = hermite * dp.b[4] + q * 32805.0 * (23143187.0 - 3489224.0 * t) / 199316789632.0;
  w[5] = hermite * dp.b[5] - q * 55.0 * (29972135.0 - 7076736.0 * t) / 822651844.0;
  w[6] = t2 * tm + q * 10.0 * (7414447.0 - 829305.0 * t) / 29380423.0;
  return 4;
}

MethodSpec parse_method_spec(const std::string& spec, const std::string& what) {
  auto word = [](const std::string& w) {
    return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    });
  };
  MethodSpec m{spec, "", ""};
  if (const auto at = spec.find('@'); at != std::string::npos) {  // a base (method_entry: compositions only)
    m.method = spec.substr(0, at);
    m.base = spec.substr(at + 1);
    if (!word(m.base))
      throw UsageError(what + " '" + spec + "': the base after '@' must be a registered method's name (letters, "
                       "digits, '_' or '-'), e.g. composition:yoshida4@dlm");
  }
  if (const auto colon = m.method.find(':'); colon != std::string::npos) {
    m.tableau = m.method.substr(colon + 1);
    m.method.resize(colon);
    if (!word(m.tableau))
      throw UsageError(what + " '" + spec + "': the name after ':' must be letters, digits, '_' or '-' (it names "
                       "the section [tableau.<name>] or [composition.<name>]), e.g. rkmk_user:rkmk38");
  }
  return m;
}

namespace {
// Methods that take a name after ':': the user tableaus and the compositions.
bool takes_name(const std::string& method) { return takes_user_tableau(method) || takes_composition_name(method); }
}  // namespace

const MethodEntry& method_entry(const std::string& spec, const std::string& what) {
  const MethodSpec m = parse_method_spec(spec, what);
  const MethodEntry& e = MethodRegistry::instance().get(m.method, what);
  if (!m.tableau.empty() && !takes_name(m.method))
    throw UsageError(what + " '" + spec + "': method '" + m.method + "' takes no tableau name; only rkmk_user and "
                     "classical_user do (rkmk_user:<name> with section [tableau.<name>]), and composition "
                     "(composition:<name>)");
  if (!m.base.empty() && !takes_composition_name(m.method))
    throw UsageError(what + " '" + spec + "': only a composition takes a base after '@' "
                     "(composition:<name>@<base>, e.g. composition:yoshida4@dlm)");
  return e;
}

// <edge> parse: a method spec and its keys -> MethodChoice (docs/architecture.md)
std::string method_display_name(const std::string& spec, const Config& cfg) {
  if (spec.find(':') != std::string::npos || !takes_name(spec)) return spec;
  const std::string key = takes_user_tableau(spec) ? "tableau.name" : "composition.name";
  return cfg.was_set(key) ? spec + ":" + cfg.get_string(key) : spec;
}

MethodChoice parse_method(const std::string& name, const Config& cfg, const std::string& what) {
  const MethodEntry& e = method_entry(name, what);
  const MethodSpec spec = parse_method_spec(name, what);
  MethodChoice m{name, &e, {}};
  // Key coordinates (rkmk.cpp): a method without a coordinate map refuses it rather than ignore it.
  if (const std::string c = cfg.get_string("coordinates", "exp"); c != "exp" && !e.info.coordinate_maps)
    throw UsageError("key 'coordinates' = " + quote(c) + ": method " + quote(name) + " (family " + e.info.family +
                     ") has no coordinate map (only the RKMK methods built on a Butcher table take one); run " +
                     quote(name) + " with coordinates = exp");
  if (e.parse)
    m.options = spec.tableau.empty()                   ? e.parse(cfg)
                : takes_composition_name(spec.method) ? e.parse(composition_config(cfg, spec.tableau, name, spec.base))
                                                       : e.parse(user_tableau_config(cfg, spec.tableau, name));
  return m;
}

std::unique_ptr<Stepper> make_stepper(const std::string& name, const Config& cfg, const Model& model) {
  return make_stepper(parse_method(name, cfg), model);
}
// </edge>

MethodChoice method_choice(const std::string& spec, MethodOptions options) {
  return {spec, &method_entry(spec, "method"), std::move(options)};
}

std::unique_ptr<Stepper> make_stepper(const MethodChoice& m, const Model& model) {
  auto stepper = m.entry->create(m.options);
  const MethodInfo& info = stepper->info();  // a composition needs what its base needs
  const std::string& name = m.spec;
  const ModelCapabilities caps = model.capabilities();
  if (info.needs == "cotangent_hamiltonian" && !caps.cotangent_hamiltonian)
    throw UsageError("method '" + name + "' needs a Hamiltonian on a cotangent bundle T*G; model '" + model.name() +
                     "' does not provide one (use heavy_top with formulation = tstar_so3 or quadratic)");
  if (info.needs == "sphere_lagrangian" && !caps.sphere_lagrangian)
    throw UsageError("method '" + name + "' needs a Lagrangian on (S^2)^n; model '" + model.name() +
                     "' does not provide one (use nfold_pendulum or a model on (S^2)^n)");
  if (info.needs == "rigid_bodies") require_rigid_bodies(name, model);
  return stepper;
}

// <edge>
std::vector<std::string> applicable_methods(const Config& cfg, Model& model, par::Context& ctx, bool embedded_only) {
  std::vector<std::string> out;
  auto fits = [&](const std::string& spec, bool* time_symmetric_order2) {
    bool ok = true;
    try {
      const MethodChoice m = parse_method(spec, cfg);
      auto stepper = make_stepper(m, model);
      if (embedded_only && stepper->info().embedded_order == 0) return false;  // (the same on every rank)
      if (time_symmetric_order2)
        *time_symmetric_order2 = stepper->info().time_symmetric && stepper->info().order == 2;
      stepper->bind(model, ctx);
    } catch (const UsageError&) {
      ok = false;  // not applicable here
    }
    return ctx.max(ok ? 0.0 : 1.0) == 0.0;  // every rank agrees
  };
  std::vector<std::string> bases;  // the applicable second-order time-symmetric methods
  for (const MethodEntry* e : MethodRegistry::instance().all()) {
    if (takes_name(e->name)) continue;
    bool base = false;
    if (!fits(e->name, &base)) continue;
    out.push_back(e->name);
    if (base) bases.push_back(e->name);
  }
  // the compositions over every applicable base: the shipped sets, then the file's sections
  // [composition.<name>] (composition:<name>@<base>; no embedded estimator)
  if (embedded_only) return out;
  std::vector<std::string> sets;
  for (const auto& s : shipped_compositions()) sets.emplace_back(s.name);
  for (const auto& s : user_composition_names(cfg)) sets.push_back(s);
  for (const auto& set : sets)
    for (const auto& base : bases)
      if (const std::string spec = "composition:" + set + "@" + base; fits(spec, nullptr)) out.push_back(spec);
  return out;
}
// </edge>

}  // namespace lie
