// Distributed N-fold pendulum run for timing and memory (not a test): fixed steps of a Lie
// group method on a chain of N links over all ranks of MPI_COMM_WORLD, OMP_NUM_THREADS
// threads per rank. Prints one line of key=value pairs (read by scripts/bench/*.sh):
// wall time of the stepping loop (max over ranks), seconds per step and per 100 steps, the
// relative energy error and angular-momentum-z change over the run, the manifold errors at
// the end, the model's rhs/comm timers, the peak resident memory of every rank
// (getrusage ru_maxrss), and per link: ns_per_link_step (wall), ns_per_link_step_core (times
// ranks x threads) and peak_bytes_per_link (peak RSS of all ranks over N); the memory yardstick
// of the same run: copy_gb_s (a stream-like copy of a state-sized array, 32 to 128 MiB per
// rank, by the same ranks and threads, STREAM's byte count), state_copy_ns_per_link (96 bytes
// per link at that rate: the state read and written once) and step_in_state_copies (ns_per_link_step
// over it).
//   mpirun -n 2 build/tests/bench_pendulum_chain --N=1000000 --steps=10 [--dt=auto]
//       [--method=rkmk4] [--initial=paper|random] [--length=1 | --total_length=L] [--blocks=0]
//       [--warmup=1] [--max_energy_error=1e-3]   (--help lists the options)
// What is timed: `steps` (>= 3) steps after `warmup` untimed ones (the stepper's stage arrays
// allocated and first touched, caches warm); the energy error is taken from the initial state
// to the end of the timed steps. Where it is not finite or above --max_energy_error the time
// fields say "failed", status=failed, and the exit status is 3 (one line on stderr).
// --dt=auto takes a step inside the explicit methods' stable range, measured with this program
// (results/performance/notes.md, chain section): for the paper's state (straight chain, every
// w_i = e2, rotating rigidly) the stable step of RKMK4/RK4/CF4 is h_max = 2.0/N for L = 1
// (N = 300 ... 10^5), the RK4 bound 2 sqrt(2) on the imaginary axis over the chain's highest
// transverse frequency omega = 2 sqrt(tau_1/(m L)), tau_1 = m (L N^2/2 + g N sin(pi/4)) the
// pivot's tension; auto takes half of sqrt(2)/sqrt(N^2/2 + g N sin(pi/4)/L), at most 1e-3.
// For the random state the limit does not shrink with N (h_max = 0.02-0.035 within 40 steps,
// N = 10^2 ... 10^5): auto takes 1e-3. Other states need an explicit --dt.
#include <mpi.h>
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "bench_steady.hpp"
#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/nfold_pendulum.hpp"

using namespace lie;

namespace {

double max_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // KiB on Linux
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int status = 0;
  {
    par::Context ctx(MPI_COMM_WORLD);
    bench::Args args(
        "bench_pendulum_chain",
        "Fixed steps of a Lie group method on the N-fold pendulum over all ranks (OMP_NUM_THREADS threads each):\n"
        "time per step and per link, energy and manifold errors, peak memory; one line of key=value pairs.\n"
        "Exit status 3 (time fields 'failed') where the energy error at the end is not finite or too large.",
        {{"N", bench::Kind::Int, "1000000", "links"},
         {"steps", bench::Kind::Int, "10", "timed steps (>= 3)"},
         {"warmup", bench::Kind::Int, "1", "untimed steps before the timed ones"},
         {"dt", bench::Kind::Text, "auto",
          "step; auto: half the measured stable step for initial = paper (about 1/N), 1e-3 for random"},
         {"method", bench::Kind::Text, "rkmk4", "method (liebench list methods)"},
         {"initial", bench::Kind::Text, "paper", "initial state: paper, random, authors (nfold_pendulum.initial)"},
         {"length", bench::Kind::Real, "1", "length of every link"},
         {"total_length", bench::Kind::Text, "",
          "length of the whole chain (links of total_length/N; replaces --length)"},
         {"blocks", bench::Kind::Int, "0", "virtual blocks (0: the model's default)"},
         {"timers", bench::Kind::Text, "on",
          "per-phase timers (rhs_seconds, comm_seconds): on, or off (no clock read per evaluation; the small systems' rows)"},
         {"max_energy_error", bench::Kind::Real, "1e-3",
          "largest relative energy error at the end of the timed steps for which a time is reported"}});
    if (const int rc = args.parse(argc, argv, ctx.is_root()); rc >= 0) {
      MPI_Finalize();
      return rc;
    }
    const double N = static_cast<double>(args.integer("N"));
    const long steps = args.integer("steps"), warmup = args.integer("warmup");
    const std::string initial = args.text("initial"), dt_text = args.text("dt");
    double L = args.real("length");
    std::string bad;
    if (!args.text("total_length").empty()) {
      char* end = nullptr;
      L = std::strtod(args.text("total_length").c_str(), &end) / N;
      if (*end != '\0' || !(L > 0) || !std::isfinite(L))
        bad = "--total_length=" + args.text("total_length") + ": give a positive length";
    }
    double dt = std::strtod(dt_text.c_str(), nullptr);
    if (dt_text == "auto") {
      if (initial == "paper")  // half of h_max (header comment)
        dt = std::min(1e-3, 0.5 * std::sqrt(2.0) / std::sqrt(0.5 * N * N + 9.81 * N * std::sin(M_PI / 4) / L));
      else if (initial == "random")
        dt = 1e-3;
    }
    const bool timers = args.text("timers") == "on";
    if (!timers && args.text("timers") != "off") bad = "--timers=" + args.text("timers") + ": give on or off";
    if (bad.empty() && steps < bench::kMinTimed) bad = "--steps=" + args.text("steps") + ": time at least 3 steps";
    if (bad.empty() && (!(dt > 0) || !std::isfinite(dt)))
      bad = "--dt=" + dt_text + (dt_text == "auto" ? ": auto knows initial = paper and random only; give a step"
                                                   : ": give a positive step or auto");
    if (!bad.empty()) {
      status = args.refuse(bad, ctx.is_root());
    } else {
      try {
        std::vector<std::pair<std::string, std::string>> kv = {{"model", "nfold_pendulum"},
                                                               {"nfold_pendulum.N", args.text("N")},
                                                               {"nfold_pendulum.initial", initial},
                                                               {"nfold_pendulum.blocks", args.text("blocks")}};
        if (!args.text("total_length").empty())
          kv.emplace_back("nfold_pendulum.total_length", args.text("total_length"));
        else
          kv.emplace_back("nfold_pendulum.length", args.text("length"));
        const Config cfg = Config::from_pairs(kv);
        auto model = make_model(cfg, ctx);
        auto stepper = make_stepper(args.text("method"), cfg, *model);
        stepper->bind(*model, ctx);
        std::vector<double> y(model->space().state_size());
        model->initial_state(y.data());
        Observables start, end;
        model->observables(0.0, y.data(), start);
        const double rss_setup = max_rss_mb();

        FixedStepOptions fo;
        fo.h = dt;
        fo.steps = static_cast<std::uint64_t>(warmup);
        if (warmup > 0) integrate_fixed(*stepper, y.data(), fo, nullptr);  // untimed
        fo.t0 = dt * static_cast<double>(warmup);
        fo.steps = static_cast<std::uint64_t>(steps);
        ctx.timers().clear();
        ctx.timers().enable(timers);
        ctx.barrier();
        const double t0 = MPI_Wtime();
        integrate_fixed(*stepper, y.data(), fo, nullptr);
        ctx.barrier();
        const double seconds = ctx.max(MPI_Wtime() - t0);
        const double rhs_s = ctx.max(ctx.timers().get("rhs")), comm_s = ctx.max(ctx.timers().get("comm"));
        model->observables(fo.t0 + fo.h * static_cast<double>(fo.steps), y.data(), end);
        const double E0 = start.get("total_energy"), E1 = end.get("total_energy");
        const double err = bench::energy_error(E0, E1), max_error = args.real("max_energy_error");
        const bool ok = bench::energy_ok(err, max_error);
        if (!ok) status = 3;

        const double rss = max_rss_mb();
        // (the peak memory above is the run's: the yardstick's arrays come after it)
        // The memory-bandwidth yardstick, in the same run: a stream-like copy by the same ranks
        // and threads of an array of the state's size (6 doubles per link), at least 32 MiB per
        // rank (beyond the caches: small systems get the machine's streaming rate, not the
        // cost of a few cache lines) and at most 128 MiB (far beyond them; the two arrays come on
        // top of the run's memory, which at 10^8 links on 2 ranks fills the machine), once
        // untimed (first touch), then the best of 5; STREAM's byte count (16 bytes per entry,
        // read and write).
        double copy_s = 0.0;
        const std::size_t copy_n =
            std::min<std::size_t>(std::max<std::size_t>(y.size(), std::size_t{1} << 22), std::size_t{1} << 24);
        {
          const std::size_t n = copy_n;
          std::vector<double> src(n), dst(n);
          const bool threaded = omp_get_max_threads() > 1;
          auto copy = [&] {
#pragma omp parallel for schedule(static) if (threaded)
            for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
          };
#pragma omp parallel for schedule(static) if (threaded)
          for (std::size_t i = 0; i < n; ++i) src[i] = y[i % y.size()];
          copy();
          copy_s = 1e300;
          for (int r = 0; r < 5; ++r) {
            ctx.barrier();
            const double c0 = MPI_Wtime();
            copy();
            ctx.barrier();
            copy_s = std::min(copy_s, ctx.max(MPI_Wtime() - c0));
          }
          if (dst[n / 2] != src[n / 2]) copy_s = 0.0;  // keeps the copy
        }

        std::vector<double> rss_all(static_cast<std::size_t>(ctx.size())), rss_setup_all(rss_all.size());
        MPI_Gather(&rss, 1, MPI_DOUBLE, rss_all.data(), 1, MPI_DOUBLE, 0, ctx.comm());
        MPI_Gather(&rss_setup, 1, MPI_DOUBLE, rss_setup_all.data(), 1, MPI_DOUBLE, 0, ctx.comm());
        if (ctx.is_root()) {
          auto time = [ok](double x) {  // a time only for a run that stayed finite and on its energy
            char b[32];
            std::snprintf(b, sizeof b, "%.6g", x);
            return ok ? std::string(b) : std::string("failed");
          };
          const double nsteps = static_cast<double>(steps);
          const double lz0 = start.get("angular_momentum_z"), dlz = std::fabs(end.get("angular_momentum_z") - lz0);
          std::printf("ranks=%d threads=%d N=%s method=%s initial=%s dt=%.6g dt_rule=%s warmup_steps=%ld steps=%ld "
                      "status=%s seconds=%s s_per_step=%s s_per_100_steps=%s rhs_seconds=%s comm_seconds=%s "
                      "energy0=%.17g rel_energy_error=%.3e max_energy_error=%g lz0=%.17g lz_change=%.3e "
                      "rel_lz_change=%.3e unit_norm_error=%.3e tangency_error=%.3e state_mb_total=%.1f",
                      ctx.size(), omp_get_max_threads(), args.text("N").c_str(), args.text("method").c_str(),
                      initial.c_str(), dt, dt_text == "auto" ? "auto" : "given", warmup, steps, ok ? "ok" : "failed",
                      time(seconds).c_str(), time(seconds / nsteps).c_str(), time(100.0 * seconds / nsteps).c_str(),
                      timers ? time(rhs_s).c_str() : "off", timers ? time(comm_s).c_str() : "off", E0, err, max_error, lz0, dlz, dlz / std::fabs(lz0),
                      end.get("unit_norm_error"), end.get("tangency_error"),
                      48.0 * static_cast<double>(model->global_components()) / 1048576.0);
          for (int r = 0; r < ctx.size(); ++r)
            std::printf(" maxrss_mb_rank%d=%.1f", r, rss_all[static_cast<std::size_t>(r)]);
          for (int r = 0; r < ctx.size(); ++r)
            std::printf(" setup_rss_mb_rank%d=%.1f", r, rss_setup_all[static_cast<std::size_t>(r)]);
          // Per link: wall time of a step, the same times the cores used (ranks x threads), and
          // the peak resident memory of all ranks together (process overhead included).
          const double links = static_cast<double>(model->global_components());
          double rss_sum = 0.0;
          for (double r : rss_all) rss_sum += r;
          const double ns_link = 1e9 * seconds / nsteps / links;
          std::printf(" ns_per_link_step=%s ns_per_link_step_core=%s peak_bytes_per_link=%.6g", time(ns_link).c_str(),
                      time(ns_link * ctx.size() * omp_get_max_threads()).c_str(), rss_sum * 1048576.0 / links);
          // the copy: GB/s of all ranks, the time to stream the state once at that rate (read and
          // write, per link), and the step's time in such copies (how often the step could have
          // streamed its state through memory in the same time)
          const double copy_bytes = 16.0 * static_cast<double>(copy_n) * ctx.size();
          const double copy_gb_s = copy_bytes / copy_s / 1e9, state_copy_ns = 96.0 / copy_gb_s;
          std::printf(" copy_gb_s=%.4g state_copy_ns_per_link=%.4g step_in_state_copies=%s\n", copy_gb_s,
                      state_copy_ns, time(ns_link / state_copy_ns).c_str());
          std::fflush(stdout);
          if (!ok)
            std::fprintf(stderr,
                         "bench_pendulum_chain: relative energy error %.3e after %ld + %ld steps of dt = %g exceeds "
                         "--max_energy_error=%g: no time reported; take a step in the stable range (--dt=auto, "
                         "about 1/N for initial = paper)\n",
                         err, warmup, steps, dt, max_error);
        }
      } catch (const std::exception& e) {
        if (ctx.is_root()) std::fprintf(stderr, "bench_pendulum_chain: %s\n", e.what());
        status = 2;
      }
    }
  }
  MPI_Finalize();
  return status;
}
