#pragma once
// Graceful stop on SIGTERM / SIGINT / SIGHUP / SIGUSR1 / SIGUSR2 (SLURM's time limit, Ctrl-C,
// `kill`, mpirun forwarding): the handler only sets a flag; studies poll it between steps
// and runs (a collective poll, so every rank stops at the same point), then the result file's
// temporary copy is removed and liebench exits with status 128 + signal.
#include <stdexcept>
#include <string>

#include "parallel/context.hpp"

namespace lie::studies {

class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal);
  int signal() const { return signal_; }

 private:
  int signal_;
};

/// Installs the handlers for the lifetime of the object (restores the previous ones).
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

/// Signal received by this process (0: none).
int pending_signal();
/// Collective: throws Interrupted on every rank if any rank received a signal.
void poll_interrupt(const par::Context& ctx);
/// Test hook: behave as if `signal` had been received.
void raise_interrupt_for_testing(int signal);
void clear_interrupt();

std::string signal_name(int signal);

}  // namespace lie::studies
