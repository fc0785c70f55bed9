// Baseline for issue 16 (targets 2 and 3): Boost.Odeint's classical RK4 (runge_kutta4) on the
// flat-coordinate N-fold pendulum equations with the same O(N) tension solve as the suite
// (baseline_pendulum_flat.hpp), i.e. what a user without this suite would write. Not a test.
//   baseline_odeint_pendulum --N=1000000 [--dt=1e-3] [--min_time=1] [--check=auto|yes|no]
// Prints one line of key=value pairs: seconds per RK4 step and per right-hand side, both per
// link, the resident memory at the end of stepping (rss_mb, bytes_per_link: state, Odeint's
// stage buffers and the solver's scratch; the suite's model is gone by then), the process
// peak (maxrss_mb, which also holds the setup copies) and, with the
// check, the largest difference between this right-hand side and the suite's
// (NFoldPendulum::angular_accelerations) on the same state, relative to max |h|.
// The initial state is the suite's random state (seed 1), so both programs step the same chain.
// N = 2 and 20 use fixed-size std::array states (the fastest form for small systems).
#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "baseline_pendulum_flat.hpp"
#include "models/nfold_pendulum.hpp"

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double rss_mb() {  // current resident set (VmRSS), MiB
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  return -1.0;
}

double maxrss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

struct Timing {
  double seconds_per_call = 0;
  long calls = 0;
};

// Calls f() in growing batches until min_time seconds have passed.
template <class F>
Timing time_calls(F&& f, double min_time) {
  long batch = 1, total = 0;
  double elapsed = 0;
  const double t0 = now();
  while (elapsed < min_time) {
    for (long k = 0; k < batch; ++k) f();
    total += batch;
    elapsed = now() - t0;
    if (elapsed < min_time / 10) batch *= 2;
  }
  return {elapsed / static_cast<double>(total), total};
}

// Steps and times; returns the resident set at the end of stepping (the stepper's buffers alive).
template <class State>
double run(baseline::FlatChain& chain, State& x, double dt, double min_time, Timing& step, Timing& rhs) {
  namespace odeint = boost::numeric::odeint;
  odeint::runge_kutta4<State> rk4;
  auto sys = [&chain](const State& s, State& ds, double) { chain.field(s.data(), ds.data()); };
  double t = 0;
  State dx = x;
  rhs = time_calls([&] { sys(x, dx, t); }, min_time / 4);
  step = time_calls(
      [&] {
        rk4.do_step(sys, x, t, dt);
        t += dt;
      },
      min_time);
  return rss_mb();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::map<std::string, std::string> opt = {{"N", "2"}, {"dt", "1e-3"}, {"min_time", "1"}, {"check", "auto"}};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto eq = a.find('=');
    if (a.rfind("--", 0) != 0 || eq == std::string::npos || !opt.count(a.substr(2, eq - 2))) {
      std::fprintf(stderr, "baseline_odeint_pendulum: unknown argument '%s' (--N= --dt= --min_time= --check=)\n",
                   a.c_str());
      MPI_Finalize();
      return 2;
    }
    opt[a.substr(2, eq - 2)] = a.substr(eq + 1);
  }
  std::size_t N = 0;
  double dt = 0, min_time = 0;
  try {
    N = std::stoul(opt["N"]);
    dt = std::stod(opt["dt"]);
    min_time = std::stod(opt["min_time"]);
  } catch (const std::exception&) {
    std::fprintf(stderr, "baseline_odeint_pendulum: --N=%s --dt=%s --min_time=%s: give numbers\n", opt["N"].c_str(),
                 opt["dt"].c_str(), opt["min_time"].c_str());
    MPI_Finalize();
    return 2;
  }
  const bool check = opt["check"] == "yes" || (opt["check"] == "auto" && N <= 100000);
  if (N < 2) {
    std::fprintf(stderr, "baseline_odeint_pendulum: N=%zu; use N >= 2\n", N);
    MPI_Finalize();
    return 2;
  }

  std::vector<double> y0(6 * N), masses(N), lengths(N);
  double gravity = 0, check_diff = -1;
  {  // the suite's random initial state and parameters; the model is destroyed before timing
    lie::par::Context ctx(MPI_COMM_SELF);
    lie::NFoldPendulumParams p;
    p.N = N;
    p.initial = lie::NFoldPendulumParams::Initial::Random;
    lie::NFoldPendulum model(p, ctx);
    model.initial_state(y0.data());
    for (std::size_t i = 0; i < N; ++i) masses[i] = model.mass(i), lengths[i] = model.length(i);
    gravity = model.params().gravity;
    if (check) {
      std::vector<double> h_suite(3 * N), h_flat(3 * N);
      model.angular_accelerations(y0.data(), h_suite.data());
      baseline::FlatChain c(N, masses, lengths, gravity);
      c.accelerations(y0.data(), h_flat.data());
      double dmax = 0, hmax = 0;
      for (std::size_t k = 0; k < 3 * N; ++k) {
        dmax = std::max(dmax, std::fabs(h_flat[k] - h_suite[k]));
        hmax = std::max(hmax, std::fabs(h_suite[k]));
      }
      check_diff = dmax / hmax;
    }
  }
  baseline::FlatChain chain(N, masses, lengths, gravity);
  Timing step, rhs;
  double rss_stepping = 0;
  if (N == 2) {
    std::array<double, 12> x;
    std::copy(y0.begin(), y0.end(), x.begin());
    rss_stepping = run(chain, x, dt, min_time, step, rhs);
  } else if (N == 20) {
    std::array<double, 120> x;
    std::copy(y0.begin(), y0.end(), x.begin());
    rss_stepping = run(chain, x, dt, min_time, step, rhs);
  } else {
    std::vector<double> x = y0;
    std::vector<double>().swap(y0);
    rss_stepping = run(chain, x, dt, min_time, step, rhs);
  }
  const double n = static_cast<double>(N);
  std::printf("program=odeint_rk4 N=%zu dt=%g steps=%ld s_per_step=%.6e ns_per_link_step=%.4g rhs_evals=%ld "
              "s_per_rhs=%.6e ns_per_link_rhs=%.4g rss_mb=%.1f maxrss_mb=%.1f bytes_per_link=%.1f rhs_vs_suite=%.3e\n",
              N, dt, step.calls, step.seconds_per_call, 1e9 * step.seconds_per_call / n, rhs.calls,
              rhs.seconds_per_call, 1e9 * rhs.seconds_per_call / n, rss_stepping, maxrss_mb(),
              rss_stepping * 1048576.0 / n, check_diff);
  MPI_Finalize();
  return 0;
}
