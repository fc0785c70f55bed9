#pragma once
// A pending stop request, readable from every layer. The signal handler of the studies layer
// (studies/interrupt.cpp: SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2) sets it; studies poll it
// between steps (collectively), and computations that can run for seconds inside one step (the
// dense solves and Newton iterations of the implicit methods) call stop_point(), so that a
// batch system's grace period is not spent inside a step (issue 29). The methods layer needs
// only this header, not the studies layer.
#include <csignal>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace lie {

namespace detail {
inline volatile std::sig_atomic_t g_stop_signal = 0;
}

/// The signal of a pending stop request; 0: none.
inline int stop_signal() noexcept { return detail::g_stop_signal; }
/// Async-signal-safe (called from the signal handler).
inline void request_stop(int signal) noexcept { detail::g_stop_signal = signal; }
inline void clear_stop() noexcept { detail::g_stop_signal = 0; }

inline std::string signal_name(int s) {
  switch (s) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: return "signal " + std::to_string(s);
  }
}

/// Work ended by a stop request: liebench exits with 128 + signal (studies::Interrupted, and
/// io::SafeOutput::commit when a signal removed the temporary file first).
class Stopped : public std::runtime_error {
 public:
  Stopped(int signal, const std::string& what) : std::runtime_error(what), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

/// A step abandoned on a stop request. Contract for a Stepper that lets it escape step():
/// the state y and everything the stepper carries to the next step (caches, warm starts,
/// counters) are as they were before the step, on every rank (the stepper agrees over its
/// ranks first), so the run stands at the start of that step. The fixed-step driver fills in
/// where that is (`steps_done`, `t`); the studies layer then writes a checkpoint there or stops.
class StopInStep : public Stopped {
 public:
  explicit StopInStep(int signal) : Stopped(signal, "stopped by " + signal_name(signal) + " inside a step") {}
  bool located = false;          // steps_done and t are set (fixed steps)
  std::uint64_t steps_done = 0;  // the run stands after this many steps
  double t = 0.0;                // at this time
};

/// Inside long local loops: throws StopInStep if a stop is pending. Only where no other rank
/// can be waiting in a collective operation for this one (see StopInStep).
inline void stop_point() {
  if (const int s = stop_signal()) throw StopInStep(s);
}

}  // namespace lie
