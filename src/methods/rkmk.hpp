#pragma once
// Runge-Kutta-Munthe-Kaas methods ([P] 2.2, [K] 2.4): an explicit Runge-Kutta method
// applied to the dexpinv equation  sigma' = dexpinv_sigma(f(exp(sigma) . y_n)),  sigma(0) = 0
// ([P] eq. (6)), followed by y_{n+1} = exp(sigma_1) . y_n.
//
//   k_1 = f(y_n)
//   u_i = h sum_j a_ij k_j,   k_i = dexpinv_{u_i}( f(exp(u_i) . y_n) )
//   sigma = h sum_i b_i k_i,  y_{n+1} = exp(sigma) . y_n
//   embedded: e = sigma - sigma~ = h sum_i (b_i - bhat_i) k_i   ([P] 4.1)
//
// dexpinv is the exact closed form of each factor (default) or the Bernoulli series with q
// commutators; q >= p - 2 keeps order p ([P] 2.2, [K] 2.7).
// Key coordinates replaces exp by another coordinate map phi (groups/coordinates.hpp: the Cayley
// map or canonical coordinates of the second kind) and dexpinv by the exact inverse of phi's
// right-trivialised differential; the order is the table's (Iserles et al., Acta Numerica 9
// (2000) sec. 8.3; Owren & Marthinsen, Numer. Math. 87 (2001)).
#include <algorithm>
#include <vector>

#include "methods/butcher.hpp"
#include "methods/stepper.hpp"

namespace lie {

/// Options of the RKMK entries (key dexpinv; rkmk_user: its tableau).
struct RkmkOptions {
  int dexpinv_terms = kExactDexpinv;  // q commutators of [P] eq. (8), or kExactDexpinv
  ButcherTable table;                 // rkmk_user: the user tableau (butcher_table_from_config)
  Coordinates coordinates = Coordinates::Exp;  // key coordinates (other maps: exact dphiinv only)
};

class RkmkStepper final : public Stepper {
 public:
  RkmkStepper(MethodInfo info, ButcherTable table, int dexpinv_terms,
              Coordinates coordinates = Coordinates::Exp);
  const MethodInfo& info() const override { return info_; }
  void bind(Model& model, par::Context& ctx) override;
  void step(double t, double h, double* y) override;
  double try_step(double t, double h, const double* y, double* y_new, const ErrorNorm& norm) override;
  void accept() override;
  void invalidate() override { f0_valid_ = false; }
  bool cache_valid() const override { return f0_valid_; }
  void rebuild_cache(double t, const double* y) override;
  /// exp(sigma(theta h)) . y_n with sigma(theta h) = h sum_i b_i(theta) k_i, the continuous
  /// weights of the underlying RK method (dense_weights; Dormand-Prince: order 4); tables
  /// without them: the default (one step of size theta h).
  bool dense_output(double t, double h, double theta, const double* y, double* out, std::size_t n) override;
  int dense_order() const override { return dense_order_ ? std::min(dense_order_, info_.order) : info_.order; }
  const ButcherTable& table() const { return table_; }
  Coordinates coordinates() const { return coords_; }
  /// Whether step() runs the fused stage passes (Space::rkmk_stage: tables whose A has only a
  /// sub-diagonal, without FSAL or embedded weights, e.g. rk4, and the exponential map), with 5 algebra/state arrays
  /// instead of s + 4. Tests switch it off to compare both paths bitwise; call before bind().
  bool fused() const { return fused_; }
  void set_fused(bool on) { fused_ = on && fusable_; }

 private:
  // Computes all stages from (t, y); fills k_ (stage derivatives) and, for FSAL tables, the
  // last stage state y_last_ (= exp(sigma) . y when a_sj = b_j).
  void stages(double t, double h, const double* y);
  void combine(const double* w, int count, double h, double* out) const;  // out = h sum_{j<count} w_j k_j
  void fused_step(double t, double h, double* y);

  MethodInfo info_;
  ButcherTable table_;
  int terms_;
  Coordinates coords_;
  Model* model_ = nullptr;
  par::Context* ctx_ = nullptr;
  std::size_t na_ = 0, ns_ = 0;
  std::vector<std::vector<double>> k_;
  static constexpr int kMaxStages = ButcherTable::kMaxStages;
  bool fsal_ = false;        // last stage at y_{n+1} (a_sj = b_j): f(y_{n+1}) is reused
  bool fusable_ = false;     // A only sub-diagonal, no FSAL, no embedded weights, exp coordinates
  bool fused_ = false;       // step() uses fused_step(); k_ is then empty (k_1 lives in f_)
  bool threaded_ = false;    // algebra loops on an OpenMP team (decided in bind())
  std::vector<double> db_;   // b - bhat (embedded pairs)
  std::vector<double> u_, f_, ystage_, sigma_, err_;
  double* fused_f_ = nullptr;  // f of the fused stages: f_, or ystage_ where the model evaluates f in place
  bool f0_valid_ = false;  // k_[0] holds f(y) of the current y (FSAL reuse, rejected steps)
  int dense_order_ = 0;    // order of the table's continuous weights (0: none)
  std::vector<double> dense_sigma_;
};

/// The RKMK4 method of Casas & Owren with two commutators, [P] 2.2 (explicit formula):
///   f1 = h f(y_n), f2 = h f(exp(f1/2) y_n), f3 = h f(exp(f2/2 - [f1, f2]/8) y_n),
///   f4 = h f(exp(f3) y_n), y_{n+1} = exp((f1 + 2 f2 + 2 f3 + f4 - [f1, f4]/2)/6) y_n.
class CasasOwrenStepper final : public Stepper {
 public:
  explicit CasasOwrenStepper(MethodInfo info) : info_(std::move(info)) {}
  const MethodInfo& info() const override { return info_; }
  void bind(Model& model, par::Context& ctx) override;
  void step(double t, double h, double* y) override;

 private:
  MethodInfo info_;
  Model* model_ = nullptr;
  std::vector<double> f1_, f2_, f3_, f4_, u_, br_, ys_;
};

}  // namespace lie
