#pragma once
// Per-phase wall-clock timers (CoMD style). Phases used across liebench:
//   total, rhs (model vector field, incl. its communication), comm (communication inside the
//   model, a subset of rhs), algebra (integrator stage combinations, exp/act, dexpinv),
//   reduce (global norms / invariants), io.
#include <chrono>
#include <map>
#include <string>

namespace lie::par {

class Timers {
 public:
  using clock = std::chrono::steady_clock;
  void add(const std::string& phase, double seconds) { t_[phase] += seconds; }
  double get(const std::string& phase) const {
    auto it = t_.find(phase);
    return it == t_.end() ? 0.0 : it->second;
  }
  const std::map<std::string, double>& all() const { return t_; }
  void clear() { t_.clear(); }

 private:
  std::map<std::string, double> t_;
};

/// Adds the lifetime of the object to one phase.
class ScopedTimer {
 public:
  ScopedTimer(Timers& t, const char* phase) : t_(t), phase_(phase), start_(Timers::clock::now()) {}
  ~ScopedTimer() {
    t_.add(phase_, std::chrono::duration<double>(Timers::clock::now() - start_).count());
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  Timers& t_;
  const char* phase_;
  Timers::clock::time_point start_;
};

}  // namespace lie::par
