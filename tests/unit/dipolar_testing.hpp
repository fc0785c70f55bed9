#pragma once
// Shared fixture of the dipolar unit tests (test_dipolar_integration.cpp, test_rigid_splitting.cpp):
// ten interacting bodies and a start state with random momenta.
#include <random>
#include <vector>

#include "models/dipolar.hpp"

namespace lie::dipolar_testing {

// Ten well separated bodies ([K] parameters; spread 6 instead of N so that they interact
// within t <= 1, minimum distance 1.47 sigma for this seed) with random 3-D momenta.
inline DipolarParams ten_bodies() {
  DipolarParams p;
  p.n = 10;
  p.spread = 6.0;
  p.seed = 4;
  return p;
}

// The model's initial state with random linear and body angular momenta of size `momentum`.
inline std::vector<double> start_state(Dipolar& model, double momentum) {
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  std::mt19937_64 g(9);
  std::normal_distribution<double> n01(0.0, 1.0);
  for (std::size_t i = 0; i < model.local_bodies(); ++i) {
    for (int k = 0; k < 3; ++k) y[18 * i + 3 + k] = momentum * n01(g);
    for (int k = 0; k < 3; ++k) y[18 * i + 15 + k] = momentum * n01(g);
  }
  return y;
}

}  // namespace lie::dipolar_testing
