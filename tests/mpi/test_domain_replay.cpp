// The decomposition's traffic replayed from the geometry (parallel/domain_replay.hpp), under
// mpiexec -n 1..4: on lattice starts in periodic boxes, every rank's replayed counters -- home
// bodies, ghosts, Verlet list entries, messages and bytes per evaluation, splitters -- are
// those the real decomposition reports after one field evaluation of the dipolar model. The
// replay is what the simulated clusters run at 10^8 bodies; this is why its numbers are the
// decomposition's.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/dipolar.hpp"
#include "parallel/domain_replay.hpp"

using namespace lie;

namespace {

DipolarParams box_lattice(std::size_t nx, std::size_t ny, std::size_t nz, double skin) {
  DipolarParams p;
  p.initial = DipolarParams::Initial::Lattice;
  p.lattice = {nx, ny, nz};
  p.n = nx * ny * nz;
  const double a = 1.0 / std::cbrt(0.8);  // density 0.8
  p.box.length = {a * static_cast<double>(nx), a * static_cast<double>(ny), a * static_cast<double>(nz)};
  p.box.periodic = {true, true, true};
  p.cutoff = 2.5;
  p.skin = skin;
  p.lj_attraction = true;
  p.seed = 5;
  return p;
}

void expect_replay_matches(const DipolarParams& p, const std::string& what) {
  par::Context ctx(MPI_COMM_WORLD);
  Dipolar model(p, ctx);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  Observables obs;
  model.observables(0.0, y.data(), obs);  // one evaluation: the rebuild, positions out, rows back
  const par::DomainTraffic& real = model.domains()->traffic();

  par::SpatialDomains::Options o;
  o.cutoff = p.cutoff;
  o.skin = p.skin;
  o.box = p.box;
  const LatticeSites sites(p.lattice, p.box.length);
  const par::Range owned{model.global_offset(), model.global_offset() + model.local_bodies()};
  const std::size_t n[3] = {p.lattice[0], p.lattice[1], p.lattice[2]};
  par::DomainReplay replay(o, owned, ctx, [&](std::size_t i, double* q) { sites.position(i, q); },
                           par::lattice_list_entries(o, n));
  replay.evaluate(7, 0.0);
  const par::DomainTraffic& r = replay.traffic();
  SCOPED_TRACE(what + " rank " + std::to_string(ctx.rank()) + " of " + std::to_string(ctx.size()));
  EXPECT_EQ(replay.splitters(), model.domains()->splitters());
  EXPECT_EQ(r.home, real.home);
  EXPECT_EQ(r.ghosts, real.ghosts);
  EXPECT_EQ(r.list_entries, real.list_entries);
  EXPECT_EQ(r.messages_per_evaluation, real.messages_per_evaluation);
  EXPECT_EQ(r.bytes_per_evaluation, real.bytes_per_evaluation);
  // memory: the replay counts sizes, the decomposition capacities (>= sizes, within 2x)
  EXPECT_LE(r.bytes_held, real.bytes_held);
  EXPECT_GE(2 * r.bytes_held, real.bytes_held);
  // something crossed ranks where there are several (the comparison is not of zeros)
  if (ctx.size() > 1) {
    EXPECT_GT(ctx.sum(static_cast<double>(real.messages_per_evaluation)), 0.0);
  }
}

}  // namespace

TEST(DomainReplay, CountersAreTheDecompositionsOnACubeOf2kSites) {
  expect_replay_matches(box_lattice(16, 16, 16, 0.3), "16^3");
}

TEST(DomainReplay, CountersAreTheDecompositionsOnABrickAndAnotherSkin) {
  // not a cube of 2^k: the sorted-site path of LatticeSites; 3 list cells on the short axis
  expect_replay_matches(box_lattice(12, 10, 9, 0.6), "12x10x9");
}

TEST(DomainReplay, ListEntriesAreTheLatticeCoordination) {
  // density 0.8, reach 2.8: the sites at squared distance k a^2 < 7.84 with a^2 = 1.1604, k <= 6:
  // shells k = 1, 2, 3, 4, 5, 6 of the simple cubic lattice hold 6, 12, 8, 6, 24, 24 sites
  par::SpatialDomains::Options o;
  o.cutoff = 2.5;
  o.skin = 0.3;
  const double a = 1.0 / std::cbrt(0.8);
  o.box.length = {16 * a, 16 * a, 16 * a};
  o.box.periodic = {true, true, true};
  const std::size_t n[3] = {16, 16, 16};
  EXPECT_EQ(par::lattice_list_entries(o, n), 6u + 12u + 8u + 6u + 24u + 24u);
  o.skin = 0.0;  // rc 2.5: k <= 5
  EXPECT_EQ(par::lattice_list_entries(o, n), 6u + 12u + 8u + 6u + 24u);
}
