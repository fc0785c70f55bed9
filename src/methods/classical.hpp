#pragma once
// Classical explicit Runge-Kutta baselines on the embedding space, as the papers compare
// against ([P] 5.3: RK4 and MATLAB's ode45; [L] Example 3: with and without projection):
//   y' = F(t, y) = psi_*(f(t, y))|_y        (Model::ambient_field)
//   Y_i = y_n + h sum_j a_ij k_j,  k_i = F(t_n + c_i h, Y_i),  y_{n+1} = y_n + h sum_i b_i k_i,
// from the same Butcher tables as RKMK (butcher.hpp). The state leaves the manifold at the
// rate of the local error; the `_proj` variants project every accepted step back onto it
// (Space::project: |q| = 1 and q.w = 0, Q -> polar factor). Embedded pairs (dopri54) estimate
// the local error by the ambient difference h sum_i (b_i - bhat_i) k_i, weighted by
// atol + rtol |y_{n+1}| (ErrorNorm). FSAL tables reuse k_s as the next k_1 (not with
// projection, which moves y_{n+1} after k_s was computed).
#include <algorithm>
#include <vector>

#include "methods/butcher.hpp"
#include "methods/stepper.hpp"

namespace lie {

/// Options of classical_user: its tableau and key tableau.project.
struct ClassicalUserOptions {
  ButcherTable table;
  bool project = false;
};

class ClassicalRkStepper final : public Stepper {
 public:
  ClassicalRkStepper(MethodInfo info, ButcherTable table, bool project);
  const MethodInfo& info() const override { return info_; }
  void bind(Model& model, par::Context& ctx) override;
  void step(double t, double h, double* y) override;
  double try_step(double t, double h, const double* y, double* y_new, const ErrorNorm& norm) override;
  void accept() override;
  void invalidate() override { f0_valid_ = false; }
  /// y_n + h sum_i b_i(theta) k_i with the table's continuous weights (dense_weights), projected
  /// for the `_proj` variants; other tables: the default (a step of size theta h).
  bool dense_output(double t, double h, double theta, const double* y, double* out, std::size_t n) override;
  int dense_order() const override { return dense_order_ ? std::min(dense_order_, info_.order) : info_.order; }
  const ButcherTable& table() const { return table_; }

 private:
  void stages(double t, double h, const double* y);
  // out = base + h sum_j w_j k_j (base may be null: zero)
  void combine(const double* base, const double* w, int count, double h, double* out) const;
  void copy_state(const double* src, double* dst) const;

  MethodInfo info_;
  ButcherTable table_;
  bool project_;
  bool reuse_last_;  // FSAL without projection
  Model* model_ = nullptr;
  par::Context* ctx_ = nullptr;
  std::size_t ns_ = 0;
  std::vector<std::vector<double>> k_;
  static constexpr int kMaxStages = ButcherTable::kMaxStages;
  std::vector<double> ystage_, err_, db_;  // db_ = b - bhat (embedded pairs)
  bool f0_valid_ = false;  // k_[0] holds F(y) of the current y
  int dense_order_ = 0;    // order of the table's continuous weights (0: none)
};

/// MethodInfo of a classical method from its table (family "classical", lie_group = false).
MethodInfo classical_info(const std::string& name, const ButcherTable& t, bool project, const std::string& desc,
                          const std::string& source);

}  // namespace lie
