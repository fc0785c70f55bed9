#include "methods/commutator_free.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/quote.hpp"
#include "methods/order_conditions.hpp"

namespace lie {

namespace {

constexpr std::size_t kOmpMin = 4096;  // array entries before an OpenMP team is used
constexpr double R(double p, double q) { return p / q; }

bool is_zero(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x == 0.0; });
}

std::map<std::string, CfTable> make_tables() {
  std::map<std::string, CfTable> t;
  using Exps = std::vector<std::vector<double>>;
  const auto map = [](int base, Exps e) { return CfMap{base, std::move(e)}; };

  // [P] eq. (9) (Celledoni, Marthinsen & Owren 2003): the commutator-free generalisation of
  // the classical RK4; Y_4 reuses the exponential of Y_2.
  CfTable cf4;
  cf4.name = "cf4";
  cf4.order = 4;
  cf4.stages = 4;
  cf4.stage = {map(0, {}),                                   //
               map(0, {{R(1, 2), 0, 0, 0}}),                 // Y2 = exp(h f1/2) y_n
               map(0, {{0, R(1, 2), 0, 0}}),                 // Y3 = exp(h f2/2) y_n
               map(1, {{R(-1, 2), 0, 1, 0}})};               // Y4 = exp(h f3 - h f1/2) Y2
  cf4.output = map(0, {{R(3, 12), R(2, 12), R(2, 12), R(-1, 12)},    // y_{n+1/2}
                       {R(-1, 12), R(2, 12), R(2, 12), R(3, 12)}});  // y_{n+1}
  cf4.source = "[P] eq. (9); Celledoni, Marthinsen & Owren, FGCS 19 (2003) 341-352";
  t["cf4"] = cf4;

  // [P] 4.2.2, eq. (34): cf4 furnished with a third-order auxiliary scheme using the extra
  // stage Ybar_3 = exp(3/4 h f2) y_n:  y~ = exp(h/9 (-f1 + 3 f2 + 4 fbar3)) exp(h/3 f1) y_n.
  CfTable cf43;
  cf43.name = "cf43";
  cf43.order = 4;
  cf43.embedded_order = 3;
  cf43.stages = 5;
  cf43.stage = {map(0, {}),                                        //
                map(0, {{R(1, 2), 0, 0, 0, 0}}),                   //
                map(0, {{0, R(1, 2), 0, 0, 0}}),                   //
                map(1, {{R(-1, 2), 0, 1, 0, 0}}),                  //
                map(0, {{0, R(3, 4), 0, 0, 0}})};                  // Ybar3 (embedded only)
  cf43.output = map(0, {{R(3, 12), R(2, 12), R(2, 12), R(-1, 12), 0},  //
                        {R(-1, 12), R(2, 12), R(2, 12), R(3, 12), 0}});
  cf43.embedded = map(0, {{R(1, 3), 0, 0, 0, 0},  //
                          {R(-1, 9), R(3, 9), 0, 0, R(4, 9)}});
  cf43.source = "[P] 4.2.2 eq. (34) with eq. (9)";
  t["cf43"] = cf43;

  // [P] 4.2.1, first pair (from Engo & Marthinsen, ref. [12]): the update reuses Y2.
  CfTable cf32a;
  cf32a.name = "cf32a";
  cf32a.order = 3;
  cf32a.embedded_order = 2;
  cf32a.stages = 3;
  cf32a.stage = {map(0, {}), map(0, {{R(1, 3), 0, 0}}), map(0, {{0, R(2, 3), 0}})};
  cf32a.output = map(1, {{R(-1, 12), 0, R(3, 4)}});  // y_{n+1} = exp(h(-f1/12 + 3 f3/4)) Y2
  cf32a.embedded = map(0, {{0, R(1, 2), R(1, 2)}});
  cf32a.source = "[P] 4.2.1 (first pair, reuses stage 2)";
  t["cf32a"] = cf32a;

  // [P] 4.2.1, second pair: the update reuses Y3.
  CfTable cf32b;
  cf32b.name = "cf32b";
  cf32b.order = 3;
  cf32b.embedded_order = 2;
  cf32b.stages = 3;
  cf32b.stage = {map(0, {}), map(0, {{R(2, 3), 0, 0}}), map(0, {{R(5, 12), R(1, 4), 0}})};
  cf32b.output = map(2, {{R(-1, 6), R(-1, 2), 1}});  // y_{n+1} = exp(h(-f1/6 - f2/2 + f3)) Y3
  cf32b.embedded = map(0, {{R(1, 4), 0, R(3, 4)}});
  cf32b.source = "[P] 4.2.1 (second pair, reuses stage 3)";
  t["cf32b"] = cf32b;

  // Crouch-Grossman method of order 3 with 3 stages: P. E. Crouch and R. Grossman, Numerical
  // integration of ordinary differential equations on manifolds, J. Nonlinear Sci. 3 (1993)
  // 1-33 (the coefficients as also tabulated in Hairer, Lubich & Wanner, Geometric Numerical
  // Integration, 2nd ed. 2006, IV.8.1, and Owren & Marthinsen, BIT 39 (1999) 116-142):
  //   c = (0, 3/4, 17/24), a21 = 3/4, a31 = 119/216, a32 = 17/108, b = (13/51, -2/3, 24/17).
  // Every exponential carries one frozen field: Y_i = exp(h a_{i,i-1} f_{i-1}) ... exp(h a_{i1} f_1) y_n.
  // Besides the classical conditions these satisfy the extra CG order-3 condition
  // sum_i b_i^2 c_i + 2 sum_{i<j} b_i c_i b_j = 1/3 (checked in tests/unit/test_methods_tables.cpp).
  CfTable cg3;
  cg3.name = "cg3";
  cg3.order = 3;
  cg3.stages = 3;
  cg3.stage = {map(0, {}), map(0, {{R(3, 4), 0, 0}}), map(0, {{R(119, 216), 0, 0}, {0, R(17, 108), 0}})};
  cg3.output = map(0, {{R(13, 51), 0, 0}, {0, R(-2, 3), 0}, {0, 0, R(24, 17)}});
  cg3.source = "Crouch & Grossman, J. Nonlinear Sci. 3 (1993); [P] 2.2";
  t["cg3"] = cg3;

  for (auto& [k, v] : t) v.validate();
  return t;
}

const std::map<std::string, CfTable>& tables() {
  static const std::map<std::string, CfTable> t = make_tables();
  return t;
}

}  // namespace

// ---------------------------------------------------------------- CfTable
std::vector<double> CfTable::chain_sums(const CfMap& m) const {
  std::vector<double> s(static_cast<std::size_t>(stages), 0.0);
  if (m.base > 0) s = chain_sums(stage[static_cast<std::size_t>(m.base)]);
  for (const auto& e : m.exps)
    for (std::size_t k = 0; k < s.size(); ++k) s[k] += e[k];
  return s;
}

double CfTable::c(int r) const {
  double sum = 0.0;
  for (double v : chain_sums(stage[static_cast<std::size_t>(r)])) sum += v;
  return sum;
}

ButcherTable CfTable::underlying() const {
  ButcherTable b;
  b.name = name + "_underlying";
  b.stages = stages;
  b.order = order;
  b.embedded_order = embedded_order;
  const std::size_t s = static_cast<std::size_t>(stages);
  b.A.assign(s * s, 0.0);
  b.c.assign(s, 0.0);
  for (std::size_t r = 0; r < s; ++r) {
    const auto a = chain_sums(stage[r]);
    for (std::size_t k = 0; k < s; ++k) {
      b.A[r * s + k] = a[k];
      b.c[r] += a[k];
    }
  }
  b.b = chain_sums(output);
  if (has_embedded()) b.bhat = chain_sums(embedded);
  b.source = "classical method underlying " + name;
  return b;
}

std::vector<char> CfTable::needed_stages(bool with_embedded) const {
  const std::size_t s = static_cast<std::size_t>(stages);
  std::vector<char> need(s, 0);
  need[0] = 1;  // y_n
  auto mark = [&](const CfMap& m) {
    need[static_cast<std::size_t>(m.base)] = 1;
    for (const auto& e : m.exps)
      for (std::size_t k = 0; k < s; ++k)
        if (e[k] != 0.0) need[k] = 1;
  };
  mark(output);
  if (with_embedded && has_embedded()) mark(embedded);
  // Stages depend only on earlier stages: one backward sweep closes the set.
  for (std::size_t r = s; r-- > 1;)
    if (need[r]) mark(stage[r]);
  return need;
}

int CfTable::exponentials(bool with_embedded) const {
  const auto need = needed_stages(with_embedded);
  auto count = [](const CfMap& m) {
    int n = 0;
    for (const auto& e : m.exps) n += is_zero(e) ? 0 : 1;
    return n;
  };
  int n = count(output) + (with_embedded && has_embedded() ? count(embedded) : 0);
  for (std::size_t r = 1; r < need.size(); ++r)
    if (need[r]) n += count(stage[r]);
  return n;
}

int CfTable::evaluations(bool with_embedded) const {
  const auto need = needed_stages(with_embedded);
  return static_cast<int>(std::count(need.begin(), need.end(), 1));
}

void CfTable::validate() const {
  const std::size_t s = static_cast<std::size_t>(stages);
  auto fail = [&](const std::string& what) { throw std::logic_error("CF table '" + name + "': " + what); };
  if (stages < 1 || stage.size() != s) fail("needs one map per stage");
  if (!stage[0].exps.empty() || stage[0].base != 0) fail("stage 1 must be y_n itself");
  auto check = [&](const CfMap& m, std::size_t limit, const std::string& what) {
    if (m.base < 0 || static_cast<std::size_t>(m.base) >= std::max<std::size_t>(limit, 1))
      fail(what + ": base point must be an earlier stage");
    for (const auto& e : m.exps) {
      if (e.size() != s) fail(what + ": every exponential needs " + std::to_string(s) + " coefficients");
      for (std::size_t k = limit; k < s; ++k)
        if (e[k] != 0.0) fail(what + ": uses f_" + std::to_string(k + 1) + " before it is known (not explicit)");
    }
  };
  for (std::size_t r = 1; r < s; ++r) check(stage[r], r, "stage " + std::to_string(r + 1));
  check(output, s, "output");
  if (has_embedded()) check(embedded, s, "embedded output");
}

const CfTable& cf_table(const std::string& name) {
  auto it = tables().find(name);
  if (it == tables().end()) throw std::out_of_range("no commutator-free table named " + name);
  return it->second;
}

std::vector<std::string> cf_table_names() {
  std::vector<std::string> out;
  for (const auto& [k, v] : tables()) out.push_back(k);
  return out;
}

CfTable cf_embedded_member(const CfTable& t) {
  if (!t.has_embedded()) throw std::logic_error("CF table '" + t.name + "' has no embedded output");
  CfTable e = t;
  e.name = t.name + "_embedded";
  e.output = t.embedded;
  e.embedded = {};
  e.order = t.embedded_order;
  e.embedded_order = 0;
  return e;
}

// ---------------------------------------------------------------- user tables (keys cf.*)
namespace {

constexpr int kMaxUserCfStages = 12;

std::vector<OptionSpec> cf_key_specs() {
  std::vector<OptionSpec> v = {
      {"cf.name", OptionType::String, "user_cf", "name of the user commutator-free method (method cf_user)", {}, "cf"},
      {"cf.output", OptionType::String, "",
       "output exponentials of a user CF/CG method: rows beta_j (coefficients of f_1..f_s, fractions p/q allowed) "
       "separated by ';', the first acting first; optional prefix \"Yk:\" applies them to stage k instead of y_n",
       {}, "cf"},
      {"cf.embedded", OptionType::String, "", "embedded output of a user CF method (format of cf.output; optional)",
       {}, "cf"},
      {"cf.c", OptionType::String, "", "nodes c_1..c_s of a user CF method (optional; checked against the sums)", {},
       "cf"},
  };
  for (int r = 2; r <= kMaxUserCfStages; ++r)
    v.push_back({"cf.stage" + std::to_string(r), OptionType::String, "",
                 "stage " + std::to_string(r) + " of a user CF method: exponentials alpha_{" + std::to_string(r) +
                     ",j} in the format of cf.output",
                 {}, "cf"});
  return v;
}
const bool kCfKeys = declare_options(cf_key_specs());

std::string trim_copy(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n\"");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n\"");
  return s.substr(b, e - b + 1);
}

std::vector<double> parse_row(const std::string& key, const std::string& text) {
  std::vector<double> v;
  std::string cur;
  for (char ch : text + ",") {
    if (ch == ',' || ch == ' ' || ch == '\t') {
      if (!cur.empty()) v.push_back(parse_coefficient(key, cur));
      cur.clear();
    } else {
      cur += ch;
    }
  }
  return v;
}

// "[Yk:] row; row; ..." -> CfMap over s stages.
CfMap parse_cf_map(const std::string& key, const std::string& value, std::size_t s) {
  CfMap m;
  std::string text = trim_copy(value);
  const auto colon = text.find(':');
  if (colon != std::string::npos) {
    const std::string base = trim_copy(text.substr(0, colon));
    std::size_t k = 0;
    const bool ok = base.size() >= 2 && (base[0] == 'Y' || base[0] == 'y') &&
                    base.find_first_not_of("0123456789", 1) == std::string::npos &&
                    (k = std::stoul(base.substr(1))) >= 1;
    if (!ok)
      throw UsageError("key " + quote(key) + " has base point " + quote(base) + "; write Yk: with k the stage (Y1 = y_n)");
    m.base = static_cast<int>(k - 1);
    text = text.substr(colon + 1);
  }
  std::vector<std::string> rows(1);
  for (char ch : text) {
    if (ch == ';') rows.emplace_back();
    else rows.back() += ch;
  }
  if (rows.size() > 1 && trim_copy(rows.back()).empty()) rows.pop_back();
  for (std::size_t j = 0; j < rows.size(); ++j) {
    std::vector<double> row = parse_row(key, rows[j]);
    if (row.empty())
      throw UsageError("key " + quote(key) + ": exponential " + std::to_string(j + 1) +
                       " is empty; give its coefficients of f_1..f_s (0 for none)");
    if (row.size() > s)
      throw UsageError("key " + quote(key) + ": exponential " + std::to_string(j + 1) + " has " +
                       std::to_string(row.size()) + " coefficients, more than the s = " + std::to_string(s) +
                       " stages (1 + the highest cf.stageK key set)");
    row.resize(s, 0.0);
    m.exps.push_back(std::move(row));
  }
  return m;
}

}  // namespace

// <edge> parse: a user CF table (keys cf.*)
bool has_cf_user_table(const Config& cfg) { return cfg.was_set("cf.output"); }

CfTable cf_table_from_config(const Config& cfg) {
  if (!cfg.was_set("cf.output"))
    throw UsageError("a user commutator-free method needs key 'cf.output' (and cf.stage2, cf.stage3, ... for its "
                     "stages; section [cf] of the experiment file); see `liebench run --help`");
  int last = 1;
  for (int r = 2; r <= kMaxUserCfStages; ++r)
    if (cfg.was_set("cf.stage" + std::to_string(r))) last = r;
  for (int r = 2; r < last; ++r)
    if (!cfg.was_set("cf.stage" + std::to_string(r)))
      throw UsageError("key 'cf.stage" + std::to_string(r) + "' is missing but cf.stage" + std::to_string(last) +
                       " is set; stages are numbered 2, 3, ... without gaps (stage 1 is y_n)");
  const std::size_t s = static_cast<std::size_t>(last);
  CfTable t;
  t.name = cfg.get_string("cf.name");
  t.source = "user CF table (experiment file)";
  t.stages = last;
  t.stage.push_back(CfMap{});
  for (int r = 2; r <= last; ++r) {
    const std::string key = "cf.stage" + std::to_string(r);
    t.stage.push_back(parse_cf_map(key, cfg.get_string(key), s));
  }
  t.output = parse_cf_map("cf.output", cfg.get_string("cf.output"), s);
  const bool embedded = cfg.was_set("cf.embedded");
  if (embedded) t.embedded = parse_cf_map("cf.embedded", cfg.get_string("cf.embedded"), s);
  t.embedded_order = embedded ? 1 : 0;  // provisional (has_embedded() during validation)
  try {
    t.validate();
  } catch (const std::logic_error& e) {
    throw UsageError(std::string(e.what()) + " (keys cf.*)");
  }
  const double tol = cfg.get_double("tableau.tolerance");
  if (cfg.was_set("cf.c")) {
    const std::vector<double> c = parse_row("cf.c", cfg.get_string("cf.c"));
    if (c.size() != s)
      throw UsageError("key 'cf.c' has " + std::to_string(c.size()) + " nodes; the method has s = " +
                       std::to_string(s) + " stages");
    for (std::size_t r = 0; r < s; ++r)
      if (std::fabs(c[r] - t.c(static_cast<int>(r))) > tol)
        throw UsageError("key 'cf.c': c_" + std::to_string(r + 1) + " = " + num(c[r]) +
                         " but the coefficients of stage " + std::to_string(r + 1) + " (with its base chain) sum to " +
                         num(t.c(static_cast<int>(r))) + "; every stage's coefficients must sum to its node");
  }
  const TableOrders o = table_orders(t.underlying(), tol);
  t.order = o.main.order;
  t.embedded_order = embedded ? o.embedded.order : 0;
  if (t.order < 1)
    throw UsageError("user CF method " + quote(t.name) + ": the output's coefficients sum to " +
                     std::to_string(o.main.conditions.front().phi) +
                     ", not 1 (first-order condition of the underlying method)");
  if (embedded && t.embedded_order < 1)
    throw UsageError("user CF method " + quote(t.name) + ": the coefficients of cf.embedded do not sum to 1");
  return t;
}
// </edge>

std::string format_cf_table(const CfTable& t) {
  std::ostringstream os;
  os << std::setprecision(10);
  auto map_text = [&](const CfMap& m) {
    std::ostringstream ms;
    ms << std::setprecision(10);
    for (std::size_t j = m.exps.size(); j-- > 0;) {
      ms << "exp(h(";
      bool any = false;
      for (std::size_t k = 0; k < m.exps[j].size(); ++k)
        if (m.exps[j][k] != 0.0) {
          ms << (any ? " + " : "") << m.exps[j][k] << " f" << k + 1;
          any = true;
        }
      ms << (any ? "" : "0") << ")) ";
    }
    ms << (m.base == 0 ? "y_n" : "Y" + std::to_string(m.base + 1));
    return ms.str();
  };
  os << "commutator-free method '" << t.name << "' (" << t.stages << " stages)\n";
  for (int r = 1; r < t.stages; ++r)
    os << "  Y" << r + 1 << " = " << map_text(t.stage[static_cast<std::size_t>(r)]) << "   (c = " << t.c(r) << ")\n";
  os << "  y_{n+1} = " << map_text(t.output) << "\n";
  if (t.has_embedded()) os << "  y~_{n+1} = " << map_text(t.embedded) << "\n";
  return os.str();
}

// ---------------------------------------------------------------- stepper
CommutatorFreeStepper::CommutatorFreeStepper(MethodInfo info, CfTable table)
    : info_(std::move(info)), table_(std::move(table)) {
  table_.validate();
  needed_main_ = table_.needed_stages(false);
  needed_pair_ = table_.needed_stages(true);
  for (int r = 0; r < table_.stages; ++r) c_.push_back(table_.c(r));
}

void CommutatorFreeStepper::bind(Model& model, par::Context& ctx) {
  model_ = &model;
  ctx_ = &ctx;
  na_ = model.space().alg_size();
  ns_ = model.space().state_size();
  const std::size_t s = static_cast<std::size_t>(table_.stages);
  f_.assign(s, std::vector<double>(na_, 0.0));
  point_.assign(s, std::vector<double>(ns_, 0.0));
  u_.assign(na_, 0.0);
  ytilde_.assign(ns_, 0.0);
  err_.assign(ns_, 0.0);
  f0_valid_ = false;
}

void CommutatorFreeStepper::combine(const std::vector<double>& w, double h, double* out) const {
  const std::size_t n = na_;
  std::memset(out, 0, n * sizeof(double));
  for (std::size_t k = 0; k < w.size(); ++k) {
    const double c = h * w[k];
    if (c == 0.0) continue;
    const double* fk = f_[k].data();
#pragma omp parallel for simd schedule(static) if (n >= kOmpMin)
    for (std::size_t i = 0; i < n; ++i) out[i] += c * fk[i];
  }
}

void CommutatorFreeStepper::apply(const CfMap& m, double h, const double* y, double* out) {
  const double* cur = m.base == 0 ? y : point_[static_cast<std::size_t>(m.base)].data();
  if (cur != out) std::memcpy(out, cur, ns_ * sizeof(double));
  const Space& sp = model_->space();
  for (const auto& e : m.exps) {
    if (is_zero(e)) continue;
    combine(e, h, u_.data());
    sp.exp_act(u_.data(), out, out);
    ++counters_.exp;
  }
}

void CommutatorFreeStepper::rebuild_cache(double t, const double* y) {
  // f(y_n) as the uninterrupted run holds it (checkpoint restart; not counted again).
  model_->vector_field(t, y, f_[0].data());
  f0_valid_ = true;
}

void CommutatorFreeStepper::compute_stages(double t, double h, const double* y, const std::vector<char>& needed) {
  if (!f0_valid_) {
    model_->vector_field(t, y, f_[0].data());
    ++counters_.rhs;
    f0_valid_ = true;
  }
  for (int r = 1; r < table_.stages; ++r) {
    const std::size_t ri = static_cast<std::size_t>(r);
    if (!needed[ri]) continue;
    apply(table_.stage[ri], h, y, point_[ri].data());
    model_->vector_field(t + c_[ri] * h, point_[ri].data(), f_[ri].data());
    ++counters_.rhs;
  }
}

void CommutatorFreeStepper::step(double t, double h, double* y) {
  compute_stages(t, h, y, needed_main_);
  apply(table_.output, h, y, y);  // the stage points are kept apart, so y may be overwritten
  f0_valid_ = false;
  ++counters_.steps;
}

double CommutatorFreeStepper::try_step(double t, double h, const double* y, double* y_new, const ErrorNorm& norm) {
  if (!table_.has_embedded()) return Stepper::try_step(t, h, y, y_new, norm);
  compute_stages(t, h, y, needed_pair_);
  apply(table_.output, h, y, y_new);
  apply(table_.embedded, h, y, ytilde_.data());
  const std::size_t n = ns_;
  double* e = err_.data();
  const double* yt = ytilde_.data();
#pragma omp parallel for simd schedule(static) if (n >= kOmpMin)
  for (std::size_t i = 0; i < n; ++i) e[i] = y_new[i] - yt[i];
  // f_[0] = f(y) stays valid: a rejected step restarts from the same y.
  return norm(err_.data(), y_new, n, *ctx_);
}

void CommutatorFreeStepper::accept() {
  f0_valid_ = false;
  ++counters_.steps;
}

// ---------------------------------------------------------------- registration
namespace {

MethodEntry cf_entry(const std::string& name, const std::string& family_note) {
  const CfTable& t = cf_table(name);
  record_method_table(name, name);
  MethodInfo m;
  m.name = name;
  m.family = name == "cg3" ? "cg" : "cf";
  m.order = t.order;
  m.embedded_order = t.embedded_order;
  m.stages = t.evaluations(true);
  m.exps_per_step = t.exponentials(true);
  m.description = family_note;
  if (t.has_embedded())
    m.description += "; error estimate: Euclidean norm of y - y~ in the embedding space";
  m.source = t.source;
  return {name, m, [m, t](const MethodOptions&) { return std::make_unique<CommutatorFreeStepper>(m, t); }};
}

}  // namespace

LIEBENCH_REGISTER(MethodEntry, cf_entry("cf4", "commutator-free RK4 with exponential reuse (Y4 from Y2)"))
LIEBENCH_REGISTER(MethodEntry, cf_entry("cf43", "CF 4(3) pair: cf4 plus stage Ybar3 and a 3rd-order output "
                                                "(fixed steps: cost of cf4)"))
LIEBENCH_REGISTER(MethodEntry, cf_entry("cf32a", "CF 3(2) pair, update reuses the exponential of stage 2"))
LIEBENCH_REGISTER(MethodEntry, cf_entry("cf32b", "CF 3(2) pair, update reuses the exponential of stage 3"))
LIEBENCH_REGISTER(MethodEntry, cf_entry("cg3", "Crouch-Grossman method of order 3 (one field per exponential)"))

namespace {
MethodEntry cf_user_entry() {
  MethodInfo info;
  info.name = "cf_user";
  info.family = "cf";
  info.description =
      "commutator-free or Crouch-Grossman method from user coefficient tables (keys cf.*; order of the underlying "
      "classical method, `liebench tableau FILE.cfg`)";
  info.source = "user";
  return {"cf_user", info,
          [info](const MethodOptions& o) {
            const CfTable& t = std::any_cast<const CfTable&>(o);
            MethodInfo m = info;
            m.order = t.order;
            m.embedded_order = t.embedded_order;
            m.stages = t.evaluations(true);
            m.exps_per_step = t.exponentials(true);
            m.description = "CF, user table '" + t.name + "' (order of the underlying classical method)";
            m.source = "user CF table";
            return std::make_unique<CommutatorFreeStepper>(m, t);
          },
          // <edge>
          [](const Config& cfg) { return MethodOptions(cf_table_from_config(cfg)); }
          // </edge>
  };
}
}  // namespace

LIEBENCH_REGISTER(MethodEntry, cf_user_entry())

}  // namespace lie
