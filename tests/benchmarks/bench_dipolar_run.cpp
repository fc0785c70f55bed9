// Timing driver of the dipolar model (plain main, needs MPI): either repeated force
// evaluations (the N^2 pair work, split over ranks and threads) or a fixed-step integration.
//   mpirun -n P bench_dipolar_run --mode force --n 4000 --evals 20 [--fast]
//   bench_dipolar_run --mode integrate --n 100 --method rkmk4 --h 0.01 --steps 100000
// Prints one line of key=value pairs (rank 0): layout, wall time per evaluation or of the run,
// ordered pairs (i, j), i != j, per second (N (N - 1) per evaluation) and unique pair
// interactions per second (N (N - 1) / 2, the count LAMMPS's newton-on pair loop does), the
// the arithmetic rate of the tile kernel (unique pairs/s x dipolar::kPairFlops), the
// communication share, and for integrations the relative
// Hamiltonian error at the end ([K] Figs. 3.7-3.10). Used by scripts/bench/dipolar_*.sh.
#include <mpi.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/dipolar.hpp"

using namespace lie;

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  std::string mode = "force", method = "rkmk4";
  std::size_t n = 4000;
  long evals = 20, steps = 1000;
  double h = 0.01, spread = 0.0;
  bool fast = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "missing value after %s\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--mode") mode = next();
    else if (a == "--n") n = std::stoul(next());
    else if (a == "--evals") evals = std::stol(next());
    else if (a == "--steps") steps = std::stol(next());
    else if (a == "--h") h = std::stod(next());
    else if (a == "--method") method = next();
    else if (a == "--spread") spread = std::stod(next());
    else if (a == "--fast") fast = true;
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  par::Context ctx(MPI_COMM_WORLD, !fast);
  DipolarParams p;
  p.n = n;
  p.spread = spread;
  Dipolar model(p, ctx);
  std::vector<double> y(model.space().state_size()), f(model.space().alg_size());
  model.initial_state(y.data());
  const double pairs = static_cast<double>(n) * static_cast<double>(n - 1);  // ordered pairs per evaluation
  char layout[128];
  std::snprintf(layout, sizeof layout, "ranks=%d threads=%d mode=%s sums=%s", ctx.size(), ctx.threads(), mode.c_str(),
                fast ? "tiled_plain_reductions" : "tiled");
  if (mode == "force") {
    model.vector_field(0.0, y.data(), f.data());  // warm-up
    ctx.timers().clear();
    ctx.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    for (long k = 0; k < evals; ++k) model.vector_field(0.0, y.data(), f.data());
    ctx.barrier();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double comm = ctx.max(ctx.timers().get("comm")) / static_cast<double>(evals);
    if (ctx.is_root())
      std::printf(
          "%s n=%zu evals=%ld seconds_per_eval=%.6e pairs_per_second=%.4e unique_pairs_per_second=%.4e "
          "gflops_per_second=%.4g comm_seconds_per_eval=%.3e\n",
          layout, n, evals, wall / static_cast<double>(evals), pairs * static_cast<double>(evals) / wall,
          0.5 * pairs * static_cast<double>(evals) / wall,
          0.5 * pairs * static_cast<double>(evals) / wall * dipolar::kPairFlops * 1e-9, comm);
  } else if (mode == "integrate") {
    auto st = make_stepper(method, Config::from_pairs({}), model);
    st->bind(model, ctx);
    Observables o0, o1;
    model.observables(0.0, y.data(), o0);
    ctx.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    FixedStepOptions opt;
    opt.h = h;
    opt.steps = static_cast<std::uint64_t>(steps);
    integrate_fixed(*st, y.data(), opt, nullptr);
    ctx.barrier();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    model.observables(h * static_cast<double>(steps), y.data(), o1);
    const double H0 = o0.get("total_energy"), H1 = o1.get("total_energy");
    if (ctx.is_root())
      std::printf("%s n=%zu method=%s h=%g steps=%ld T=%g wall_seconds=%.3f rhs=%llu pairs_per_second=%.4e "
                  "H0=%.17g relative_H_error=%.3e orthogonality_error=%.3e\n",
                  layout, n, method.c_str(), h, steps, h * static_cast<double>(steps), wall,
                  static_cast<unsigned long long>(st->counters().rhs),
                  pairs * static_cast<double>(st->counters().rhs) / wall, H0, (H1 - H0) / H0,
                  o1.get("orthogonality_error"));
  } else {
    std::fprintf(stderr, "unknown mode %s (force | integrate)\n", mode.c_str());
    MPI_Finalize();
    return 2;
  }
  MPI_Finalize();
  return 0;
}
