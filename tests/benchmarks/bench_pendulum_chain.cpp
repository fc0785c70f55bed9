// Distributed N-fold pendulum run for timing and memory (not a test): fixed steps of a Lie
// group method on a chain of N links over all ranks of MPI_COMM_WORLD, OMP_NUM_THREADS
// threads per rank. Prints one line of key=value pairs (read by scripts/bench/*.sh):
// wall time of the stepping loop (max over ranks), seconds per step and per 100 steps, the
// relative energy error and angular-momentum-z change over the run, the manifold errors at
// the end, the model's rhs/comm timers, the peak resident memory of every rank
// (getrusage ru_maxrss), and per link: ns_per_link_step (wall), ns_per_link_step_core (times
// ranks x threads) and peak_bytes_per_link (peak RSS of all ranks over N).
//   mpirun -n 2 build/tests/bench_pendulum_chain --N=1000000 --steps=10 [--dt=1e-4]
//       [--method=rkmk4] [--initial=paper|random] [--length=1 | --total_length=L] [--blocks=0]
#include <mpi.h>
#include <omp.h>
#include <sys/resource.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

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
    std::map<std::string, std::string> opt = {{"N", "1000000"}, {"steps", "10"}, {"dt", "1e-4"},
                                              {"method", "rkmk4"}, {"initial", "paper"}, {"length", "1"},
                                              {"total_length", ""}, {"blocks", "0"}};
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      const auto eq = a.find('=');
      if (a.rfind("--", 0) != 0 || eq == std::string::npos || !opt.count(a.substr(2, eq - 2))) {
        if (ctx.is_root()) std::fprintf(stderr, "unknown argument '%s'\n", a.c_str());
        MPI_Finalize();
        return 2;
      }
      opt[a.substr(2, eq - 2)] = a.substr(eq + 1);
    }
    try {
      std::vector<std::pair<std::string, std::string>> kv = {{"model", "nfold_pendulum"},
                                                             {"nfold_pendulum.N", opt["N"]},
                                                             {"nfold_pendulum.initial", opt["initial"]},
                                                             {"nfold_pendulum.blocks", opt["blocks"]}};
      if (!opt["total_length"].empty())
        kv.emplace_back("nfold_pendulum.total_length", opt["total_length"]);
      else
        kv.emplace_back("nfold_pendulum.length", opt["length"]);
      const Config cfg = Config::from_pairs(kv);
      auto model = make_model(cfg, ctx);
      auto stepper = make_stepper(opt["method"], cfg, *model);
      stepper->bind(*model, ctx);
      std::vector<double> y(model->space().state_size());
      model->initial_state(y.data());
      Observables start, end;
      model->observables(0.0, y.data(), start);
      const double rss_setup = max_rss_mb();

      FixedStepOptions fo;
      fo.h = parse_double("dt", opt["dt"]);
      fo.steps = static_cast<std::uint64_t>(parse_int("steps", opt["steps"]));
      ctx.timers().clear();
      ctx.barrier();
      const double t0 = MPI_Wtime();
      integrate_fixed(*stepper, y.data(), fo, nullptr);
      ctx.barrier();
      const double seconds = ctx.max(MPI_Wtime() - t0);
      const double rhs_s = ctx.max(ctx.timers().get("rhs")), comm_s = ctx.max(ctx.timers().get("comm"));
      model->observables(fo.h * static_cast<double>(fo.steps), y.data(), end);

      const double rss = max_rss_mb();
      std::vector<double> rss_all(static_cast<std::size_t>(ctx.size())), rss_setup_all(rss_all.size());
      MPI_Gather(&rss, 1, MPI_DOUBLE, rss_all.data(), 1, MPI_DOUBLE, 0, ctx.comm());
      MPI_Gather(&rss_setup, 1, MPI_DOUBLE, rss_setup_all.data(), 1, MPI_DOUBLE, 0, ctx.comm());
      if (ctx.is_root()) {
        const double E0 = start.get("total_energy"), E1 = end.get("total_energy");
        const double steps = static_cast<double>(fo.steps);
        std::printf("ranks=%d threads=%d N=%s method=%s initial=%s dt=%s steps=%s seconds=%.6g s_per_step=%.6g "
                    "s_per_100_steps=%.6g rhs_seconds=%.6g comm_seconds=%.6g energy0=%.17g rel_energy_error=%.3e "
                    "lz0=%.17g lz_change=%.3e rel_lz_change=%.3e unit_norm_error=%.3e tangency_error=%.3e state_mb_total=%.1f",
                    ctx.size(), omp_get_max_threads(), opt["N"].c_str(), opt["method"].c_str(), opt["initial"].c_str(),
                    opt["dt"].c_str(), opt["steps"].c_str(), seconds, seconds / steps, 100.0 * seconds / steps, rhs_s,
                    comm_s, E0, std::fabs(E1 - E0) / std::fabs(E0), start.get("angular_momentum_z"),
                    std::fabs(end.get("angular_momentum_z") - start.get("angular_momentum_z")),
                    std::fabs(end.get("angular_momentum_z") - start.get("angular_momentum_z")) /
                        std::fabs(start.get("angular_momentum_z")),
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
        const double ns_link = 1e9 * seconds / steps / links;
        std::printf(" ns_per_link_step=%.6g ns_per_link_step_core=%.6g peak_bytes_per_link=%.6g", ns_link,
                    ns_link * ctx.size() * omp_get_max_threads(), rss_sum * 1048576.0 / links);
        std::printf("\n");
      }
    } catch (const std::exception& e) {
      if (ctx.is_root()) std::fprintf(stderr, "bench_pendulum_chain: %s\n", e.what());
      status = 2;
    }
  }
  MPI_Finalize();
  return status;
}
