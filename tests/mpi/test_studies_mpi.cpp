// Studies under 1-4 ranks x 1-2 threads: the /summary numbers and the final states of a
// study must be bitwise those of the same study on one rank, whether it ran in one job or
// in parts that were merged.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "app/commands.hpp"
#include "io/h5.hpp"
#include "studies/study.hpp"
#include "studies/summary.hpp"
#include "unit/test_studies_models.hpp"

using namespace lie;
using namespace lie::studies;

namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/// A scratch directory made by rank 0, known to every rank, removed by rank 0 at exit.
struct SharedScratch {
  std::string dir;
  bool owner = false;
  SharedScratch() {
    char buf[256] = {0};
    owner = world_rank() == 0;
    if (owner) {
      char tmpl[] = "/tmp/liebench_mpi_XXXXXX";
      const char* d = mkdtemp(tmpl);
      std::snprintf(buf, sizeof buf, "%s", d ? d : "");
    }
    MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
    dir = buf;
  }
  ~SharedScratch() {
    if (owner && !dir.empty()) std::filesystem::remove_all(dir);
  }
};

std::string shared_scratch() {
  static SharedScratch s;
  return s.dir;
}

void run_on(MPI_Comm comm, const std::vector<std::pair<std::string, std::string>>& kv, const std::string& out,
            long part = 0, long parts = 1) {
  par::Context ctx(comm);
  RunRequest req;
  req.output = out;
  req.force = true;
  req.progress = false;
  req.part_index = part;
  req.part_count = parts;
  run_study(Config::from_pairs(kv), ctx, req);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Rank 0: every summary cell and every final state equal, bit for bit.
void expect_same_results(const std::string& a, const std::string& b) {
  if (world_rank() != 0) return;
  h5::File fa = h5::File::open_read(a), fb = h5::File::open_read(b);
  const Summary sa = Summary::read(fa.id()), sb = Summary::read(fb.id());
  ASSERT_EQ(sa.rows(), sb.rows());
  ASSERT_EQ(sa.columns().size(), sb.columns().size());
  for (std::size_t c = 0; c < sa.columns().size(); ++c) {
    const Column& x = sa.columns()[c];
    const Column& y = sb.columns()[c];
    ASSERT_EQ(x.name, y.name);
    for (std::size_t i = 0; i < sa.rows(); ++i) {
      if (x.kind == h5::Kind::Real) EXPECT_TRUE(same_bits(x.reals[i], y.reals[i])) << x.name << " row " << i << ": " << x.reals[i] << " vs " << y.reals[i];
      else EXPECT_EQ(x.text(i), y.text(i)) << x.name << " row " << i;
    }
  }
  for (const auto& id : sa.get("run_id").texts) {
    const auto ya = h5::read_doubles(fa.id(), "runs/" + id + "/final_state");
    const auto yb = h5::read_doubles(fb.id(), "runs/" + id + "/final_state");
    ASSERT_EQ(ya.size(), yb.size());
    for (std::size_t i = 0; i < ya.size(); ++i) EXPECT_TRUE(same_bits(ya[i], yb[i])) << id << " value " << i;
  }
}

const std::vector<std::pair<std::string, std::string>> kConvergence = {
    {"study", "convergence"}, {"model", "test_symmetric_tops"}, {"test_symmetric_tops.n", "7"},
    {"methods", "lie_euler_heun, rkmk4"}, {"steps", "8, 16, 32"}, {"t_final", "2"}};

}  // namespace

TEST(StudiesMpi, ConvergenceSummaryIndependentOfLayout) {
  const std::string dir = shared_scratch();
  run_on(MPI_COMM_WORLD, kConvergence, dir + "/conv_par.h5");
  if (world_rank() == 0) run_on(MPI_COMM_SELF, kConvergence, dir + "/conv_ser.h5");
  MPI_Barrier(MPI_COMM_WORLD);
  expect_same_results(dir + "/conv_par.h5", dir + "/conv_ser.h5");
}

TEST(StudiesMpi, PartsMergedEqualOneJob) {
  const std::string dir = shared_scratch();
  for (long k = 0; k < 3; ++k) run_on(MPI_COMM_WORLD, kConvergence, dir + "/part" + std::to_string(k) + ".h5", k, 3);
  const CommandEntry* merge = CommandRegistry::instance().find("merge");
  ASSERT_NE(merge, nullptr);
  EXPECT_EQ(merge->main({dir + "/part2.h5", dir + "/part0.h5", dir + "/part1.h5", "--output", dir + "/merged.h5",
                         "--force"}),
            0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) run_on(MPI_COMM_SELF, kConvergence, dir + "/one_job.h5");
  MPI_Barrier(MPI_COMM_WORLD);
  expect_same_results(dir + "/merged.h5", dir + "/one_job.h5");
}

TEST(StudiesMpi, InvariantsAndReplicatedModelIndependentOfLayout) {
  const std::string dir = shared_scratch();
  const std::vector<std::pair<std::string, std::string>> inv = {
      {"study", "invariants"}, {"model", "test_symmetric_tops"}, {"test_symmetric_tops.n", "5"},
      {"methods", "rkmk4, lie_euler"}, {"dt", "0.1"}, {"t_final", "5"}, {"sample_every", "5"}};
  run_on(MPI_COMM_WORLD, inv, dir + "/inv_par.h5");
  // free_rigid_body holds its one body on every rank; errors must not count it P times
  const std::vector<std::pair<std::string, std::string>> frb = {
      {"study", "convergence"}, {"model", "free_rigid_body"}, {"free_rigid_body.attitude", "true"},
      {"methods", "rkmk3"}, {"steps", "8, 16"}, {"reference.method", "rkmk5"}, {"reference.steps", "256"}};
  run_on(MPI_COMM_WORLD, frb, dir + "/frb_par.h5");
  if (world_rank() == 0) {
    run_on(MPI_COMM_SELF, inv, dir + "/inv_ser.h5");
    run_on(MPI_COMM_SELF, frb, dir + "/frb_ser.h5");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_same_results(dir + "/inv_par.h5", dir + "/inv_ser.h5");
  expect_same_results(dir + "/frb_par.h5", dir + "/frb_ser.h5");
}
