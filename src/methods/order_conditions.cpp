#include "methods/order_conditions.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <sstream>

#include "core/error.hpp"

namespace lie {

namespace {

std::string notation_of(const std::vector<RootedTree>& trees, const std::vector<int>& children) {
  if (children.empty()) return "t";
  std::string s = "[";
  for (std::size_t i = 0; i < children.size(); ++i) s += (i ? "," : "") + trees[static_cast<std::size_t>(children[i])].notation;
  return s + "]";
}

// Trees of order n are a root with a multiset of subtrees whose orders sum to n - 1. Multisets
// are enumerated as nondecreasing index sequences, so every tree appears exactly once.
std::vector<RootedTree> generate_trees() {
  std::vector<RootedTree> trees;
  trees.push_back({1, {}, 1.0, "t"});
  for (int n = 2; n <= kMaxTreeOrder; ++n) {
    const int available = static_cast<int>(trees.size());  // all trees of order < n
    std::vector<int> chosen;
    std::function<void(int, int)> extend = [&](int first, int remaining) {
      if (remaining == 0) {
        RootedTree t;
        t.order = n;
        t.children = chosen;
        t.gamma = n;
        for (int c : chosen) t.gamma *= trees[static_cast<std::size_t>(c)].gamma;
        t.notation = notation_of(trees, chosen);
        trees.push_back(std::move(t));
        return;
      }
      for (int i = first; i < available; ++i) {
        const int o = trees[static_cast<std::size_t>(i)].order;
        if (o > remaining) continue;
        chosen.push_back(i);
        extend(i, remaining - o);
        chosen.pop_back();
      }
    };
    extend(0, n - 1);
  }
  return trees;
}

}  // namespace

const std::vector<RootedTree>& rooted_trees() {
  static const std::vector<RootedTree> trees = generate_trees();
  return trees;
}

OrderReport order_report(const std::vector<double>& A, const std::vector<double>& b, int stages, double tolerance,
                         int max_order) {
  if (max_order < 1 || max_order > kMaxTreeOrder)
    throw std::invalid_argument("order_report: max_order must be in 1.." + std::to_string(kMaxTreeOrder));
  const std::size_t s = static_cast<std::size_t>(stages);
  if (A.size() != s * s || b.size() != s) throw std::invalid_argument("order_report: A must be s x s and b of size s");
  const auto& trees = rooted_trees();
  // g[t] = stage vector of tree t; Ag[t] = A g[t].
  std::vector<std::vector<double>> g, Ag;
  OrderReport rep;
  rep.max_order = max_order;
  rep.tolerance = tolerance;
  bool all_ok = true;
  int order = 0;
  for (std::size_t k = 0; k < trees.size() && trees[k].order <= max_order; ++k) {
    const RootedTree& t = trees[k];
    std::vector<double> gt(s, 1.0);
    for (int c : t.children)
      for (std::size_t i = 0; i < s; ++i) gt[i] *= Ag[static_cast<std::size_t>(c)][i];
    std::vector<double> agt(s, 0.0);
    for (std::size_t i = 0; i < s; ++i)
      for (std::size_t j = 0; j < s; ++j) agt[i] += A[i * s + j] * gt[j];
    g.push_back(gt);
    Ag.push_back(std::move(agt));
    OrderCondition oc;
    oc.tree = static_cast<int>(k);
    oc.order = t.order;
    for (std::size_t i = 0; i < s; ++i) oc.phi += b[i] * gt[i];
    oc.expected = 1.0 / t.gamma;
    rep.conditions.push_back(oc);
    // Conditions come sorted by order: order p holds when the last tree of order p is reached
    // with every condition so far satisfied.
    if (std::fabs(oc.residual()) > tolerance) all_ok = false;
    const bool last_of_order = k + 1 == trees.size() || trees[k + 1].order != t.order;
    if (last_of_order && all_ok) order = t.order;
  }
  rep.order = order;
  return rep;
}

TableOrders table_orders(const ButcherTable& t, double tolerance, int max_order) {
  TableOrders out;
  out.main = order_report(t.A, t.b, t.stages, tolerance, max_order);
  if (t.has_embedded()) out.embedded = order_report(t.A, t.bhat, t.stages, tolerance, max_order);
  return out;
}

std::string format_order_report(const OrderReport& r, const std::string& title) {
  std::ostringstream os;
  os << title << ": order conditions up to order " << r.max_order << " (|residual| <= " << r.tolerance
     << " counts as satisfied)\n";
  os << "  " << std::left << std::setw(6) << "order" << std::setw(28) << "tree" << std::right << std::setw(22)
     << "Phi(t) = b.g(t)" << std::setw(22) << "1/gamma(t)" << std::setw(14) << "residual" << "\n";
  const auto& trees = rooted_trees();
  // Every condition up to the first order that fails; above it, one count per order.
  const int shown = std::min(r.max_order, r.order + 1);
  for (const OrderCondition& c : r.conditions) {
    if (c.order > shown) break;
    const bool ok = std::fabs(c.residual()) <= r.tolerance;
    os << "  " << std::left << std::setw(6) << c.order << std::setw(28) << trees[static_cast<std::size_t>(c.tree)].notation
       << std::right << std::setprecision(15) << std::setw(22) << c.phi << std::setw(22) << c.expected
       << std::setprecision(3) << std::scientific << std::setw(14) << c.residual() << std::defaultfloat
       << (ok ? "" : "  VIOLATED") << "\n";
  }
  for (int p = shown + 1; p <= r.max_order; ++p) {
    int total = 0, bad = 0;
    for (const OrderCondition& c : r.conditions)
      if (c.order == p) {
        ++total;
        bad += std::fabs(c.residual()) > r.tolerance ? 1 : 0;
      }
    os << "  " << std::left << std::setw(6) << p << bad << " of " << total << " conditions violated\n";
  }
  os << "  => order " << r.order;
  if (r.order == r.max_order) os << " (at least; conditions checked up to " << r.max_order << ")";
  os << "\n";
  return os.str();
}

}  // namespace lie
