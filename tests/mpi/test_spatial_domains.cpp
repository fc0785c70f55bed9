// The dipolar cutoff path on its spatial decomposition (issue 28, parallel/spatial_domains.hpp),
// under mpiexec -n 1..4 x OMP_NUM_THREADS 1, 2: a lattice of soft dipolar LJ spheres in a
// periodic box, integrated with RKMK4 and dlm, gives bitwise the serial single-thread final
// state for every skin (so for every list-rebuild schedule: skin 0 rebuilds at every
// evaluation) and every layout; the memory and the bytes sent per rank fall with the ranks.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/dipolar.hpp"
#include "serial_on_root.hpp"

using namespace lie;

namespace {

// side^3 bodies at reduced density 0.8, rc = 2.5, LJ + dipoles (kappa 1).
DipolarParams lattice(std::size_t side, double skin) {
  DipolarParams p;
  p.initial = DipolarParams::Initial::Lattice;
  p.lattice = {side, side, side};
  p.n = side * side * side;
  const double L = static_cast<double>(side) / std::cbrt(0.8);
  p.box.length = {L, L, L};
  p.box.periodic = {true, true, true};
  p.cutoff = 2.5;
  p.skin = skin;
  p.lj_attraction = true;
  p.seed = 3;
  return p;
}

struct BoxRun {
  std::vector<double> y;  // local slice of the final state
  double energy = 0.0;
  par::DomainTraffic traffic;
};

BoxRun run(par::Context& ctx, const std::string& method, double skin, std::size_t side = 8, int steps = 60) {
  Dipolar model(lattice(side, skin), ctx);
  BoxRun r;
  r.y.resize(model.space().state_size());
  model.initial_state(r.y.data());
  // momenta drawn for all bodies in global order (1 per component: they leave their sites and
  // cross the skins within tens of steps)
  std::mt19937_64 g(11);
  std::normal_distribution<double> n01(0.0, 1.0);
  const std::size_t b = model.global_offset(), e = b + model.local_bodies();
  for (std::size_t i = 0; i < model.global_components(); ++i)
    for (int k = 0; k < 6; ++k) {
      const double v = n01(g);
      if (i >= b && i < e) r.y[18 * (i - b) + (k < 3 ? 3 + k : 12 + k)] = v;
    }
  auto st = make_stepper(method, Config(), model);
  st->bind(model, ctx);
  FixedStepOptions opt;
  opt.h = 0.002;
  opt.steps = steps;
  integrate_fixed(*st, r.y.data(), opt, nullptr);
  Observables obs;
  model.observables(0.0, r.y.data(), obs);
  r.energy = obs.get("total_energy");
  r.traffic = model.domains()->traffic();
  return r;
}

// The serial single-thread run (rank 0, broadcast: serial_on_root.hpp), cut to this rank's bodies.
BoxRun serial(const std::string& method, double skin, const par::Range& mine) {
  BoxRun r = mpi_testing::on_root<BoxRun>([&](par::Context& self) { return run(self, method, skin); });
  mpi_testing::broadcast(r.y);
  std::vector<double> e = {r.energy};
  mpi_testing::broadcast(e);
  r.energy = e[0];
  r.y = std::vector<double>(r.y.begin() + 18 * static_cast<std::ptrdiff_t>(mine.begin),
                            r.y.begin() + 18 * static_cast<std::ptrdiff_t>(mine.end));
  return r;
}

std::size_t differing(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return a.size() + b.size();
  std::size_t d = 0;
  for (std::size_t k = 0; k < a.size(); ++k) d += std::memcmp(&a[k], &b[k], sizeof(double)) != 0;
  return d;
}

}  // namespace

TEST(SpatialDomains, LatticeStartFillsTheBoxAlongTheMortonCurve) {
  par::Context self(MPI_COMM_SELF, true);
  DipolarParams p = lattice(4, 0.3);
  p.cutoff = 2.0;  // <= L/2 = 2.15
  Dipolar model(p, self);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  const double a = p.box.length[0] / 4.0;
  // Morton order: body 0 at site (0,0,0), 1 at (1,0,0), 2 at (0,1,0), 3 at (1,1,0), 4 at (0,0,1), 8 at (2,0,0)
  const int expect[][4] = {{0, 0, 0, 0}, {1, 1, 0, 0}, {2, 0, 1, 0}, {3, 1, 1, 0}, {4, 0, 0, 1}, {8, 2, 0, 0}, {63, 3, 3, 3}};
  for (const auto& e : expect)
    for (int d = 0; d < 3; ++d) EXPECT_EQ(y[18 * e[0] + d], (e[1 + d] + 0.5) * a) << "body " << e[0] << " axis " << d;
  std::vector<int> seen(64, 0);
  for (std::size_t i = 0; i < 64; ++i) {
    const int ix = static_cast<int>(y[18 * i] / a), iy = static_cast<int>(y[18 * i + 1] / a), iz = static_cast<int>(y[18 * i + 2] / a);
    ++seen[static_cast<std::size_t>(ix + 4 * (iy + 4 * iz))];
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> Q(&y[18 * i + 6]);
    EXPECT_LT((Q.transpose() * Q - Eigen::Matrix3d::Identity()).norm(), 1e-14);
    EXPECT_NEAR(Q.determinant(), 1.0, 1e-14);
  }
  for (int c : seen) EXPECT_EQ(c, 1) << "every site once";
  // the orientations differ from body to body (a stream per body)
  EXPECT_NE(y[6], y[18 + 6]);
  // Both ways of numbering (a cube of 2^k sites and the bricks 2^(k+1) x 2^k x 2^k,
  // 2^(k+1) x 2^(k+1) x 2^k: the key's cell; else the sorted keys, also for 4 x 8 x 4, whose
  // keys do not fill 0 .. N - 1): every site once, in strictly increasing Morton key.
  for (const std::array<std::size_t, 3> dims :
       {std::array<std::size_t, 3>{8, 8, 8}, std::array<std::size_t, 3>{6, 4, 5}, std::array<std::size_t, 3>{8, 4, 4},
        std::array<std::size_t, 3>{8, 8, 4}, std::array<std::size_t, 3>{4, 8, 4}, std::array<std::size_t, 3>{16, 4, 4}}) {
    DipolarParams q = lattice(4, 0.3);
    q.lattice = dims;
    q.n = dims[0] * dims[1] * dims[2];
    q.box.length = {2.0 * dims[0], 2.0 * dims[1], 2.0 * dims[2]};
    q.cutoff = 1.5;
    Dipolar m(q, self);
    std::vector<double> s(m.space().state_size());
    m.initial_state(s.data());
    std::vector<int> hit(q.n, 0);
    std::uint64_t last = 0;
    for (std::size_t i = 0; i < q.n; ++i) {
      const auto c = [&](int d) { return static_cast<std::uint64_t>(s[18 * i + static_cast<std::size_t>(d)] / 2.0); };
      const std::uint64_t key = par::morton_key(c(0), c(1), c(2));
      if (i > 0) {
        EXPECT_GT(key, last) << "body " << i << " of " << dims[0] << "x" << dims[1] << "x" << dims[2];
      }
      last = key;
      ++hit[c(0) + dims[0] * (c(1) + dims[1] * c(2))];
    }
    for (int h : hit) EXPECT_EQ(h, 1);
  }
}

TEST(SpatialDomains, SameBitsForEverySkinAndLayout) {
  par::Context world(MPI_COMM_WORLD, true);
  const par::Range mine = par::balanced_range(512, world.size(), world.rank());
  for (const std::string method : {"rkmk4", "dlm"}) {
    const BoxRun ref = serial(method, 0.3, mine);
    ASSERT_TRUE(std::isfinite(ref.energy));
    std::uint64_t rebuilds_thin = 0, rebuilds_thick = 0;
    for (const double skin : {0.0, 0.05, 1.0}) {
      const BoxRun r = run(world, method, skin);
      EXPECT_EQ(differing(r.y, ref.y), 0u) << method << " skin " << skin << " on " << world.size() << " ranks";
      EXPECT_EQ(r.energy, ref.energy) << method << " skin " << skin;
      // skin 0: a rebuild at every evaluation where a body has moved (dlm evaluates the final
      // state's forces twice: in its last kick and in the observables)
      if (skin == 0.0) {
        EXPECT_GE(r.traffic.rebuilds + 1, r.traffic.evaluations) << method;
      }
      if (skin == 0.05) rebuilds_thin = r.traffic.rebuilds;
      if (skin == 1.0) rebuilds_thick = r.traffic.rebuilds;
    }
    EXPECT_GT(rebuilds_thin, 3u) << method << ": the lists must be rebuilt during the run";
    EXPECT_LT(rebuilds_thick, rebuilds_thin) << method;
  }
}

// Memory per rank falls with the ranks, and the bytes a rank sends per evaluation are the
// ghost layers' and the returned sums', a fraction of what an allgather of all bodies moves
// (48 bytes of each of the other ranks' bodies): the same 32768 bodies decomposed over the first
// q = 1 .. P ranks (sub-communicators), after one step. (Per-rank communication falls with P
// only as the domains' surface does: from 2 to 4 ranks a Morton split of a cube goes from two
// slabs to four columns, with the same face area per rank. Measured 2026-11-27: 0.41, 0.51 and
// 0.31 of the allgather's bytes on 2, 3, 4 ranks; a third of the Morton curve is not a box, so
// 3 ranks have more surface.)
TEST(SpatialDomains, MemoryFallsWithTheRanksAndTrafficIsTheGhostLayers) {
  par::Context world(MPI_COMM_WORLD, true);
  constexpr std::size_t kSide = 32, kN = kSide * kSide * kSide;
  std::vector<double> held(5, 0.0), sent(5, 0.0), messages(5, 0.0);
  for (int q = 1; q <= world.size(); ++q) {
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, world.rank() < q ? 0 : MPI_UNDEFINED, world.rank(), &sub);
    double h = 0.0, s = 0.0, m = 0.0;
    if (sub != MPI_COMM_NULL) {
      par::Context ctx(sub, true);
      const BoxRun r = run(ctx, "lie_euler", 0.3, kSide, 1);
      h = static_cast<double>(r.traffic.bytes_held);
      s = static_cast<double>(r.traffic.bytes_per_evaluation);
      m = static_cast<double>(r.traffic.messages_per_evaluation);
      MPI_Comm_free(&sub);
    }
    const std::size_t qq = static_cast<std::size_t>(q);
    held[qq] = world.max(h);
    sent[qq] = world.max(s);
    messages[qq] = world.max(m);
  }
  if (world.is_root())
    for (int q = 1; q <= world.size(); ++q)
      std::printf("q = %d: bytes held %.0f, bytes sent per evaluation %.0f, messages %.0f (max over ranks)\n", q,
                  held[static_cast<std::size_t>(q)], sent[static_cast<std::size_t>(q)], messages[static_cast<std::size_t>(q)]);
  EXPECT_GT(held[1], 100.0 * kN) << "the Verlet lists of all bodies";
  for (int q = 2; q <= world.size(); ++q) {
    const std::size_t qq = static_cast<std::size_t>(q);
    EXPECT_LT(held[qq], held[qq - 1]) << "bytes held per rank must fall from " << q - 1 << " to " << q << " ranks";
    EXPECT_LT(held[qq], 1.5 * held[1] / q) << q << " ranks: homes ~ N / q with their lists, plus the ghosts";
    EXPECT_LE(messages[qq], 2.0 * (q - 1)) << "positions out and sums back, at most once per other rank";
    const double allgather = 48.0 * kN * (q - 1) / q;
    EXPECT_LT(sent[qq], 0.6 * allgather) << q << " ranks";
  }
}
