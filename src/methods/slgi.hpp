#pragma once
// Symplectic Lie group integrators on T*G = G x| g* (right trivialised), the theta-family of
// [P] 3.2, eqs. (15)-(17), for G = SO(3)^r x R^t (models implementing CotangentHamiltonian):
//
//   M_theta = dexp*_{-xi}(mu0 + Ad*_{exp(theta xi)} nbar) - theta dexp*_{-theta xi} Ad*_{exp(theta xi)} nbar   (15)
//   (xi, nbar) = h f(exp(theta xi) g0, M_theta)                                                          (16)
//   (g1, mu1) = (exp(xi), Ad*_{exp((theta-1) xi)} nbar) . (g0, mu0)
//             = (exp(xi) g0, Ad*_{exp((theta-1) xi)} nbar + Ad*_{exp(-xi)} mu0)                             (17)
//
// with f = (dH/dmu, -R_g^* dH/dg) of eq. (14). In the SO(3) coordinates of
// cotangent_hamiltonian.hpp: Ad*_{exp(a)} nu = exp(-a) nu and dexp*_{-a} nu = J_l(a) nu (J_l = dexp
// of so3.hpp); on R^t all of them are the identity, and the family reduces to the symplectic
// Euler methods (theta = 0, 1) and the implicit midpoint rule (theta = 1/2).
// Order 2 for theta = 1/2, order 1 otherwise.
//
// Eqs. (15)-(16) are solved for z = (xi, nbar) by
//   newton:      simplified Newton on R(z) = z - h f(...)(z) with a forward-difference Jacobian,
//                kept from step to step and refreshed when an update shrinks by less than a
//                factor 10 (or on a cold start); the Jacobian is built from
//                this rank's unknowns only (exact for the rank-0-owned models; an inexact
//                block-Jacobi Newton if a distributed model couples ranks -- convergence is always
//                checked on the true update);
//   fixed_point: z <- h f(...)(z).
// Stop when ||dz||_inf <= tol ||z||_inf (global norms). No convergence within max_iter, or a
// non-finite iterate, raises lie::NumericalError naming the time, step and last update.
// Warm start: the previous step's z when the step continues from the previous output (and the
// Jacobian and its LU); checkpoints carry them (resume_state), so a restart is bitwise.
//
// Methods: `slgi` (key slgi.theta in [0, 1], default 1/2), `slgi_kk` (theta = 1/2 on the
// quadratic-Hamiltonian formulation, G = SO(3) x R^3, [P] eqs. (29)-(32): "SLGIKK").
#include <Eigen/LU>
#include <string>
#include <vector>

#include "methods/implicit_solve.hpp"
#include "methods/stepper.hpp"
#include "models/cotangent_hamiltonian.hpp"

namespace lie {

/// Options of slgi / slgi_kk: theta (key slgi.theta; slgi_kk: 1/2) and the nonlinear solve.
struct SlgiOptions {
  double theta = 0.5;
  ImplicitSolveOptions solve;
};

class SlgiStepper final : public Stepper {
 public:
  SlgiStepper(MethodInfo info, double theta, ImplicitSolveOptions opt, bool requires_translations);
  const MethodInfo& info() const override { return info_; }
  void bind(Model& model, par::Context& ctx) override;
  void step(double t, double h, double* y) override;
  void invalidate() override { warm_ = jac_valid_ = false; }
  /// The warm start (checkpoints, stepper.hpp): {warm, jac_valid, h_last, nz, ns, z (nz),
  /// Jacobian (nz x nz), y_last (ns)} of the rank that holds the unknowns (the cotangent models
  /// are rank-0-owned); restoring recomputes the LU of the same Jacobian (deterministic).
  bool has_resume_state() const override { return true; }
  std::vector<double> resume_state() const override;
  void restore_resume_state(const std::vector<double>& s, const double* y) override;
  double theta() const { return theta_; }

 private:
  // out = h f(exp(theta xi) g0, M_theta(xi, nbar)) for z = (xi, nbar).
  void phi(double t, double h, const double* z, double* out);
  void solve_newton(double t, double h);
  void solve_fixed_point(double t, double h);
  [[noreturn]] void fail(const std::string& why, double t, double h, long iter, double upd) const;

  MethodInfo info_;
  double theta_;
  ImplicitSolveOptions opt_;
  bool requires_translations_;
  Model* model_ = nullptr;
  CotangentHamiltonian* ham_ = nullptr;
  par::Context* ctx_ = nullptr;
  CotangentGroup grp_;
  std::size_t d_ = 0, nz_ = 0, ncols_ = 0;
  std::vector<double> g0_, mu0_, gt_, mt_, f1_, f2_, z_, r_, zp_, rp_, jac_, y_last_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;  // LU of the Newton Jacobian, reused while it converges
  bool jac_valid_ = false;
  bool warm_ = false;
  double h_last_ = 0.0;
};

}  // namespace lie
