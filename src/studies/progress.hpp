#pragma once
// Progress of a study on rank 0 (stderr): a redrawn bar with ETA on a terminal, plain lines
// every `interval` seconds otherwise (log files of batch jobs). Other ranks print nothing.
#include <chrono>
#include <string>

namespace lie::studies {

class Progress {
 public:
  /// total_work in arbitrary units (e.g. steps over all runs of this job).
  Progress(bool enabled, double total_work, std::size_t runs, double interval_seconds);
  ~Progress();
  /// Starts run `index` (0-based among this job's runs) of `work` units.
  void begin_run(std::size_t index, const std::string& label, double work);
  /// Fraction in [0, 1] of the current run done (cheap; prints only when due).
  void update(double fraction);
  void end_run();
  /// Final line (newline on a terminal).
  void finish(const std::string& message);

 private:
  void draw(bool force);
  bool enabled_ = false, tty_ = false;
  double total_ = 1.0, done_ = 0.0, run_work_ = 0.0, run_fraction_ = 0.0, interval_ = 10.0;
  std::size_t runs_ = 0, index_ = 0;
  std::string label_;
  std::chrono::steady_clock::time_point start_, last_;
  bool drawn_ = false;
};

std::string format_duration(double seconds);

/// The terminal line of the bar for a terminal of `columns` columns: at most columns - 1
/// characters (no wrap, the cursor stays on the line), the label and then the bar shortened
/// first; below 20 columns only the percentage.
std::string progress_bar_line(double fraction, std::size_t run, std::size_t runs, const std::string& label,
                              const std::string& elapsed, const std::string& eta, int columns);
/// Columns of the terminal on file descriptor fd (TIOCGWINSZ, else $COLUMNS, else 80).
int terminal_columns(int fd);

}  // namespace lie::studies
