#pragma once
// Commutator-free Lie group methods and Crouch-Grossman methods as data ([P] 2.2, format
// after eq. (8); Celledoni, Marthinsen & Owren 2003; Crouch & Grossman 1993):
//
//   Y_r     = exp(h sum_k alpha^k_{r,J} f_k) ... exp(h sum_k alpha^k_{r,1} f_k) . B_r,   f_k = f(Y_k)
//   y_{n+1} = exp(h sum_k beta^k_J f_k) ... exp(h sum_k beta^k_1 f_k) . B_out
//
// with frozen vector fields f_k and a base point B that is y_n or an earlier stage point Y_j
// (exponential reuse, [P] eq. (9): Y_4 = exp(h f_3 - h/2 f_1) . Y_2). An optional embedded
// output y~_{n+1} in the same format turns a table into an embedded pair ([P] 4.2); the local
// error estimate is then a metric on M: the Euclidean distance of the embedding,
//   e = || (y_{n+1} - y~_{n+1})_i / (atol + rtol |y_{n+1,i}|) ||     (ErrorNorm),
// i.e. the ambient state difference, weighted component-wise.
//
// The stage time is c_r = sum of all coefficients of the stage (including those of its base
// chain), the node of the underlying classical method (a_rk = sum_j alpha^k_{r,j}, [P] 2.2).
#include <string>
#include <vector>

#include "io/config.hpp"
#include "methods/butcher.hpp"
#include "methods/stepper.hpp"

namespace lie {

/// Z = exp(h sum_k exps[J-1][k] f_k) ... exp(h sum_k exps[0][k] f_k) . Y_base: exps[0] acts first.
struct CfMap {
  int base = 0;                             // stage index of the base point; 0 is Y_1 = y_n
  std::vector<std::vector<double>> exps;    // each of length `stages`
};

struct CfTable {
  std::string name;
  int order = 0;
  int embedded_order = 0;        // 0: no embedded output
  int stages = 0;                // number of frozen vector fields f_k
  std::vector<CfMap> stage;      // stage[0] is y_n itself (no exponentials)
  CfMap output;
  CfMap embedded;                // used only if embedded_order > 0
  std::string source;

  bool has_embedded() const { return embedded_order > 0; }
  /// Coefficient sums over the whole chain of stage r (base chain included): a_{r,k} of the
  /// underlying classical method.
  std::vector<double> chain_sums(const CfMap& m) const;
  double c(int r) const;
  /// The classical Runge-Kutta method underlying the scheme ([P] 2.2: a_r^k = sum_j alpha^k_{r,j},
  /// b_r = sum_j beta^r_j); its classical order bounds the order of the Lie group method.
  ButcherTable underlying() const;
  /// Stages needed by the main output alone (main_only) or by main and embedded output.
  std::vector<char> needed_stages(bool with_embedded) const;
  /// Nonzero exponentials evaluated per step (stages + output (+ embedded output)).
  int exponentials(bool with_embedded) const;
  int evaluations(bool with_embedded) const;  // vector-field evaluations per step
  /// Shape and explicitness checks; throws std::logic_error describing the defect.
  void validate() const;
};

/// Built-in tables: cf4 ([P] eq. (9)), cf43 ([P] eq. (34)), cf32a, cf32b ([P] 4.2.1), cg3.
const CfTable& cf_table(const std::string& name);
std::vector<std::string> cf_table_names();
/// The embedded output run as the main method (fixed-step order measurement of the member).
CfTable cf_embedded_member(const CfTable& t);

/// A user commutator-free (or Crouch-Grossman) method from the keys cf.* of an experiment file
/// (method cf_user, `liebench tableau FILE.cfg`):
///   cf.stage2 .. cf.stage12   stage r: its exponentials, first acting first, separated by ';',
///                             each the coefficients alpha^1_{r,j} .. alpha^s_{r,j} of f_1..f_s
///                             (short rows are padded with 0; reals or fractions p/q); an optional
///                             prefix "Yk:" makes stage k the base point instead of y_n = Y1
///   cf.output                 the output's exponentials beta_j (same format; "Yk:" allowed)
///   cf.embedded               optional embedded output: makes the method an adaptive pair
///   cf.c                      optional nodes c_1..c_s, checked against the coefficient sums
///   cf.name                   its name
/// The number of stages s is 1 + the highest stage key set (stages must be contiguous). The
/// orders are those of the underlying classical method (order conditions up to order 8,
/// tolerance tableau.tolerance): an upper bound of the Lie group order, which needs further
/// conditions (Owren 2006) and is measured in the tests. Throws UsageError naming the key.
CfTable cf_table_from_config(const Config& cfg);
/// True if the configuration defines a user CF method (cf.output set).
bool has_cf_user_table(const Config& cfg);
/// Human-readable listing of the stages, exponentials, base points and nodes c_r.
std::string format_cf_table(const CfTable& t);

class CommutatorFreeStepper final : public Stepper {
 public:
  CommutatorFreeStepper(MethodInfo info, CfTable table);
  const MethodInfo& info() const override { return info_; }
  void bind(Model& model, par::Context& ctx) override;
  void step(double t, double h, double* y) override;
  double try_step(double t, double h, const double* y, double* y_new, const ErrorNorm& norm) override;
  void accept() override;
  void invalidate() override { f0_valid_ = false; }
  bool cache_valid() const override { return f0_valid_; }
  void rebuild_cache(double t, const double* y) override;
  const CfTable& table() const { return table_; }

 private:
  void compute_stages(double t, double h, const double* y, const std::vector<char>& needed);
  void apply(const CfMap& m, double h, const double* y, double* out);
  void combine(const std::vector<double>& w, double h, double* out) const;  // out = h sum_k w_k f_k

  MethodInfo info_;
  CfTable table_;
  std::vector<char> needed_main_, needed_pair_;
  std::vector<double> c_;                   // stage times c_r
  Model* model_ = nullptr;
  par::Context* ctx_ = nullptr;
  std::size_t na_ = 0, ns_ = 0;
  std::vector<std::vector<double>> f_;      // frozen fields f_k (algebra)
  std::vector<std::vector<double>> point_;  // stage points Y_r (state), r >= 1
  std::vector<double> u_, ytilde_, err_;
  bool f0_valid_ = false;                   // f_[0] = f(y_n) of the current y_n
};

}  // namespace lie
