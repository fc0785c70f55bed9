#pragma once
// Explicit Butcher tables (with optional embedded weights) as data, ARKODE style. The same
// tables drive RKMK methods (applied to the dexpinv equation [P] eq. (6)) and the classical
// baselines on the embedding space.
#include <string>
#include <vector>

namespace lie {

class Config;

struct ButcherTable {
  static constexpr int kMaxStages = 32;  // steppers keep per-stage weights on the stack
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

/// Which built-in coefficient table a registered method is built on (Butcher table for RKMK and
/// classical methods, CF table for commutator-free ones), so that `liebench tableau rkmk4`
/// checks the table of the method. Recorded by the methods' registration helpers.
void record_method_table(const std::string& method, const std::string& table);
/// The table of a method, or nullptr for methods without one (lgvi, slgi, user tables, ...).
const std::string* method_table(const std::string& method);

/// The embedded weights bhat run as the main method (to measure the order of the embedded
/// member of a pair as a fixed-step method). Requires has_embedded().
ButcherTable embedded_member(const ButcherTable& t);

/// A user tableau from the keys tableau.A, tableau.b, tableau.c, tableau.bhat, tableau.name
/// (see the key help, `liebench run --help`). Coefficients are reals or fractions p/q.
/// tableau.A is given either row by row with rows separated by ';' (a row may stop early: the
/// missing entries are 0, e.g. "0; 1/2; 0, 1/2; 0, 0, 1"), or as one list of s*s entries
/// (row-major), or as the s(s-1)/2 entries strictly below the diagonal, row by row. c defaults
/// to the row sums of A. order / embedded_order are set to the orders the table *satisfies*
/// (order_conditions.hpp, tolerance key tableau.tolerance), never to a claimed order.
/// The tableau is the one named by tableau.name: from section [tableau.<name>] (keys
/// tableau.<name>.A, .b, .c, .bhat, .project) when the section sets any of them, else from the
/// keys tableau.A, tableau.b, ...
ButcherTable butcher_table_from_config(const Config& cfg);

/// The key that holds field `field` (A, b, c, bhat, project) of the user tableau tableau.name
/// names (see butcher_table_from_config).
std::string user_tableau_key(const Config& cfg, const std::string& field);

/// Methods built from a user tableau (rkmk_user, classical_user): they take a tableau name,
/// "rkmk_user:rkmk38" (methods/stepper.hpp, MethodSpec).
bool takes_user_tableau(const std::string& method);
/// The configuration under which method `spec` (e.g. "rkmk_user:rkmk38") builds tableau `name`:
/// cfg with tableau.name = name, if section [tableau.<name>] exists or tableau.name already is
/// `name`; else a UsageError naming `spec` and where the tableau's keys go.
Config user_tableau_config(const Config& cfg, const std::string& name, const std::string& spec);
/// Names of the user tableaus an experiment defines: every section [tableau.<name>], and
/// tableau.name when tableau.b or tableau.A is set (`liebench tableau FILE.cfg` checks them all).
std::vector<std::string> user_tableau_names(const Config& cfg);

/// Parses one coefficient: a real number or a fraction "p/q" (p, q reals); UsageError naming `key`.
double parse_coefficient(const std::string& key, const std::string& text);

}  // namespace lie
