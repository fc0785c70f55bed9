// Least-squares fits, the observed-order rule and invariant statistics (studies/analysis.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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
