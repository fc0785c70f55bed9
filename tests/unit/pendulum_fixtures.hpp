#pragma once
// Shared test data for the N-fold pendulum: random masses, lengths and genuinely 3-D states
// (q_i uniform on S^2, w_i Gaussian and tangent), generated for the whole chain from a seed.
#include <cmath>
#include <random>
#include <vector>

#include "models/nfold_pendulum.hpp"

namespace lie::test {

inline NFoldPendulumParams random_chain_params(std::size_t N, std::uint64_t seed, std::size_t blocks = 0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  NFoldPendulumParams p;
  p.N = N;
  p.mass.resize(N);
  p.length.resize(N);
  for (auto& m : p.mass) m = u(rng);
  for (auto& L : p.length) L = u(rng);
  p.gravity = 9.81;
  p.blocks = blocks;
  return p;
}

/// Whole-chain state: q_i uniform on S^2, w_i = scale * (Gaussian projected onto q_i^perp).
inline std::vector<double> random_chain_state(std::size_t N, std::uint64_t seed, double scale = 1.0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n01(0.0, 1.0);
  std::vector<double> y(6 * N);
  for (std::size_t i = 0; i < N; ++i) {
    Vec3 q(n01(rng), n01(rng), n01(rng));
    q.normalize();
    Vec3 w(n01(rng), n01(rng), n01(rng));
    w = scale * (w - w.dot(q) * q);
    for (int k = 0; k < 3; ++k) {
      y[6 * i + k] = q[k];
      y[6 * i + 3 + k] = w[k];
    }
  }
  return y;
}

/// Planar state of the kind [P] 5.3 uses: q_i in the x-z plane (random angles), w_i along y.
inline std::vector<double> random_planar_state(std::size_t N, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> ang(-3.0, 3.0), om(-2.0, 2.0);
  std::vector<double> y(6 * N, 0.0);
  for (std::size_t i = 0; i < N; ++i) {
    const double a = ang(rng);
    y[6 * i] = std::sin(a);
    y[6 * i + 2] = -std::cos(a);
    y[6 * i + 4] = om(rng);
  }
  return y;
}

inline double rel_diff(const double* a, const double* b, std::size_t n) {
  double d = 0.0, s = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    d += (a[i] - b[i]) * (a[i] - b[i]);
    s += b[i] * b[i];
  }
  return std::sqrt(d / s);
}

}  // namespace lie::test
