#include "io/safe_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/error.hpp"
#include "parallel/context.hpp"

namespace lie::io {

namespace {

void fsync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Writability as it will be used: create (and remove) a probe file next to the output
// (access(2) says yes to root even on directories where creating a file fails).
bool can_create_in(const std::string& final_path) {
  const std::string probe = final_path + ".probe." + std::to_string(static_cast<long>(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return false;
  ::close(fd);
  ::unlink(probe.c_str());
  return true;
}

}  // namespace

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void SafeOutput::check(const std::string& final_path, bool force, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string problem;
  if (rank == 0) {
    const std::string dir = directory_of(final_path);
    struct stat st {};
    if (final_path.empty() || final_path.back() == '/') {
      problem = "output path '" + final_path + "' names a directory; give a file name, e.g. --output " +
                (final_path.empty() ? std::string("results/study.h5") : final_path + "study.h5");
    } else if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      problem = "output directory '" + dir + "' does not exist; create it (mkdir -p " + dir +
                ") or choose another --output";
    } else if (!can_create_in(final_path)) {
      problem = "output directory '" + dir + "' is not writable (" + std::strerror(errno) +
                "); choose another --output";
    } else if (::stat(final_path.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode))
        problem = "output path '" + final_path + "' is a directory; give a file name inside it";
      else if (!force)
        problem = "output file '" + final_path + "' exists; pass --force to replace it (it is kept intact until the "
                  "new file is complete) or choose another --output";
    }
  }
  problem = par::broadcast_string(problem, 0, comm);
  if (!problem.empty()) throw UsageError(problem);
}

SafeOutput::SafeOutput(std::string final_path, bool force, MPI_Comm comm)
    : final_(std::move(final_path)), force_(force), comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  long pid = static_cast<long>(::getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, comm_);
  temp_ = final_ + ".tmp." + std::to_string(pid);
}

SafeOutput::~SafeOutput() {
  if (!committed_) discard();
}

void SafeOutput::discard() noexcept {
  if (rank_ == 0 && !committed_) ::unlink(temp_.c_str());
}

void SafeOutput::commit() {
  std::string problem;
  if (rank_ == 0) {
    fsync_path(temp_, false);
    if (force_) {
      if (::rename(temp_.c_str(), final_.c_str()) != 0)
        problem = "cannot rename '" + temp_ + "' to '" + final_ + "': " + std::strerror(errno);
    } else {
      // link() fails if the final name exists: never replace a file that appeared meanwhile.
      if (::link(temp_.c_str(), final_.c_str()) != 0) {
        struct stat st {};
        if (errno == EEXIST || ::stat(final_.c_str(), &st) == 0)
          problem = "output file '" + final_ + "' appeared while the study ran; not replaced (use --force to replace)";
        else if (::rename(temp_.c_str(), final_.c_str()) != 0)  // file systems without hard links
          problem = "cannot rename '" + temp_ + "' to '" + final_ + "': " + std::strerror(errno);
      } else {
        ::unlink(temp_.c_str());
      }
    }
    if (problem.empty()) fsync_path(directory_of(final_), true);
  }
  problem = par::broadcast_string(problem, 0, comm_);
  if (!problem.empty()) {
    discard();
    throw std::runtime_error(problem);
  }
  committed_ = true;
}

}  // namespace lie::io
