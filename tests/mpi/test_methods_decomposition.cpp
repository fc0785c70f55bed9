// The integrators do not depend on how the components are split over ranks and threads:
// 520 independent spherical pendula, split with balanced_range, integrated adaptively (the
// error norm is a global deterministic reduction, so every rank takes the same steps) and with
// fixed steps; every rank's slice must equal, bit for bit, the same slice of a serial run.
#include <gtest/gtest.h>
#include <mpi.h>

#include "methods/integrate.hpp"
#include "unit/test_problems.hpp"

using namespace lie;
using namespace lie::testing;

namespace {

// > 2 Space::kOmpMinComponents: threaded component loops on 1 and 2 ranks
constexpr std::size_t kPendula = 520;

struct Result {
  std::vector<double> y;
  std::uint64_t accepted = 0, rejected = 0;
};

Result run(const std::string& method, par::Context& ctx, std::size_t begin, std::size_t end, bool adaptive) {
  SphericalPendula model(kPendula, 42, begin, end);
  auto st = make_stepper(method, Config::from_pairs({}), model);
  st->bind(model, ctx);
  Result r;
  r.y.resize(model.space().state_size());
  model.initial_state(r.y.data());
  if (adaptive) {
    AdaptiveOptions opt = adaptive_options(Config::from_pairs({{"h0", "0.5"}, {"error_norm", "rms"}}), st->info(),
                                           0.0, 0.3, 1e-6);
    const AdaptiveRecord rec = integrate_adaptive(*st, ctx, r.y.data(), opt, nullptr, r.y.size());
    r.accepted = rec.accepted;
    r.rejected = rec.rejected;
  } else {
    FixedStepOptions opt;
    opt.h = 0.01;
    opt.steps = 20;
    integrate_fixed(*st, r.y.data(), opt, nullptr);
  }
  return r;
}

}  // namespace

TEST(MethodsDecomposition, SameNumbersOnEveryLayout) {
  par::Context world(MPI_COMM_WORLD, true);
  par::Context self(MPI_COMM_SELF, true);
  const par::Range mine = par::balanced_range(kPendula, world.size(), world.rank());
  for (const char* method : {"rkmk54", "cf43", "cf32b", "dopri54_proj"}) {
    const Result dist = run(method, world, mine.begin, mine.end, true);
    const Result serial = run(method, self, 0, kPendula, true);
    EXPECT_GT(dist.rejected, 0u) << method;
    EXPECT_EQ(dist.accepted, serial.accepted) << method;
    EXPECT_EQ(dist.rejected, serial.rejected) << method;
    ASSERT_EQ(dist.y.size(), 6 * mine.size());
    for (std::size_t i = 0; i < dist.y.size(); ++i)
      ASSERT_EQ(dist.y[i], serial.y[6 * mine.begin + i]) << method << " entry " << i;
  }
  for (const char* method : {"cg3", "rkmk4_co", "rk4_proj"}) {
    const Result dist = run(method, world, mine.begin, mine.end, false);
    const Result serial = run(method, self, 0, kPendula, false);
    for (std::size_t i = 0; i < dist.y.size(); ++i)
      ASSERT_EQ(dist.y[i], serial.y[6 * mine.begin + i]) << method << " entry " << i;
  }
}
