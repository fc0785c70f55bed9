#pragma once
// Shared helpers of the rigid-splitting unit tests (test_rigid_splitting.cpp,
// test_rigid_splitting_heavy_top.cpp): a bound stepper by name, fixed steps, a max-norm distance.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "methods/stepper.hpp"
#include "parallel/context.hpp"

namespace lie::splitting_testing {

inline std::unique_ptr<Stepper> stepper(const std::string& method, Model& model, par::Context& ctx) {
  auto st = make_stepper(method, Config::from_pairs({}), model);
  st->bind(model, ctx);
  return st;
}

/// `steps` steps of size h from t = 0.
inline std::vector<double> run(Stepper& st, std::vector<double> y, int steps, double h) {
  for (int n = 0; n < steps; ++n) st.step(n * h, h, y.data());
  return y;
}

inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

}  // namespace lie::splitting_testing
