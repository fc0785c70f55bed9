// The distributed N-fold pendulum (run by CTest under mpiexec -n 1..4 x OMP_NUM_THREADS 1, 2):
// a chain of N = 1001 links (not a multiple of 2, 3 or 4 ranks) integrated with fixed-step
// RKMK4 and adaptive RKMK(5,4) must give, on every rank, bitwise the same local state, the
// same observables and the same step sequence as the serial run of the same chain computed
// on that rank alone (MPI_COMM_SELF). Bitwise is what the virtual-block design promises:
// the arithmetic depends on N and nfold_pendulum.blocks only, never on ranks or threads.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "io/h5.hpp"
#include "studies/state_file.hpp"
#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "unit/pendulum_fixtures.hpp"

using namespace lie;
using namespace lie::test;

namespace {

constexpr std::size_t kN = 1001;

NFoldPendulumParams chain() {
  NFoldPendulumParams p = random_chain_params(kN, 501);
  p.initial = NFoldPendulumParams::Initial::Random;
  p.seed = 502;
  return p;
}

struct Result {
  std::vector<double> y;         // local part (the whole chain for the serial run)
  std::vector<double> position;  // bob positions (prefix sums), local part
  Observables obs;
  AdaptiveRecord record;
  std::uint64_t rhs = 0;
};

Result run(MPI_Comm comm, const std::string& method, bool adaptive) {
  par::Context ctx(comm);
  NFoldPendulum model(chain(), ctx);
  auto st = make_stepper(method, Config::from_pairs({}), model);
  st->bind(model, ctx);
  Result r;
  r.y.resize(model.space().state_size());
  model.initial_state(r.y.data());
  if (adaptive) {
    AdaptiveOptions opt;
    opt.t_final = 0.3;
    opt.h0 = 0.05;  // too large on purpose: rejected trial steps are part of the sequence
    opt.norm.kind = ErrorNorm::Kind::Rms;
    opt.norm.atol = 1e-8;
    opt.norm.rtol = 1e-8;
    r.record = integrate_adaptive(*st, ctx, r.y.data(), opt, nullptr, r.y.size());
  } else {
    FixedStepOptions opt;
    opt.h = 1e-3;
    opt.steps = 20;
    integrate_fixed(*st, r.y.data(), opt, nullptr);
  }
  model.observables(0.0, r.y.data(), r.obs);
  r.position.resize(3 * model.local_links());
  model.trajectory_field("position", r.y.data(), r.position.data());
  r.rhs = st->counters().rhs;
  return r;
}

void expect_same(const Result& dist, const Result& serial, std::size_t offset) {
  ASSERT_EQ(dist.y.size() % 6, 0u);
  const std::size_t n = dist.y.size() / 6;
  EXPECT_EQ(0, std::memcmp(dist.y.data(), serial.y.data() + 6 * offset, 6 * n * sizeof(double)))
      << "local state differs from the serial run (first local link " << offset << ")";
  EXPECT_EQ(0, std::memcmp(dist.position.data(), serial.position.data() + 3 * offset, 3 * n * sizeof(double)))
      << "bob positions differ";
  ASSERT_EQ(dist.obs.items().size(), serial.obs.items().size());
  for (const auto& [name, value] : serial.obs.items()) {
    const double d = dist.obs.get(name);
    EXPECT_EQ(0, std::memcmp(&d, &value, sizeof(double))) << name << ": " << d << " vs serial " << value;
  }
  EXPECT_EQ(dist.rhs, serial.rhs);
}

int world_size() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

}  // namespace

TEST(PendulumMpi, FixedStepRkmk4BitwiseEqualsSerial) {
  const Result dist = run(MPI_COMM_WORLD, "rkmk4", false);
  const Result serial = run(MPI_COMM_SELF, "rkmk4", false);
  par::Context ctx(MPI_COMM_WORLD);
  NFoldPendulum layout_only(chain(), ctx);
  expect_same(dist, serial, layout_only.global_offset());
  EXPECT_LT(serial.obs.get("unit_norm_error"), 1e-13);
  EXPECT_LT(serial.obs.get("tangency_error"), 1e-12);
}

TEST(PendulumMpi, AdaptiveRkmk54BitwiseEqualsSerial) {
  const Result dist = run(MPI_COMM_WORLD, "rkmk54", true);
  const Result serial = run(MPI_COMM_SELF, "rkmk54", true);
  par::Context ctx(MPI_COMM_WORLD);
  NFoldPendulum layout_only(chain(), ctx);
  expect_same(dist, serial, layout_only.global_offset());
  EXPECT_EQ(dist.record.accepted, serial.record.accepted);
  EXPECT_EQ(dist.record.rejected, serial.record.rejected);
  EXPECT_EQ(dist.record.h, serial.record.h);
  EXPECT_GT(serial.record.accepted, 10u);
  EXPECT_GT(serial.record.rejected, 0u);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    std::printf("[pendulum] rkmk54 N=1001: %llu accepted, %llu rejected steps\n",
                static_cast<unsigned long long>(serial.record.accepted), static_cast<unsigned long long>(serial.record.rejected));
}

// The layout: whole virtual blocks per rank, balanced, covering the chain.
TEST(PendulumMpi, RanksOwnBalancedRangesOfWholeBlocks) {
  par::Context ctx(MPI_COMM_WORLD);
  NFoldPendulum model(chain(), ctx);
  const auto& L = model.layout();
  EXPECT_EQ(L.blocks(), 63u);  // min(256, ceil(1001/16))
  std::size_t covered = 0;
  for (int r = 0; r < ctx.size(); ++r) {
    EXPECT_EQ(L.rank_items(r).begin, covered);
    covered = L.rank_items(r).end;
    const std::size_t nb = L.rank_blocks(r).size();
    EXPECT_LE(nb, (L.blocks() + static_cast<std::size_t>(ctx.size()) - 1) / static_cast<std::size_t>(ctx.size()));
    EXPECT_GE(nb, L.blocks() / static_cast<std::size_t>(ctx.size()));
  }
  EXPECT_EQ(covered, kN);
  EXPECT_EQ(model.space().state_size(), 6 * L.local_size());
}

// More ranks than virtual blocks is a clear usage error on every rank.
TEST(PendulumMpi, MoreRanksThanBlocksIsAUsageError) {
  par::Context ctx(MPI_COMM_WORLD);
  NFoldPendulumParams p;
  p.N = 5;  // one virtual block by default
  if (world_size() > 1) {
    try {
      NFoldPendulum model(p, ctx);
      ADD_FAILURE() << "expected a UsageError";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("nfold_pendulum.blocks"), std::string::npos) << e.what();
    }
  } else {
    EXPECT_NO_THROW(NFoldPendulum(p, ctx));
  }
}

// initial = file on several ranks: a distributed chain written collectively to an HDF5
// result-file dataset is read back by another distributed model, each rank its own links.
TEST(PendulumMpi, InitialStateFromFileOnEveryLayout) {
  par::Context ctx(MPI_COMM_WORLD);
  char dir[64] = "/tmp/liebench_pendulum_mpi_XXXXXX";
  if (ctx.is_root() && !mkdtemp(dir)) dir[0] = '\0';
  MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, ctx.comm());
  ASSERT_NE(dir[0], '\0');
  const std::string path = std::string(dir) + "/chain.h5";
  NFoldPendulum writer(chain(), ctx);
  std::vector<double> y(writer.space().state_size());
  writer.initial_state(y.data());
  {
    h5::File f = h5::File::create(path, ctx.comm());
    io::write_state(f, f.id(), "runs/run_00000/final_state", writer, io::state_rows(writer, ctx), y.data());
    f.close();
  }
  NFoldPendulumParams p = chain();
  p.initial = NFoldPendulumParams::Initial::File;
  p.file = path;
  p.N = 0;  // from the dataset
  NFoldPendulum reader(p, ctx);
  EXPECT_EQ(reader.global_components(), kN);
  std::vector<double> read(reader.space().state_size());
  reader.initial_state(read.data());
  EXPECT_EQ(read, y);
  ctx.barrier();
  if (ctx.is_root()) std::filesystem::remove_all(dir);
}

// The classical baselines integrate [P] 5.2's embedded equations (classical_field = paper):
// their O(N) solve runs on the gathered chain, so rk4 and the accelerations at genuinely
// off-manifold points (|q_i| != 1, q_i.w_i != 0) are bitwise those of the serial run.
TEST(PendulumMpi, ClassicalRk4PaperFieldBitwiseEqualsSerial) {
  const Result dist = run(MPI_COMM_WORLD, "rk4", false);
  const Result serial = run(MPI_COMM_SELF, "rk4", false);
  par::Context ctx(MPI_COMM_WORLD);
  NFoldPendulum layout_only(chain(), ctx);
  expect_same(dist, serial, layout_only.global_offset());
  EXPECT_GT(serial.obs.get("unit_norm_error"), 1e-14);  // rk4 really leaves the sphere
}

TEST(PendulumMpi, PaperAccelerationsOffTheSphereBitwiseEqualSerial) {
  auto y_all = random_chain_state(kN, 503, 1.5);
  for (std::size_t i = 0; i < kN; ++i)  // |q_i| in [0.9, 1.1], q_i.w_i != 0
    for (int k = 0; k < 3; ++k) {
      y_all[6 * i + k] *= 1.0 + 0.1 * std::sin(0.7 * static_cast<double>(i) + k);
      y_all[6 * i + 3 + k] += 0.2 * std::cos(1.3 * static_cast<double>(i) + k);
    }
  par::Context self(MPI_COMM_SELF), world(MPI_COMM_WORLD);
  NFoldPendulum serial(chain(), self), dist(chain(), world);
  std::vector<double> h_serial(3 * kN), h_dist(3 * dist.local_links());
  serial.paper_accelerations(y_all.data(), h_serial.data());
  dist.paper_accelerations(y_all.data() + 6 * dist.global_offset(), h_dist.data());
  EXPECT_EQ(0, std::memcmp(h_dist.data(), h_serial.data() + 3 * dist.global_offset(), h_dist.size() * sizeof(double)));
}
