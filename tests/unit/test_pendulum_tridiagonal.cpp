// The partitioned (SPIKE / Wang) tridiagonal solve of parallel/tridiagonal.hpp against a dense
// LU solve, for general diagonally dominant and symmetric positive definite matrices, every
// admissible number of virtual blocks, and 1 vs 2 OpenMP threads (bitwise).
#include <gtest/gtest.h>
#include <omp.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "parallel/tridiagonal.hpp"

using namespace lie;
using namespace lie::par;

namespace {

struct System {
  std::vector<double> lower, diag, upper, rhs;
};

System random_system(std::size_t n, std::uint64_t seed, bool symmetric) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  System s;
  s.lower.resize(n), s.diag.resize(n), s.upper.resize(n), s.rhs.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.upper[i] = i + 1 < n ? u(rng) : 0.0;
    s.lower[i] = i == 0 ? 0.0 : (symmetric ? s.upper[i - 1] : u(rng));
    s.rhs[i] = u(rng);
  }
  for (std::size_t i = 0; i < n; ++i) {
    // strictly diagonally dominant rows (the weakly dominant chain matrix is tested with the model)
    const double off = std::fabs(s.lower[i]) + std::fabs(s.upper[i]);
    s.diag[i] = off * (1.0 + 0.25 * (u(rng) + 1.0)) + 1e-3;
  }
  return s;
}

std::vector<double> dense_solve(const System& s) {
  const Eigen::Index n = static_cast<Eigen::Index>(s.diag.size());
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    A(i, i) = s.diag[i];
    if (i > 0) A(i, i - 1) = s.lower[i];
    if (i + 1 < n) A(i, i + 1) = s.upper[i];
  }
  const Eigen::VectorXd x = A.partialPivLu().solve(Eigen::Map<const Eigen::VectorXd>(s.rhs.data(), n));
  return {x.data(), x.data() + n};
}

std::vector<double> partitioned_solve(const System& s, std::size_t blocks) {
  Context ctx(MPI_COMM_SELF);
  PartitionedTridiagonal solver(BlockLayout(s.diag.size(), blocks, 1, 0));
  std::vector<double> x(s.diag.size());
  solver.solve(ctx, [&](std::size_t i) { return TridiagonalRow{s.lower[i], s.diag[i], s.upper[i], s.rhs[i]}; },
               x.data());
  EXPECT_EQ(solver.before(), 0.0);
  EXPECT_EQ(solver.after(), 0.0);
  return x;
}

double rel(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += (a[i] - b[i]) * (a[i] - b[i]), n += b[i] * b[i];
  return std::sqrt(d / n);
}

}  // namespace

TEST(PartitionedTridiagonal, EqualsDenseSolveForEveryBlockCount) {
  for (bool sym : {false, true})
    for (std::size_t n : {1, 2, 3, 5, 17, 100, 401}) {
      const System s = random_system(n, 1000 + n, sym);
      const auto ref = dense_solve(s);
      std::vector<std::size_t> Bs = {1};
      for (std::size_t B : {2, 3, 7, 16, 63}) if (2 * B <= n) Bs.push_back(B);
      if (n >= 2) Bs.push_back(n / 2);
      for (std::size_t B : Bs) EXPECT_LT(rel(partitioned_solve(s, B), ref), 1e-13) << "n=" << n << " B=" << B << " sym=" << sym;
    }
}

TEST(PartitionedTridiagonal, RejectsBlocksWithoutInterior) {
  EXPECT_THROW(PartitionedTridiagonal(BlockLayout(5, 4, 1, 0)), std::invalid_argument);  // 2,1,1,1 rows
  EXPECT_NO_THROW(PartitionedTridiagonal(BlockLayout(5, 3, 1, 0)));                    // 2,2,1 rows
  EXPECT_THROW(BlockLayout(5, 6, 1, 0), std::invalid_argument);
  EXPECT_THROW(BlockLayout(10, 3, 4, 0), std::invalid_argument);
  EXPECT_NO_THROW(PartitionedTridiagonal(BlockLayout(6, 3, 3, 2)));
}

TEST(PartitionedTridiagonal, ThreadsDoNotChangeBits) {
  const System s = random_system(20000, 5, true);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto x1 = partitioned_solve(s, 64);
  omp_set_num_threads(2);
  const auto x2 = partitioned_solve(s, 64);
  omp_set_num_threads(saved);
  EXPECT_EQ(0, std::memcmp(x1.data(), x2.data(), x1.size() * sizeof(double)));
}

TEST(PartitionedTridiagonal, OneBlockIsTheThomasSweepBitForBit) {
  // B = 1 takes the single sweep (no u, v, records, reduced system): the operations of the
  // textbook Thomas algorithm below, which phase 1's y sweep and phase 3's combine(y, u, v, 0, 0)
  // gave before, bit for bit.
  for (std::size_t n : {1, 2, 3, 16, 101}) {
    const System s = random_system(n, 77 + n, n % 2 == 0);
    std::vector<double> c(n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double lo = i == 0 ? 0.0 : s.lower[i];
      const double inv = 1.0 / (s.diag[i] - lo * (i == 0 ? 0.0 : c[i - 1]));
      c[i] = s.upper[i] * inv;
      y[i] = (s.rhs[i] - lo * (i == 0 ? 0.0 : y[i - 1])) * inv;
    }
    for (std::size_t i = n - 1; i-- > 0;) y[i] = y[i] - c[i] * y[i + 1];
    const auto x = partitioned_solve(s, 1);
    EXPECT_EQ(0, std::memcmp(x.data(), y.data(), n * sizeof(double))) << n;
    EXPECT_LT(rel(x, dense_solve(s)), 1e-13) << n;
  }
}

// solve_blocks (issue 27: no per-row arrays): every local block is handed over once, with x on
// its rows and the two rows just outside it (0 beyond the matrix), bitwise equal to solve()'s x,
// on 1 and 2 threads; the second sweep's `lower` of a block's first row is never read (the row
// function returns NaN there when told it may).
TEST(PartitionedTridiagonal, SolveBlocksHandsEachBlockWithItsNeighbours) {
  const int saved = omp_get_max_threads();
  for (const int threads : {1, 2})
    for (const std::size_t B : {1u, 2u, 3u, 16u, 63u}) {
      omp_set_num_threads(threads);
      const System s = random_system(401, 31 + B, B % 2 == 0);
      const auto ref = partitioned_solve(s, B);
      Context ctx(MPI_COMM_SELF);
      const BlockLayout layout(401, B, 1, 0);
      PartitionedTridiagonal solver(layout);
      std::vector<int> seen(B, 0);
      std::vector<double> got(401, std::nan("")), left(B, std::nan("")), right(B, std::nan(""));
      auto row = [&](std::size_t i, bool skip_lower) {
        return TridiagonalRow{skip_lower ? std::nan("") : s.lower[i], s.diag[i], s.upper[i], s.rhs[i]};
      };
      solver.solve_blocks(ctx, row, [&](std::size_t b, const double* xb) {
        const lie::par::Range r = layout.block(b);
        ++seen[b];  // blocks are distinct: no two threads write the same entries
        std::copy(xb, xb + r.size(), got.begin() + static_cast<std::ptrdiff_t>(r.begin));
        left[b] = xb[-1];
        right[b] = xb[r.size()];
      });
      EXPECT_EQ(seen, std::vector<int>(B, 1)) << "B = " << B;
      EXPECT_EQ(0, std::memcmp(got.data(), ref.data(), ref.size() * sizeof(double))) << "B = " << B << ", " << threads;
      for (std::size_t b = 0; b < B; ++b) {
        const lie::par::Range r = layout.block(b);
        EXPECT_EQ(left[b], r.begin == 0 ? 0.0 : ref[r.begin - 1]) << "B = " << B << " block " << b;
        EXPECT_EQ(right[b], r.end == 401 ? 0.0 : ref[r.end]) << "B = " << B << " block " << b;
      }
    }
  omp_set_num_threads(saved);
}

// symmetric = true (lower(i) == upper(i - 1), the chain's tension matrix): the sweeps take a
// row's lower from the row before; row() is asked for it nowhere in their unrolled part (NaN
// there) and the solution is bitwise that of the general solve, on 1 and 2 threads.
TEST(PartitionedTridiagonal, SymmetricTakesLowerFromTheRowBefore) {
  const int saved = omp_get_max_threads();
  for (const int threads : {1, 2})
    for (const std::size_t B : {1u, 2u, 7u, 16u, 63u}) {
      omp_set_num_threads(threads);
      const System s = random_system(401, 57 + B, true);
      const auto ref = partitioned_solve(s, B);
      Context ctx(MPI_COMM_SELF);
      PartitionedTridiagonal solver(BlockLayout(401, B, 1, 0), /*symmetric=*/true);
      std::vector<double> x(401);
      solver.solve(ctx, [&](std::size_t i, bool skip_lower) {
        return TridiagonalRow{skip_lower ? std::nan("") : s.lower[i], s.diag[i], s.upper[i], s.rhs[i]};
      }, x.data());
      EXPECT_EQ(0, std::memcmp(x.data(), ref.data(), ref.size() * sizeof(double))) << "B = " << B << ", " << threads;
    }
  omp_set_num_threads(saved);
}
