// Least-squares fits, the observed-order rule and invariant statistics (studies/analysis.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "studies/analysis.hpp"

using namespace lie::studies;

TEST(StudiesAnalysis, LeastSquaresRecoversALine) {
  const std::vector<double> x = {0.0, 1.0, 2.0, 3.0, 10.0};
  std::vector<double> y;
  for (double v : x) y.push_back(-2.5 + 0.75 * v);
  const LineFit f = least_squares(x, y);
  EXPECT_NEAR(f.slope, 0.75, 1e-14);
  EXPECT_NEAR(f.intercept, -2.5, 1e-14);
  EXPECT_LT(f.max_abs_residual, 1e-14);
  EXPECT_TRUE(std::isnan(least_squares({1.0}, {2.0}).slope));
}

TEST(StudiesAnalysis, LeastSquaresIsTheL2MinimiserWithNoise) {
  // For symmetric noise (+d, -d, -d, +d) around a line the slope must stay the line's slope
  // only if the noise is orthogonal to x: check against the normal equations instead.
  const std::vector<double> x = {1, 2, 3, 4, 5}, y = {1.1, 1.9, 3.2, 3.8, 5.3};
  const LineFit f = least_squares(x, y);
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < 5; ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double slope = (5 * sxy - sx * sy) / (5 * sxx - sx * sx);
  EXPECT_NEAR(f.slope, slope, 1e-13);
  EXPECT_NEAR(f.intercept, (sy - slope * sx) / 5, 1e-13);
}

TEST(StudiesAnalysis, ObservedOrderOnCleanData) {
  std::vector<double> h, e;
  for (int k = 2; k <= 8; ++k) {
    h.push_back(std::ldexp(1.0, -k));
    e.push_back(0.3 * std::pow(h.back(), 4));
  }
  const OrderFit f = observed_order(h, e, 1.0, 0.0, OrderFitRule{});
  EXPECT_NEAR(f.order, 4.0, 1e-10);
  EXPECT_EQ(f.points, h.size());
  EXPECT_DOUBLE_EQ(f.h_min, h.back());
  EXPECT_DOUBLE_EQ(f.h_max, h.front());
}

TEST(StudiesAnalysis, ObservedOrderDropsPreasymptoticAndRoundOffPoints) {
  // order 3: e_k = 1e-3 8^-k for h_k = 0.1 2^-k; the coarsest point 4x too large
  // (pre-asymptotic), the two finest stuck near 3e-13 (round-off; above the default floor
  // 1e3 eps |y| = 2.2e-13, so they reach the fit and must be dropped by the residual rule).
  std::vector<double> h, e;
  for (int k = 0; k <= 8; ++k) {
    h.push_back(0.1 * std::ldexp(1.0, -k));
    e.push_back(1e-3 * std::pow(8.0, -k));
  }
  e[0] *= 4.0;
  e[7] = 3.1e-13;
  e[8] = 2.9e-13;
  const OrderFit f = observed_order(h, e, 1.0, 0.0, OrderFitRule{});
  EXPECT_NEAR(f.order, 3.0, 0.02);
  EXPECT_FALSE(f.used[0]);
  EXPECT_FALSE(f.used[7]);
  EXPECT_FALSE(f.used[8]);
  EXPECT_TRUE(f.used[3]);
  EXPECT_GE(f.points, 3u);
  // The naive slope over all points would be far off: the rule matters.
  std::vector<double> x, y;
  for (std::size_t i = 0; i < h.size(); ++i) {
    x.push_back(std::log10(h[i]));
    y.push_back(std::log10(e[i]));
  }
  EXPECT_GT(std::fabs(least_squares(x, y).slope - 3.0), 0.3);
}

TEST(StudiesAnalysis, ObservedOrderFloorAndReferenceAccuracy) {
  std::vector<double> h = {0.1, 0.05, 0.025, 0.0125}, e = {1e-6, 6.25e-8, 1e-14, 1e-15};
  // floor = 1e3 eps x scale 10 = 2.2e-12: the last two are excluded, two points remain, fewer
  // than the window of min_points = 3 the rule asks for: no order, and the reason says so
  OrderFit f = observed_order(h, e, 10.0, 0.0, OrderFitRule{});
  EXPECT_TRUE(std::isnan(f.order));
  EXPECT_EQ(f.points, 0u);
  EXPECT_NE(f.no_order.find("no order: 2 of 4 points above the error floor"), std::string::npos) << f.no_order;
  EXPECT_NE(f.no_order.find("round-off"), std::string::npos) << f.no_order;
  // with min_points = 2 they are the fit
  OrderFitRule two;
  two.min_points = 2;
  f = observed_order(h, e, 10.0, 0.0, two);
  EXPECT_EQ(f.points, 2u);
  EXPECT_NEAR(f.order, 4.0, 1e-12);
  EXPECT_GT(f.floor, 2e-12);
  EXPECT_TRUE(f.no_order.empty());
  // a reference error estimate of 1e-8 leaves one point: no order, because of the reference
  f = observed_order(h, e, 10.0, 1e-8, two);
  EXPECT_EQ(f.points, 0u);
  EXPECT_TRUE(std::isnan(f.order));
  EXPECT_NE(f.no_order.find("10 x the reference's estimated error"), std::string::npos) << f.no_order;
  // non-finite errors never enter the fit
  e = {NAN, 1e-4, 1e-5, 1e-6};
  f = observed_order({0.4, 0.2, 0.1, 0.05}, e, 1.0, 0.0, OrderFitRule{});
  EXPECT_FALSE(f.used[0]);
  EXPECT_NEAR(f.order, std::log2(10.0), 1e-12);
}

// Issue 29 item 5: points whose segment rates are 11.57 and -0.47 (rkmk4 at 1, 512 and 1024
// steps to T = 10 against a useless reference) are in no window: no order, not 10.84.
TEST(StudiesAnalysis, ObservedOrderWithoutAWindowInLineIsNoOrder) {
  const std::vector<double> h = {10.0, 10.0 / 512, 10.0 / 1024}, e = {1.047e33, 4.717e1, 6.536e1};
  const OrderFit f = observed_order(h, e, 38.5, 4.07, OrderFitRule{});
  EXPECT_TRUE(std::isnan(f.order)) << f.order;
  EXPECT_EQ(f.points, 0u);
  for (bool u : f.used) EXPECT_FALSE(u);
  EXPECT_TRUE(std::isnan(f.h_min) && std::isnan(f.h_max));
  EXPECT_NE(f.no_order.find("no order: no 3 consecutive points"), std::string::npos) << f.no_order;
  EXPECT_NE(f.no_order.find("11.57, -0.47"), std::string::npos) << f.no_order;
  // one point more in line at the fine end gives a window again (and its order)
  const OrderFit g = observed_order({0.4, 0.2, 0.1, 0.05}, {1e3, 1.6e-3, 1e-4, 6.25e-6}, 1.0, 0.0, OrderFitRule{});
  EXPECT_NEAR(g.order, 4.0, 1e-12);
  EXPECT_EQ(g.points, 3u);
  EXPECT_FALSE(g.used[0]);
  EXPECT_TRUE(g.no_order.empty());
}

TEST(StudiesAnalysis, DriftIsTheSlopeOfALinearFit) {
  std::vector<double> t, d;
  for (int i = 0; i <= 100; ++i) {
    t.push_back(0.5 * i);
    d.push_back(1e-10 + 3e-12 * t.back() + (i % 2 ? 1e-11 : -1e-11));
  }
  const SeriesStats s = series_stats(t, d);
  EXPECT_NEAR(s.drift, 3e-12, 1e-14);
  EXPECT_NEAR(s.max_abs, 1e-10 + 3e-12 * 49.5 + 1e-11, 1e-20);  // at the last odd sample
  double mean = 0;
  for (double v : d) mean += std::fabs(v);
  EXPECT_NEAR(s.mean_abs, mean / d.size(), 1e-22);
  EXPECT_DOUBLE_EQ(s.final_value, d.back());
}

TEST(StudiesAnalysis, ObservableRolesAndErrors) {
  EXPECT_EQ(observable_role("unit_norm_error"), ObservableRole::ManifoldError);
  EXPECT_EQ(observable_role("total_energy"), ObservableRole::Energy);
  EXPECT_EQ(observable_role("casimir"), ObservableRole::Conserved);
  EXPECT_EQ(observable_role("angular_momentum_z"), ObservableRole::Conserved);
  EXPECT_EQ(observable_role("kinetic_energy"), ObservableRole::Other);
  const auto rel = observable_errors("total_energy", {-2.0, -2.5, -1.0});
  EXPECT_DOUBLE_EQ(rel[1], -0.25);
  EXPECT_DOUBLE_EQ(rel[2], 0.5);
  const auto abs = observable_errors("casimir", {1.0, 1.5});
  EXPECT_DOUBLE_EQ(abs[1], 0.5);
  EXPECT_TRUE(observable_errors("kinetic_energy", {1.0, 2.0}).empty());
  EXPECT_EQ(error_metric_prefix("total_energy"), "total_energy.rel_error");
  EXPECT_EQ(error_metric_prefix("tangency_error"), "tangency_error");
}

// The growth law separates the three behaviours of long-run energy errors (GNI ch. IX-X):
// bounded oscillation, a random walk (sqrt t) and a linear drift, from 10^4 samples.
TEST(StudiesAnalysis, GrowthLawSeparatesBoundedRandomWalkAndLinearDrift) {
  const std::size_t n = 10001;
  std::vector<double> t(n), bounded(n), drift(n), fast(n), zero(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    t[i] = 0.1 * static_cast<double>(i);  // [0, 1000]
    bounded[i] = 1e-6 * std::sin(3.0 * t[i]) * std::sin(3.0 * t[i]);  // a symplectic method's error
    drift[i] = 1e-9 * t[i] + 1e-9 * std::sin(t[i]);                     // C h^p t plus an oscillation
    fast[i] = 1e-12 * t[i] * t[i];
  }
  const GrowthFit b = growth_law(t, bounded), d = growth_law(t, drift), f = growth_law(t, fast);
  EXPECT_EQ(b.law, "bounded") << b.exponent;
  EXPECT_LT(std::fabs(b.exponent), 0.05);
  EXPECT_EQ(d.law, "linear") << d.exponent;
  EXPECT_NEAR(d.exponent, 1.0, 0.15);
  EXPECT_EQ(f.law, "faster") << f.exponent;
  EXPECT_NEAR(f.exponent, 2.0, 0.05);
  // round-off's random walk (+-1e-16 per step): one path's exponent scatters, so 32 paths: their
  // mean exponent is 1/2 and most are classified sqrt(t)
  std::mt19937_64 bits(20261126);  // +-1 steps from raw bits: the same walks on every platform
  double mean = 0.0;
  int as_sqrt = 0;
  for (int path = 0; path < 32; ++path) {
    std::vector<double> walk(n, 0.0);
    for (std::size_t i = 1; i < n; ++i) walk[i] = walk[i - 1] + ((bits() & 1u) ? 1e-16 : -1e-16);
    const GrowthFit r = growth_law(t, walk);
    mean += r.exponent / 32.0;
    as_sqrt += r.law == "sqrt(t)" ? 1 : 0;
  }
  EXPECT_NEAR(mean, 0.5, 0.12);
  EXPECT_GE(as_sqrt, 24);
  EXPECT_EQ(growth_law(t, zero).law, "exact");
  // an error that has reached the size of the quantity cannot grow: not "bounded" but saturated
  std::vector<double> lost(n);
  for (std::size_t i = 0; i < n; ++i) lost[i] = 1.2 + 0.1 * std::sin(t[i]);
  EXPECT_EQ(growth_law(t, lost).law, "bounded");
  EXPECT_EQ(growth_law(t, lost, 0.1).law, "saturated");
  EXPECT_EQ(growth_law(t, drift, 0.1).law, "linear");
  // too short a record: no law rather than a guess
  EXPECT_EQ(growth_law(std::vector<double>(t.begin(), t.begin() + 6), std::vector<double>(drift.begin(), drift.begin() + 6)).law, "");
  std::vector<double> blown = drift;
  blown[n / 2] = std::nan("");
  EXPECT_EQ(growth_law(t, blown).law, "");
}

// DETEST's tolerance proportionality: a sweep whose error is C tol^b is fitted exactly; runs
// above their tolerance are counted; fewer than 3 results give no slope.
TEST(StudiesAnalysis, ToleranceFitMeasuresProportionalityAndReliability) {
  std::vector<double> tol, err;
  for (int k = 3; k <= 12; ++k) {
    tol.push_back(std::pow(10.0, -k));
    err.push_back(3.0 * std::pow(tol.back(), 0.8));  // error 3 tol^0.8: above tol everywhere
  }
  const ToleranceFit f = tolerance_fit(tol, err);
  EXPECT_EQ(f.runs, 10u);
  EXPECT_NEAR(f.slope, 0.8, 1e-12);
  EXPECT_NEAR(f.intercept, std::log10(3.0), 1e-12);
  EXPECT_LT(f.scatter, 1e-12);
  EXPECT_EQ(f.above, 10u);
  EXPECT_NEAR(f.worst_ratio, 3.0 * std::pow(1e-12, -0.2), 1e-6 * f.worst_ratio);
  // a method deceived at tight tolerances (error stuck at 1e-9): slope below 1, large scatter
  std::vector<double> stuck = err;
  for (std::size_t i = 0; i < stuck.size(); ++i) stuck[i] = std::max(0.1 * tol[i], 1e-9);
  const ToleranceFit g = tolerance_fit(tol, stuck);
  EXPECT_LT(g.slope, 0.7);
  EXPECT_GT(g.scatter, 0.5);
  EXPECT_EQ(g.above, 3u);  // 1e-9 > tol for tol = 1e-10, 1e-11, 1e-12
  // failed runs (NaN) are left out; two results are no sweep
  const ToleranceFit h = tolerance_fit({1e-3, 1e-4, 1e-5}, {1e-4, NAN, 1e-6});
  EXPECT_EQ(h.runs, 2u);
  EXPECT_TRUE(std::isnan(h.slope));
}
