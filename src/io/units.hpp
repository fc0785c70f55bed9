#pragma once
// Physical units of a result file (H5MD units module 1.0, https://nongnu.org/h5md/modules/units.html):
// every dataset with a physical dimension carries an attribute `unit`, a scalar fixed-length ASCII
// string of unit factors separated by spaces, powers as signed integers ("kg m+2 s-1"); on the
// dataset for time-independent elements, on `value` and `time` for time-dependent ones.
// Dimensionless data carry no `unit`. The unit system is declared once per study by key `units`:
// `si` for [L]'s examples (m, kg, s, N m, J), `dimensionless` for [P] and [K] (then no model
// quantity carries a unit; wall-clock timings are still in s). /h5md/modules/units records it.
#include <hdf5.h>

#include <string>
#include <utility>
#include <vector>

namespace lie {
class Config;
}

namespace lie::io {

enum class UnitSystem { Dimensionless, SI };

/// Unit factors: symbol -> power (never 0), in first-seen order for printing.
class UnitFactors {
 public:
  /// Parses the suite's notation ("kg m^2/s", "rad/s", "m/s^2", "1/s", "1", "time" = "s") as well
  /// as H5MD's ("kg m+2 s-1"). Throws std::invalid_argument naming a symbol that is not SI.
  static UnitFactors parse(const std::string& text);
  UnitFactors times(const UnitFactors& o) const;
  UnitFactors per(const UnitFactors& o) const;
  bool dimensionless() const { return order_.empty(); }
  /// H5MD unit string ("" when dimensionless).
  std::string h5md() const;

 private:
  std::vector<std::pair<std::string, int>> order_;
  void add(const std::string& symbol, int power);
};

class Units {
 public:
  Units() = default;
  explicit Units(UnitSystem s) : system_(s) {}
  /// Key `units` of the configuration.
  static Units from_config(const Config& cfg);
  /// The system a result file was written in (its /parameters@units; files without: dimensionless).
  static Units from_file(hid_t root);
  UnitSystem system() const { return system_; }
  std::string name() const { return system_ == UnitSystem::SI ? "SI" : "dimensionless"; }
  /// The H5MD unit string of a quantity whose SI unit is `si` in the suite's notation: "" when
  /// the quantity or the system is dimensionless. Throws std::invalid_argument on a unit that is
  /// not SI (e.g. "sigma" of a reduced-unit model) when the system is SI.
  std::string of(const std::string& si) const;
  std::string time() const { return of("s"); }
  /// SI unit (suite notation) of a model observable by name ("total_energy" -> "J",
  /// "unit_norm_error" -> "1"); throws std::invalid_argument for a name it does not know.
  static std::string observable_si(const std::string& name);
  std::string observable(const std::string& name) const {
    return system_ == UnitSystem::SI ? of(observable_si(name)) : "";
  }

 private:
  UnitSystem system_ = UnitSystem::Dimensionless;
};

/// Writes attribute `unit` (scalar, fixed-length ASCII) on obj; nothing when unit is empty.
void write_unit(hid_t obj, const std::string& unit);
/// Writes /h5md/modules/units (attrs version = {1, 0}, system) into the /h5md group.
void write_units_module(hid_t h5md_group, const Units& units);

}  // namespace lie::io
