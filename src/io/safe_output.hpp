#pragma once
// Crash-safe creation of a result file: data goes to `<final>.tmp.<host>.<pid>` in the same
// directory (host and pid of rank 0); commit() fsyncs it and renames it to the final name (an
// atomic replace on POSIX file systems), so a crash, a kill or an error never leaves a
// half-written file under the final name and never damages an earlier file there. A SIGKILL
// can leave the temporary file behind: check() (every later run to the same output) and
// `liebench clean` remove temporaries whose owner process is gone (same host, pid not alive).
#include <mpi.h>

#include <string>
#include <vector>

namespace lie::io {

class SafeOutput {
 public:
  /// Checks, before anything is created, that `final_path` can be written: its directory
  /// exists and is writable, it does not exist unless `force`, and never is unreplaceable().
  /// Throws UsageError naming the path and the fix. Collective over `comm` (rank 0 checks).
  static void check(const std::string& final_path, bool force, MPI_Comm comm);

  /// Chooses the temporary name (from rank 0's pid). Collective. Creates nothing.
  SafeOutput(std::string final_path, bool force, MPI_Comm comm);
  SafeOutput(const SafeOutput&) = delete;
  SafeOutput& operator=(const SafeOutput&) = delete;
  /// Removes the temporary file unless committed.
  ~SafeOutput();

  const std::string& temp_path() const { return temp_; }
  const std::string& final_path() const { return final_; }
  /// The file at temp_path() is complete and closed: fsync, rename to the final name, fsync
  /// the directory. Without `force`, fails if a file appeared under the final name meanwhile.
  /// Collective; throws on failure (the temporary file is then removed).
  void commit();
  /// Removes the temporary file (rank 0). Never throws. Collective-free.
  void discard() noexcept;
  /// The temporary file exists now (call on every rank after creating it): from here on a stop
  /// signal removes it at once, in the signal handler (settle_temporaries), and detach() still
  /// finds its descriptors after that. Not for checkpoints (written after the signal).
  void arm();
  /// The study is complete and will commit: a later signal no longer removes the temporary
  /// file. Returns the signal that removed it already (then it is gone), 0 otherwise, on every
  /// rank. Collective; commit() calls it too (and throws lie::Stopped on a removed file).
  int disarm();
  /// Error path, before the (collective) close of a temporary file that will be discarded:
  /// points this process's descriptors of it to an anonymous memory file, so that whatever
  /// HDF5 and MPI-IO still write when they close it cannot fail on a full disk (a failed close
  /// leaves HDF5 1.10 with a dangling file that crashes MPI_Finalize). Never throws.
  void detach() noexcept;
  bool committed() const { return committed_; }

 private:
  std::string final_, temp_;
  bool force_ = false;
  bool committed_ = false;
  MPI_Comm comm_;
  int rank_ = 0;
  int slot_ = -1;                // settle_on_signal registration (rank 0, armed)
  bool known_ = false;           // the temporary file's identity, recorded by arm()
  unsigned long long dev_ = 0, ino_ = 0;
};

/// Called from the signal handler of a stop (studies/interrupt.cpp); async-signal-safe (only
/// unlink and rename): removes every armed temporary result file and moves a run log's
/// temporary file to its final name (settle_on_signal), at once, wherever the program is. A
/// stopped study never commits its result, and its log is complete up to the stop; the SIGKILL
/// that a launcher sends after its grace period (Open MPI's mpirun: 1 s after its SIGTERM to the
/// ranks) then finds no temporary file of either, even in the middle of a checkpoint.
void settle_temporaries() noexcept;
/// Registers `from` to be renamed to `to` (to empty: removed) by settle_temporaries(). Returns a
/// slot for withdraw_settle, -1 if none is free or a path is too long (then nothing happens).
int settle_on_signal(const std::string& from, const std::string& to);
/// Ends a registration; true if settle_temporaries() has done it already. Thread- and
/// signal-safe (waits only for a handler that is settling it right now).
bool withdraw_settle(int slot) noexcept;

/// Why `path` must never be replaced, even with --force: it exists and is not a regular file
/// after following links (a directory, character or block device, FIFO or socket; renaming a
/// file over /dev/null, say, would replace the device). Empty if it does not exist or is a
/// regular file. The one rule for every file liebench replaces by rename: results, reports,
/// run logs, checkpoints. `what` names the file in the message ("output file", "run log").
std::string unreplaceable(const std::string& path, const std::string& what);
/// Collective over `comm` (rank 0 checks): throws UsageError(unreplaceable(path, what) + fix).
void check_replaceable(const std::string& path, const std::string& what, const std::string& fix, MPI_Comm comm);

/// Writes a small text file (reports) the same way, by one process: refuses (UsageError) an
/// existing `path` without `force`, any path that is one of `inputs` (same file, even through
/// another name), and, even with `force`, anything unreplaceable(); writes `<path>.tmp.<pid>`,
/// then renames it. IoError on write errors (no temporary file left).
void write_text_file(const std::string& path, const std::string& text, bool force,
                     const std::vector<std::string>& inputs);

/// A temporary file of liebench found in a directory: `<name>.tmp.<host>.<pid>` (result files
/// being written), `<name>.group<G>of<N>.<host>.<pid>.part` (rank-group parts waiting to be
/// merged), with `stale` = its owner process is gone (same host, no such pid).
struct Temporary {
  std::string path, host;
  long pid = 0;
  bool stale = false;
  std::string why;  // "process 123 on host h is gone", "owned by running process 123", ...
};
/// Temporaries in `dir` (not recursive); with `final_name`, only those of that output file.
std::vector<Temporary> find_temporaries(const std::string& dir, const std::string& final_name = "");
/// Removes the stale temporaries of `final_path` (next to it); returns the removed paths.
std::vector<std::string> remove_stale_temporaries(const std::string& final_path);
/// This host's name (as used in temporary names: no dots or slashes).
std::string host_tag();

/// Directory part of a path ("." if none).
std::string directory_of(const std::string& path);

}  // namespace lie::io
