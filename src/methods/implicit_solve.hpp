#pragma once
// Options of the nonlinear solves inside the implicit geometric methods (slgi.*, lgvi.*): which
// iteration, the relative tolerance on the update (|dz|_inf <= tol |z|_inf) and the iteration
// limit beyond which the step fails with a lie::NumericalError.
namespace lie {

struct ImplicitSolveOptions {
  enum class Kind { Newton, FixedPoint };
  Kind kind = Kind::Newton;
  double tol = 1e-13;
  long max_iter = 30;
};

}  // namespace lie
