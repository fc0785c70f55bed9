#pragma once
// Helpers of the model tests that integrate with fixed steps (sphere_bodies, lgvi on spheres,
// elastic_rod, magnet_array, sphere_md, heavy top): a run from the model's initial state,
// distances, log-log slopes, observables, unit length and energy errors.
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/model.hpp"

namespace lie::fixed_step_testing {

/// `steps` steps of h = T / steps of `method` (options `cfg`) from the model's initial state.
inline std::vector<double> run(Model& model, par::Context& ctx, const std::string& method, const Config& cfg, double T,
                               long steps, const Observer& obs = nullptr) {
  auto st = make_stepper(method, cfg, model);
  st->bind(model, ctx);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  FixedStepOptions opt;
  opt.h = T / static_cast<double>(steps);
  opt.steps = static_cast<std::uint64_t>(steps);
  opt.stride = 1;
  integrate_fixed(*st, y.data(), opt, obs);
  return y;
}
inline std::vector<double> run(Model& model, par::Context& ctx, const std::string& method, double T, long steps,
                               const Observer& obs = nullptr) {
  return run(model, ctx, method, Config::from_pairs({}), T, steps, obs);
}
/// The same on one rank (MPI_COMM_SELF).
inline std::vector<double> run(Model& model, const std::string& method, const Config& cfg, double T, long steps,
                               const Observer& obs = nullptr) {
  par::Context ctx(MPI_COMM_SELF);
  return run(model, ctx, method, cfg, T, steps, obs);
}
inline std::vector<double> run(Model& model, const std::string& method, double T, long steps,
                               const Observer& obs = nullptr) {
  return run(model, method, Config::from_pairs({}), T, steps, obs);
}

/// Observable `name` of the model at state y (t = 0).
inline double get(Model& m, const double* y, const char* name) {
  Observables o;
  m.observables(0.0, y, o);
  return o.get(name);
}

inline double dist(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s);
}

/// Least-squares slope of log e against log h.
inline double slope(const std::vector<double>& h, const std::vector<double>& e) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) {
    const double x = std::log(h[i]), y = std::log(e[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/// max_i |1 - |q_i|| of a state of (q_i, w_i) blocks.
inline double unit_error(const std::vector<double>& y) {
  double e = 0.0;
  for (std::size_t i = 0; i + 5 < y.size(); i += 6)
    e = std::max(e, std::fabs(1.0 - std::sqrt(y[i] * y[i] + y[i + 1] * y[i + 1] + y[i + 2] * y[i + 2])));
  return e;
}

/// Max |E - E0| over the first and the second half of a fixed-step run, and max unit error.
struct EnergyRun {
  double first = 0.0, second = 0.0, unit = 0.0, E0 = 0.0;
};
inline EnergyRun energy_run(Model& model, par::Context& ctx, const std::string& method, double h, long steps) {
  std::vector<double> y0(model.space().state_size());
  model.initial_state(y0.data());
  Observables o;
  model.observables(0.0, y0.data(), o);
  EnergyRun r;
  r.E0 = o.get("total_energy");
  run(model, ctx, method, h * static_cast<double>(steps), steps, [&](double t, const double* y, std::uint64_t n) {
    Observables ob;
    model.observables(t, y, ob);
    const double dE = std::fabs(ob.get("total_energy") - r.E0);
    double& m = n <= static_cast<std::uint64_t>(steps / 2) ? r.first : r.second;
    m = std::max(m, dE);
    r.unit = std::max(r.unit, ob.get("unit_norm_error"));
  });
  return r;
}

}  // namespace lie::fixed_step_testing
