#pragma once
// Error types. A UsageError is a bad input (config key, value, name, file): liebench prints
// its one-line message and exits with status 2 before anything is written. Any other
// exception is a runtime failure (exit status 1).
#include <stdexcept>
#include <string>

namespace lie {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Numerical failure inside a run (non-convergent Newton iteration, step size underflow,
/// non-finite state). Reported with exit status 1; partial results are not kept.
class NumericalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace lie
