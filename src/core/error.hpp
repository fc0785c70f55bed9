#pragma once
// Error types and the exit statuses of liebench (docs/failures.md "Exit status"). A UsageError is a bad
// input (config key, value, name, file): liebench prints its one-line message and exits with
// status 2 before anything is written. An IoError (cannot write the result: full disk, ...)
// exits 4, nothing written under the final name. RunsFailed: the file was written, some runs
// in it failed (exit 3). Any other exception is a runtime failure (exit status 1).
#include <stdexcept>
#include <string>

namespace lie {

/// Exit statuses (documented in docs/failures.md; `liebench --help` prints them too).
namespace exit_status {
inline constexpr int ok = 0;
inline constexpr int failure = 1;       // unexpected runtime failure
inline constexpr int bad_input = 2;     // bad key/value/file: nothing written
inline constexpr int runs_failed = 3;   // result file written; some runs in it failed (rows marked failed)
inline constexpr int io_error = 4;      // the result could not be written (full disk, ...); no file left
inline constexpr int checkpointed = 5;  // checkpoint written after a signal, study not finished
// 128 + signal: a study stopped by SIGTERM/SIGINT/... (no result file written)
}  // namespace exit_status

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

/// An I/O failure writing a result (full disk, quota, lost file system): exit status 4.
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Some runs of a study failed (status "failed: ..." or "nonfinite"); the result file was
/// written with their rows marked failed. Exit status 3 unless `failures = expected`.
class RunsFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace lie
