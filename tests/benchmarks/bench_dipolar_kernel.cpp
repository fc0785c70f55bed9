// Force-evaluation cost of the dipolar model vs N (Google Benchmark, one rank, threads from
// OMP_NUM_THREADS): ordered (deterministic) pair sums and Newton's-third-law (fast) sums.
// Counter pairs_per_second counts ordered pairs (i, j), i != j, N (N - 1) per evaluation, for
// both modes, so the two are directly comparable as evaluations per second.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <vector>

#include "models/dipolar.hpp"

using namespace lie;

namespace {

void run(benchmark::State& state, bool ordered) {
  const auto n = static_cast<std::size_t>(state.range(0));
  par::Context ctx(MPI_COMM_SELF, ordered);
  DipolarParams p;
  p.n = n;
  Dipolar model(p, ctx);
  std::vector<double> y(model.space().state_size()), f(model.space().alg_size());
  model.initial_state(y.data());
  for (auto _ : state) {
    model.vector_field(0.0, y.data(), f.data());
    benchmark::DoNotOptimize(f.data());
  }
  state.counters["pairs_per_second"] = benchmark::Counter(static_cast<double>(n) * static_cast<double>(n - 1),
                                                          benchmark::Counter::kIsIterationInvariantRate);
}

void BM_DipolarForceOrdered(benchmark::State& s) { run(s, true); }
void BM_DipolarForceNewton3(benchmark::State& s) { run(s, false); }

}  // namespace

BENCHMARK(BM_DipolarForceOrdered)->RangeMultiplier(4)->Range(16, 4096)->Arg(100)->Arg(4000)->UseRealTime();
BENCHMARK(BM_DipolarForceNewton3)->RangeMultiplier(4)->Range(16, 4096)->Arg(100)->Arg(4000)->UseRealTime();

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}
