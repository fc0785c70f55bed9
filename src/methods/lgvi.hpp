#pragma once
// Lie group variational integrators on (S^2)^n, [L] 3.1-3.3, for models implementing
// SphereLagrangian (L = 1/2 sum M_ij q_i'.q_j' - V(q), state (q_i, w_i), q_i' = w_i x q_i).
//
// `lgvi` (implicit form, [L] Corollary 2 + 3.3). From (q_k, w_k):
//   d_i = h M_ii w_i - q_i x sum_{j != i} M_ij (q_j x h w_j) - h^2/2 q_i x dV/dq_i(q_k)       (22)
//   solve for f_i (Cayley coordinates of F_i, f_i . q_i = 0)                                  (28)
//     G_i(f) = 2 M_ii f_i/(1+|f_i|^2) - sum_{j != i} 2 M_ij/(1+|f_j|^2) q_i x (q_j x f_j + |f_j|^2 q_j) = d_i
//   q_{k+1,i} = cay(f_i) q_i,  cay(f) = (I + hat f)(I - hat f)^-1                          (23), (27)
//   solve  M_ii w_i - q_i x sum_{j != i} M_ij (q_j x w_j) = b_i  at q_{k+1} for w_{k+1}       (24)-(25)
//     b_i = (1/h) q_i x sum_j M_ij (q_{j,k+1} - q_{j,k}) - h/2 q_i x dV/dq_i(q_{k+1}).
// (28) is solved by Newton's method with the exact Jacobian of G (key lgvi.solver = newton, the
// default) or by the fixed-point form the paper suggests, A(f^m) f^{m+1} = d with A the block
// matrix of (28) (lgvi.solver = fixed_point); stop when |df|_inf <= lgvi.tol |f|_inf. No
// convergence within lgvi.max_iter is a lie::NumericalError. Dense 3n x 3n solves.
//
// `lgvi_explicit` ([L] Corollary 3, eqs. (29)-(30)), for diagonal inertia only:
//   a_i = h w_i - h^2/(2 M_ii) q_i x dV/dq_i(q_k),  q_{k+1,i} = a_i x q_i + sqrt(1 - |a_i|^2) q_i,
//   w_{k+1,i} = w_i - h/(2 M_ii) q_i x dV/dq_i(q_k) - h/(2 M_ii) q_{k+1,i} x dV/dq_i(q_{k+1});
// |a_i| > 1 (no rotation solves (26): the step is far too large) is a NumericalError.
//
// Both are second order, symplectic and preserve |q_i| = 1 to round-off. `lgvi` needs all spheres
// on one rank (UsageError otherwise); the other ranks hold none and idle. `lgvi_explicit` on a
// model with SphereLagrangian::distributed_gradient() runs on the spheres of each rank, the only
// communication being inside the model's local_potential_gradient (the pair models,
// sphere_pairs.hpp); on other models it runs like `lgvi`, on one rank.
// `lgvi`'s dense solves and iterations have stop points (core/stop.hpp, methods/stoppable_lu.hpp):
// a stop request abandons the step (StopInStep), leaving y, the cached gradient and the counters
// as before it, on every rank.
#include <vector>

#include "methods/implicit_solve.hpp"
#include "methods/stepper.hpp"
#include "models/sphere_lagrangian.hpp"

namespace lie {

class LgviStepper final : public Stepper {
 public:
  LgviStepper(MethodInfo info, bool explicit_form, ImplicitSolveOptions opt);
  const MethodInfo& info() const override { return info_; }
  void bind(Model& model, par::Context& ctx) override;
  void step(double t, double h, double* y) override;
  void invalidate() override { grad_valid_ = false; }
  bool cache_valid() const override { return grad_valid_; }
  void rebuild_cache(double t, const double* y) override;

 private:
  void step_active(double t, double h, double* y);
  void gradient(const std::vector<double>& q, std::vector<double>& g);  // cached at q_k
  void step_implicit(double t, double h);
  void step_explicit(double t, double h);
  void solve_cayley_newton(double t, double h);
  void solve_cayley_fixed_point(double t, double h);
  [[noreturn]] void fail(const std::string& why, double t, double h, long iter, double upd) const;
  /// The iteration's stopping test (key lgvi.tol): update upd after prev, iterate norm |f|_inf.
  bool converged(double upd, double prev, double f_norm) const;

  MethodInfo info_;
  bool explicit_;
  ImplicitSolveOptions opt_;
  SphereLagrangian* lag_ = nullptr;
  std::size_t n_ = 0;       // spheres (local ones when distributed_)
  bool active_ = false;     // this rank holds the spheres (or its part of them, distributed_)
  bool distributed_ = false;  // explicit form on the local spheres of a distributed model
  std::size_t offset_ = 0;  // global index of the first local sphere (distributed_)
  const par::Context* ctx_ = nullptr;
  std::vector<double> M_;   // n x n inertia, row-major (not when distributed_)
  std::vector<double> Mdiag_;  // M_ii
  std::vector<double> q_, w_, q1_, w1_, g_, g1_, d_, f_, q_cached_;
  bool grad_valid_ = false;
};

}  // namespace lie
