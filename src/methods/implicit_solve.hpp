#pragma once
// Options of the nonlinear solves inside the implicit geometric methods (slgi.*, lgvi.*): which
// iteration, the relative tolerance on the update (|dz|_inf <= tol |z|_inf) and the iteration
// limit beyond which the step fails with a lie::NumericalError.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "io/config.hpp"

namespace lie {

struct ImplicitSolveOptions {
  enum class Kind { Newton, FixedPoint };
  Kind kind = Kind::Newton;
  double tol = 1e-13;
  long max_iter = 30;
};

// <edge> parse
/// Reads `<prefix>.solver`, `<prefix>.tol` and `<prefix>.max_iter` (declared by the method).
inline ImplicitSolveOptions implicit_solve_options(const Config& cfg, const std::string& prefix) {
  ImplicitSolveOptions o;
  o.kind = cfg.get_choice(prefix + ".solver", {"newton", "fixed_point"}) == "newton"
               ? ImplicitSolveOptions::Kind::Newton
               : ImplicitSolveOptions::Kind::FixedPoint;
  o.tol = cfg.get_positive(prefix + ".tol");
  o.max_iter = cfg.get_int_at_least(prefix + ".max_iter", 1);
  return o;
}
// </edge>

/// max_i |x_i| of a local array; clears `finite` if an entry is not finite.
inline double max_abs_checked(const double* x, std::size_t n, bool& finite) {
  double m = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) finite = false;
    m = std::max(m, std::fabs(x[i]));
  }
  return m;
}

}  // namespace lie
