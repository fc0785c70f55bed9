#pragma once
// Explicit Butcher tables (with optional embedded weights) as data, ARKODE style. The same
// tables drive RKMK methods (applied to the dexpinv equation [P] eq. (6)) and the classical
// baselines on the embedding space.
#include <string>
#include <vector>

namespace lie {

struct ButcherTable {
  std::string name;
  int stages = 0;
  int order = 0;
  int embedded_order = 0;     // 0: no embedded weights
  std::vector<double> A;      // stages x stages, row-major, strictly lower triangular
  std::vector<double> b;      // stages
  std::vector<double> bhat;   // stages (empty if no embedded method)
  std::vector<double> c;      // stages
  std::string source;

  double a(int i, int j) const { return A[static_cast<std::size_t>(i * stages + j)]; }
  bool has_embedded() const { return !bhat.empty(); }
  /// Last stage evaluated at the new solution (a_{s,j} = b_j, c_s = 1): f(y_{n+1}) is reused.
  bool fsal() const;
  /// Checks shape, explicitness and c_i = sum_j a_ij; throws UsageError describing the defect.
  void validate() const;
};

/// Built-in tables by name: euler, heun2, kutta3, rk4, dopri5.
const ButcherTable& butcher_table(const std::string& name);
std::vector<std::string> butcher_table_names();

}  // namespace lie
