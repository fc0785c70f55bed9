// par::Context reductions under 1..4 ranks: exact sums are layout independent, and a NaN on
// any rank reaches every rank through max/min/max_abs (MPI_MAX alone may drop it).
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "parallel/context.hpp"

using lie::par::Context;

TEST(ContextMpi, ExactSumDoesNotDependOnTheSplit) {
  Context ctx(MPI_COMM_WORLD, true);
  // The same 10007 terms, split over the ranks; the serial exact sum on every rank must agree bitwise.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> all(10007);
  for (double& v : all) v = std::ldexp(u(rng), static_cast<int>(rng() % 80) - 40);
  const auto r = lie::par::balanced_range(all.size(), ctx.size(), ctx.rank());
  const double distributed = ctx.sum(std::span<const double>(all.data() + r.begin, r.size()));
  Context self(MPI_COMM_SELF, true);
  const double serial = self.sum(std::span<const double>(all.data(), all.size()));
  EXPECT_EQ(distributed, serial);
  std::vector<double> mine(all.begin() + static_cast<long>(r.begin), all.begin() + static_cast<long>(r.end));
  EXPECT_EQ(ctx.sum_of_squares(mine.data(), mine.size()), self.sum_of_squares(all.data(), all.size()));
}

TEST(ContextMpi, NaNOnOneRankReachesAll) {
  Context ctx(MPI_COMM_WORLD, true);
  const bool culprit = ctx.rank() == ctx.size() - 1;
  EXPECT_TRUE(std::isnan(ctx.max(culprit ? NAN : 1.0)));
  EXPECT_TRUE(std::isnan(ctx.min(culprit ? NAN : 1.0)));
  std::vector<double> x(5000, 0.5);
  if (culprit) x[1234] = NAN;
  EXPECT_TRUE(std::isnan(ctx.max_abs(x.data(), x.size())));
  EXPECT_EQ(ctx.max(static_cast<double>(ctx.rank())), static_cast<double>(ctx.size() - 1));
  EXPECT_EQ(ctx.min(static_cast<double>(ctx.rank())), 0.0);
}

// CTest's variant <name>.np<P>.omp<T> runs on P ranks with T threads (tests/CMakeLists.txt sets
// LIEBENCH_EXPECT_RANKS and OMP_NUM_THREADS): until 2026-11-27 the mpiexec prefix was lost and
// every variant ran on one rank, which no test noticed.
TEST(ContextMpi, RunsOnTheRanksItsNameSays) {
  const char* expect = std::getenv("LIEBENCH_EXPECT_RANKS");
  if (expect == nullptr) GTEST_SKIP() << "not run by CTest (LIEBENCH_EXPECT_RANKS unset)";
  Context world(MPI_COMM_WORLD, true);
  EXPECT_EQ(world.size(), std::atoi(expect));
  const char* threads = std::getenv("OMP_NUM_THREADS");
  ASSERT_NE(threads, nullptr);
  EXPECT_EQ(omp_get_max_threads(), std::atoi(threads));
}
