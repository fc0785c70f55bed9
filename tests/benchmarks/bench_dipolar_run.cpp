// Timing driver of the dipolar model (plain main, needs MPI): either repeated force
// evaluations (the N^2 pair work, split over ranks and threads) or a fixed-step integration.
//   mpirun -n P bench_dipolar_run --mode force --n 4000 --evals 20 [--fast]
//   bench_dipolar_run --mode integrate --n 100 --method rkmk4 --h 0.01 --steps 100000
//   bench_dipolar_run --mode force --box 32 --evals 20   (the cutoff path: time per pair within rc)
//   (--help lists the options)
// What is timed: force mode, `evals` (>= 3) evaluations after one untimed one; integrate mode,
// the whole run of `steps` (>= 3) steps after one untimed step on a copy of the initial state
// (the stepper's arrays allocated and touched; then invalidated, so the run is the same).
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
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "bench_steady.hpp"
#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "io/config.hpp"
#include "models/dipolar.hpp"
#include "parallel/spatial_domains.hpp"

using namespace lie;

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  bench::Args args("bench_dipolar_run",
                   "Timing of the dipolar model over all ranks (OMP_NUM_THREADS threads each): repeated force\n"
                   "evaluations (--mode force) or a fixed-step integration with its energy error (--mode integrate);\n"
                   "one line of key=value pairs.",
                   {{"mode", bench::Kind::Text, "force", "force or integrate"},
                    {"n", bench::Kind::Int, "4000", "particles (>= 2)"},
                    {"evals", bench::Kind::Int, "20", "force mode: timed evaluations (>= 3)"},
                    {"steps", bench::Kind::Int, "1000", "integrate mode: steps (>= 3)"},
                    {"h", bench::Kind::Real, "0.01", "integrate mode: step"},
                    {"method", bench::Kind::Text, "rkmk4", "integrate mode: method (liebench list methods)"},
                    {"spread", bench::Kind::Real, "0", "dipolar.spread of the initial state"},
                    {"fast", bench::Kind::Flag, "", "plain reductions instead of the deterministic sums"},
                    {"transport", bench::Kind::Text, "auto",
                     "dipolar.pair_transport of the all-pairs path: auto, messages or shared_memory"},
                    {"box", bench::Kind::Int, "0",
                     "force mode: the cutoff path instead, S^3 bodies on a lattice at density 0.8 in a periodic cube, "
                     "rc 2.5, skin 0.3, LJ attraction (scripts/bench/dipolar_box_vs_lammps.sh's system); 0: off"}});
  if (const int rc = args.parse(argc, argv, rank == 0); rc >= 0) {
    MPI_Finalize();
    return rc;
  }
  const std::string mode = args.text("mode"), method = args.text("method");
  const std::size_t n = static_cast<std::size_t>(args.integer("n"));
  const long evals = args.integer("evals"), steps = args.integer("steps");
  const double h = args.real("h"), spread = args.real("spread");
  const bool fast = args.flag("fast");
  const long box = args.integer("box");
  const std::string transport = args.text("transport");
  std::string bad;
  if (mode != "force" && mode != "integrate") bad = "--mode=" + mode + ": give force or integrate";
  else if (n < 2) bad = "--n=" + args.text("n") + ": give n >= 2";
  else if (mode == "force" && evals < bench::kMinTimed)
    bad = "--evals=" + args.text("evals") + ": time at least 3 evaluations";
  else if (mode == "integrate" && steps < bench::kMinTimed)
    bad = "--steps=" + args.text("steps") + ": time at least 3 steps";
  else if (mode == "integrate" && !(h > 0)) bad = "--h=" + args.text("h") + ": give a positive step";
  else if (box != 0 && (box < 5 || box > 400 || mode != "force"))
    bad = "--box=" + args.text("box") + ": give a lattice side S in 5..400 (the cube must be 2 rc wide) with --mode force";
  else if (transport != "auto" && transport != "messages" && transport != "shared_memory")
    bad = "--transport=" + transport + ": give auto, messages or shared_memory";
  if (!bad.empty()) {
    args.refuse(bad, rank == 0);
    MPI_Finalize();
    return 2;
  }
  par::Context ctx(MPI_COMM_WORLD, !fast);
  DipolarParams p;
  p.n = n;
  p.spread = spread;
  if (box != 0) {  // experiments/scaling/dipolar_box_N1M.cfg at S^3 bodies
    const std::string S = std::to_string(box), L = std::to_string(static_cast<double>(box) / std::cbrt(0.8));
    p = DipolarParams::from_config(Config::from_pairs(
        {{"dipolar.initial", "lattice"}, {"dipolar.lattice", S + ", " + S + ", " + S}, {"dipolar.box", L + ", " + L + ", " + L},
         {"dipolar.periodic", "x, y, z"}, {"dipolar.cutoff", "2.5"}, {"dipolar.skin", "0.3"},
         {"dipolar.lj_attraction", "true"}, {"dipolar.seed", "1"}}));
  }
  p.pair_transport = par::PhaseExchange::transport_named(transport);
  Dipolar model(p, ctx);
  std::vector<double> y(model.space().state_size()), f(model.space().alg_size());
  model.initial_state(y.data());
  const double pairs = static_cast<double>(n) * static_cast<double>(n - 1);  // ordered pairs per evaluation
  char layout[160];
  std::snprintf(layout, sizeof layout, "ranks=%d threads=%d mode=%s sums=%s transport=%s", ctx.size(), ctx.threads(),
                mode.c_str(), fast ? "tiled_plain_reductions" : "tiled", transport.c_str());
  if (mode == "force") {
    model.vector_field(0.0, y.data(), f.data());  // warm-up
    ctx.timers().clear();
    ctx.timers().enable();
    ctx.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    for (long k = 0; k < evals; ++k) model.vector_field(0.0, y.data(), f.data());
    ctx.barrier();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double comm = ctx.max(ctx.timers().get("comm")) / static_cast<double>(evals);
    if (box != 0) {  // the pairs within rc (each Verlet list holds both orientations of a pair)
      const par::SpatialDomains& d = *model.domains();
      const double rc2 = p.cutoff * p.cutoff;
      double within = 0.0;
      for (std::size_t hb = 0; hb < d.home_count(); ++hb)
        for (const std::uint32_t* it = d.list_begin(hb); it != d.list_end(hb); ++it)
          within += d.pair_r2(d.home_slot(hb), *it) < rc2 ? 0.5 : 0.0;
      within = ctx.sum(within);
      const double terms = ctx.sum(static_cast<double>(d.traffic().pair_terms));
      const double per_eval = wall / static_cast<double>(evals);
      if (ctx.is_root())
        std::printf("%s box=%ld n=%zu evals=%ld seconds_per_eval=%.6e pairs_within_cutoff=%.0f pair_terms=%.0f "
                    "ns_per_pair_within_cutoff=%.4g comm_seconds_per_eval=%.3e\n",
                    layout, box, p.n, evals, per_eval, within, terms, per_eval / within * 1e9, comm);
    } else if (ctx.is_root())
      std::printf(
          "%s n=%zu evals=%ld seconds_per_eval=%.6e pairs_per_second=%.4e unique_pairs_per_second=%.4e "
          "gflops_per_second=%.4g comm_seconds_per_eval=%.3e\n",
          layout, n, evals, wall / static_cast<double>(evals), pairs * static_cast<double>(evals) / wall,
          0.5 * pairs * static_cast<double>(evals) / wall,
          0.5 * pairs * static_cast<double>(evals) / wall * dipolar::kPairFlops * 1e-9, comm);
  } else if (mode == "integrate") {
    auto st = make_stepper(method, Config::from_pairs({}), model);
    st->bind(model, ctx);
    {  // untimed warm-up step on a copy; invalidate() drops what it cached
      std::vector<double> w = y;
      st->step(0.0, h, w.data());
      st->invalidate();
    }
    const std::uint64_t rhs0 = st->counters().rhs;
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
                  "H0=%.17g H1=%.17g relative_H_error=%.3e orthogonality_error=%.3e\n",
                  layout, n, method.c_str(), h, steps, h * static_cast<double>(steps), wall,
                  static_cast<unsigned long long>(st->counters().rhs - rhs0),
                  pairs * static_cast<double>(st->counters().rhs - rhs0) / wall, H0, H1, (H1 - H0) / H0,
                  o1.get("orthogonality_error"));
  }
  MPI_Finalize();
  return 0;
}
