#include "studies/summary.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "io/table.hpp"
#include "studies/output.hpp"
#include "studies/study.hpp"

namespace lie::studies {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::int64_t kMissingInt = -1;

h5::Kind kind_of(const Value& v) {
  if (std::holds_alternative<std::int64_t>(v)) return h5::Kind::Integer;
  if (std::holds_alternative<double>(v)) return h5::Kind::Real;
  return h5::Kind::String;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

void Row::set(const std::string& name, Value v) {
  for (auto& [k, x] : cells)
    if (k == name) {
      x = std::move(v);
      return;
    }
  cells.emplace_back(name, std::move(v));
}

const Value* Row::find(const std::string& name) const {
  for (const auto& [k, x] : cells)
    if (k == name) return &x;
  return nullptr;
}

std::size_t Column::size() const {
  switch (kind) {
    case h5::Kind::Integer: return ints.size();
    case h5::Kind::String: return texts.size();
    default: return reals.size();
  }
}

double Column::real(std::size_t i) const {
  switch (kind) {
    case h5::Kind::Integer: return ints[i] == kMissingInt ? kNaN : static_cast<double>(ints[i]);
    case h5::Kind::Real: return reals[i];
    default: return kNaN;
  }
}

std::string Column::text(std::size_t i) const {
  switch (kind) {
    case h5::Kind::Integer: return std::to_string(ints[i]);
    case h5::Kind::Real: return io::fmt_general(reals[i], 17);
    default: return texts[i];
  }
}

Summary::Summary(std::vector<Row> rows, const std::vector<std::string>& key_columns) {
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.run_index < b.run_index; });
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i].run_index == rows[i - 1].run_index)
      throw std::runtime_error("summary: run " + std::to_string(rows[i].run_index) + " appears twice");
  // column kinds from the first value seen
  std::map<std::string, h5::Kind> kinds;
  std::set<std::string> names;
  for (const Row& r : rows)
    for (const auto& [k, v] : r.cells) {
      names.insert(k);
      auto it = kinds.find(k);
      if (it == kinds.end()) kinds.emplace(k, kind_of(v));
      else if (it->second != kind_of(v)) {
        // an integer column that also holds reals becomes real
        if ((it->second == h5::Kind::Integer && kind_of(v) == h5::Kind::Real) ||
            (it->second == h5::Kind::Real && kind_of(v) == h5::Kind::Integer))
          it->second = h5::Kind::Real;
        else
          throw std::runtime_error("summary: column '" + k + "' mixes text and numbers");
      }
    }
  std::vector<std::string> order = {"run_id"};
  for (const auto& k : key_columns)
    if (names.count(k) && std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
  for (const auto& k : names)
    if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
  order.erase(std::remove_if(order.begin(), order.end(), [&](const std::string& k) { return !names.count(k); }),
              order.end());

  for (const Row& r : rows) run_index_.push_back(r.run_index);
  for (const auto& name : order) {
    Column c;
    c.name = name;
    c.kind = kinds.at(name);
    for (const Row& r : rows) {
      const Value* v = r.find(name);
      switch (c.kind) {
        case h5::Kind::Integer: c.ints.push_back(v ? std::get<std::int64_t>(*v) : kMissingInt); break;
        case h5::Kind::Real:
          if (!v) c.reals.push_back(kNaN);
          else if (std::holds_alternative<double>(*v)) c.reals.push_back(std::get<double>(*v));
          else c.reals.push_back(static_cast<double>(std::get<std::int64_t>(*v)));
          break;
        default: c.texts.push_back(v ? std::get<std::string>(*v) : std::string()); break;
      }
    }
    columns_.push_back(std::move(c));
  }
}

const Column* Summary::find(const std::string& name) const {
  for (const auto& c : columns_)
    if (c.name == name) return &c;
  return nullptr;
}

const Column& Summary::get(const std::string& name) const {
  if (const Column* c = find(name)) return *c;
  throw std::runtime_error("the file's /summary has no column '" + name + "'");
}

std::vector<Row> Summary::to_rows() const {
  std::vector<Row> out(rows());
  for (std::size_t i = 0; i < rows(); ++i) {
    out[i].run_index = run_index_[i];
    for (const auto& c : columns_) {
      switch (c.kind) {
        case h5::Kind::Integer: out[i].cells.emplace_back(c.name, c.ints[i]); break;
        case h5::Kind::Real: out[i].cells.emplace_back(c.name, c.reals[i]); break;
        default: out[i].cells.emplace_back(c.name, c.texts[i]); break;
      }
    }
  }
  return out;
}

void Summary::write(const h5::File& f, hid_t root, const io::Units& units) const {
  h5::Handle g = h5::create_group(root, "summary");
  h5::attr(g, "description", "one row per run (ordered by run_index); report tables are computed from these columns");
  std::vector<std::string> names = {"run_index"};
  for (const auto& c : columns_) names.push_back(c.name);
  h5::attr(g, "columns", names);
  h5::attr(g, "rows", static_cast<std::int64_t>(rows()));
  {
    h5::Handle d = h5::write_vector(f, g, "run_index", run_index_);
    h5::attr(d, "description", "index of the run in the study grid (run id run_NNNNN)");
  }
  for (const auto& c : columns_) {
    h5::Handle d;
    switch (c.kind) {
      case h5::Kind::Integer: d = h5::write_vector(f, g, c.name, c.ints); break;
      case h5::Kind::Real: d = h5::write_vector(f, g, c.name, c.reals); break;
      default: d = h5::write_vector(f, g, c.name, c.texts); break;
    }
    const ColumnInfo info = describe_column(c.name);
    std::string unit = "s";  // wall-clock seconds in every unit system
    if (!info.wall_clock) {
      try {
        unit = units.of(info.unit);
      } catch (const std::invalid_argument&) {
        unit = "";  // an observable without a known SI unit: its metrics stay without one (description says what)
      }
    }
    io::write_unit(d, unit);
    if (!info.description.empty()) h5::attr(d, "description", info.description);
  }
}

Summary Summary::read(hid_t root) {
  Summary s;
  if (!h5::exists(root, "summary"))
    throw UsageError("the file has no /summary table (not a complete liebench study file: written by an interrupted "
                     "or older liebench?)");
  h5::Handle g = h5::open_group(root, "summary");
  const auto names = h5::attr_strings(g, "columns");
  s.run_index_ = h5::read_ints(g, "run_index");
  for (const auto& name : names) {
    if (name == "run_index") continue;
    Column c;
    c.name = name;
    h5::Handle d = h5::open_dataset(g, name);
    c.kind = h5::dataset_kind(d);
    switch (c.kind) {
      case h5::Kind::Integer: c.ints = h5::read_ints(g, name); break;
      case h5::Kind::Real: c.reals = h5::read_doubles(g, name); break;
      case h5::Kind::String: c.texts = h5::read_strings(g, name); break;
      default: throw std::runtime_error("summary column '" + name + "' has an unsupported type");
    }
    if (c.size() != s.run_index_.size()) throw std::runtime_error("summary column '" + name + "' has the wrong length");
    s.columns_.push_back(std::move(c));
  }
  return s;
}

double real_at(const Summary& s, const std::string& col, std::size_t row) {
  const Column* c = s.find(col);
  return c ? c->real(row) : kNaN;
}

std::string text_at(const Summary& s, const std::string& col, std::size_t row) {
  const Column* c = s.find(col);
  return c ? c->text(row) : "";
}

bool failed_at(const Summary& s, std::size_t row) {
  const Column* c = s.find("status");
  return c && run_failed(c->text(row));
}

std::string group_label(const Summary& s, const std::vector<std::string>& cols, std::size_t row) {
  std::string g;
  for (const auto& c : cols) g += (g.empty() ? "" : ", ") + c + "=" + s.get(c).text(row);
  return g;
}

bool is_step_column(const std::string& name) {
  return name == "method" || name == "steps" || name == "h" || name == "tol";
}

ColumnInfo describe_column(const std::string& name) {
  static const std::map<std::string, ColumnInfo> known = {
      {"run_id", {"", "run group name under /runs"}},
      {"method", {"", "integration method (liebench list methods)"}},
      {"method_order", {"", "nominal order of the method"}},
      {"method_embedded_order", {"", "order of the embedded error estimator (0: none)"}},
      {"status", {"", "ok | nonfinite (the solution blew up) | failed: <reason>"}},
      {"steps", {"", "number of (accepted) steps"}},
      {"h", {"s", "step size (t_final - t0) / steps of a fixed-step run"}},
      {"tol", {"", "tolerance of an adaptive run (keys atol, rtol, error_norm say how it scales the error estimate)"}},
      {"t0", {"s", "initial time"}},
      {"t_final", {"s", "final time T"}},
      {"error", {"", "global error at T: Model::state_distance(y_N, y(T)) (Euclidean norm of the embedding space; its components have different units: no unit attribute)"}},
      {"error_scale", {"", "|y(T)| of the exact/reference solution (scale of the round-off floor)"}},
      {"reference_error", {"", "error of the reference solution: its estimate, or the difference from the independent "
                               "check (reference.check_method) when larger; 0 for an exact solution"}},
      {"reference_certified", {"", "|y_ref(T) - y_check(T)|: the reference against an independent route "
                                   "(reference.check_method)"}},
      {"reference", {"", "what the error is measured against: exact | <method> steps=N | <method> tol=T"}},
      {"accepted", {"", "accepted steps of an adaptive run"}},
      {"rejected", {"", "rejected trial steps of an adaptive run"}},
      {"rhs_evaluations", {"", "vector-field evaluations (Stepper counters)"}},
      {"exponentials", {"", "group exponentials/actions (Stepper counters)"}},
      {"h_min", {"s", "smallest accepted step"}},
      {"h_max", {"s", "largest accepted step"}},
      {"samples", {"", "number of time-series samples"}},
      {"sample_every", {"", "steps between time-series samples (fixed steps)"}},
      {"layout", {"", "MPI ranks x OpenMP threads per rank"}},
      {"ranks", {"", "MPI ranks"}},
      {"threads", {"", "OpenMP threads per rank"}},
      {"cores", {"", "ranks x threads"}},
  };
  auto it = known.find(name);
  if (it != known.end()) return it->second;
  for (const StudyEntry* kind : StudyRegistry::instance().all())
    if (auto c = kind->columns.find(name); c != kind->columns.end()) return c->second;
  if (ends_with(name, ".growth"))
    return {"", "exponent b of |e| ~ t^b fitted to the running maximum of the error over the last two decades of "
                "the run (growth_law, studies/analysis.hpp)"};
  if (ends_with(name, ".law"))
    return {"", "growth law of the error: bounded (b < 0.25), sqrt(t) (b < 0.75), linear (b < 1.5), faster, exact "
                "(always 0), saturated (a relative energy error of 0.1 or more) or empty (too short a run)"};
  for (const char* s : {".max", ".mean", ".drift", ".final"}) {
    const std::string suf = s;
    if (!ends_with(name, suf)) continue;
    const std::string base = name.substr(0, name.size() - suf.size());
    const std::string what = suf == ".max" ? "maximum over samples of |" : suf == ".mean" ? "mean over samples of |"
                             : suf == ".drift" ? "drift rate (least-squares slope over time) of "
                                               : "value at T of ";
    const std::string close = (suf == ".max" || suf == ".mean") ? "|" : "";
    std::string meaning;
    // SI unit (suite notation): relative errors are pure numbers; x - x0 and manifold errors have
    // the observable's unit; a drift is that per second.
    std::string unit = "1";
    try {
      if (ends_with(base, ".rel_error")) {
        meaning = "(x - x0)/|x0| of " + base.substr(0, base.size() - 10);
      } else if (ends_with(base, ".abs_error")) {
        meaning = "x - x0 of " + base.substr(0, base.size() - 10);
        unit = io::Units::observable_si(base.substr(0, base.size() - 10));
      } else {
        meaning = base;
        unit = io::Units::observable_si(base);
      }
    } catch (const std::invalid_argument&) {
      return {"", what + meaning + close};
    }
    io::UnitFactors u = io::UnitFactors::parse(unit);
    if (suf == ".drift") u = u.per(io::UnitFactors::parse("s"));
    return {u.dimensionless() ? "" : u.h5md(), what + meaning + close};
  }
  return {"", ""};
}

}  // namespace lie::studies
