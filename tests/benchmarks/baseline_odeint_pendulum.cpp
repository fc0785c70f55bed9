// Baseline for issue 16 (targets 2 and 3): Boost.Odeint's classical RK4 (runge_kutta4) on the
// flat-coordinate N-fold pendulum equations with the same O(N) tension solve as the suite
// (baseline_pendulum_flat.hpp), i.e. what a user without this suite would write. Not a test.
//   baseline_odeint_pendulum --N=1000000 [--dt=1e-3] [--min_time=1] [--check=auto|yes|no]
//       [--max_energy_error=1e-3]   (--help lists the options)
// Prints one line of key=value pairs: seconds per RK4 step and per right-hand side, both per
// link, the resident memory at the end of stepping (rss_mb, bytes_per_link: state, Odeint's
// stage buffers and the solver's scratch; the suite's model is gone by then), the process
// peak (maxrss_mb, which also holds the setup copies), the relative energy error from the
// initial state to the end of the timed steps (the largest over the segments, below) and, with
// the check, the largest difference between this right-hand side and the suite's
// (NFoldPendulum::angular_accelerations) on the same state, relative to max |h|, and between
// this energy and the suite's total_energy.
// What is timed (bench_steady.hpp): after one untimed call (the right-hand side) or step (it
// allocates and first touches Odeint's four stage buffers), batches of calls until min_time
// seconds and at least 3 calls. Where the energy error at the end is not finite or above
// --max_energy_error the time fields say "failed", status=failed, and the exit status is 3.
// The initial state is the suite's random state (seed 1), so both programs step the same chain.
// N = 2 and 20 use fixed-size std::array states (the fastest form for small systems).
#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "baseline_pendulum_flat.hpp"
#include "bench_args.hpp"
#include "bench_steady.hpp"
#include "models/nfold_pendulum.hpp"

namespace {

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

// Timed steps go back to the initial state after this many (bench::time_calls): t <= 1 at h = 1e-3.
constexpr long kSegment = 1000;

// Steps and times from x = y0 (y0 empty: never back to it); returns the resident set at the end of
// stepping (the stepper's buffers alive). E0, err: the energy at y0 and the largest relative
// energy error at the end of a segment and of the timing.
template <class State>
double run(baseline::FlatChain& chain, State& x, const std::vector<double>& y0, double dt, double min_time,
           bench::Timing& step, bench::Timing& rhs, double E0, double& err) {
  namespace odeint = boost::numeric::odeint;
  odeint::runge_kutta4<State> rk4;
  auto sys = [&chain](const State& s, State& ds, double) { chain.field(s.data(), ds.data()); };
  double t = 0;
  State dx = x;
  rhs = bench::time_calls([&] { sys(x, dx, t); }, min_time / 4);
  err = 0;
  auto check = [&] { err = bench::worse(err, bench::energy_error(E0, chain.energy(x.data()))); };
  step = bench::time_calls(
      [&] {
        rk4.do_step(sys, x, t, dt);
        t += dt;
      },
      min_time, 1, y0.empty() ? 0 : kSegment,
      [&] {
        check();
        std::copy(y0.begin(), y0.end(), x.begin());
        t = 0;
      });
  check();
  return rss_mb();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  bench::Args args("baseline_odeint_pendulum",
                   "Boost.Odeint's RK4 on the flat-coordinate N-fold pendulum (the suite's random state, seed 1):\n"
                   "seconds per step and per right-hand side, memory, energy error; one line of key=value pairs.",
                   {{"N", bench::Kind::Int, "2", "links (>= 2; N = 2 and 20 use fixed-size std::array states)"},
                    {"dt", bench::Kind::Real, "1e-3", "RK4 step"},
                    {"min_time", bench::Kind::Real, "1", "seconds of timed steps at least (and 3 steps at least)"},
                    {"check", bench::Kind::Text, "auto",
                     "compare the right-hand side and energy with the suite's: yes, no, auto (N <= 10^5)"},
                    {"max_energy_error", bench::Kind::Real, "1e-3",
                     "largest relative energy error at the end of the timed steps for which a time is reported"}});
  if (const int rc = args.parse(argc, argv, true); rc >= 0) {
    MPI_Finalize();
    return rc;
  }
  const std::size_t N = static_cast<std::size_t>(args.integer("N"));
  const double dt = args.real("dt"), min_time = args.real("min_time"), max_error = args.real("max_energy_error");
  const std::string check_opt = args.text("check");
  if (N < 2 || !(dt > 0) || !(min_time >= 0) || (check_opt != "yes" && check_opt != "no" && check_opt != "auto")) {
    args.refuse("--N=" + args.text("N") + " --dt=" + args.text("dt") + " --min_time=" + args.text("min_time") +
                    " --check=" + check_opt + ": give N >= 2, dt > 0, min_time >= 0, check yes, no or auto",
                true);
    MPI_Finalize();
    return 2;
  }
  const bool check = check_opt == "yes" || (check_opt == "auto" && N <= 100000);

  std::vector<double> y0(6 * N), masses(N), lengths(N);
  double gravity = 0, check_diff = -1, energy_diff = -1;
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
      lie::Observables obs;
      model.observables(0.0, y0.data(), obs);
      energy_diff = bench::energy_error(obs.get("total_energy"), c.energy(y0.data()));
    }
  }
  baseline::FlatChain chain(N, masses, lengths, gravity);
  const double E0 = chain.energy(y0.data());
  double err = 0;
  bench::Timing step, rhs;
  double rss_stepping = 0;
  if (N == 2) {
    std::array<double, 12> x;
    std::copy(y0.begin(), y0.end(), x.begin());
    rss_stepping = run(chain, x, y0, dt, min_time, step, rhs, E0, err);
  } else if (N == 20) {
    std::array<double, 120> x;
    std::copy(y0.begin(), y0.end(), x.begin());
    rss_stepping = run(chain, x, y0, dt, min_time, step, rhs, E0, err);
  } else {
    std::vector<double> x = y0;
    // Large chains keep no copy of the start (memory is measured; at N >= 10^5 a second of timing
    // holds about 100 steps, t ~ 0.1): their check is at the end of the timing only.
    if (N >= 100000) std::vector<double>().swap(y0);
    rss_stepping = run(chain, x, y0, dt, min_time, step, rhs, E0, err);
  }
  const double n = static_cast<double>(N);
  const bool ok = bench::energy_ok(err, max_error);
  auto time = [ok](const char* format, double x) {  // a time only for a run that stayed finite, on its energy
    char b[32];
    std::snprintf(b, sizeof b, format, x);
    return ok ? std::string(b) : std::string("failed");
  };
  std::printf("program=odeint_rk4 N=%zu dt=%g status=%s untimed_steps=1 steps=%ld s_per_step=%s ns_per_link_step=%s "
              "rhs_evals=%ld s_per_rhs=%s ns_per_link_rhs=%s rss_mb=%.1f maxrss_mb=%.1f bytes_per_link=%.1f "
              "energy0=%.17g rel_energy_error=%.3e max_energy_error=%g rhs_vs_suite=%.3e energy_vs_suite=%.3e\n",
              N, dt, ok ? "ok" : "failed", step.calls, time("%.6e", step.seconds_per_call).c_str(),
              time("%.4g", 1e9 * step.seconds_per_call / n).c_str(), rhs.calls,
              time("%.6e", rhs.seconds_per_call).c_str(), time("%.4g", 1e9 * rhs.seconds_per_call / n).c_str(),
              rss_stepping, maxrss_mb(), rss_stepping * 1048576.0 / n, E0, err, max_error, check_diff, energy_diff);
  std::fflush(stdout);
  if (!ok)
    std::fprintf(stderr,
                 "baseline_odeint_pendulum: relative energy error %.3e (largest over the steps of dt = %g) exceeds "
                 "--max_energy_error=%g: no time reported; take a smaller --dt\n",
                 err, dt, max_error);
  MPI_Finalize();
  return ok ? 0 : 3;
}
