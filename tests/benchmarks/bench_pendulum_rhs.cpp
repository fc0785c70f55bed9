// Cost of one right-hand-side evaluation f(y) of the N-fold pendulum (not a test):
//   * O(N) tension route for N = 10^2 ... 10^6 and the growth ratios time(10N)/time(N)
//     (linear cost: close to 10);
//   * the dense Cholesky solve of R(q) w' = b ([P] 5.2) at N = 100, 500, 1000, and its ratio
//     to the O(N) route at the same N.
//   * one fixed step of Lie-Euler and RKMK4 (the stepper's step(), as integrate_fixed calls it)
//     at N = 2, 20, 100, 1000: the fixed cost per step of small systems (issue 16, target 2).
// One process (MPI_COMM_SELF); run with OMP_NUM_THREADS=1 for the serial cost. The summary
// table is printed after Google Benchmark's own output, then one line of key=value pairs
// (rhs_ns_N<N>, rhs_ns_per_link_N<N>, step_ns_<method>_N<N>, step_ns_per_link_<method>_N<N>,
// wall-clock nanoseconds) for scripts.
// What is timed: Google Benchmark's iterations (as many as --benchmark_min_time needs; 3 for the
// dense solve at N = 1000) after one untimed evaluation or step (scratch allocated and touched,
// caches warm); a benchmark that timed fewer than 3 iterations is left out of the tables (one
// line on stderr says so).
//   build/tests/bench_pendulum_rhs [--benchmark_filter=...] [--benchmark_min_time=0.5]
//   (--help lists these and the library's flags)
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "bench_steady.hpp"
#include "methods/stepper.hpp"
#include "models/nfold_pendulum.hpp"

using namespace lie;

namespace {

struct Chain {
  par::Context ctx{MPI_COMM_SELF};
  std::unique_ptr<NFoldPendulum> model;
  std::vector<double> y, xi;
  Chain(std::size_t N, NFoldPendulumParams::Solver solver) {
    NFoldPendulumParams p;
    p.N = N;
    p.initial = NFoldPendulumParams::Initial::Random;
    p.seed = 3;
    p.solver = solver;
    model = std::make_unique<NFoldPendulum>(p, ctx);
    y.resize(6 * N);
    xi.resize(6 * N);
    model->initial_state(y.data());
  }
};

void run_rhs(benchmark::State& state, NFoldPendulumParams::Solver solver) {
  const std::size_t N = static_cast<std::size_t>(state.range(0));
  Chain c(N, solver);
  c.model->vector_field(0.0, c.y.data(), c.xi.data());  // untimed warm-up
  for (auto _ : state) {
    c.model->vector_field(0.0, c.y.data(), c.xi.data());
    benchmark::DoNotOptimize(c.xi.data());
    benchmark::ClobberMemory();
  }
}

void BM_RhsTridiagonal(benchmark::State& state) { run_rhs(state, NFoldPendulumParams::Solver::Tridiagonal); }
void BM_RhsDense(benchmark::State& state) { run_rhs(state, NFoldPendulumParams::Solver::Dense); }

BENCHMARK(BM_RhsTridiagonal)
    ->Arg(100)->Arg(500)->Arg(1000)->Arg(10000)->Arg(100000)->Arg(1000000)
    ->Unit(benchmark::kMicrosecond)->UseRealTime();
// One step of a method from a random state; the state is reset every 1000 steps (h = 1e-4
// keeps it bounded; the reset is outside the timed region).
void run_step(benchmark::State& state, const char* method) {
  const std::size_t N = static_cast<std::size_t>(state.range(0));
  Chain c(N, NFoldPendulumParams::Solver::Tridiagonal);
  const Config cfg = Config::from_pairs({{"model", "nfold_pendulum"}});
  auto stepper = make_stepper(method, cfg, *c.model);
  stepper->bind(*c.model, c.ctx);
  std::vector<double> y0 = c.y;
  {  // untimed warm-up step on a copy; invalidate() drops what it cached
    std::vector<double> w = c.y;
    stepper->step(0.0, 1e-4, w.data());
    stepper->invalidate();
  }
  std::uint64_t n = 0;
  for (auto _ : state) {
    stepper->step(1e-4 * static_cast<double>(n), 1e-4, c.y.data());
    benchmark::DoNotOptimize(c.y.data());
    benchmark::ClobberMemory();
    if (++n % 1000 == 0) {
      state.PauseTiming();
      c.y = y0;
      stepper->invalidate();
      state.ResumeTiming();
    }
  }
}
void BM_StepLieEuler(benchmark::State& state) { run_step(state, "lie_euler"); }
void BM_StepRkmk4(benchmark::State& state) { run_step(state, "rkmk4"); }
BENCHMARK(BM_StepLieEuler)->Arg(2)->Arg(20)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_StepRkmk4)->Arg(2)->Arg(20)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond)->UseRealTime();

BENCHMARK(BM_RhsDense)->Arg(100)->Arg(500)->Unit(benchmark::kMillisecond)->UseRealTime();
// Near a second per evaluation: three timed iterations whatever --benchmark_min_time asks.
BENCHMARK(BM_RhsDense)->Arg(1000)->Iterations(bench::kMinTimed)->Unit(benchmark::kMillisecond)->UseRealTime();

// Keeps the console output and records seconds per iteration by benchmark name (runs of at
// least bench::kMinTimed iterations).
class Recorder : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> wall, cpu;  // seconds per iteration
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (!r.error_occurred && r.run_type == Run::RT_Iteration && r.iterations > 0 && r.iterations < bench::kMinTimed)
        std::fprintf(stderr, "bench_pendulum_rhs: %s timed %lld iteration(s), left out; raise --benchmark_min_time\n",
                     r.benchmark_name().c_str(), static_cast<long long>(r.iterations));
      else if (!r.error_occurred && r.run_type == Run::RT_Iteration && r.iterations > 0) {
        std::string name = r.benchmark_name();  // without "/iterations:3" (BM_RhsDense/1000)
        if (const auto k = name.find("/iterations:"); k != std::string::npos) name.erase(k, name.find('/', k + 1) - k);
        wall[name] = r.real_accumulated_time / static_cast<double>(r.iterations);
        cpu[name] = r.cpu_accumulated_time / static_cast<double>(r.iterations);
      }
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  bench::Args args("bench_pendulum_rhs",
                   "Cost of the N-fold pendulum's right-hand side (O(N) tension route, N = 10^2 ... 10^6; dense\n"
                   "[P] 5.2 solve, N = 100 ... 1000) and of one Lie-Euler / RKMK4 step (N = 2 ... 1000), one\n"
                   "process: Google Benchmark's output, then summary tables and one line of key=value pairs\n"
                   "(wall-clock ns).\n"
                   "Run with OMP_NUM_THREADS=1 for the serial cost.",
                   {});
  if (const int rc = args.parse_with_benchmark(&argc, argv); rc >= 0) {
    MPI_Finalize();
    return rc;
  }
  Recorder rec;
  benchmark::RunSpecifiedBenchmarks(&rec);
  // Both wall-clock and CPU time of the process: on a shared machine the CPU time is the
  // steadier measure of a single-threaded cost (run with OMP_NUM_THREADS=1).
  auto get = [&](const std::map<std::string, double>& m, const std::string& kind, long n) {
    auto it = m.find("BM_" + (kind.rfind("Step", 0) == 0 ? kind : "Rhs" + kind) + "/" + std::to_string(n) + "/real_time");
    return it == m.end() ? -1.0 : it->second;
  };
  std::printf("\nO(N) right-hand side: time per evaluation and growth time(N)/time(N/10)\n");
  std::printf("%10s %12s %12s %10s %10s %10s %10s\n", "N", "wall [s]", "cpu [s]", "wall ns/l", "cpu ns/l",
              "wall x", "cpu x");
  for (long n : {100L, 1000L, 10000L, 100000L, 1000000L}) {
    const double w = get(rec.wall, "Tridiagonal", n), c = get(rec.cpu, "Tridiagonal", n);
    const double wp = get(rec.wall, "Tridiagonal", n / 10), cp = get(rec.cpu, "Tridiagonal", n / 10);
    if (w < 0) continue;
    const double nd = static_cast<double>(n);
    std::printf("%10ld %12.4e %12.4e %10.2f %10.2f", n, w, c, 1e9 * w / nd, 1e9 * c / nd);
    if (wp > 0) std::printf(" %10.2f %10.2f\n", w / wp, c / cp);
    else std::printf(" %10s %10s\n", "-", "-");
  }
  std::printf("\nDense Cholesky of R(q) ([P] 5.2) against the O(N) route\n");
  std::printf("%10s %12s %12s %14s %14s\n", "N", "dense wall", "dense cpu", "wall ratio", "cpu ratio");
  for (long n : {100L, 500L, 1000L}) {
    const double dw = get(rec.wall, "Dense", n), ow = get(rec.wall, "Tridiagonal", n);
    const double dc = get(rec.cpu, "Dense", n), oc = get(rec.cpu, "Tridiagonal", n);
    if (dw > 0 && ow > 0) std::printf("%10ld %12.4e %12.4e %14.1f %14.1f\n", n, dw, dc, dw / ow, dc / oc);
  }
  std::printf("\nOne step of the stepper (step())\n");
  std::printf("%10s %14s %14s %14s %14s\n", "N", "lie_euler [us]", "ns/link", "rkmk4 [us]", "ns/link");
  for (long n : {2L, 20L, 100L, 1000L}) {
    const double le = get(rec.wall, "StepLieEuler", n), rk = get(rec.wall, "StepRkmk4", n);
    if (le < 0 && rk < 0) continue;
    const double nd = static_cast<double>(n);
    std::printf("%10ld %14.4f %14.2f %14.4f %14.2f\n", n, 1e6 * le, 1e9 * le / nd, 1e6 * rk, 1e9 * rk / nd);
  }
  // key=value summary (wall-clock ns): absent benchmarks (filtered out) are not printed.
  std::printf("\nbench_pendulum_rhs");
  for (long n : {100L, 1000L, 10000L, 100000L, 1000000L}) {
    const double w = get(rec.wall, "Tridiagonal", n);
    if (w > 0) std::printf(" rhs_ns_N%ld=%.6g rhs_ns_per_link_N%ld=%.6g", n, 1e9 * w, n, 1e9 * w / static_cast<double>(n));
  }
  for (auto [kind, name] : {std::pair<const char*, const char*>{"StepLieEuler", "lie_euler"}, {"StepRkmk4", "rkmk4"}})
    for (long n : {2L, 20L, 100L, 1000L}) {
      const double w = get(rec.wall, kind, n);
      if (w > 0)
        std::printf(" step_ns_%s_N%ld=%.6g step_ns_per_link_%s_N%ld=%.6g", name, n, 1e9 * w, name, n,
                    1e9 * w / static_cast<double>(n));
    }
  std::printf("\n");
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}
