#pragma once
// Graceful stop on SIGTERM / SIGINT / SIGHUP / SIGUSR1 / SIGUSR2 (SLURM's time limit, Ctrl-C,
// `kill`, mpirun forwarding): the handler only sets a flag (core/stop.hpp); studies poll it
// between steps and runs (a collective poll, so every rank stops at the same point), long steps
// inside (StopInStep, see execute_run), then the result file's temporary copy is removed and
// liebench exits with status 128 + signal (5 where a checkpoint was written, checkpoint.hpp).
#include <stdexcept>
#include <string>

#include "core/stop.hpp"
#include "parallel/context.hpp"

namespace lie::studies {

/// The study stopped on a signal, no checkpoint written: exit status 128 + signal.
class Interrupted : public Stopped {
 public:
  explicit Interrupted(int signal);
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

using lie::signal_name;

}  // namespace lie::studies
