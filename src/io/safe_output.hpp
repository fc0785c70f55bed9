#pragma once
// Crash-safe creation of a result file: data goes to `<final>.tmp.<pid>` in the same
// directory; commit() fsyncs it and renames it to the final name (an atomic replace on POSIX
// file systems), so a crash, a kill or an error never leaves a half-written file under the
// final name and never damages an earlier file there. A SIGKILL can leave at most the
// temporary file behind (safe to delete).
#include <mpi.h>

#include <string>

namespace lie::io {

class SafeOutput {
 public:
  /// Checks, before anything is created, that `final_path` can be written: its directory
  /// exists and is writable, it is not a directory, and it does not exist unless `force`.
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
  bool committed() const { return committed_; }

 private:
  std::string final_, temp_;
  bool force_ = false;
  bool committed_ = false;
  MPI_Comm comm_;
  int rank_ = 0;
};

/// Directory part of a path ("." if none).
std::string directory_of(const std::string& path);

}  // namespace lie::io
