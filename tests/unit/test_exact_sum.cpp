#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "parallel/exact_sum.hpp"

using lie::par::ExactSum;

TEST(ExactSum, IsOrderIndependentAndCorrectlyRounded) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> mant(-1.0, 1.0);
  std::uniform_int_distribution<int> ex(-60, 60);
  std::vector<double> x(20000);
  for (double& v : x) v = std::ldexp(mant(rng), ex(rng));
  ExactSum a;
  for (double v : x) a.add(v);
  std::shuffle(x.begin(), x.end(), rng);
  ExactSum b;
  for (double v : x) b.add(v);
  EXPECT_EQ(a.value(), b.value());
  // Split into two partial accumulators and combine: still identical.
  ExactSum c, d;
  for (std::size_t i = 0; i < x.size(); ++i) (i % 3 ? c : d).add(x[i]);
  c.add(d);
  EXPECT_EQ(a.value(), c.value());
  // Compare with a long double compensated reference (error far below 1 ulp of the sum).
  long double ref = 0.0L;
  std::sort(x.begin(), x.end(), [](double p, double q) { return std::fabs(p) < std::fabs(q); });
  for (double v : x) ref += v;
  EXPECT_NEAR(a.value(), static_cast<double>(ref), 1e-12 * std::fabs(static_cast<double>(ref)) + 1e-300);
}

TEST(ExactSum, CancelsExactly) {
  ExactSum s;
  s.add(1e300);
  s.add(1.0);
  s.add(-1e300);
  s.add(1e-300);
  EXPECT_EQ(s.value(), 1.0);  // 1 + 1e-300 rounds to 1
  ExactSum t;
  t.add(0.1);
  t.add(0.2);
  t.add(-0.3);
  // The exact value of double(0.1) + double(0.2) - double(0.3) is 2^-55; the naive
  // left-to-right sum gives 2^-54 because 0.1 + 0.2 is rounded first.
  EXPECT_EQ(t.value(), std::ldexp(1.0, -55));
  EXPECT_NE(t.value(), (0.1 + 0.2) - 0.3);
  ExactSum u;
  for (int i = 0; i < 10; ++i) u.add(0.1);
  EXPECT_EQ(u.value(), 1.0);  // exact sum of ten double(0.1) rounds to 1.0 (naive sum gives 0.9999999999999999)
}

TEST(ExactSum, PropagatesNonFinite) {
  ExactSum s;
  s.add(1.0);
  s.add(NAN);
  EXPECT_TRUE(std::isnan(s.value()));
}
