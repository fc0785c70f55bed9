#include "studies/interrupt.hpp"

#include <csignal>
#include <cstring>

namespace lie::studies {

namespace {
volatile std::sig_atomic_t g_signal = 0;
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2};
struct sigaction g_old[sizeof kSignals / sizeof kSignals[0]];
int g_depth = 0;

extern "C" void on_signal(int sig) { g_signal = sig; }
}  // namespace

std::string signal_name(int s) {
  switch (s) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: return "signal " + std::to_string(s);
  }
}

Interrupted::Interrupted(int signal)
    : std::runtime_error("interrupted by " + signal_name(signal) + "; the study stopped, its temporary file was removed "
                         "and no result file was written"),
      signal_(signal) {}

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

int pending_signal() { return g_signal; }

void poll_interrupt(const par::Context& ctx) {
  int sig = g_signal;
  if (ctx.size() > 1) {
    int global = 0;
    MPI_Allreduce(&sig, &global, 1, MPI_INT, MPI_MAX, ctx.comm());
    sig = global;
  }
  if (sig != 0) throw Interrupted(sig);
}

void raise_interrupt_for_testing(int signal) { g_signal = signal; }
void clear_interrupt() { g_signal = 0; }

}  // namespace lie::studies
