#pragma once
// The run log of `liebench run` (issue 14, LAMMPS style): `<output>.log` beside the result file
// and the same text on rank 0's stdout (unless --quiet):
//   - a header (study, layout, output) and the resolved configuration, every key = value;
//   - per run of the grid, a line every `log_every` steps (accepted steps for adaptive runs, plus
//     the first and the last): step, t, h, the relative energy error (H - H0)/|H0|, the manifold
//     errors and the errors of the other conserved quantities (studies/analysis.hpp roles);
//   - per run a summary line from the row the file holds (status, steps, RHS evaluations,
//     accepted/rejected);
//   - at the end the per-phase timings (the file's timings/<phase>, summed over the runs of the
//     job, min/avg/max over ranks), the totals, the peak memory (max RSS, min/avg/max over ranks)
//     and how the job ended (finished, failed runs, I/O error, checkpointed, signal).
// The file is written to `<output>.log.tmp.<host>.<pid>` and renamed when the job ends, also
// when it ends with failed runs, a checkpoint or a signal; on bad input (exit status 2) it is
// removed and an earlier log is left as it was. Only rank 0 writes; the log itself makes no
// collective call (its numbers come from StudyOutput, which reduced them already).
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "models/model.hpp"

namespace lie::studies {

struct Row;
struct StudySettings;

class RunLog {
 public:
  /// Registers this log as the active one of the process (see active()). Writes nothing yet.
  /// `rank` = world rank (only rank 0 writes); `echo` = also print on stdout.
  RunLog(std::string output, int rank, bool echo);
  ~RunLog();  // an unclosed log (bad input, a bug) is discarded
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;

  /// The log of the running `liebench run` (nullptr in tests that call studies directly).
  static RunLog* active();

  /// After validation, when the result file is created: opens the temporary file and writes
  /// the header and the resolved configuration (the first call only; later ones, e.g. rank
  /// groups, do nothing). `restarting`: a checkpoint will be continued; the earlier log of the
  /// same output is then kept at the top of the new one.
  void start(const StudySettings& settings, const std::string& study, std::size_t runs, int ranks, int threads,
             bool restarting);
  bool started() const { return started_; }
  /// Steps between periodic lines (key log_every; 0: none).
  std::uint64_t every() const { return every_; }

  void begin_run(const std::string& id, const std::string& label);
  /// One periodic line of the open run; `initial` = the observables at the run's start (for
  /// the energy and conserved-quantity errors).
  void line(std::uint64_t step, double t, double h, const Observables& now, const Observables& initial);
  /// Per-rank seconds of one phase of the open run (the values of timings/<phase> in the file).
  void timings(const std::string& phase, const std::vector<double>& per_rank);
  /// The run's row as written to /summary.
  void end_run(const Row& row);
  /// Peak memory of every rank (provenance max_rss_kib, as written to the file).
  void memory(const std::vector<std::int64_t>& max_rss_kib);

  /// Ends the log: the summary and `outcome` (e.g. "finished", "stopped ...: checkpointed (exit
  /// status 5)"), then renames it to `<output>.log`. Never throws (a log that cannot be written
  /// is reported on stderr once).
  void close(const std::string& outcome, int status);
  /// Removes the temporary file (bad input: the earlier log stays).
  void discard() noexcept;

  const std::string& path() const { return path_; }

 private:
  void write(const std::string& text);  // to the file and (echo) stdout, rank 0 only
  bool withdraw() noexcept;             // ends slot_; true if a stop signal moved the file in place

  std::string output_, path_, temp_;
  int rank_ = 0;
  bool echo_ = false, started_ = false, closed_ = false, failed_ = false;
  std::FILE* file_ = nullptr;
  int slot_ = -1;  // io::settle_on_signal(temp_, path_), rank 0
  std::uint64_t every_ = 0;
  std::vector<std::string> columns_;  // observables of the open run's lines
  bool header_due_ = false;
  std::string open_run_;                 // id of the run begun and not ended
  std::uint64_t last_step_ = 0;          // its last periodic line
  double last_t_ = 0.0;
  bool has_line_ = false;
  double wall_start_ = 0.0;
  std::map<std::string, std::vector<double>> phase_sums_;  // per rank, summed over runs
  std::int64_t runs_done_ = 0, runs_failed_ = 0, rhs_ = 0, accepted_ = 0, rejected_ = 0;
  std::vector<std::int64_t> rss_kib_;
};

}  // namespace lie::studies
