#include "studies/interrupt.hpp"

#include <csignal>
#include <cstring>

#include "core/stop.hpp"
#include "io/safe_output.hpp"

namespace lie::studies {

namespace {
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2};
struct sigaction g_old[sizeof kSignals / sizeof kSignals[0]];
int g_depth = 0;

// The flag is core/stop.hpp's, which the methods layer polls inside long steps too. The
// temporaries that a stop never keeps are settled here, at once (io::settle_temporaries: only
// unlink and rename): a launcher's SIGKILL after its grace period finds none of them.
extern "C" void on_signal(int sig) {
  request_stop(sig);
  io::settle_temporaries();
}
}  // namespace

Interrupted::Interrupted(int signal)
    : Stopped(signal, "interrupted by " + signal_name(signal) +
                          "; the study stopped, its temporary file was removed and no result file was written") {}

InterruptGuard::InterruptGuard() {
  if (g_depth++ > 0) return;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) sigaction(kSignals[i], &sa, &g_old[i]);
}

InterruptGuard::~InterruptGuard() {
  if (--g_depth > 0) return;
  for (std::size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) sigaction(kSignals[i], &g_old[i], nullptr);
}

int pending_signal() { return stop_signal(); }

void poll_interrupt(const par::Context& ctx) {
  int sig = stop_signal();
  if (ctx.size() > 1) {
    int global = 0;
    MPI_Allreduce(&sig, &global, 1, MPI_INT, MPI_MAX, ctx.comm());
    sig = global;
  }
  if (sig != 0) throw Interrupted(sig);
}

void raise_interrupt_for_testing(int signal) { request_stop(signal); }
void clear_interrupt() { clear_stop(); }

}  // namespace lie::studies
