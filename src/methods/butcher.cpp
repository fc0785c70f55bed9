#include "methods/butcher.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "core/error.hpp"
#include "core/quote.hpp"
#include "io/config.hpp"
#include "methods/order_conditions.hpp"

namespace lie {

namespace {

constexpr double R(double p, double q) { return p / q; }

std::map<std::string, ButcherTable> make_tables() {
  std::map<std::string, ButcherTable> t;
  t["euler"] = {"euler", 1, 1, 0, {0.0}, {1.0}, {}, {0.0}, "explicit Euler"};
  // Heun's method (explicit trapezoidal rule): the Lie-Euler-Heun method of [P] 5.3.
  t["heun2"] = {"heun2", 2, 2, 0, {0, 0, 1, 0}, {0.5, 0.5}, {}, {0, 1}, "Heun (1900)"};
  // Kutta's third-order method (Hairer-Norsett-Wanner I, Table 1.1).
  t["kutta3"] = {"kutta3", 3, 3, 0, {0, 0, 0, 0.5, 0, 0, -1, 2, 0}, {R(1, 6), R(2, 3), R(1, 6)}, {}, {0, 0.5, 1},
                 "Kutta (1901)"};
  // The classical fourth-order method ([K] Table 3.1).
  t["rk4"] = {"rk4", 4, 4, 0,
              {0, 0, 0, 0,  //
               0.5, 0, 0, 0,  //
               0, 0.5, 0, 0,  //
               0, 0, 1, 0},
              {R(1, 6), R(1, 3), R(1, 3), R(1, 6)}, {}, {0, 0.5, 0.5, 1}, "Kutta (1901); [K] Table 3.1"};
  // Dormand-Prince 5(4), FSAL ([P] ref. [14]).
  t["dopri5"] = {"dopri5", 7, 5, 4,
                 {0, 0, 0, 0, 0, 0, 0,  //
                  R(1, 5), 0, 0, 0, 0, 0, 0,  //
                  R(3, 40), R(9, 40), 0, 0, 0, 0, 0,  //
                  R(44, 45), R(-56, 15), R(32, 9), 0, 0, 0, 0,  //
                  R(19372, 6561), R(-25360, 2187), R(64448, 6561), R(-212, 729), 0, 0, 0,  //
                  R(9017, 3168), R(-355, 33), R(46732, 5247), R(49, 176), R(-5103, 18656), 0, 0,  //
                  R(35, 384), 0, R(500, 1113), R(125, 192), R(-2187, 6784), R(11, 84), 0},
                 {R(35, 384), 0, R(500, 1113), R(125, 192), R(-2187, 6784), R(11, 84), 0},
                 {R(5179, 57600), 0, R(7571, 16695), R(393, 640), R(-92097, 339200), R(187, 2100), R(1, 40)},
                 {0, R(1, 5), R(3, 10), R(4, 5), R(8, 9), 1, 1},
                 "Dormand & Prince, J. Comput. Appl. Math. 6 (1980) 19-26"};
  return t;
}

const std::map<std::string, ButcherTable>& tables() {
  static const std::map<std::string, ButcherTable> t = make_tables();
  return t;
}

}  // namespace

bool ButcherTable::fsal() const {
  if (stages < 2 || c.back() != 1.0) return false;
  for (int j = 0; j < stages; ++j)
    if (a(stages - 1, j) != b[static_cast<std::size_t>(j)]) return false;
  return true;
}

void ButcherTable::validate() const {
  const std::size_t s = static_cast<std::size_t>(stages);
  if (stages < 1) throw UsageError("Butcher table " + quote(name) + ": needs at least one stage");
  if (stages > kMaxStages)
    throw UsageError("Butcher table " + quote(name) + ": " + std::to_string(stages) + " stages; at most " +
                     std::to_string(kMaxStages) + " are supported");
  if (A.size() != s * s)
    throw UsageError("Butcher table " + quote(name) + ": A has " + std::to_string(A.size()) + " entries, expected " +
                     std::to_string(s * s) + " (stages x stages, row by row)");
  if (b.size() != s)
    throw UsageError("Butcher table " + quote(name) + ": b has " + std::to_string(b.size()) + " entries, expected " +
                     std::to_string(s));
  if (!bhat.empty() && bhat.size() != s)
    throw UsageError("Butcher table " + quote(name) + ": bhat has " + std::to_string(bhat.size()) +
                     " entries, expected " + std::to_string(s));
  if (c.size() != s)
    throw UsageError("Butcher table " + quote(name) + ": c has " + std::to_string(c.size()) + " entries, expected " +
                     std::to_string(s));
  for (int i = 0; i < stages; ++i) {
    double row = 0.0;
    for (int j = 0; j < stages; ++j) {
      if (j >= i && a(i, j) != 0.0)
        throw UsageError("Butcher table " + quote(name) + ": A(" + std::to_string(i + 1) + "," + std::to_string(j + 1) +
                         ") is nonzero; only explicit (strictly lower triangular) tables are supported");
      row += a(i, j);
    }
    if (std::fabs(row - c[static_cast<std::size_t>(i)]) > 1e-12)
      throw UsageError("Butcher table " + quote(name) + ": c_" + std::to_string(i + 1) + " = " +
                       num(c[static_cast<std::size_t>(i)]) + " but row sum of A is " + num(row) +
                       " (need c_i = sum_j a_ij)");
  }
}

const ButcherTable& butcher_table(const std::string& name) {
  auto it = tables().find(name);
  if (it == tables().end()) throw std::out_of_range("no Butcher table named " + name);
  return it->second;
}

ButcherTable embedded_member(const ButcherTable& t) {
  if (!t.has_embedded()) throw std::logic_error("Butcher table '" + t.name + "' has no embedded weights");
  ButcherTable e = t;
  e.name = t.name + "_embedded";
  e.b = t.bhat;
  e.bhat.clear();
  e.order = t.embedded_order;
  e.embedded_order = 0;
  return e;
}

// ---------------------------------------------------------------- user tableau
namespace {

const bool kTableauKeys = declare_options({
    {"tableau.name", OptionType::String, "user", "name of the user tableau (methods rkmk_user, classical_user)", {},
     "tableau"},
    {"tableau.A", OptionType::String, "",
     "stage matrix of an explicit Butcher tableau: rows separated by ';' (short rows are padded with 0), or all "
     "s*s entries row-major, or the s(s-1)/2 entries below the diagonal; entries are reals or fractions p/q",
     {}, "tableau"},
    {"tableau.b", OptionType::String, "", "weights b_1..b_s of the user tableau (defines the number of stages s)", {},
     "tableau"},
    {"tableau.c", OptionType::String, "", "nodes c_1..c_s (optional; default: row sums of A, which they must equal)",
     {}, "tableau"},
    {"tableau.bhat", OptionType::String, "", "embedded weights (optional): makes the method an adaptive pair", {},
     "tableau"},
    {"tableau.tolerance", OptionType::PositiveReal, "1e-10",
     "an order condition counts as satisfied when |Phi(t) - 1/gamma(t)| <= this", {}, "tableau"},
    // Several user tableaus in one study: section [tableau.<name>] per tableau, methods
    // rkmk_user:<name> / classical_user:<name> (methods/stepper.hpp, MethodSpec).
    {"tableau.<name>.A", OptionType::String, "",
     "stage matrix of the user tableau of that name (format of tableau.A); methods rkmk_user and classical_user "
     "take the name after ':' (rkmk_user:rkmk38 reads section [tableau.rkmk38])", {}, "tableau"},
    {"tableau.<name>.b", OptionType::String, "", "weights of the user tableau of that name", {}, "tableau"},
    {"tableau.<name>.c", OptionType::String, "", "nodes of the user tableau of that name (optional)", {}, "tableau"},
    {"tableau.<name>.bhat", OptionType::String, "", "embedded weights of the user tableau of that name (optional)", {},
     "tableau"},
});

constexpr const char* kTableFields[] = {"A", "b", "c", "bhat", "project"};

// <edge> parse: user tableaus (keys tableau.*)
bool section_set(const Config& cfg, const std::string& name) {
  for (const char* f : kTableFields)
    if (cfg.was_set("tableau." + name + "." + f)) return true;
  return false;
}
// </edge>

std::vector<std::string> split_entries(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : text) {
    if (ch == ',' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::vector<double> parse_vector(const std::string& key, const std::string& text) {
  std::vector<double> v;
  for (const auto& e : split_entries(text)) v.push_back(parse_coefficient(key, e));
  return v;
}

std::vector<double> parse_stage_matrix(const std::string& key, const std::string& text, std::size_t s) {
  std::vector<double> A(s * s, 0.0);
  if (text.find(';') != std::string::npos) {
    std::vector<std::string> rows;
    std::string cur;
    for (char ch : text) {
      if (ch == ';') {
        rows.push_back(cur);
        cur.clear();
      } else {
        cur += ch;
      }
    }
    rows.push_back(cur);
    // A trailing ';' leaves an empty last row: drop it.
    if (rows.size() == s + 1 && split_entries(rows.back()).empty()) rows.pop_back();
    if (rows.size() != s)
      throw UsageError("key " + quote(key) + " has " + std::to_string(rows.size()) + " rows (separated by ';'), but b has " +
                       std::to_string(s) + " entries; need one row per stage");
    for (std::size_t i = 0; i < s; ++i) {
      const auto row = parse_vector(key, rows[i]);
      if (row.size() > s)
        throw UsageError("key " + quote(key) + ": row " + std::to_string(i + 1) + " has " + std::to_string(row.size()) +
                         " entries, more than the " + std::to_string(s) + " stages");
      for (std::size_t j = 0; j < row.size(); ++j) A[i * s + j] = row[j];
    }
    return A;
  }
  const auto v = parse_vector(key, text);
  if (v.size() == s * s) return v;
  if (v.size() == s * (s - 1) / 2) {
    std::size_t k = 0;
    for (std::size_t i = 1; i < s; ++i)
      for (std::size_t j = 0; j < i; ++j) A[i * s + j] = v[k++];
    return A;
  }
  throw UsageError("key " + quote(key) + " has " + std::to_string(v.size()) + " entries; with s = " + std::to_string(s) +
                   " stages (the length of tableau.b) give " + std::to_string(s * s) + " (row-major), " +
                   std::to_string(s * (s - 1) / 2) + " (below the diagonal), or rows separated by ';'");
}

}  // namespace

double parse_coefficient(const std::string& key, const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return parse_double(key, text);
  const double p = parse_double(key, text.substr(0, slash));
  const double q = parse_double(key, text.substr(slash + 1));
  if (q == 0.0) throw UsageError("key " + quote(key) + " has entry " + quote(text) + "; division by zero");
  return p / q;
}

// <edge> parse: user tableaus (keys tableau.*)
std::string user_tableau_key(const Config& cfg, const std::string& field) {
  const std::string name = cfg.get_string("tableau.name");
  return section_set(cfg, name) ? "tableau." + name + "." + field : "tableau." + field;
}

ButcherTable butcher_table_from_config(const Config& cfg) {
  const std::string A = user_tableau_key(cfg, "A"), b = user_tableau_key(cfg, "b"), c = user_tableau_key(cfg, "c"),
                    bhat = user_tableau_key(cfg, "bhat");
  if (!cfg.was_set(b) || !cfg.was_set(A))
    throw UsageError("a user tableau needs keys " + quote(A) + " and " + quote(b) + " (section [" + A.substr(0, A.size() - 2) +
                     "] of the experiment file); see `liebench run --help`");
  ButcherTable t;
  t.name = cfg.get_string("tableau.name");
  t.source = "user tableau (experiment file)";
  t.b = parse_vector(b, cfg.get_string(b));
  if (t.b.empty()) throw UsageError("key " + quote(b) + " is empty; expected the weights b_1..b_s");
  const std::size_t s = t.b.size();
  t.stages = static_cast<int>(s);
  t.A = parse_stage_matrix(A, cfg.get_string(A), s);
  if (cfg.was_set(c)) {
    t.c = parse_vector(c, cfg.get_string(c));
  } else {
    t.c.assign(s, 0.0);
    for (std::size_t i = 0; i < s; ++i)
      for (std::size_t j = 0; j < s; ++j) t.c[i] += t.A[i * s + j];
  }
  if (cfg.was_set(bhat)) t.bhat = parse_vector(bhat, cfg.get_string(bhat));
  t.validate();
  const TableOrders orders = table_orders(t, cfg.get_double("tableau.tolerance"));
  t.order = orders.main.order;
  t.embedded_order = t.has_embedded() ? orders.embedded.order : 0;
  if (t.order < 1)
    throw UsageError("user tableau " + quote(t.name) + " does not even satisfy the first-order condition sum b_i = 1 "
                     "(sum is " + num(orders.main.conditions.front().phi) + ")");
  if (t.has_embedded() && t.embedded_order < 1)
    throw UsageError("user tableau " + quote(t.name) + ": the embedded weights " + bhat + " do not satisfy sum bhat_i = 1");
  return t;
}

bool takes_user_tableau(const std::string& method) { return method == "rkmk_user" || method == "classical_user"; }

Config user_tableau_config(const Config& cfg, const std::string& name, const std::string& spec) {
  const bool section = section_set(cfg, name);
  const bool plain = cfg.get_string("tableau.name") == name && (cfg.was_set("tableau.A") || cfg.was_set("tableau.b"));
  if (section && plain)
    throw UsageError("method " + quote(spec) + ": tableau " + quote(name) + " is given twice, in section [tableau." + name +
                     "] and as tableau.* with tableau.name = " + name + "; keep one");
  if (!section && !plain)
    throw UsageError("method " + quote(spec) + ": no user tableau named " + quote(name) + "; give its keys in section [tableau." +
                     name + "] (A and b; optional c, bhat, project), or set tableau.name = " + name +
                     " beside the keys tableau.*");
  return cfg.with({{"tableau.name", name}});
}

std::vector<std::string> user_tableau_names(const Config& cfg) {
  std::vector<std::string> out;
  if (cfg.was_set("tableau.A") || cfg.was_set("tableau.b")) out.push_back(cfg.get_string("tableau.name"));
  for (const auto& [k, v] : cfg.resolved_pairs()) {
    if (k.rfind("tableau.", 0) != 0 || !cfg.was_set(k)) continue;
    const std::string rest = k.substr(8);
    const auto dot = rest.find('.');
    if (dot == std::string::npos) continue;
    const std::string name = rest.substr(0, dot);
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}
// </edge>

std::vector<std::string> butcher_table_names() {
  std::vector<std::string> out;
  for (const auto& [k, v] : tables()) out.push_back(k);
  return out;
}

namespace {
std::map<std::string, std::string>& method_tables() {
  static std::map<std::string, std::string> m;  // filled during static registration
  return m;
}
}  // namespace

void record_method_table(const std::string& method, const std::string& table) { method_tables()[method] = table; }

const std::string* method_table(const std::string& method) {
  const auto it = method_tables().find(method);
  return it == method_tables().end() ? nullptr : &it->second;
}

}  // namespace lie
