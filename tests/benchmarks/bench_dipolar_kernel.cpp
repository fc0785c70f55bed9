// Force-evaluation cost of the dipolar model vs N (Google Benchmark, one rank, threads from
// OMP_NUM_THREADS): the all-pairs path (each pair once in fixed tiles; deterministic = false
// takes the same path since issue 16) and the ordered reference
// kernel (dipolar::ordered_row over all partners for every body: each pair twice, the
// deterministic path before issue 16). Counter pairs_per_second counts unique pairs
// N (N - 1) / 2 per evaluation for both (LAMMPS's count with newton on). What is timed: Google
// Benchmark's iterations (as many as --benchmark_min_time needs; 3 at N = 16000) after one untimed
// evaluation.
//   build/tests/bench_dipolar_kernel [--benchmark_filter=...]   (--help lists the library's flags)
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <vector>

#include "bench_args.hpp"
#include "bench_steady.hpp"
#include "models/dipolar.hpp"

using namespace lie;

namespace {

void set_pairs(benchmark::State& state, std::size_t n) {
  state.counters["pairs_per_second"] = benchmark::Counter(0.5 * static_cast<double>(n) * static_cast<double>(n - 1),
                                                          benchmark::Counter::kIsIterationInvariantRate);
}

void run(benchmark::State& state, bool deterministic) {
  const auto n = static_cast<std::size_t>(state.range(0));
  par::Context ctx(MPI_COMM_SELF, deterministic);
  DipolarParams p;
  p.n = n;
  Dipolar model(p, ctx);
  std::vector<double> y(model.space().state_size()), f(model.space().alg_size());
  model.initial_state(y.data());
  model.vector_field(0.0, y.data(), f.data());  // untimed warm-up
  for (auto _ : state) {
    model.vector_field(0.0, y.data(), f.data());
    benchmark::DoNotOptimize(f.data());
  }
  set_pairs(state, n);
}

void BM_DipolarForceTiled(benchmark::State& s) { run(s, true); }

void BM_DipolarOrderedReference(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  par::Context ctx(MPI_COMM_SELF, true);
  DipolarParams p;
  p.n = n;
  Dipolar model(p, ctx);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  dipolar::PartnerSoA partners;
  partners.resize(n);
  std::vector<double> mu(3 * n);
  for (std::size_t j = 0; j < n; ++j) {
    const double* s = &y[18 * j];
    for (int a = 0; a < 3; ++a)
      mu[3 * j + a] = s[6 + 3 * a] * p.dipole[0] + s[7 + 3 * a] * p.dipole[1] + s[8 + 3 * a] * p.dipole[2];
    partners.set(j, s, &mu[3 * j]);  // kappa = 1
  }
  dipolar::PairParams pp;
  pp.cutoff2 = std::numeric_limits<double>::infinity();
  std::vector<dipolar::RowSums> rows(n);
  auto pass = [&] {
    for (std::size_t i = 0; i < n; ++i)
      dipolar::ordered_row(partners, 0, n, i, &y[18 * i], &mu[3 * i], pp, false, rows[i]);
  };
  pass();  // untimed warm-up
  for (auto _ : state) {
    pass();
    benchmark::DoNotOptimize(rows.data());
  }
  set_pairs(state, n);
}

}  // namespace

BENCHMARK(BM_DipolarForceTiled)->Arg(100)->Arg(1000)->Arg(4000)->UseRealTime();
BENCHMARK(BM_DipolarOrderedReference)->Arg(100)->Arg(1000)->Arg(4000)->UseRealTime();
// Half a second to seconds per evaluation: three timed iterations whatever --benchmark_min_time asks.
BENCHMARK(BM_DipolarForceTiled)->Arg(16000)->Iterations(bench::kMinTimed)->UseRealTime();
BENCHMARK(BM_DipolarOrderedReference)->Arg(16000)->Iterations(bench::kMinTimed)->UseRealTime();

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  bench::Args args("bench_dipolar_kernel",
                   "Force evaluations of the dipolar model vs N (N = 100 ... 16000, one rank, OMP_NUM_THREADS\n"
                   "threads): the all-pairs tiles and the ordered reference kernel, with unique pairs per second;\n"
                   "Google Benchmark's output.",
                   {});
  if (const int rc = args.parse_with_benchmark(&argc, argv); rc >= 0) {
    MPI_Finalize();
    return rc;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}
