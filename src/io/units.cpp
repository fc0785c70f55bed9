#include "io/units.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "io/config.hpp"
#include "io/h5.hpp"

namespace lie::io {

namespace {

const bool kUnitKeys = declare_options({
    {"units", OptionType::Choice, "dimensionless",
     "unit system of the model's quantities in the result file (H5MD units module): `si` = m, kg, s, J "
     "([L]'s examples), every dataset with a dimension gets its SI `unit`; `dimensionless` = the model is "
     "written in dimensionless form ([P], [K]): its quantities carry no unit (timings stay in s)",
     {"dimensionless", "si"}, "run"},
});

// SI base and derived unit symbols (H5MD units module, "The SI unit system").
const std::set<std::string>& si_symbols() {
  static const std::set<std::string> s = {"m",  "kg", "s",  "A",  "K", "mol", "cd", "rad", "sr", "Hz", "N",
                                          "Pa", "J",  "W",  "C",  "V", "F",   "T",  "Wb",  "H"};
  return s;
}

}  // namespace

void UnitFactors::add(const std::string& symbol, int power) {
  if (power == 0) return;
  auto it = std::find_if(order_.begin(), order_.end(), [&](const auto& f) { return f.first == symbol; });
  if (it == order_.end()) {
    order_.emplace_back(symbol, power);
  } else {
    it->second += power;
    if (it->second == 0) order_.erase(it);
  }
}

UnitFactors UnitFactors::parse(const std::string& text) {
  UnitFactors u;
  // "a b^2/c d" = a b^2 c^-1 d^-1: everything after '/' is in the denominator.
  const auto slash = text.find('/');
  if (slash != std::string::npos && text.find('/', slash + 1) != std::string::npos)
    throw std::invalid_argument("unit '" + text + "' has more than one '/'");
  auto take = [&](const std::string& part, int sign) {
    std::istringstream in(part);
    std::string tok;
    while (in >> tok) {
      if (tok == "1") continue;
      std::size_t i = 0;
      while (i < tok.size() && std::isalpha(static_cast<unsigned char>(tok[i]))) ++i;
      std::string sym = tok.substr(0, i);
      std::string pow = tok.substr(i);
      if (!pow.empty() && pow[0] == '^') pow = pow.substr(1);
      int p = 1;
      if (!pow.empty()) {
        std::size_t used = 0;
        try {
          p = std::stoi(pow, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != pow.size() || p == 0) throw std::invalid_argument("unit '" + text + "': bad power in '" + tok + "'");
      }
      if (sym == "time") sym = "s";  // the suite's older spelling of the time unit
      if (!si_symbols().count(sym))
        throw std::invalid_argument("unit '" + text + "': '" + sym + "' is not an SI unit symbol");
      u.add(sym, sign * p);
    }
  };
  take(text.substr(0, slash), 1);
  if (slash != std::string::npos) take(text.substr(slash + 1), -1);
  return u;
}

UnitFactors UnitFactors::times(const UnitFactors& o) const {
  UnitFactors u = *this;
  for (const auto& [s, p] : o.order_) u.add(s, p);
  return u;
}

UnitFactors UnitFactors::per(const UnitFactors& o) const {
  UnitFactors u = *this;
  for (const auto& [s, p] : o.order_) u.add(s, -p);
  return u;
}

std::string UnitFactors::h5md() const {
  std::string out;
  for (const auto& [s, p] : order_) {
    if (!out.empty()) out += ' ';
    out += s;
    if (p != 1) out += (p > 0 ? "+" : "") + std::to_string(p);
  }
  return out;
}

Units Units::from_config(const Config& cfg) {
  return Units(cfg.get_choice("units", {"dimensionless", "si"}) == "si" ? UnitSystem::SI : UnitSystem::Dimensionless);
}

Units Units::from_file(hid_t root) {
  if (!h5::exists(root, "parameters")) return Units();
  h5::Handle g = h5::open_group(root, "parameters");
  if (!h5::has_attr(g, "units")) return Units();
  return Units(h5::attr_string(g, "units") == "si" ? UnitSystem::SI : UnitSystem::Dimensionless);
}

std::string Units::of(const std::string& si) const {
  if (system_ != UnitSystem::SI) return "";
  return UnitFactors::parse(si).h5md();
}

std::string Units::observable_si(const std::string& name) {
  auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (name == "total_energy" || name == "kinetic_energy" || name == "potential_energy") return "J";
  if (starts("linear_momentum_")) return "kg m/s";
  if (starts("angular_momentum_")) return "kg m^2/s";
  // manifold errors: 1 - |q|^2, |Q^T Q - I| are pure numbers; q^T w has the unit of w
  if (name == "unit_norm_error" || name == "orthogonality_error" || (name.size() > 16 && name.compare(name.size() - 16, 16, "_direction_error") == 0)) return "1";
  if (name == "tangency_error") return "rad/s";
  if (starts("load_error_")) return "m";
  // Casimirs: |Pi|^2 of the free rigid body; heavy top |Gamma|^2 and Pi.Gamma with Pi in kg m^2/s
  // and Gamma in m/s^2 (heavy_top trajectory fields)
  if (name == "casimir") return "kg^2 m^4/s^2";
  if (name == "casimir_gamma_norm") return "m^2/s^4";
  if (name == "casimir_pi_dot_gamma") return "kg m^3/s^3";
  throw std::invalid_argument("no SI unit is known for observable '" + name +
                              "' (add it to io::Units::observable_si, or run with units = dimensionless)");
}

void write_unit(hid_t obj, const std::string& unit) {
  if (!unit.empty()) h5::attr_ascii(obj, "unit", unit);
}

void write_units_module(hid_t h5md_group, const Units& units) {
  h5::Handle g = h5::create_group(h5md_group, "modules/units");
  h5::attr(g, "version", std::vector<std::int64_t>{1, 0});
  // The module's `system` names the system of every `unit` attribute: SI (wall-clock timings
  // are in s even when the model is dimensionless).
  h5::attr_ascii(g, "system", "SI");
  h5::attr(g, "model_quantities", units.system() == UnitSystem::SI
                                      ? "SI: every dataset of a model quantity with a dimension has a unit"
                                      : "dimensionless ([P], [K]): model quantities carry no unit attribute");
}

}  // namespace lie::io
