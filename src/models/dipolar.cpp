#include "models/dipolar.hpp"

#include "core/numeric.hpp"
#include "core/quote.hpp"
#include "groups/maps.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>

#include <Eigen/Eigenvalues>

#include "groups/so3.hpp"
#include "io/hdf5_rows.hpp"
#include "parallel/exact_sum.hpp"
#include "parallel/loops.hpp"

namespace lie {

namespace {

const bool kKeys = declare_options({
    {"dipolar.N", OptionType::PositiveInt, "100", "number of bodies (for initial = file: taken from the file if unset)",
     {}, "dipolar"},
    {"dipolar.mass", OptionType::PositiveReal, "1", "mass M of every body", {}, "dipolar"},
    {"dipolar.inertia", OptionType::PositiveRealList, "1, 1.88, 2.88",
     "principal moments of inertia I1, I2, I3 of every body ([K] 3.2.2: water)", {}, "dipolar"},
    {"dipolar.epsilon", OptionType::NonNegativeReal, "1", "epsilon of the 4 eps (sigma/r)^12 soft-sphere term", {},
     "dipolar"},
    {"dipolar.sigma", OptionType::PositiveReal, "1", "sigma of the soft-sphere term", {}, "dipolar"},
    {"dipolar.dipole", OptionType::RealList, "0, 1, 1",
     "body-frame dipole mubar (mu_i = Q_i mubar); default (1, 1, 0) for initial = random2d", {}, "dipolar"},
    {"dipolar.dipole_strength", OptionType::NonNegativeReal, "1",
     "coupling kappa of the dipole-dipole energy kappa (mu_i.mu_j/r^3 - 3 (mu_i.r)(mu_j.r)/r^5); 0: soft spheres only",
     {}, "dipolar"},
    {"dipolar.lj_attraction", OptionType::Bool, "false",
     "add the attractive -4 eps (sigma/r)^6 term (Lennard-Jones + dipole, the usual MD model)", {}, "dipolar"},
    {"dipolar.cutoff", OptionType::NonNegativeReal, "0",
     "pair cutoff radius r < rc (truncated forces and energy, as LAMMPS lj/cut/dipole/cut: the energy jumps when "
     "pairs cross it); 0: all pairs, as [K]", {}, "dipolar"},
    {"dipolar.skin", OptionType::NonNegativeReal, "0.3",
     "Verlet skin of the cutoff path: lists hold the pairs within cutoff + skin and are rebuilt when a body has moved "
     "more than skin/2 (as LAMMPS's neighbor skin; results do not depend on it, only the cost)", {}, "dipolar"},
    {"dipolar.cutoff_shift", OptionType::Bool, "false",
     "subtract the soft-sphere/LJ value 4 eps ((sigma/rc)^12 - a (sigma/rc)^6) from every pair within the cutoff "
     "(energy only, as pair_modify shift yes for lj/cut/dipole/cut; the dipole term is not shifted); needs a cutoff",
     {}, "dipolar"},
    {"dipolar.box", OptionType::PositiveRealList, "",
     "orthorhombic box lengths Lx, Ly, Lz of [0, L) (minimum image on the periodic axes; the state keeps unwrapped "
     "positions); unset: no box (unbounded, as [K]); needs 0 < cutoff <= L/2 on every periodic axis",
     {}, "dipolar"},
    {"dipolar.periodic", OptionType::ChoiceList, "x, y, z",
     "the periodic axes of dipolar.box (the others are open: unbounded, length unused)", {"x", "y", "z"},
     "dipolar"},
    {"dipolar.pair_messages", OptionType::Choice, "auto",
     "how the all-pairs path moves positions and sums between ranks: two_level (through each tile's root: few "
     "messages on many ranks, four rounds per evaluation), direct (owners straight to readers and back: two rounds) "
     "or auto (direct on 2-8 ranks where it posts no more messages; parallel/pair_plan.hpp). The same bits",
     {"auto", "two_level", "direct"}, "dipolar"},
    {"dipolar.pair_owners", OptionType::Choice, "auto",
     "which bodies each rank owns on the all-pairs path: balanced (contiguous ranges of N / P) or auto (one whole "
     "tile per rank where the tiles are as many as the ranks among few tile pairs and that lowers the busiest "
     "rank's estimated cost, as for N = 100 on 2 ranks; else balanced; parallel/pair_plan.hpp, \"Owners\"). The "
     "same bits",
     {"auto", "balanced"}, "dipolar"},
    {"dipolar.pair_transport", OptionType::Choice, "auto",
     "how the all-pairs path's rounds travel between ranks: messages (MPI Isend/Irecv), shared_memory (an MPI-3 "
     "shared window: needs every rank on one node) or auto (shared_memory when 2 or more ranks are all on one "
     "node and each rank's window stays within 4 MiB; parallel/phase_exchange.hpp). The same bits",
     {"auto", "messages", "shared_memory"}, "dipolar"},
    {"dipolar.order_parameters", OptionType::Bool, "false",
     "also observe the orientational order: polarization |sum mu_i| / (N |mubar|) and nematic_order, the largest "
     "eigenvalue of (1/N) sum (3 u_i u_i^T - I) / 2 with u_i = mu_i / |mu_i| (1: aligned, 0: isotropic)",
     {}, "dipolar"},
    {"dipolar.initial", OptionType::Choice, "random",
     "initial state: random ([K] 3.2.2), random2d (the 2-D variant), lattice (simple cubic lattice filling "
     "dipolar.box, random orientations, numbered along a Morton curve), file (HDF5 rows [N][18])",
     {"random", "random2d", "lattice", "file"}, "dipolar"},
    {"dipolar.lattice", OptionType::PositiveIntList, "",
     "initial = lattice: sites nx, ny, nz of the simple cubic lattice (N = nx ny nz; spacing L/n per axis)", {},
     "dipolar"},
    {"dipolar.spread", OptionType::NonNegativeReal, "0",
     "positions: Gaussian components scaled so that the largest is +-spread; 0: spread = N ([K])", {}, "dipolar"},
    {"dipolar.seed", OptionType::NonNegativeInt, "1", "seed of the random initial state", {}, "dipolar"},
    {"dipolar.file", OptionType::String, "", "HDF5 file of the initial state (initial = file)", {}, "dipolar"},
    {"dipolar.dataset", OptionType::String, "/runs/run_00000/final_state",
     "dataset [N][18] rows (q, p, Q row-major, m) in dipolar.file", {}, "dipolar"},
});

// SMPI build only (SimGrid's mpi.h defines SMPI_SAMPLE_FLOPS): with LIEBENCH_SMPI_MODEL_PAIRS=1
// the tile-pair kernel is not run; each rank injects the time of its tile pairs as
// smpi_execute_flops(ordered pair interactions), i.e. pairs / smpi/host-speed, whose unit is
// "ordered pair interactions per second" (scripts/smpi/calibrate.sh: the whole-step cost per
// ordered pair at N = 1000 on one core). Everything else (gathers, subtree sums, exchange,
// the owners' tree) runs for real. The forces are then zero: a modelled run's state hash is
// not comparable. The leaves live in one SMPI_SHARED_MALLOC block (contents meaningless then).
#ifdef SMPI_SAMPLE_FLOPS
bool smpi_model_pairs() {
  const char* v = std::getenv("LIEBENCH_SMPI_MODEL_PAIRS");
  return v != nullptr && std::string(v) == "1";
}
#endif

constexpr double kTwoPi = 6.283185307179586476925286766559;

// Reproducible normal variates from a 64-bit generator: 53-bit uniforms, Box-Muller
// (std::normal_distribution is implementation-defined).
template <class Bits>
class Normals {
 public:
  explicit Normals(Bits g) : g_(g) {}
  double uniform() { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }  // [0, 1)
  double normal() {
    if (have_spare_) {
      have_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - uniform();  // (0, 1]
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(kTwoPi * u2);
    have_spare_ = true;
    return r * std::cos(kTwoPi * u2);
  }

 private:
  Bits g_;
  double spare_ = 0.0;
  bool have_spare_ = false;
};

// SplitMix64 (Steele, Lea, Flood 2014), seeded with a mix of seed and body i: a counter-based
// stream per body (lattice start), so that each rank draws only its own bodies.
struct SplitMix64 {
  std::uint64_t s;
  SplitMix64(std::uint64_t seed, std::uint64_t i) : s(seed * 0x9E3779B97F4A7C15ULL ^ (i + 1) * 0xD1B54A32D192ED03ULL) {}
  std::uint64_t operator()() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
};

// mu = Q mubar, written out so that every rank computes it with the same operations.
inline void rotate(const double* Q, const std::array<double, 3>& v, double* out) {
  for (int a = 0; a < 3; ++a) out[a] = Q[3 * a] * v[0] + Q[3 * a + 1] * v[1] + Q[3 * a + 2] * v[2];
}

}  // namespace

// <edge> parse: the dipolar.* keys
DipolarParams DipolarParams::from_config(const Config& cfg) {
  DipolarParams p;
  const std::string init = cfg.get_choice("dipolar.initial", {"random", "random2d", "lattice", "file"});
  p.initial = init == "random"     ? Initial::Random
              : init == "random2d" ? Initial::Random2D
              : init == "lattice"  ? Initial::Lattice
                                   : Initial::File;
  p.n = static_cast<std::size_t>(cfg.get_int_at_least("dipolar.N", 1));
  if (p.initial == Initial::File && !cfg.was_set("dipolar.N")) p.n = 0;
  if (p.initial == Initial::Lattice) {
    const auto n = cfg.was_set("dipolar.lattice") ? cfg.get_double_list("dipolar.lattice") : std::vector<double>{};
    if (n.size() != 3)
      throw UsageError("key 'dipolar.lattice' needs 3 site counts nx, ny, nz for initial = lattice (got " +
                       std::to_string(n.size()) + " values)");
    for (std::size_t a = 0; a < 3; ++a) {
      if (!(n[a] >= 1.0 && n[a] <= 2097152.0 && n[a] == std::floor(n[a])))
        throw UsageError("key 'dipolar.lattice' has value " + num(n[a]) + "; site counts are integers in [1, 2^21]");
      p.lattice[a] = static_cast<std::size_t>(n[a]);
    }
    const std::size_t sites = p.lattice[0] * p.lattice[1] * p.lattice[2];
    if (cfg.was_set("dipolar.N") && p.n != sites)
      throw UsageError("key 'dipolar.N' has value " + std::to_string(p.n) + " but dipolar.lattice has " +
                       std::to_string(sites) + " sites; drop dipolar.N or make it nx ny nz");
    p.n = sites;
  }
  p.mass = cfg.get_positive("dipolar.mass");
  const auto I = cfg.get_double_list("dipolar.inertia");
  if (I.size() != 3)
    throw UsageError("key 'dipolar.inertia' needs 3 values (I1, I2, I3), got " + std::to_string(I.size()));
  for (int k = 0; k < 3; ++k) {
    if (!(I[static_cast<std::size_t>(k)] > 0.0))
      throw UsageError("key 'dipolar.inertia' has a value <= 0; moments of inertia must be > 0");
    p.inertia[static_cast<std::size_t>(k)] = I[static_cast<std::size_t>(k)];
  }
  p.epsilon = cfg.get_nonnegative("dipolar.epsilon");
  p.sigma = cfg.get_positive("dipolar.sigma");
  if (cfg.was_set("dipolar.dipole") || p.initial != Initial::Random2D) {
    const auto d = cfg.get_double_list("dipolar.dipole");
    if (d.size() != 3)
      throw UsageError("key 'dipolar.dipole' needs 3 values (body-frame dipole), got " + std::to_string(d.size()));
    p.dipole = {d[0], d[1], d[2]};
  } else {
    p.dipole = {1.0, 1.0, 0.0};  // [K] 3.2.2, 2-D runs
  }
  if (p.initial == Initial::Random2D && p.dipole[2] != 0.0)
    throw UsageError("key 'dipolar.dipole' has value " + quote(cfg.get_string("dipolar.dipole")) +
                     "; the 2-D variant (initial = random2d) needs a dipole in the x-y plane (third value 0)");
  p.dipole_strength = cfg.get_nonnegative("dipolar.dipole_strength");
  p.lj_attraction = cfg.get_bool("dipolar.lj_attraction");
  p.cutoff = cfg.get_nonnegative("dipolar.cutoff");
  p.skin = cfg.get_nonnegative("dipolar.skin");
  p.order_parameters = cfg.get_bool("dipolar.order_parameters");
  const std::string messages = cfg.get_choice("dipolar.pair_messages", {"auto", "two_level", "direct"});
  p.pair_messages = messages == "direct"      ? par::PairPlan::Messages::direct
                    : messages == "two_level" ? par::PairPlan::Messages::two_level
                                              : par::PairPlan::Messages::automatic;
  p.pair_owners = cfg.get_choice("dipolar.pair_owners", {"auto", "balanced"}) == "balanced"
                      ? par::PairPlan::Owners::balanced
                      : par::PairPlan::Owners::automatic;
  const std::string transport = cfg.get_choice("dipolar.pair_transport", {"auto", "messages", "shared_memory"});
  p.pair_transport = par::PhaseExchange::transport_named(transport);
  p.cutoff_shift = cfg.get_bool("dipolar.cutoff_shift");
  if (p.cutoff_shift && !(p.cutoff > 0.0))
    throw UsageError("key 'dipolar.cutoff_shift' is true but dipolar.cutoff is 0 (all pairs); the shift needs a "
                     "cutoff: set dipolar.cutoff > 0 or cutoff_shift = false");
  if (cfg.was_set("dipolar.box") && !cfg.get_string("dipolar.box").empty()) {
    const auto L = cfg.get_double_list("dipolar.box");
    if (L.size() != 3)
      throw UsageError("key 'dipolar.box' needs 3 values (Lx, Ly, Lz), got " + std::to_string(L.size()));
    std::array<bool, 3> per{false, false, false};
    for (const std::string& a : cfg.get_list("dipolar.periodic"))
      per[static_cast<std::size_t>(a == "x" ? 0 : a == "y" ? 1 : 2)] = true;
    for (std::size_t a = 0; a < 3; ++a) {
      p.box.length[a] = L[a];
      p.box.periodic[a] = per[a];
    }
  }
  p.check_box();
  if (p.initial == Initial::Lattice && !(p.box.length[0] > 0.0 && p.box.length[1] > 0.0 && p.box.length[2] > 0.0))
    throw UsageError("key 'dipolar.initial' is lattice but dipolar.box is not set; the lattice fills the box: set "
                     "dipolar.box = Lx, Ly, Lz and a cutoff");
  p.spread = cfg.get_nonnegative("dipolar.spread");
  p.seed = static_cast<std::uint64_t>(cfg.get_int_at_least("dipolar.seed", 0));
  p.file = cfg.get_string("dipolar.file", "");
  p.dataset = cfg.get_string("dipolar.dataset");
  if (p.initial == Initial::File && p.file.empty())
    throw UsageError("key 'dipolar.file' is empty; initial = file needs an HDF5 file");
  return p;
}
// </edge>

// The box refusals (also for params built in code): one line naming the key, value and fix.
void DipolarParams::check_box() const {
  const char* axis = "xyz";
  bool any_length = false;
  for (std::size_t a = 0; a < 3; ++a) {
    if (box.length[a] != 0.0) any_length = true;
    if (box.length[a] != 0.0 && !(box.length[a] > 0.0 && std::isfinite(box.length[a])))
      throw UsageError("key 'dipolar.box' has " + std::string(1, axis[a]) + " length " + num(box.length[a]) +
                       "; box lengths must be finite and > 0");
    if (box.periodic[a] && !(box.length[a] > 0.0))
      throw UsageError("key 'dipolar.periodic' names axis " + std::string(1, axis[a]) +
                       " but dipolar.box gives it no length; set dipolar.box = Lx, Ly, Lz");
  }
  if (!any_length) return;
  if (!box.active())
    throw UsageError("key 'dipolar.box' is set but no axis is periodic (dipolar.periodic); an open box is the "
                     "unbounded domain: drop dipolar.box or name the periodic axes");
  if (!(cutoff > 0.0))
    throw UsageError("key 'dipolar.box' is set but dipolar.cutoff is 0 (all pairs); minimum image is implemented "
                     "on the cutoff path only: set dipolar.cutoff to at most half the smallest periodic length");
  for (std::size_t a = 0; a < 3; ++a)
    if (box.periodic[a] && cutoff > 0.5 * box.length[a])
      throw UsageError("key 'dipolar.cutoff' has value " + num(cutoff) + ", more than half the periodic " +
                       std::string(1, axis[a]) + " length " + num(box.length[a]) +
                       " of dipolar.box (minimum image needs cutoff <= L/2): enlarge the box or reduce the cutoff");
}

Dipolar::Dipolar(DipolarParams params, par::Context& ctx) : p_(std::move(params)), ctx_(ctx) {
  p_.check_box();
  if (p_.initial == DipolarParams::Initial::File) {
    const io::DatasetShape shape = io::probe_rows(p_.file, p_.dataset, ctx_.comm(), "dipolar.file");
    if (shape.cols != static_cast<std::size_t>(kStateDim))
      throw UsageError("dataset " + quote(p_.dataset) + " in " + quote(p_.file) + " (key 'dipolar.file') has " +
                       std::to_string(shape.cols) + " values per row; the dipolar state needs 18 (q, p, Q, m)");
    if (p_.n == 0) p_.n = shape.rows;
    if (shape.rows != p_.n)
      throw UsageError("key 'dipolar.N' has value " + std::to_string(p_.n) + " but dataset " + quote(p_.dataset) +
                       " in " + quote(p_.file) + " holds " + std::to_string(shape.rows) + " bodies");
  }
  if (p_.n == 0) throw UsageError("key 'dipolar.N' must be >= 1");
  if (tiled()) {  // the bodies the pair plan gives this rank (parallel/pair_plan.hpp: "Owners")
    bodies_.resize(p_.n);
    plan_ = par::PairPlan(p_.n, bodies_.tile, dipolar::kSlotFields, ctx_.size(), ctx_.rank(), p_.pair_messages,
                          p_.pair_owners);
    range_ = plan_.owned(ctx_.rank());
  } else {
    range_ = par::balanced_range(p_.n, ctx_.size(), ctx_.rank());
  }
  space_.add(FactorKind::RigidBodyLeftTriv, range_.size(), "bodies");

  pair_.eps = p_.epsilon;
  pair_.sigma = p_.sigma;
  pair_.attraction = p_.lj_attraction ? 1.0 : 0.0;
  pair_.cutoff2 = p_.cutoff > 0.0 ? p_.cutoff * p_.cutoff : std::numeric_limits<double>::infinity();
  pair_.masked_r2 = 1.0;
  if (p_.cutoff_shift && p_.cutoff > 0.0) {  // 4 eps ((s/rc)^12 - a (s/rc)^6), LAMMPS's offset
    const double s2 = (p_.sigma / p_.cutoff) * (p_.sigma / p_.cutoff), s6 = s2 * s2 * s2;
    pair_.energy_shift = 4.0 * p_.epsilon * (s6 * s6 - pair_.attraction * s6);
  }
  pair_.periodic = p_.box.active();
  for (int a = 0; a < 3; ++a) {
    pair_.box_length[a] = p_.box.kernel_length(a);
    pair_.box_half[a] = p_.box.kernel_half(a);
  }

  mu_local_.resize(3 * range_.size());
  sums_.resize(7 * range_.size());
  if (tiled()) {
    {  // my tile pairs that read only tiles no other rank sends in pos_down (exchange_positions)
      std::vector<char> received(plan_.tiles(), 0);
      for (const par::PairPlan::Peer& peer : plan_.pos_down().recvs)
        if (peer.rank != ctx_.rank())
          for (const par::PairPlan::Block& blk : peer.blocks) received[blk.tile] = 1;
      const auto& pairs = plan_.tile_pairs();
      for (std::size_t k = 0; k < pairs.size(); ++k)
        (received[pairs[k].first] || received[pairs[k].second] ? remote_pairs_ : local_pairs_).push_back(k);
    }
    // the rounds in the order of Round
    const std::vector<const par::PairPlan::Phase*> rounds = {&plan_.pos_up(), &plan_.pos_down(), &plan_.sum_up(),
                                                             &plan_.sum_down()};
    for (std::size_t r = 0; r < rounds.size(); ++r) self_only_[r] = rounds[r]->self_only(ctx_.rank());
    if (!self_only_[static_cast<std::size_t>(Round::pos_up)]) send_.resize(6 * range_.size());
    try {
      exchange_ = par::PhaseExchange(ctx_.comm(), rounds, {1714, 1715, 1716, 1717}, p_.pair_transport);
    } catch (const std::invalid_argument& e) {  // on every rank together
      throw UsageError("key 'dipolar.pair_transport' has value 'shared_memory': " + std::string(e.what()));
    }
#ifdef SMPI_SAMPLE_FLOPS
    modelled_pairs_ = smpi_model_pairs();
    if (modelled_pairs_)  // (at least one value: SimGrid refuses an empty shared block; ranks without tile pairs)
      leaves_ = static_cast<double*>(SMPI_SHARED_MALLOC(std::max<std::size_t>(1, plan_.leaf_values()) * sizeof(double)));
#endif
    if (!modelled_pairs_) {
      leaf_store_.resize(plan_.leaf_values());
      leaves_ = leaf_store_.data();
    }
  } else {
    par::SpatialDomains::Options o;
    o.cutoff = p_.cutoff;
    o.skin = p_.skin;
    o.box = p_.box;
    domains_ = std::make_unique<par::SpatialDomains>(o, p_.n, range_, ctx_);
  }

  y0_.assign(space_.state_size(), 0.0);
  if (p_.initial == DipolarParams::Initial::File)
    read_state_file();
  else if (p_.initial == DipolarParams::Initial::Lattice)
    make_lattice_state();
  else
    make_random_state(p_.initial == DipolarParams::Initial::Random2D);
}

// <edge>
DipolarParams Dipolar::parse(const Config& cfg) { return DipolarParams::from_config(cfg); }
// </edge>

std::unique_ptr<Model> Dipolar::create(const ModelOptions& options, par::Context& ctx) {
  return std::make_unique<Dipolar>(std::any_cast<const Options&>(options), ctx);
}

void Dipolar::make_random_state(bool planar) {
  const std::size_t n = p_.n;
  const int dim = planar ? 2 : 3;
  Normals<std::mt19937_64> rng{std::mt19937_64(p_.seed)};
  std::vector<double> g(n * static_cast<std::size_t>(dim));
  double gmax = 0.0;
  for (double& v : g) {
    v = rng.normal();
    gmax = std::max(gmax, std::fabs(v));
  }
  const double S = p_.spread > 0.0 ? p_.spread : static_cast<double>(n);
  const double scale = gmax > 0.0 ? S / gmax : 0.0;
  // Orientations are drawn for all bodies too (stream position independent of the layout).
  std::vector<double> Qall(9 * n);
  for (std::size_t i = 0; i < n; ++i) {
    double* Q = &Qall[9 * i];
    if (planar) {
      const double th = kTwoPi * rng.uniform();
      const double c = std::cos(th), s = std::sin(th);
      const double R[9] = {c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0};
      std::copy(R, R + 9, Q);
    } else {
      // Draw in a fixed sequence (the order of evaluation of function arguments is unspecified).
      const double w = rng.normal(), x = rng.normal(), yq = rng.normal(), z = rng.normal();
      Eigen::Quaterniond qt(w, x, yq, z);
      qt.normalize();
      MapQ{Q} = qt.toRotationMatrix();
    }
  }
  for (std::size_t li = 0; li < range_.size(); ++li) {
    const std::size_t i = range_.begin + li;
    double* y = &y0_[kStateDim * li];
    for (int k = 0; k < 3; ++k) y[k] = k < dim ? scale * g[static_cast<std::size_t>(dim) * i + static_cast<std::size_t>(k)] : 0.0;
    std::copy(&Qall[9 * i], &Qall[9 * i] + 9, y + 6);
  }
}

LatticeSites::LatticeSites(const std::array<std::size_t, 3>& n, const std::array<double, 3>& length) : n_(n) {
  // Morton ranks are keys when the keys of the sites fill 0 .. N - 1: powers of two with
  // nz <= ny <= nx <= 2 nz (the cube 2^k, and 2^(k+1) x 2^k x 2^k, 2^(k+1) x 2^(k+1) x 2^k: the
  // extra x and y bits are the key's top bits).
  auto pow2 = [](std::size_t v) { return v > 0 && (v & (v - 1)) == 0; };
  cube2_ = pow2(n[0]) && pow2(n[1]) && pow2(n[2]) && n[2] <= n[1] && n[1] <= n[0] && n[0] <= 2 * n[2];
  for (int d = 0; d < 3; ++d) a_[d] = length[static_cast<std::size_t>(d)] / static_cast<double>(n[static_cast<std::size_t>(d)]);
  if (cube2_) return;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sites(n[0] * n[1] * n[2]);  // (key, site)
  std::size_t k = 0;
  for (std::size_t iz = 0; iz < n[2]; ++iz)
    for (std::size_t iy = 0; iy < n[1]; ++iy)
      for (std::size_t ix = 0; ix < n[0]; ++ix, ++k) sites[k] = {par::morton_key(ix, iy, iz), k};
  std::sort(sites.begin(), sites.end());
  site_.resize(sites.size());
  for (std::size_t i = 0; i < sites.size(); ++i) site_[i] = sites[i].second;
}

void LatticeSites::position(std::size_t i, double* q) const {
  std::uint64_t c[3];
  if (cube2_) {
    par::morton_cell(i, c[0], c[1], c[2]);
  } else {
    const std::uint64_t site = site_[i];
    c[0] = site % n_[0], c[1] = site / n_[0] % n_[1], c[2] = site / (n_[0] * n_[1]);
  }
  for (int d = 0; d < 3; ++d) q[d] = (static_cast<double>(c[d]) + 0.5) * a_[d];
}

void Dipolar::make_lattice_state() {
  const std::array<std::size_t, 3>& n = p_.lattice;
  if (n[0] * n[1] * n[2] != p_.n || !(p_.box.length[0] > 0.0 && p_.box.length[1] > 0.0 && p_.box.length[2] > 0.0))
    throw UsageError("dipolar: initial = lattice needs N = nx ny nz sites and a box with three lengths");
  const LatticeSites sites(n, p_.box.length);
  for (std::size_t li = 0; li < range_.size(); ++li) {
    const std::size_t i = range_.begin + li;
    double* y = &y0_[kStateDim * li];
    sites.position(i, y);
    Normals<SplitMix64> rng{SplitMix64(p_.seed, i)};
    const double w = rng.normal(), x = rng.normal(), yq = rng.normal(), z = rng.normal();
    Eigen::Quaterniond qt(w, x, yq, z);
    qt.normalize();
    MapQ{y + 6} = qt.toRotationMatrix();
  }
}

void Dipolar::read_state_file() {
  std::vector<double> rows;
  io::read_rows(p_.file, p_.dataset, ctx_.comm(), range_.begin, range_.end, kStateDim, rows, "dipolar.file");
  bool ok = true;
  std::size_t bad = 0;
  for (std::size_t li = 0; li < range_.size() && ok; ++li) {
    const double* y = &rows[kStateDim * li];
    for (int k = 0; k < kStateDim; ++k) ok = ok && std::isfinite(y[k]);
    ok = ok && so3::orthogonality_error(Mat3(CMapQ(y + 6))) <= 1e-10;
    if (!ok) bad = range_.begin + li;
  }
  const double first_bad = ctx_.min(ok ? std::numeric_limits<double>::infinity() : static_cast<double>(bad));
  if (std::isfinite(first_bad))
    throw UsageError("dataset " + quote(p_.dataset) + " in " + quote(p_.file) + " (key 'dipolar.file'): body " +
                     std::to_string(static_cast<std::size_t>(first_bad)) +
                     " has a non-finite value or an orientation that is not a rotation (||Q^T Q - I|| > 1e-10)");
  y0_ = std::move(rows);
}

void Dipolar::initial_state(double* y) const { std::copy(y0_.begin(), y0_.end(), y); }

void Dipolar::gather_partners(const double* y) {
  const std::size_t nl = range_.size();
  for (std::size_t li = 0; li < nl; ++li) rotate(y + kStateDim * li + 6, p_.dipole, &mu_local_[3 * li]);
  if (!tiled()) {
    // homes and ghosts: wrapped q (periodic_box.hpp: the state keeps q) and unscaled mu
    domains_->distribute(y, kStateDim, mu_local_.data());
    return;
  }
  if (self_only_[static_cast<std::size_t>(Round::pos_up)]) {  // every segment of mine is rooted here
    for (std::size_t li = 0; li < nl; ++li) bodies_.set(range_.begin + li, y + kStateDim * li, &mu_local_[3 * li]);
  } else {
    for (std::size_t li = 0; li < nl; ++li) {
      const double* s = y + kStateDim * li;
      const double* mu = &mu_local_[3 * li];
      double* out = &send_[6 * li];
      out[0] = s[0], out[1] = s[1], out[2] = s[2];
      out[3] = mu[0], out[4] = mu[1], out[5] = mu[2];
    }
  }
  exchange_positions();
}

// One round of the pair plan (parallel/phase_exchange.hpp: by messages or a shared window), or
// its two halves, timed as comm; a round without another rank only moves its message to self
// (untimed: on one rank no comm time is reported).
void Dipolar::start_round(Round round) {
  const auto r = static_cast<std::size_t>(round);
  RoundBuffers& b = round_bufs_[r];
  if (self_only_[r]) return exchange_.start(r, b.out, b.in);  // only its message to self changes places
  par::ScopedTimer timer(ctx_.timers(), "comm");
  exchange_.start(r, b.out, b.in);
}

void Dipolar::finish_round(Round round) {
  const auto r = static_cast<std::size_t>(round);
  if (self_only_[r]) return exchange_.finish(r, round_bufs_[r].in);
  par::ScopedTimer timer(ctx_.timers(), "comm");
  exchange_.finish(r, round_bufs_[r].in);
}

void Dipolar::run_phase(Round round) {
  start_round(round);
  finish_round(round);
}

// Received positions into bodies_ (6 values per body, blocks in order); a message to self is
// skipped unless `self` (pos_down's: a root's own tiles are in bodies_ after pos_up).
void Dipolar::unpack_positions(const par::PairPlan::Phase& phase, const std::vector<std::vector<double>>& in,
                               bool self) {
  for (std::size_t k = 0; k < phase.recvs.size(); ++k) {
    if (!self && phase.recvs[k].rank == ctx_.rank()) continue;
    const double* v = in[k].data();
    for (const par::PairPlan::Block& blk : phase.recvs[k].blocks)
      for (std::size_t j = blk.body_begin; j < blk.body_end; ++j, v += 6) bodies_.set(j, v, v + 3);
  }
}

// The tiled path's positions: only the tiles this rank's tile pairs read, gathered at the root
// of each segment and sent on whole (parallel/pair_plan.hpp: pos_up, pos_down; two levels: a
// segment is a tile, direct: an owner's piece of it, so pos_up is a copy to self). pos_down is
// only started here: compute_tiles runs the tile pairs that read no received tile first, then
// finishes it (finish_positions).
void Dipolar::exchange_positions() {
  const par::PairPlan::Phase& up = plan_.pos_up();
  const par::PairPlan::Phase& down = plan_.pos_down();
  const int me = ctx_.rank();
  // one phase's messages, body after body (6 values each) from `body(j, out)`
  auto pack = [&](const par::PairPlan::Phase& phase, std::vector<std::vector<double>>& bufs, bool self, auto&& body) {
    bufs.resize(phase.sends.size());
    for (std::size_t k = 0; k < phase.sends.size(); ++k) {
      bufs[k].resize(phase.sends[k].values);
      if (!self && phase.sends[k].rank == me) continue;
      double* out = bufs[k].data();
      for (const par::PairPlan::Block& blk : phase.sends[k].blocks)
        for (std::size_t j = blk.body_begin; j < blk.body_end; ++j, out += 6) body(j, out);
    }
  };
  // pos_up: my bodies, packed in send_ (6 per body); self-only: already in bodies_ (gather_partners)
  if (!self_only_[static_cast<std::size_t>(Round::pos_up)]) {
    RoundBuffers& ub = round_bufs_[static_cast<std::size_t>(Round::pos_up)];
    pack(up, ub.out, true, [&](std::size_t j, double* out) {
      const double* v = &send_[6 * (j - range_.begin)];
      std::copy(v, v + 6, out);
    });
    run_phase(Round::pos_up);
    unpack_positions(up, ub.in, true);
  }
  // pos_down: whole tiles from the roots' bodies_
  RoundBuffers& db = round_bufs_[static_cast<std::size_t>(Round::pos_down)];
  pack(down, db.out, false, [&](std::size_t j, double* out) {
    out[0] = bodies_.x[j], out[1] = bodies_.y[j], out[2] = bodies_.z[j];
    out[3] = bodies_.mx[j], out[4] = bodies_.my[j], out[5] = bodies_.mz[j];
  });
  start_round(Round::pos_down);
  positions_pending_ = true;
}

void Dipolar::finish_positions() {
  if (!positions_pending_) return;
  positions_pending_ = false;
  finish_round(Round::pos_down);
  unpack_positions(plan_.pos_down(), round_bufs_[static_cast<std::size_t>(Round::pos_down)].in, false);
}

void Dipolar::compute_tiles(bool want_energy) {
  const double kappa = p_.dipole_strength;
  const auto& pairs = plan_.tile_pairs();
#ifdef SMPI_SAMPLE_FLOPS
  if (modelled_pairs_) {
    finish_positions();
    smpi_execute_flops_benched(plan_.interactions());  // ordered pair interactions of my tile pairs
  } else
#endif
  {
    tile_scratch_.resize(static_cast<std::size_t>(omp_get_max_threads()));
    auto tile_pair = [&](std::size_t k, dipolar::TileScratch& scratch) {
      const std::size_t I = pairs[k].first, J = pairs[k].second;
      dipolar::tile_pair_leaves(bodies_, I, J, kappa, pair_, want_energy, leaves_ + plan_.leaf_offset(I, J),
                                leaves_ + plan_.leaf_offset(J, I), scratch);
    };
    auto run_pairs = [&](const std::vector<std::size_t>& ks) {
      if (par::use_threads(ks.size(), 2)) {
#pragma omp parallel
        {
          dipolar::TileScratch& scratch = tile_scratch_[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 1)
          for (std::size_t q = 0; q < ks.size(); ++q) tile_pair(ks[q], scratch);
        }
      } else {  // no parallel region (parallel/loops.hpp)
        for (const std::size_t k : ks) tile_pair(k, tile_scratch_[0]);
      }
    };
    // Each tile pair's leaves are its own (any order gives the same bits): those that read no
    // received tile while pos_down is in flight ([K]'s N = 100 on two ranks: (1,1) on the rank
    // that owns tile 1), then the others.
    run_pairs(local_pairs_);
    finish_positions();
    run_pairs(remote_pairs_);
  }
  // Maximal owned subtrees to the roots of their row tiles' segments, who finish the trees and
  // send the sums to the bodies' owners (parallel/pair_plan.hpp: sum_up, sum_down; direct: the
  // roots are the owners).
  if (plan_.ranks() == 1) {
    plan_.sum_local(leaves_, sums_.data());  // the same trees without the rounds' copies
  } else {
    RoundBuffers& up = round_bufs_[static_cast<std::size_t>(Round::sum_up)];
    RoundBuffers& down = round_bufs_[static_cast<std::size_t>(Round::sum_down)];
    plan_.pack(leaves_, up.out);
    run_phase(Round::sum_up);
    plan_.finish(up.in, down.out);
    run_phase(Round::sum_down);
    plan_.scatter(down.in, sums_.data());
  }
  const std::size_t nl = range_.size();
  for (std::size_t li = 0; li < nl; ++li)
    for (int k = 3; k < 6; ++k) sums_[7 * li + static_cast<std::size_t>(k)] *= kappa;  // g_i = kappa h_i
}

// Each pair once within a rank (parallel/spatial_domains.hpp: pair_parts; issue 27): every part
// (one per thread) runs its pair rows into the accumulators of its own home bodies, so that each
// body's sums are the fold of its pair terms in partner order, a function of the state alone.
// Then F, g = kappa h and half the pair energies (each pair is in both bodies' sums) go back to
// the bodies' owners.
void Dipolar::compute_rows_domains(bool want_energy) {
  const par::SpatialDomains& d = *domains_;
  const std::size_t nh = d.home_count();
  const auto& parts = d.pair_parts();
  const std::size_t P = parts.size();
  pair_acc_.assign(dipolar::kAccStride * (nh + P), 0.0);
  const double kappa = p_.dipole_strength;
  const dipolar::SlotBodies bodies{d.x(), d.y(), d.z(), d.payload(0), d.payload(1), d.payload(2)};
  auto run_part = [&](std::size_t p) {
    dipolar::pair_rows(bodies, parts[p], d.home_of_slot(), kappa, pair_, want_energy, pair_acc_.data());
  };
  if (P > 1) {
#pragma omp parallel for num_threads(static_cast<int>(P)) schedule(static, 1)
    for (std::size_t p = 0; p < P; ++p) run_part(p);
  } else if (P == 1) {  // no parallel region (parallel/loops.hpp)
    run_part(0);
  }
  home_sums_.resize(7 * nh);
  for (std::size_t h = 0; h < nh; ++h) {
    const double* a = &pair_acc_[dipolar::kAccStride * h];
    double* out = &home_sums_[7 * h];
    for (int k = 0; k < 3; ++k) out[k] = a[k];
    for (int k = 3; k < 6; ++k) out[k] = kappa * a[k];
    out[6] = a[6] * 0.5;
  }
  domains_->collect(home_sums_.data(), 7, sums_.data());
}

void Dipolar::compute_rows(bool want_energy) {
  if (tiled())
    compute_tiles(want_energy);
  else
    compute_rows_domains(want_energy);
}

namespace {
// The body torque -rot(Q^T dV/dQ) = -Q^T (mu x g) of a body with dipole mu and field sum g
// (the g_i of the pair sums), Q row-major: the kick of vector_field() and of forces_and_torques().
inline void body_torque(const double* mu, const double* g, const double* Q, double* out) {
  const double tx = mu[1] * g[2] - mu[2] * g[1];
  const double ty = mu[2] * g[0] - mu[0] * g[2];
  const double tz = mu[0] * g[1] - mu[1] * g[0];
  for (int k = 0; k < 3; ++k) out[k] = -(Q[k] * tx + Q[3 + k] * ty + Q[6 + k] * tz);
}
}  // namespace

void Dipolar::vector_field(double, const double* y, double* xi) {
  ++n_rhs_;
  par::ScopedTimer timer(ctx_.timers(), "rhs");
  gather_partners(y);
  compute_rows(false);
  const std::size_t nl = range_.size();
  const double invM = 1.0 / p_.mass;
  const double invI[3] = {1.0 / p_.inertia[0], 1.0 / p_.inertia[1], 1.0 / p_.inertia[2]};
  par::for_each_index(nl, par::use_threads(nl, 256), [&](std::size_t li) {
    const double* s = y + kStateDim * li;
    double* f = xi + kAlgDim * li;
    const double* F = &sums_[7 * li];
    const double* g = F + 3;
    const double* mu = &mu_local_[3 * li];
    const double* Q = s + 6;
    // dq = p / M, dp = F_i
    for (int k = 0; k < 3; ++k) f[k] = s[3 + k] * invM;
    for (int k = 0; k < 3; ++k) f[3 + k] = F[k];
    // xi = I^-1 m
    for (int k = 0; k < 3; ++k) f[6 + k] = s[15 + k] * invI[k];
    // alpha = -rot(Q^T dV/dQ)
    body_torque(mu, g, Q, f + 9);
  });
}

ModelCapabilities Dipolar::capabilities() const {
  ModelCapabilities c;
  c.rigid_bodies = true;
  return c;
}

RigidBodyLayout Dipolar::rigid_body_layout() const {
  RigidBodyLayout l;
  l.bodies = range_.size();
  l.stride = kStateDim;
  l.position = 0;
  l.momentum = 3;
  l.attitude = 6;
  l.angular_momentum = 15;
  l.mass = p_.mass;
  l.inertia = p_.inertia;
  return l;
}

void Dipolar::forces_and_torques(double, const double* y, double* F, double* tau) {
  // The pair sums of vector_field(): F_i and tau_i = -Q_i^T (mu_i x g_i), the same arithmetic.
  ++n_rhs_;
  par::ScopedTimer timer(ctx_.timers(), "rhs");
  gather_partners(y);
  compute_rows(false);
  const std::size_t nl = range_.size();
  par::for_each_index(nl, par::use_threads(nl, 256), [&](std::size_t li) {
    const double* Fi = &sums_[7 * li];
    const double* g = Fi + 3;
    const double* mu = &mu_local_[3 * li];
    const double* Q = y + kStateDim * li + 6;
    for (int k = 0; k < 3; ++k) F[3 * li + k] = Fi[k];
    body_torque(mu, g, Q, tau + 3 * li);
  });
}

double Dipolar::potential_energy(const double* y) {
  gather_partners(y);
  compute_rows(true);
  par::ExactSum v;
  for (std::size_t li = 0; li < range_.size(); ++li) v.add(sums_[7 * li + 6]);
  ctx_.allreduce(std::span<par::ExactSum>(&v, 1));
  return v.value();
}

void Dipolar::observables(double, const double* y, Observables& out) {
  par::ScopedTimer timer(ctx_.timers(), "reduce");
  const double V = potential_energy(y);
  // kinetic, linear momentum (3), angular momentum sum_i q_i x p_i + Q_i m_i (3)
  std::array<par::ExactSum, 7> sums;
  double ortho = 0.0;
  for (std::size_t li = 0; li < range_.size(); ++li) {
    const double* s = y + kStateDim * li;
    const double *q = s, *p = s + 3, *Q = s + 6, *m = s + 15;
    sums[0].add(0.5 * (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) / p_.mass);
    sums[0].add(0.5 * (m[0] * m[0] / p_.inertia[0] + m[1] * m[1] / p_.inertia[1] + m[2] * m[2] / p_.inertia[2]));
    for (int k = 0; k < 3; ++k) sums[1 + static_cast<std::size_t>(k)].add(p[k]);
    double Qm[3];
    for (int a = 0; a < 3; ++a) Qm[a] = Q[3 * a] * m[0] + Q[3 * a + 1] * m[1] + Q[3 * a + 2] * m[2];
    sums[4].add(q[1] * p[2] - q[2] * p[1]);
    sums[4].add(Qm[0]);
    sums[5].add(q[2] * p[0] - q[0] * p[2]);
    sums[5].add(Qm[1]);
    sums[6].add(q[0] * p[1] - q[1] * p[0]);
    sums[6].add(Qm[2]);
    ortho = nan_max(ortho, so3::orthogonality_error(Mat3(CMapQ(Q))));
  }
  // orientational order (dipolar.order_parameters): sum mu_i (3), sum u_i u_i^T (6: xx yy zz xy xz yz)
  std::array<par::ExactSum, 9> order;
  if (p_.order_parameters)
    for (std::size_t li = 0; li < range_.size(); ++li) {
      double mu[3];
      rotate(y + kStateDim * li + 6, p_.dipole, mu);
      const double norm = std::sqrt(mu[0] * mu[0] + mu[1] * mu[1] + mu[2] * mu[2]);
      const double u[3] = {mu[0] / norm, mu[1] / norm, mu[2] / norm};
      for (int k = 0; k < 3; ++k) order[static_cast<std::size_t>(k)].add(mu[k]);
      order[3].add(u[0] * u[0]), order[4].add(u[1] * u[1]), order[5].add(u[2] * u[2]);
      order[6].add(u[0] * u[1]), order[7].add(u[0] * u[2]), order[8].add(u[1] * u[2]);
    }
  ctx_.allreduce(std::span<par::ExactSum>(sums.data(), sums.size()));
  if (p_.order_parameters) ctx_.allreduce(std::span<par::ExactSum>(order.data(), order.size()));
  ortho = ctx_.max(ortho);
  const double K = sums[0].value();
  out.set("total_energy", K + V);
  out.set("kinetic_energy", K);
  out.set("potential_energy", V);
  out.set("linear_momentum_x", sums[1].value());
  out.set("linear_momentum_y", sums[2].value());
  out.set("linear_momentum_z", sums[3].value());
  out.set("angular_momentum_x", sums[4].value());
  out.set("angular_momentum_y", sums[5].value());
  out.set("angular_momentum_z", sums[6].value());
  out.set("orthogonality_error", ortho);
  if (p_.order_parameters) {
    const double n = static_cast<double>(p_.n);
    const double mbar = std::sqrt(p_.dipole[0] * p_.dipole[0] + p_.dipole[1] * p_.dipole[1] + p_.dipole[2] * p_.dipole[2]);
    const double M[3] = {order[0].value(), order[1].value(), order[2].value()};
    out.set("polarization", std::sqrt(M[0] * M[0] + M[1] * M[1] + M[2] * M[2]) / (n * mbar));
    Mat3 T;  // (1/N) sum (3 u u^T - I) / 2
    T << order[3].value(), order[6].value(), order[7].value(), order[6].value(), order[4].value(), order[8].value(),
        order[7].value(), order[8].value(), order[5].value();
    T = (1.5 / n) * T - 0.5 * Mat3::Identity();
    out.set("nematic_order", Eigen::SelfAdjointEigenSolver<Mat3>(T, Eigen::EigenvaluesOnly).eigenvalues()(2));
  }
}

std::vector<std::string> Dipolar::observable_names() const {
  std::vector<std::string> names = {"total_energy",       "kinetic_energy",     "potential_energy",
                                    "linear_momentum_x",  "linear_momentum_y",  "linear_momentum_z",
                                    "angular_momentum_x", "angular_momentum_y", "angular_momentum_z",
                                    "orthogonality_error"};
  if (p_.order_parameters) names.insert(names.end(), {"polarization", "nematic_order"});
  return names;
}

std::vector<TrajectoryField> Dipolar::trajectory_fields() const {
  return {{"position", 3, "sigma", "centre of mass q_i"},
          {"orientation", 9, "1", "rotation matrix Q_i (body to space), row-major"},
          {"dipole_moment", 3, "1", "space-frame dipole mu_i = Q_i mubar (without the coupling kappa)"},
          {"velocity", 3, "1", "p_i / M"},
          {"angular_velocity", 3, "1", "body-frame angular velocity I^-1 m_i"}};
}

void Dipolar::trajectory_field(const std::string& name, const double* y, double* out) const {
  for (std::size_t li = 0; li < range_.size(); ++li) {
    const double* s = y + kStateDim * li;
    if (name == "position") {
      std::copy(s, s + 3, out + 3 * li);
    } else if (name == "orientation") {
      std::copy(s + 6, s + 15, out + 9 * li);
    } else if (name == "dipole_moment") {
      rotate(s + 6, p_.dipole, out + 3 * li);
    } else if (name == "velocity") {
      for (int k = 0; k < 3; ++k) out[3 * li + static_cast<std::size_t>(k)] = s[3 + k] / p_.mass;
    } else if (name == "angular_velocity") {
      for (int k = 0; k < 3; ++k) out[3 * li + static_cast<std::size_t>(k)] = s[15 + k] / p_.inertia[static_cast<std::size_t>(k)];
    } else {
      throw std::out_of_range("dipolar model has no trajectory field " + quote(name));
    }
  }
}

LIEBENCH_REGISTER(ModelEntry, ModelEntry{"dipolar",
                                         "dipolar soft spheres: N rigid bodies on T*(R^3 x SO(3)), soft-sphere "
                                         "(+ optional LJ attraction) + point-dipole pair forces, all pairs or a cutoff (optionally in a periodic box)",
                                         "[K] 3.2, 2.6-2.8", &Dipolar::create, &Dipolar::parse})

}  // namespace lie
