#pragma once
// Classical order conditions of explicit Runge-Kutta methods via rooted trees (Butcher;
// Hairer-Norsett-Wanner I, II.2): a method (A, b, c) has order p iff
//   Phi(t) = b^T g(t) = 1 / gamma(t)     for every rooted tree t with |t| <= p,
// where g(leaf) = (1,...,1), g([t_1,...,t_m]) = (A g(t_1)) * ... * (A g(t_m)) (component-wise)
// and gamma([t_1,...,t_m]) = |t| gamma(t_1) ... gamma(t_m).
// Used to report the order a user tableau satisfies (`liebench tableau`, methods
// rkmk_user / classical_user) and to check every built-in table.
#include <string>
#include <vector>

#include "methods/butcher.hpp"

namespace lie {

/// Highest tree order generated (number of trees up to it: 1+1+2+4+9+20+48+115 = 200).
inline constexpr int kMaxTreeOrder = 8;

struct RootedTree {
  int order = 1;
  std::vector<int> children;  // indices into rooted_trees(), nondecreasing
  double gamma = 1.0;         // density gamma(t)
  std::string notation;       // "t", "[t]", "[t,t]", "[[t]]", ...
};

/// All rooted trees with 1..kMaxTreeOrder vertices, sorted by order (each tree once).
const std::vector<RootedTree>& rooted_trees();

struct OrderCondition {
  int tree = 0;           // index into rooted_trees()
  int order = 0;          // |t|
  double phi = 0.0;       // elementary weight b^T g(t)
  double expected = 0.0;  // 1 / gamma(t)
  double residual() const { return phi - expected; }
};

struct OrderReport {
  int order = 0;           // largest p <= max_order with every condition up to p satisfied
  int max_order = 0;       // conditions were evaluated up to this order
  double tolerance = 0.0;  // |residual| <= tolerance counts as satisfied
  std::vector<OrderCondition> conditions;  // every tree up to max_order
};

/// Evaluates all conditions up to max_order for weights `b` with the stage matrix A (row-major,
/// s x s, explicit or not) and returns the largest order satisfied.
OrderReport order_report(const std::vector<double>& A, const std::vector<double>& b, int stages, double tolerance,
                         int max_order = kMaxTreeOrder);

/// Order of the main weights b and, if present, of the embedded weights bhat of a table.
struct TableOrders {
  OrderReport main;
  OrderReport embedded;  // order 0 and no conditions if the table has no bhat
};
TableOrders table_orders(const ButcherTable& t, double tolerance = 1e-10, int max_order = kMaxTreeOrder);

/// Human-readable listing of every condition (tree, Phi, 1/gamma, residual, ok) and the order.
std::string format_order_report(const OrderReport& r, const std::string& title);

}  // namespace lie
