#pragma once
// Shared helpers of the Lie group kernel tests (tests/unit/test_groups_*.cpp, test_space.cpp):
// seeded random inputs in the regimes that matter (near the identity, near pi, around the
// series/closed-form switch, near 2 pi), a 6th-order central finite difference, and a
// small accumulator that reports the worst error of each property.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "groups/so3.hpp"

namespace lie::testing {

inline constexpr double kPi = std::numbers::pi;

class Rng {
 public:
  /// Fixed seeds make every run reproducible; LIEBENCH_TEST_SEED=k shifts all of them (to
  /// check that no tolerance depends on one particular draw).
  explicit Rng(std::uint64_t seed) : gen_(seed + seed_offset()) {}
  static std::uint64_t seed_offset() {
    const char* s = std::getenv("LIEBENCH_TEST_SEED");
    return s ? std::strtoull(s, nullptr, 10) * 1000003ULL : 0;
  }
  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(gen_); }
  /// log-uniform on [a, b]
  double log_uniform(double a, double b) { return std::exp(uniform(std::log(a), std::log(b))); }
  double normal() { return std::normal_distribution<double>(0.0, 1.0)(gen_); }
  template <int N>
  Eigen::Matrix<double, N, 1> normal_vec() {
    Eigen::Matrix<double, N, 1> v;
    for (int i = 0; i < N; ++i) v[i] = normal();
    return v;
  }
  Mat3 matrix3() {
    Mat3 m;
    for (int i = 0; i < 9; ++i) m.data()[i] = normal();
    return m;
  }
  Vec3 unit3() {
    Vec3 v;
    do v = normal_vec<3>();
    while (v.norm() < 1e-3);
    return v.normalized();
  }
  /// Uniformly distributed rotation (exp of a uniformly random angle-axis is not uniform, but
  /// we only need to cover all of SO(3), including angles close to pi).
  Mat3 rotation() { return so3::exp(unit3() * uniform(0.0, kPi)); }
  std::mt19937_64& engine() { return gen_; }

 private:
  std::mt19937_64 gen_;
};

/// Rotation angles in the regimes the kernels must handle: 0, near 0 (1e-8 .. 1e-3),
/// generic (0, pi), near pi (pi - 1e-8 .. pi - 1e-3), pi, and on both sides of the
/// series/closed-form switch so3::detail::kSeriesThreshold and of the short-series switch at
/// 0.25. `n` generic/near values each.
inline std::vector<double> angle_samples(Rng& rng, int n, bool include_pi = true) {
  std::vector<double> a;
  const double T = so3::detail::kSeriesThreshold;
  a.push_back(0.0);
  for (double d : {0.0, 1e-12, 1e-8, 1e-4, 1e-2}) {
    a.push_back(T * (1.0 + d));
    a.push_back(T * (1.0 - d));
  }
  a.push_back(std::nextafter(T, 0.0));
  for (double d : {0.0, 1e-12, 1e-8}) {  // the short-series switch at t = 0.25
    a.push_back(0.25 * (1.0 + d));
    a.push_back(0.25 * (1.0 - d));
  }
  for (int i = 0; i < n; ++i) {
    a.push_back(rng.log_uniform(1e-8, 1e-3));
    a.push_back(rng.uniform(0.0, kPi));
    if (include_pi) a.push_back(kPi - rng.log_uniform(1e-8, 1e-3));
  }
  if (include_pi) a.push_back(kPi);
  return a;
}

/// Angles close to 2 pi (2 pi - 1e-8 .. 2 pi - 1e-3) and a little beyond (exp and dexp only).
inline std::vector<double> angle_samples_near_2pi(Rng& rng, int n) {
  std::vector<double> a;
  for (int i = 0; i < n; ++i) {
    a.push_back(2.0 * kPi - rng.log_uniform(1e-8, 1e-3));
    a.push_back(2.0 * kPi + rng.log_uniform(1e-8, 1e-3));
  }
  a.push_back(2.0 * kPi);
  return a;
}

/// f'(0) by the 6th-order central difference with step h (error ~ h^6 |f^(7)| / 140).
template <class F>
auto fd_derivative(F&& f, double h) {
  using V = decltype(f(0.0));
  const V d1 = f(h) - f(-h), d2 = f(2 * h) - f(-2 * h), d3 = f(3 * h) - f(-3 * h);
  return V((45.0 * d1 - 9.0 * d2 + d3) / (60.0 * h));
}

/// Worst value of an error measure over many samples, printed once at the end of a test
/// (these lines are the numbers quoted in the groups report).
class Worst {
 public:
  explicit Worst(std::string name) : name_(std::move(name)) {}
  Worst(const Worst&) = delete;
  ~Worst() {
    std::printf("[ worst    ] %-58s %.3g  (n = %ld)\n", name_.c_str(), worst_, count_);
  }
  /// Records err and returns it.
  double operator()(double err) {
    ++count_;
    if (!(err <= worst_)) worst_ = err;  // NaN sticks
    return err;
  }
  double value() const { return worst_; }

 private:
  std::string name_;
  double worst_ = 0.0;
  long count_ = 0;
};

template <class A, class B>
double max_abs_diff(const A& a, const B& b) {
  return (a - b).template lpNorm<Eigen::Infinity>();
}

}  // namespace lie::testing
