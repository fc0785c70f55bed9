// StoppableLU (methods/stoppable_lu.hpp, issue 29): Eigen's PartialPivLU with stop points between
// slices of the trailing update. Its factors, pivots and solutions must be bitwise those of
// PartialPivLU, on sizes that are updated in one piece and in slices (with and without a
// remainder), with Eigen's GEMM on 1 and on 2 OpenMP threads, and a pending stop request must
// end the factorisation with StopInStep.
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <csignal>
#include <cstring>
#include <random>
#include <string>

#include "core/stop.hpp"
#include "methods/stoppable_lu.hpp"

using namespace lie;

namespace {

Eigen::MatrixXd random_matrix(Eigen::Index n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  Eigen::MatrixXd a(n, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = 0; i < n; ++i) a(i, j) = g(rng);
  return a;
}

bool same_bits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)) == 0;
}

void check_against_eigen() {
  for (Eigen::Index n : {5, 16, 100, 700, 1700, 2051}) {
    const Eigen::MatrixXd a = random_matrix(n, 1000u + static_cast<unsigned>(n));
    const Eigen::VectorXd b = random_matrix(n, 7u).col(0);
    const Eigen::PartialPivLU<Eigen::MatrixXd> ref(a);
    StoppableLU lu;
    lu.factor(a);
    EXPECT_TRUE(same_bits(lu.matrixLU(), ref.matrixLU())) << "n = " << n;
    EXPECT_TRUE(lu.permutationP().indices() == ref.permutationP().indices()) << "n = " << n;
    EXPECT_EQ(lu.determinant(), ref.determinant()) << "n = " << n;
    const Eigen::VectorXd x = lu.solve(b), xr = ref.solve(b);
    EXPECT_TRUE(same_bits(x, xr)) << "n = " << n;
    EXPECT_LT((a * x - b).norm(), 1e-8 * b.norm() * static_cast<double>(n)) << "n = " << n;
  }
}

}  // namespace

TEST(StoppableLU, SlicesWhereEigenWouldNotBlockTheRows) {
  // The slices must be wider than any column block of Eigen's GEMM for that depth.
  for (Eigen::Index depth : {8, 16, 64, 128, 208, 256}) {
    EXPECT_GT(StoppableLU::slice_cols(depth), 1572864 / (2 * depth * 8)) << depth;
    EXPECT_EQ(StoppableLU::slice_cols(depth) % 16, 0) << depth;
  }
}

TEST(StoppableLU, BitwiseEigensFactorsAndSolutions) {
  // 5, 16: unblocked; 100, 700: blocked, updates in one piece; 1700, 2051: in slices (block 208
  // / 256, slices of 496 / 416 columns; 2051 leaves a remainder in the last slice).
  for (int threads : {1, 2}) {
    Eigen::setNbThreads(threads);
    SCOPED_TRACE("Eigen threads " + std::to_string(threads));
    check_against_eigen();
  }
  Eigen::setNbThreads(0);  // back to OpenMP's default
}


TEST(StoppableLU, StopsOnAPendingRequest) {
  const Eigen::MatrixXd a = random_matrix(300, 3u);
  request_stop(SIGTERM);
  StoppableLU lu;
  try {
    lu.factor(a);
    ADD_FAILURE() << "no StopInStep";
  } catch (const StopInStep& e) {
    EXPECT_EQ(e.signal(), SIGTERM);
    EXPECT_FALSE(e.located);
  }
  clear_stop();
  lu.factor(a);
  EXPECT_TRUE(same_bits(lu.matrixLU(), Eigen::PartialPivLU<Eigen::MatrixXd>(a).matrixLU()));
}
