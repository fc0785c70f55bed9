// `liebench tableau FILE.cfg | NAME | --all`: checks the classical order conditions (rooted
// trees up to order 8, order_conditions.hpp) of a user Butcher tableau in an experiment file
// (keys tableau.*) or of the classical method underlying a user commutator-free method (keys
// cf.*), of a built-in table, or of every built-in table, and prints the residual of every
// condition and the orders found; also the conditions of a composition (methods/composition.hpp).
#include <mpi.h>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "app/commands.hpp"
#include "core/quote.hpp"
#include "io/config.hpp"
#include "methods/butcher.hpp"
#include "methods/commutator_free.hpp"
#include "methods/composition.hpp"
#include "methods/order_conditions.hpp"
#include "methods/stepper.hpp"

namespace lie {

namespace {

std::string format_table(const ButcherTable& t) {
  std::ostringstream os;
  os << std::setprecision(10);
  os << "tableau '" << t.name << "' (" << t.stages << " stages" << (t.fsal() ? ", FSAL" : "") << ")\n";
  for (int i = 0; i < t.stages; ++i) {
    os << "  " << std::setw(13) << t.c[static_cast<std::size_t>(i)] << " |";
    for (int j = 0; j < i; ++j) os << std::setw(14) << t.a(i, j);
    os << "\n";
  }
  os << "  " << std::string(13, ' ') << " |";
  for (double v : t.b) os << std::setw(14) << v;
  os << "   (b)\n";
  if (t.has_embedded()) {
    os << "  " << std::string(13, ' ') << " |";
    for (double v : t.bhat) os << std::setw(14) << v;
    os << "   (bhat)\n";
  }
  return os.str();
}

std::string check_one(const ButcherTable& t, double tol, bool claimed, bool butcher_note) {
  std::ostringstream os;
  const TableOrders o = table_orders(t, tol);
  os << format_table(t) << "\n" << format_order_report(o.main, "weights b");
  if (t.has_embedded()) os << "\n" << format_order_report(o.embedded, "embedded weights bhat");
  os << "\norder found: " << o.main.order;
  if (t.has_embedded()) os << ", embedded order found: " << o.embedded.order;
  if (claimed) {
    os << " (claimed " << t.order;
    if (t.has_embedded()) os << " and " << t.embedded_order;
    os << ")";
  }
  os << "\n";
  if (butcher_note)
    os << "(RKMK with exact dexpinv and the classical method on the embedding space both have this order;\n"
          " RKMK with dexpinv truncated after q commutators has order min(p, q + 2); RKMK with key\n"
          " coordinates = cayley or second_kind (exact dphiinv) has this order too.)\n";
  return os.str();
}

// "p" or "p(q)" for a pair.
std::string orders_text(int p, int q, bool pair) {
  std::ostringstream os;
  os << p;
  if (pair) os << '(' << q << ')';
  return os.str();
}

std::string summary() {
  std::ostringstream os;
  os << std::left << std::setw(18) << "table" << std::setw(8) << "stages" << std::setw(10) << "claimed"
     << std::setw(10) << "found" << "kind\n";
  for (const auto& n : butcher_table_names()) {
    const ButcherTable& t = butcher_table(n);
    const TableOrders o = table_orders(t);
    const std::string claimed = orders_text(t.order, t.embedded_order, t.has_embedded());
    const std::string found = orders_text(o.main.order, o.embedded.order, t.has_embedded());
    os << std::setw(18) << n << std::setw(8) << t.stages << std::setw(10) << claimed << std::setw(10) << found
       << "Butcher table (RKMK and classical methods)\n";
  }
  for (const auto& n : cf_table_names()) {
    const CfTable& cf = cf_table(n);
    const ButcherTable t = cf.underlying();
    const TableOrders o = table_orders(t);
    const std::string claimed = orders_text(cf.order, cf.embedded_order, cf.has_embedded());
    const std::string found = orders_text(o.main.order, o.embedded.order, cf.has_embedded());
    os << std::setw(18) << n << std::setw(8) << t.stages << std::setw(10) << claimed << std::setw(10) << found
       << "commutator-free: classical order of the underlying method (necessary, not sufficient)\n";
  }
  return os.str();
}

int tableau_main(const std::vector<std::string>& args) {
  const int rank = world_rank_or_0();
  if (args.size() != 1)
    throw UsageError("usage: liebench tableau FILE.cfg | NAME | --all  (NAME: a method, e.g. rkmk4, or a built-in table: " +
                     [] {
                       std::string s;
                       for (const auto& n : butcher_table_names()) s += n + " ";
                       for (const auto& n : cf_table_names()) s += n + " ";
                       return s;
                     }() +
                     ")");
  std::string arg = args[0];
  std::string out, method_note;
  // A method name (`liebench tableau rkmk4`) means the table the method is built on.
  if (const std::string* table = method_table(arg)) {
    method_note = "method " + quote(arg) + " is built on table " + quote(*table) + "\n";
    arg = *table;
  } else if (const auto* m = MethodRegistry::instance().find(arg)) {
    throw UsageError("method " + quote(arg) + " (" + m->info.family +
                     ") is not built on a coefficient table; `liebench tableau` checks Butcher and commutator-free "
                     "tables (`liebench tableau --all` lists them)");
  }
  bool is_builtin = false;
  for (const auto& n : butcher_table_names()) is_builtin |= n == arg;
  bool is_cf = false;
  for (const auto& n : cf_table_names()) is_cf |= n == arg;
  const ShippedComposition* composition = nullptr;
  for (const auto& c : shipped_compositions())
    if (arg == c.name) composition = &c;
  if (composition) {
    const Config none = Config::from_pairs({});
    out = composition_report(arg, composition_coefficients(none, arg), none.get_double("composition.tolerance")) +
          "source: " + composition->source + "\n";
  } else if (arg == "--all") {
    out = summary();
  } else if (is_builtin) {
    out = check_one(butcher_table(arg), 1e-10, true, true);
  } else if (is_cf) {
    const CfTable& cf = cf_table(arg);
    out = "commutator-free method " + quote(arg) + ": classical order conditions of the underlying Runge-Kutta method\n"
          "(a_rk = sum_j alpha^k_rj, b_r = sum_j beta^r_j, [P] 2.2); the Lie group method needs further\n"
          "conditions (Owren, J. Phys. A 39 (2006)), checked by the convergence tests.\n\n" +
          check_one(cf.underlying(), 1e-10, true, false);
  } else {
    const Config cfg = Config::from_file(arg);
    if (has_cf_user_table(cfg)) {
      const CfTable cf = cf_table_from_config(cfg);
      out = "user commutator-free method from " + arg + "\n" + format_cf_table(cf) +
            "\nconsistency: every stage's coefficients (with its base chain) sum to its node c_r (listed above);\n"
            "the classical order conditions of the underlying Runge-Kutta method (a_rk = sum_j alpha^k_rj,\n"
            "b_r = sum_j beta^r_j, [P] 2.2) bound the order of the Lie group method, which needs further\n"
            "conditions (Owren, J. Phys. A 39 (2006)) and is measured, not computed, by the tests.\n\n" +
            check_one(cf.underlying(), cfg.get_double("tableau.tolerance"), false, false);
      if (rank == 0) std::cout << out;
      return 0;
    }
    // every user tableau of the file: tableau.* and each section [tableau.<name>]; every
    // section [composition.<name>]
    const auto names = user_tableau_names(cfg);
    const auto compositions = user_composition_names(cfg);
    if (names.empty() && compositions.empty()) butcher_table_from_config(cfg);  // throws: which keys are missing
    for (const auto& name : names) {
      const ButcherTable t = butcher_table_from_config(cfg.with({{"tableau.name", name}}));
      // appended piece by piece: GCC 12 flags `"" + std::string(...) + ...` with a false -Wrestrict
      if (!out.empty()) out += "\n";
      out.append("user tableau '").append(name).append("' from ").append(arg).append("\n");
      out += check_one(t, cfg.get_double("tableau.tolerance"), false, true);
    }
    for (const auto& name : compositions) {
      if (!out.empty()) out += "\n";
      out += composition_report(name, composition_coefficients(cfg, name), cfg.get_double("composition.tolerance"));
    }
  }
  if (rank == 0) std::cout << method_note << out;
  return 0;
}

}  // namespace

LIEBENCH_REGISTER(CommandEntry, CommandEntry{"tableau", "tableau FILE.cfg | METHOD | TABLE | --all",
                                             "order conditions (rooted trees up to order 8) of a user Butcher tableau "
                                             "(keys tableau.*) or user CF method (keys cf.*), of the table a method is "
                                             "built on (e.g. rkmk4), of a built-in table, or of all of them; those of "
                                             "a composition (section [composition.<name>], or yoshida4, suzuki4, "
                                             "kahan_li6)",
                                             &tableau_main, /*needs_mpi=*/false})

}  // namespace lie
