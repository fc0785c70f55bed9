#pragma once
// Step-size controller of [P] 4, eq. (33), with the accept/reject algorithm given there:
//   h_new = theta (tol / e)^alpha h,   alpha = 1 / (1 + min(p, p~)),
// written with the scaled error err = e / tol (ErrorNorm), i.e. h_new = theta err^-alpha h.
// The step ratio is limited to [min_factor, max_factor]; h stays within [h_min, h_max].
// (Textbook: Hairer, Norsett & Wanner I, II.4 eq. (4.13).)
#include <algorithm>
#include <cmath>
#include <string>

namespace lie {

struct StepController {
  double safety = 0.9;      // theta in [P] eq. (33)
  double alpha = 0.2;       // exponent; set to 1/(1 + min(p, p~)) by for_pair()
  double min_factor = 0.2;  // smallest allowed h_new / h
  double max_factor = 5.0;  // largest allowed h_new / h
  double h_min = 1e-14;     // a step below this is an error (NumericalError)
  double h_max = INFINITY;

  static StepController for_pair(int order, int embedded_order) {
    StepController c;
    c.alpha = 1.0 / (1.0 + std::min(order, embedded_order));
    return c;
  }
  /// Proposed next step after a trial step of size h with scaled error err (accept if err <= 1).
  double propose(double h, double err) const {
    double factor;
    if (!std::isfinite(err)) factor = min_factor;
    else if (err == 0.0) factor = max_factor;
    else factor = std::clamp(safety * std::pow(err, -alpha), min_factor, max_factor);
    return std::min(h * factor, h_max);
  }
  static bool accept(double err) { return err <= 1.0; }
  std::string describe() const;
};

}  // namespace lie
