#pragma once
// Shared fixture of the heavy-top unit tests (test_heavy_top_formulations.cpp,
// test_rkmk_coordinates.cpp): a genuinely 3-D top.
#include <random>

#include "groups/so3.hpp"
#include "models/heavy_top.hpp"

namespace lie::heavy_top_testing {

// A genuinely 3-D state: random attitude, random angular velocity, skewed centre of mass.
inline HeavyTopParameters random_parameters(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n01(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  HeavyTopParameters p;
  p.mass = u(rng) * 5.0;
  p.length = u(rng);
  p.inertia = Vec3(u(rng), u(rng), u(rng));
  p.com_direction = Vec3(n01(rng), n01(rng), n01(rng)).normalized();
  p.gamma0 = 9.81 * Vec3(n01(rng), n01(rng), n01(rng)).normalized();
  p.attitude0 = so3::exp(Vec3(n01(rng), n01(rng), n01(rng)));
  p.omega0 = 3.0 * Vec3(n01(rng), n01(rng), n01(rng));
  return p;
}

}  // namespace lie::heavy_top_testing
