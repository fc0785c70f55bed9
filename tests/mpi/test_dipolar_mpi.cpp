// Dipolar model on P ranks x T threads (CTest runs this file under mpiexec -n 1..4 and
// OMP_NUM_THREADS = 1, 2): N = 257 bodies integrated with fixed-step RKMK4 and adaptive
// RKMK(5,4) must give *bitwise* the same final state, observables and step-size history as a
// serial single-thread run on every rank (deterministic mode: pair sums in global index
// order, exact reductions). The fast mode (Newton's third law inside a rank) must agree to
// 1e-12 relative. Also: each rank reads its own rows of an HDF5 initial state.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
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

DipolarParams params257(double cutoff = 0.0, const PeriodicBox& box = {}) {
  DipolarParams p;
  p.cutoff = cutoff;
  p.box = box;
  p.n = 257;
  p.spread = 60.0;  // minimum distance 1.52 sigma for this seed: interacting, not stiff
  p.seed = 4;
  p.lj_attraction = true;
  return p;
}

// The model's initial state plus random momenta drawn for all bodies in global order.
std::vector<double> start(Dipolar& model) {
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  std::mt19937_64 g(77);
  std::normal_distribution<double> n01(0.0, 1.0);
  const std::size_t b = model.global_offset(), e = b + model.local_bodies();
  for (std::size_t i = 0; i < model.global_components(); ++i)
    for (int k = 0; k < 6; ++k) {
      const double v = 0.4 * n01(g);
      if (i >= b && i < e) y[18 * (i - b) + (k < 3 ? 3 + k : 12 + k)] = v;
    }
  return y;
}

struct RunResult {
  std::vector<double> y;  // local slice of the final state
  Observables obs;
  AdaptiveRecord rec;
};

RunResult run(par::Context& ctx, const std::string& method, bool adaptive, double cutoff = 0.0,
              const PeriodicBox& box = {}) {
  Dipolar model(params257(cutoff, box), ctx);
  RunResult r;
  r.y = start(model);
  auto st = make_stepper(method, Config::from_pairs({{"composition.base", "dlm"}}), model);  // (compositions)
  st->bind(model, ctx);
  if (adaptive) {
    AdaptiveOptions opt;
    opt.t_final = 1.0;
    opt.norm.atol = 1e-7;
    opt.norm.rtol = 1e-7;
    r.rec = integrate_adaptive(*st, ctx, r.y.data(), opt, nullptr, r.y.size());
  } else {
    FixedStepOptions opt;
    opt.h = 0.05;
    opt.steps = 20;
    integrate_fixed(*st, r.y.data(), opt, nullptr);
  }
  model.observables(1.0, r.y.data(), r.obs);
  return r;
}

// Serial single-thread reference (rank 0, broadcast: serial_on_root.hpp), cut to this rank's bodies.
RunResult serial_reference(const std::string& method, bool adaptive, const par::Range& mine, double cutoff = 0.0,
                           const PeriodicBox& box = {}) {
  RunResult r = mpi_testing::on_root<RunResult>([&](par::Context& self) { return run(self, method, adaptive, cutoff, box); });
  mpi_testing::broadcast(r.y);
  mpi_testing::broadcast(r.obs);
  mpi_testing::broadcast(r.rec.h);
  std::vector<double> counts = {static_cast<double>(r.rec.accepted), static_cast<double>(r.rec.rejected)};
  mpi_testing::broadcast(counts);
  r.rec.accepted = static_cast<std::uint64_t>(counts[0]);
  r.rec.rejected = static_cast<std::uint64_t>(counts[1]);
  r.y = std::vector<double>(r.y.begin() + 18 * mine.begin, r.y.begin() + 18 * mine.end);
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

TEST(DipolarMpi, FixedStepRkmk4BitwiseForEveryLayout) {
  par::Context world(MPI_COMM_WORLD, true);
  const par::Range mine = par::balanced_range(257, world.size(), world.rank());
  const RunResult dist = run(world, "rkmk4", false);
  const RunResult ref = serial_reference("rkmk4", false, mine);
  expect_bitwise(dist, ref);
  EXPECT_GT(std::fabs(ref.obs.get("potential_energy")), 1e-3) << "the bodies must interact";
}

// The rigid-body splittings (issue 26) use the same pair machinery through forces_and_torques:
// one force evaluation per step, the same bits on every ranks x threads layout; so do their
// compositions (methods/composition.hpp).
TEST(DipolarMpi, SplittingsBitwiseForEveryLayout) {
  par::Context world(MPI_COMM_WORLD, true);
  const par::Range mine = par::balanced_range(257, world.size(), world.rank());
  for (const std::string method : {"dlm", "no_squish", "rotor_exact", "composition:kahan_li6"}) {
    const RunResult dist = run(world, method, false);
    const RunResult ref = serial_reference(method, false, mine);
    expect_bitwise(dist, ref);
  }
}

// Each pair once in fixed tiles, decomposed by par::PairPlan: 1000 bodies make 8 tiles and 36
// tile pairs, 4500 bodies 18 tiles of 256 (171 tile pairs; ranks own bodies across tile
// boundaries, subtrees of the partner-tile tree come from several ranks), shared out over the
// ranks and threads; 100 bodies make two tiles. The vector field and the potential energy must
// not change by a bit, whichever way the plan moves positions and sums (dipolar.pair_messages:
// two levels, direct, the plan's choice), whatever carries them (dipolar.pair_transport: MPI
// messages, or the shared-memory window that auto takes on 2 or more ranks of one node) and
// whoever owns the bodies (dipolar.pair_owners: at N = 100 on 2 ranks whole tiles 0..63 | 64..99
// by default, 0..49 | 50..99 balanced).
TEST(DipolarMpi, TiledPairSumsBitwiseForEveryLayout) {
  using M = par::PairPlan::Messages;
  using T = par::PhaseExchange::Transport;
  using O = par::PairPlan::Owners;
  for (const O owners : {O::automatic, O::balanced})
  for (const T transport : {T::automatic, T::messages})
  for (const M messages : {M::automatic, M::two_level, M::direct})
  for (const std::size_t n : {100u, 1000u, 4500u}) {
  if (owners == O::balanced && n != 100) continue;  // the owners differ only where T = P (N = 100 on 2 ranks)
  SCOPED_TRACE("N = " + std::to_string(n) + (messages == M::direct ? ", direct" : messages == M::two_level ? ", two levels" : "") +
               (transport == T::messages ? ", MPI messages" : "") + (owners == O::balanced ? ", balanced owners" : ""));
  DipolarParams p;
  p.pair_messages = messages;
  p.pair_owners = owners;
  p.pair_transport = transport;
  p.n = n;
  p.spread = n == 100 ? 15.0 : n == 1000 ? 40.0 : 70.0;
  p.seed = 9;
  p.lj_attraction = true;
  auto evaluate = [&](par::Context& ctx, std::vector<double>& f, double& V) {
    Dipolar model(p, ctx);
    std::vector<double> y = start(model);
    f.assign(model.space().alg_size(), 0.0);
    model.vector_field(0.0, y.data(), f.data());
    V = model.potential_energy(y.data());
    return model.global_offset();
  };
  par::Context world(MPI_COMM_WORLD, true);
  std::vector<double> f, fref;
  double V = 0.0, Vref = 0.0;
  const std::size_t b = evaluate(world, f, V);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  par::Context self(MPI_COMM_SELF, true);
  evaluate(self, fref, Vref);
  omp_set_num_threads(threads);
  ASSERT_LE(12 * b + f.size(), fref.size());
  EXPECT_EQ(std::memcmp(f.data(), fref.data() + 12 * b, f.size() * sizeof(double)), 0);
  EXPECT_EQ(V, Vref);
  EXPECT_GT(std::fabs(Vref), 1e-3) << "the bodies must interact";
  }
}

TEST(DipolarMpi, CutoffCellListBitwiseForEveryLayout) {
  par::Context world(MPI_COMM_WORLD, true);
  const par::Range mine = par::balanced_range(257, world.size(), world.rank());
  const RunResult dist = run(world, "rkmk4", false, 12.0);
  const RunResult ref = serial_reference("rkmk4", false, mine, 12.0);
  expect_bitwise(dist, ref);
  const RunResult all = serial_reference("rkmk4", false, mine);
  EXPECT_NE(all.obs.get("potential_energy"), ref.obs.get("potential_energy")) << "the cutoff must matter";
}

// The cutoff path in a periodic box (issue 28): x and y periodic (100: the cloud of spread 60
// folds over the faces), z open; minimum image in the cell-list sums. RKMK4 and dlm, the same
// bits on every layout.
TEST(DipolarMpi, CutoffInPeriodicBoxBitwiseForEveryLayout) {
  par::Context world(MPI_COMM_WORLD, true);
  const par::Range mine = par::balanced_range(257, world.size(), world.rank());
  PeriodicBox box;
  box.length = {100.0, 100.0, 100.0};
  box.periodic = {true, true, false};
  for (const std::string method : {"rkmk4", "dlm"}) {
    const RunResult dist = run(world, method, false, 12.0, box);
    const RunResult ref = serial_reference(method, false, mine, 12.0, box);
    expect_bitwise(dist, ref);
    const RunResult open = serial_reference(method, false, mine, 12.0);
    EXPECT_NE(open.obs.get("potential_energy"), ref.obs.get("potential_energy")) << "the box must matter";
    EXPECT_TRUE(std::isfinite(ref.obs.get("total_energy")));
  }
}

TEST(DipolarMpi, AdaptiveRkmk54BitwiseForEveryLayout) {
  par::Context world(MPI_COMM_WORLD, true);
  const par::Range mine = par::balanced_range(257, world.size(), world.rank());
  const RunResult dist = run(world, "rkmk54", true);
  const RunResult ref = serial_reference("rkmk54", true, mine);
  expect_bitwise(dist, ref);
  EXPECT_EQ(dist.rec.accepted, ref.rec.accepted);
  EXPECT_EQ(dist.rec.rejected, ref.rec.rejected);
  EXPECT_EQ(dist.rec.h, ref.rec.h);
  EXPECT_GT(ref.rec.accepted, 5u);
}

TEST(DipolarMpi, FastModeAgreesTo1e12) {
  par::Context fast(MPI_COMM_WORLD, false);
  const par::Range mine = par::balanced_range(257, fast.size(), fast.rank());
  for (const std::string method : {"rkmk4", "rkmk54"}) {
    const bool adaptive = method == "rkmk54";
    const RunResult dist = run(fast, method, adaptive);
    const RunResult ref = serial_reference(method, adaptive, mine);
    double dmax = 0.0, ymax = 0.0;
    for (std::size_t k = 0; k < ref.y.size(); ++k) {
      dmax = std::max(dmax, std::fabs(dist.y[k] - ref.y[k]));
      ymax = std::max(ymax, std::fabs(ref.y[k]));
    }
    dmax = fast.max(dmax);
    ymax = fast.max(ymax);
    EXPECT_LE(dmax, 1e-12 * ymax) << method;
    // Relative to each observable, momentum components relative to the norm of their vector;
    // the orthogonality error (~1e-14) to 1e-15 absolute.
    auto norm3 = [&](const std::string& stem) {
      return std::hypot(ref.obs.get(stem + "_x"), ref.obs.get(stem + "_y"), ref.obs.get(stem + "_z"));
    };
    for (const auto& [name, v] : ref.obs.items()) {
      double tol = 1e-12 * std::fabs(v);
      if (name == "orthogonality_error") tol = 1e-15;
      for (const std::string stem : {"linear_momentum", "angular_momentum"})
        if (name.rfind(stem, 0) == 0) tol = 1e-12 * norm3(stem);
      EXPECT_LE(std::fabs(dist.obs.get(name) - v), tol) << method << " " << name;
    }
    if (adaptive) {
      EXPECT_EQ(dist.rec.accepted, ref.rec.accepted) << method;
    }
  }
}

TEST(DipolarMpi, EachRankReadsItsRowsFromHdf5) {
  par::Context world(MPI_COMM_WORLD, true);
  DipolarParams p = params257();
  // one file per ctest variant (npP.ompT run side by side under ctest -j)
  const std::string path =
      "dipolar_mpi_state_np" + std::to_string(world.size()) + "_omp" + std::to_string(omp_get_max_threads()) + ".h5";
  std::vector<double> global;
  {
    par::Context self(MPI_COMM_SELF, true);
    Dipolar all(p, self);
    global = start(all);
  }
  if (world.rank() == 0) {
    const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    const hsize_t dims[2] = {p.n, 18};
    const hid_t sp = H5Screate_simple(2, dims, nullptr);
    const hid_t d = H5Dcreate2(f, "/runs/run_00000/final_state", H5T_IEEE_F64LE, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, global.data());
    H5Dclose(d);
    H5Sclose(sp);
    H5Pclose(lcpl);
    H5Fclose(f);
  }
  world.barrier();
  DipolarParams fp;
  fp.initial = DipolarParams::Initial::File;
  fp.file = path;
  fp.n = 0;
  Dipolar model(fp, world);
  ASSERT_EQ(model.global_components(), p.n);
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());
  const std::size_t b = model.global_offset();
  EXPECT_EQ(y, std::vector<double>(global.begin() + 18 * b, global.begin() + 18 * (b + model.local_bodies())));
  world.barrier();
  if (world.rank() == 0) std::remove(path.c_str());
}
