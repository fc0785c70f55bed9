// The (S^2)^n pair models of [L] Examples 5 and 6 on P ranks x T threads (CTest runs this file
// under mpiexec -n 1..4 and OMP_NUM_THREADS = 1, 2): the explicit variational integrator (run
// distributed, each rank stepping its own spheres) and adaptive dopri54 (the paper's RK45
// comparison) must give *bitwise* the same final state, observables and step-size history as a
// serial single-thread run on every rank (pair sums in global index order, exact reductions).
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/magnet_array.hpp"
#include "models/sphere_md.hpp"

using namespace lie;

namespace {

struct RunResult {
  std::vector<double> y;  // local slice of the final state
  Observables obs;
  AdaptiveRecord rec;
};

using Factory = std::unique_ptr<SpherePairModel> (*)(par::Context&);

std::unique_ptr<SpherePairModel> magnets(par::Context& ctx) {
  MagnetArrayParameters p;
  p.rows = 7, p.cols = 9;  // 63 magnets: ranges of unequal size on 2 and 4 ranks
  return std::make_unique<MagnetArray>(p, ctx);
}
std::unique_ptr<SpherePairModel> molecules(par::Context& ctx) {
  return std::make_unique<SphereMd>(SphereMdParameters{}, ctx);  // 642 molecules: rows threaded on every layout
}
std::unique_ptr<SpherePairModel> few_molecules(par::Context& ctx) {
  SphereMdParameters p;
  p.level = 2;
  return std::make_unique<SphereMd>(p, ctx);
}

RunResult run(par::Context& ctx, Factory make, const std::string& method, double h, long steps, double T_adaptive) {
  auto model = make(ctx);
  RunResult r;
  r.y.resize(model->space().state_size());
  model->initial_state(r.y.data());
  auto st = make_stepper(method, Config::from_pairs({}), *model);
  st->bind(*model, ctx);
  if (T_adaptive > 0.0) {
    AdaptiveOptions opt;
    opt.t_final = T_adaptive;
    opt.norm.atol = 1e-8;
    opt.norm.rtol = 1e-6;
    r.rec = integrate_adaptive(*st, ctx, r.y.data(), opt, nullptr, r.y.size());
  } else {
    FixedStepOptions opt;
    opt.h = h;
    opt.steps = static_cast<std::uint64_t>(steps);
    integrate_fixed(*st, r.y.data(), opt, nullptr);
  }
  model->observables(0.0, r.y.data(), r.obs);
  return r;
}

RunResult serial_reference(Factory make, const std::string& method, double h, long steps, double T_adaptive,
                           const par::Context& world) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  par::Context self(MPI_COMM_SELF, true);
  RunResult r = run(self, make, method, h, steps, T_adaptive);
  omp_set_num_threads(threads);
  const std::size_t n = r.y.size() / 6;
  const par::Range mine = par::balanced_range(n, world.size(), world.rank());
  r.y = std::vector<double>(r.y.begin() + 6 * mine.begin, r.y.begin() + 6 * mine.end);
  return r;
}

void expect_bitwise(const RunResult& a, const RunResult& b) {
  ASSERT_EQ(a.y.size(), b.y.size());
  std::size_t differing = 0;
  for (std::size_t k = 0; k < a.y.size(); ++k)
    if (std::memcmp(&a.y[k], &b.y[k], sizeof(double)) != 0) ++differing;
  EXPECT_EQ(differing, 0u) << "state entries differing from the serial run";
  for (const auto& [name, v] : a.obs.items()) EXPECT_EQ(v, b.obs.get(name)) << name;
}

}  // namespace

TEST(SpherePairsMpi, MagnetArrayExplicitViBitwiseForEveryLayout) {
  par::Context world(MPI_COMM_WORLD, true);
  const RunResult dist = run(world, magnets, "lgvi_explicit", 1e-3, 200, 0.0);
  const RunResult ref = serial_reference(magnets, "lgvi_explicit", 1e-3, 200, 0.0, world);
  expect_bitwise(dist, ref);
  EXPECT_GT(ref.obs.get("kinetic_energy"), 1e-6) << "the magnets must move";
}

TEST(SpherePairsMpi, MagnetArrayAdaptiveDopri54BitwiseForEveryLayout) {
  par::Context world(MPI_COMM_WORLD, true);
  const RunResult dist = run(world, magnets, "dopri54", 0.0, 0, 0.2);
  const RunResult ref = serial_reference(magnets, "dopri54", 0.0, 0, 0.2, world);
  expect_bitwise(dist, ref);
  EXPECT_EQ(dist.rec.accepted, ref.rec.accepted);
  EXPECT_EQ(dist.rec.rejected, ref.rec.rejected);
  EXPECT_EQ(dist.rec.h, ref.rec.h);
  EXPECT_GT(ref.rec.accepted, 5u);
}

TEST(SpherePairsMpi, MoleculesExplicitViBitwiseForEveryLayout) {
  par::Context world(MPI_COMM_WORLD, true);
  const RunResult dist = run(world, molecules, "lgvi_explicit", 0.005, 10, 0.0);
  const RunResult ref = serial_reference(molecules, "lgvi_explicit", 0.005, 10, 0.0, world);
  expect_bitwise(dist, ref);
}

TEST(SpherePairsMpi, MoleculesAdaptiveDopri54BitwiseForEveryLayout) {
  par::Context world(MPI_COMM_WORLD, true);
  const RunResult dist = run(world, few_molecules, "dopri54", 0.0, 0, 0.1);
  const RunResult ref = serial_reference(few_molecules, "dopri54", 0.0, 0, 0.1, world);
  expect_bitwise(dist, ref);
  EXPECT_EQ(dist.rec.h, ref.rec.h);
  EXPECT_GT(ref.rec.accepted, 3u);
}

// The implicit form solves dense systems over all spheres: on a split model it must refuse
// with a UsageError on every rank (not hang); the explicit form runs.
TEST(SpherePairsMpi, ImplicitFormRefusesSplitSpheres) {
  par::Context world(MPI_COMM_WORLD, true);
  auto model = magnets(world);
  auto st = make_stepper("lgvi", Config::from_pairs({}), *model);
  if (world.size() > 1) EXPECT_THROW(st->bind(*model, world), UsageError);
  else EXPECT_NO_THROW(st->bind(*model, world));
}

// A step too large for [L] (29) on one sphere only (magnet 0, on rank 0, spinning at 2000 rad/s:
// |h w| = 2): every rank stops with the same NumericalError naming it (the ranks agree before
// the collective gradient; none waits for the others).
TEST(SpherePairsMpi, ExplicitViFailsTogetherOnEveryRank) {
  par::Context world(MPI_COMM_WORLD, true);
  auto model = magnets(world);
  std::vector<double> y(model->space().state_size());
  model->initial_state(y.data());
  if (model->global_offset() == 0) y[3] = 0.0, y[4] = 2000.0, y[5] = 0.0;
  auto st = make_stepper("lgvi_explicit", Config::from_pairs({}), *model);
  st->bind(*model, world);
  FixedStepOptions opt;
  opt.h = 1e-3;
  opt.steps = 10;
  std::string what;
  try {
    integrate_fixed(*st, y.data(), opt, nullptr);
  } catch (const NumericalError& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("for sphere 0 at t = 0"), std::string::npos) << what;
  EXPECT_EQ(world.max(what.empty() ? 1.0 : 0.0), 0.0) << "some rank did not stop";
}
