#pragma once
// Per-phase wall-clock timers (CoMD style). Phases used across liebench:
//   total, rhs (model vector field, incl. its communication), comm (communication inside the
//   model, a subset of rhs), solve (the chain's reduced tridiagonal system, solved redundantly
//   on every rank, parallel/tridiagonal.cpp; a subset of rhs), algebra (integrator stage
//   combinations, exp/act, dexpinv), reduce (global norms / invariants), io.
// The clock: the host's steady clock in the regular build; in the SMPI variant (LIEBENCH_SMPI)
// MPI_Wtime, i.e. SimGrid's simulated clock (the host clock there measures the simulator, not
// the simulated cluster). Each MPI_Wtime call under SMPI ends the current compute burst and
// injects it, so a timed phase holds the simulated compute and communication inside it.
#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#ifdef LIEBENCH_SMPI
#include <mpi.h>
#endif

namespace lie::par {

/// Seconds on the timers' clock (see the header comment): differences only.
inline double timer_seconds() {
#ifdef LIEBENCH_SMPI
  return MPI_Wtime();
#else
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
#endif
}

/// Phases are few and named by string literals: a short list searched by the literal's address
/// first (no std::string or map lookup in the hot path: a timed right-hand side of a small
/// system costs tens of nanoseconds).
///
/// Off until a consumer asks (enable()): the studies' runs (their "model.*" phases), liebench_steps
/// and the benchmark programs that report phases. Off, a ScopedTimer reads no clock: the right-hand
/// side of a small system costs tens of nanoseconds, two clock reads about as much (issue 27).
class Timers {
 public:
  void enable(bool on = true) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  void add(const char* phase, double seconds) { slot(phase) += seconds; }
  double get(const std::string& phase) const {
    for (const Entry& e : entries_)
      if (e.name == phase) return e.value;
    return 0.0;
  }
  std::map<std::string, double> all() const {
    std::map<std::string, double> m;
    for (const Entry& e : entries_) m[e.name] += e.value;
    return m;
  }
  void clear() { entries_.clear(); }
  /// The accumulator of a phase (created at 0).
  double& slot(const char* phase) {
    for (Entry& e : entries_)
      if (e.key == phase) return e.value;
    for (Entry& e : entries_)
      if (std::strcmp(e.name.c_str(), phase) == 0) return e.value;
    entries_.push_back({phase, phase, 0.0});
    return entries_.back().value;
  }

 private:
  struct Entry {
    const char* key;  // the address the phase was first added with
    std::string name;
    double value;
  };
  std::vector<Entry> entries_;
  bool enabled_ = false;
};

/// Adds the lifetime of the object to one phase (nothing, and no clock read, while the timers are off).
class ScopedTimer {
 public:
  ScopedTimer(Timers& t, const char* phase)
      : t_(t), phase_(phase), on_(t.enabled()), start_(on_ ? timer_seconds() : 0.0) {}
  ~ScopedTimer() {
    if (on_) t_.add(phase_, timer_seconds() - start_);
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  Timers& t_;
  const char* phase_;
  bool on_;
  double start_;
};

}  // namespace lie::par
