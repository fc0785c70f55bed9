#pragma once
// Steady-state timing and the finite-solution check of the benchmark and baseline programs
// (issue 27, "Honest baselines"): allocation and first touch happen in untimed warm-up calls,
// at least kMinTimed calls are timed, and a time is reported only where the energy error at the
// end of the timed steps is finite and at most the program's --max_energy_error.
#include <algorithm>
#include <chrono>
#include <cmath>

namespace bench {

inline constexpr long kMinTimed = 3;  // timed calls at least (steps, evaluations)

inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Timing {
  double seconds_per_call = 0;
  long calls = 0;  // timed calls
};

/// warmup untimed calls of f(), then f() in growing batches until min_time seconds have passed
/// and at least kMinTimed calls were timed. Where segment > 0, restart() is called (untimed) after
/// every segment calls (the warm-up counted): a stepping loop goes back to its initial state, so
/// that a long timing loop does not integrate far beyond its accuracy (Odeint's RK4 on the
/// N = 100 chain at h = 1e-3 drifts to a 70 % energy error by t = 139, 1 s of timing).
template <class F, class R>
Timing time_calls(F&& f, double min_time, long warmup, long segment, R&& restart) {
  for (long k = 0; k < warmup; ++k) f();
  long batch = 1, total = 0, since = warmup;
  double elapsed = 0;
  while (elapsed < min_time || total < kMinTimed) {
    if (segment > 0 && since >= segment) {
      restart();
      since = 0;
    }
    const long n = segment > 0 ? std::min(batch, segment - since) : batch;
    const double t0 = now();
    for (long k = 0; k < n; ++k) f();
    elapsed += now() - t0;
    total += n;
    since += n;
    if (elapsed < min_time / 10 && n == batch) batch *= 2;  // n < batch: cut by a segment
  }
  return {elapsed / static_cast<double>(total), total};
}
template <class F>
Timing time_calls(F&& f, double min_time, long warmup = 1) {
  return time_calls(f, min_time, warmup, 0, [] {});
}

/// |E1 - E0| / |E0| (the absolute difference where E0 = 0); NaN stays NaN.
inline double energy_error(double E0, double E1) {
  return E0 == 0.0 ? std::fabs(E1 - E0) : std::fabs(E1 - E0) / std::fabs(E0);
}
/// The larger of two errors, NaN if either is NaN (std::max would drop a NaN).
inline double worse(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
/// The solution stayed finite and its energy error is within max_error.
inline bool energy_ok(double error, double max_error) { return std::isfinite(error) && error <= max_error; }

}  // namespace bench
