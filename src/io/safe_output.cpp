#include "io/safe_output.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <iostream>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/error.hpp"
#include "core/quote.hpp"
#include "core/stop.hpp"
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

bool ends_with(const std::string& s, const std::string& t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool process_alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

/// Parses "<host>.<pid>" (host without dots); false if it is not of that form.
bool parse_owner(const std::string& s, std::string& host, long& pid) {
  const auto dot = s.rfind('.');
  if (dot == std::string::npos || dot == 0 || !all_digits(s.substr(dot + 1))) return false;
  host = s.substr(0, dot);
  if (host.find('.') != std::string::npos) return false;
  pid = std::stol(s.substr(dot + 1));
  return true;
}

// settle_on_signal's table: fixed storage and lock-free states, since the signal handler may
// run on any thread, also while another thread registers or withdraws.
constexpr int kSlots = 8;
constexpr std::size_t kPathMax = 4096;
enum : int { kFree = 0, kFilling, kArmed, kSettling, kSettled };
struct Slot {
  std::atomic<int> state{kFree};
  char from[kPathMax];
  char to[kPathMax];  // empty: remove `from`
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");
Slot g_slots[kSlots];

}  // namespace

void settle_temporaries() noexcept {
  for (Slot& s : g_slots) {
    int armed = kArmed;
    if (!s.state.compare_exchange_strong(armed, kSettling)) continue;
    if (s.to[0]) ::rename(s.from, s.to);
    else ::unlink(s.from);
    s.state.store(kSettled);
  }
}

int settle_on_signal(const std::string& from, const std::string& to) {
  if (from.empty() || from.size() >= kPathMax || to.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int free = kFree;
    if (!g_slots[i].state.compare_exchange_strong(free, kFilling)) continue;
    std::memcpy(g_slots[i].from, from.c_str(), from.size() + 1);
    std::memcpy(g_slots[i].to, to.c_str(), to.size() + 1);
    g_slots[i].state.store(kArmed);
    return i;
  }
  return -1;
}

bool withdraw_settle(int slot) noexcept {
  if (slot < 0 || slot >= kSlots) return false;
  Slot& s = g_slots[slot];
  int armed = kArmed;
  if (s.state.compare_exchange_strong(armed, kFree)) return false;
  // A handler on another thread may be at it (on this thread it has finished before we resume).
  while (s.state.load() == kSettling) continue;
  const bool settled = s.state.load() == kSettled;
  s.state.store(kFree);
  return settled;
}

std::string host_tag() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "localhost";
  std::string h(buf);
  h = h.substr(0, h.find('.'));  // short name: temporaries are "<host>.<pid>"
  for (char& c : h)
    if (c == '/') c = '_';
  return h;
}

std::vector<Temporary> find_temporaries(const std::string& dir, const std::string& final_name) {
  std::vector<Temporary> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  const std::string me = host_tag();
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    Temporary t;
    std::string owner;
    const auto tmp = name.rfind(".tmp.");
    const auto grp = name.rfind(".group");
    if (tmp != std::string::npos && tmp > 0) {
      if (!final_name.empty() && name.substr(0, tmp) != final_name) continue;
      owner = name.substr(tmp + 5);
    } else if (grp != std::string::npos && grp > 0 && ends_with(name, ".part")) {
      if (!final_name.empty() && name.substr(0, grp) != final_name) continue;
      const std::string rest = name.substr(grp + 6, name.size() - grp - 6 - 5);  // "<G>of<N>.<host>.<pid>"
      const auto dot = rest.find('.');
      if (dot == std::string::npos) continue;
      owner = rest.substr(dot + 1);
    } else {
      continue;
    }
    if (!parse_owner(owner, t.host, t.pid)) continue;
    t.path = (dir == "." ? std::string() : dir + "/") + name;
    struct stat st {};
    if (::lstat(t.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // only regular files
    if (t.host != me) {
      t.why = "written on host " + t.host + " (cannot tell whether process " + std::to_string(t.pid) + " is alive)";
    } else if (process_alive(t.pid)) {
      t.why = "owned by running process " + std::to_string(t.pid);
    } else {
      t.stale = true;
      t.why = "process " + std::to_string(t.pid) + " on " + t.host + " is gone";
    }
    out.push_back(std::move(t));
  }
  ::closedir(d);
  return out;
}

std::vector<std::string> remove_stale_temporaries(const std::string& final_path) {
  std::vector<std::string> removed;
  const auto slash = final_path.find_last_of('/');
  const std::string name = slash == std::string::npos ? final_path : final_path.substr(slash + 1);
  if (name.empty()) return removed;
  for (const auto& t : find_temporaries(directory_of(final_path), name))
    if (t.stale && ::unlink(t.path.c_str()) == 0) removed.push_back(t.path);
  return removed;
}

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string unreplaceable(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return "";
  const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISFIFO(st.st_mode) ? "a FIFO"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  struct stat lst {};
  const bool link = ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode);
  return what + " " + quote(path) + " exists and is " + (link ? "a link to " : "") + kind +
         ", not a regular file; it is never replaced, not even with --force";
}

void check_replaceable(const std::string& path, const std::string& what, const std::string& fix, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string problem = rank == 0 ? unreplaceable(path, what) : std::string();
  problem = par::broadcast_string(problem, 0, comm);
  if (!problem.empty()) throw UsageError(problem + "; " + fix);
}

void SafeOutput::check(const std::string& final_path, bool force, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string problem;
  if (rank == 0) {
    const std::string dir = directory_of(final_path);
    struct stat st {};
    if (final_path.empty() || final_path.back() == '/') {
      problem = "output path " + quote(final_path) + " names a directory; give a file name, e.g. --output " +
                (final_path.empty() ? std::string("results/study.h5") : final_path + "study.h5");
    } else if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      problem = "output directory " + quote(dir) + " does not exist; create it (mkdir -p " + dir +
                ") or choose another --output";
    } else if (!can_create_in(final_path)) {
      problem = "output directory " + quote(dir) + " is not writable (" + std::strerror(errno) +
                "); choose another --output";
    } else if (::stat(final_path.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode))
        problem = "output path " + quote(final_path) + " is a directory; give a file name inside it";
      else if (const std::string why = unreplaceable(final_path, "output path"); !why.empty())
        problem = why + "; choose another --output";
      else if (!force)
        problem = "output file " + quote(final_path) + " exists; pass --force to replace it (it is kept intact until the "
                  "new file is complete) or choose another --output";
    }
  }
  if (rank == 0 && problem.empty())
    for (const auto& p : remove_stale_temporaries(final_path))
      std::cerr << "liebench: removed " << p << ", left by a killed run (its process is gone)\n";
  problem = par::broadcast_string(problem, 0, comm);
  if (!problem.empty()) throw UsageError(problem);
}

SafeOutput::SafeOutput(std::string final_path, bool force, MPI_Comm comm)
    : final_(std::move(final_path)), force_(force), comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  // Rank 0's host and pid name the temporary file: a later run can tell whether it is stale.
  temp_ = par::broadcast_string(final_ + ".tmp." + host_tag() + "." + std::to_string(static_cast<long>(::getpid())), 0,
                                comm_);
}

SafeOutput::~SafeOutput() {
  if (slot_ >= 0) withdraw_settle(slot_);
  if (!committed_) discard();
}

void SafeOutput::arm() {
  struct stat st {};
  if (::stat(temp_.c_str(), &st) == 0) {
    known_ = true;
    dev_ = st.st_dev;
    ino_ = st.st_ino;
  }
  if (rank_ == 0 && slot_ < 0 && !committed_) slot_ = settle_on_signal(temp_, "");
}

int SafeOutput::disarm() {
  int sig = 0;
  if (rank_ == 0 && slot_ >= 0) {
    if (withdraw_settle(slot_)) sig = stop_signal() ? stop_signal() : SIGTERM;
    slot_ = -1;
  }
  MPI_Bcast(&sig, 1, MPI_INT, 0, comm_);
  return sig;
}

void SafeOutput::discard() noexcept {
  if (rank_ == 0 && !committed_) ::unlink(temp_.c_str());
}

void SafeOutput::detach() noexcept {
#ifdef __linux__
  // By the identity recorded in arm(): a stop signal may have removed the name already.
  struct stat target {};
  if (committed_) return;
  if (known_) {
    target.st_dev = static_cast<dev_t>(dev_);
    target.st_ino = static_cast<ino_t>(ino_);
  } else if (::stat(temp_.c_str(), &target) != 0) {
    return;
  }
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return;
  int memfd = -1;
  while (const dirent* e = ::readdir(d)) {
    if (!all_digits(e->d_name)) continue;
    const int fd = std::atoi(e->d_name);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_dev != target.st_dev || st.st_ino != target.st_ino) continue;
    if (memfd < 0) memfd = ::memfd_create("liebench-discarded-output", 0);
    if (memfd >= 0) ::dup2(memfd, fd);
  }
  ::closedir(d);
  if (memfd >= 0) ::close(memfd);
#endif
}

void SafeOutput::commit() {
  if (const int sig = disarm())  // a stop signal removed the temporary file before the commit
    throw Stopped(sig, "interrupted by " + signal_name(sig) +
                           " while the result was being completed; its temporary file was removed and no result "
                           "file was written");
  std::string problem;
  if (rank_ == 0) {
    fsync_path(temp_, false);
    if (force_) {
      if (::rename(temp_.c_str(), final_.c_str()) != 0)
        problem = "cannot rename " + quote(temp_) + " to " + quote(final_) + ": " + std::strerror(errno);
    } else {
      // link() fails if the final name exists: never replace a file that appeared meanwhile.
      if (::link(temp_.c_str(), final_.c_str()) != 0) {
        struct stat st {};
        if (errno == EEXIST || ::stat(final_.c_str(), &st) == 0)
          problem = "output file " + quote(final_) + " appeared while the study ran; not replaced (use --force to replace)";
        else if (::rename(temp_.c_str(), final_.c_str()) != 0)  // file systems without hard links
          problem = "cannot rename " + quote(temp_) + " to " + quote(final_) + ": " + std::strerror(errno);
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

void write_text_file(const std::string& path, const std::string& text, bool force,
                     const std::vector<std::string>& inputs) {
  struct stat st {};
  if (path.empty() || path.back() == '/') throw UsageError("output path " + quote(path) + " names a directory; give a file name");
  if (::stat(path.c_str(), &st) == 0) {
    for (const auto& in : inputs) {
      struct stat si {};
      if (::stat(in.c_str(), &si) == 0 && si.st_dev == st.st_dev && si.st_ino == st.st_ino)
        throw UsageError("output file " + quote(path) + " is the input file " + quote(in) + "; choose another --output");
    }
    if (const std::string why = unreplaceable(path, "output path"); !why.empty())
      throw UsageError(why + "; choose another --output");
    if (!force)
      throw UsageError("output file " + quote(path) + " exists; pass --force to replace it or choose another --output");
  }
  const std::string dir = directory_of(path);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw UsageError("output directory " + quote(dir) + " does not exist; create it (mkdir -p " + dir +
                     ") or choose another --output");
  const std::string temp = path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0)
    throw UsageError("cannot create " + quote(temp) + " (" + std::strerror(errno) + "); choose another --output");
  std::string problem;
  std::size_t done = 0;
  while (done < text.size() && problem.empty()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) problem = std::strerror(errno);
    else done += static_cast<std::size_t>(n);
  }
  if (problem.empty() && ::fsync(fd) != 0) problem = std::strerror(errno);
  if (::close(fd) != 0 && problem.empty()) problem = std::strerror(errno);
  // A regular file (or nothing) under the final name: checked above; rename replaces it atomically.
  if (problem.empty() && ::rename(temp.c_str(), path.c_str()) != 0) problem = std::strerror(errno);
  if (!problem.empty()) {
    ::unlink(temp.c_str());
    throw IoError("cannot write " + quote(path) + ": " + problem + " (nothing written under that name)");
  }
  fsync_path(dir, true);
}

}  // namespace lie::io
