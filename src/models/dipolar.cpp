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

#include "groups/so3.hpp"
#include "io/hdf5_rows.hpp"
#include "parallel/exact_sum.hpp"

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
    {"dipolar.initial", OptionType::Choice, "random",
     "initial state: random ([K] 3.2.2), random2d (the 2-D variant), file (HDF5 rows [N][18])",
     {"random", "random2d", "file"}, "dipolar"},
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

// Reproducible normal variates: mt19937_64 (fully specified by the standard), 53-bit
// uniforms, Box-Muller (std::normal_distribution is implementation-defined).
class NormalStream {
 public:
  explicit NormalStream(std::uint64_t seed) : g_(seed) {}
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
  std::mt19937_64 g_;
  double spare_ = 0.0;
  bool have_spare_ = false;
};


// mu = Q mubar, written out so that every rank computes it with the same operations.
inline void rotate(const double* Q, const std::array<double, 3>& v, double* out) {
  for (int a = 0; a < 3; ++a) out[a] = Q[3 * a] * v[0] + Q[3 * a + 1] * v[1] + Q[3 * a + 2] * v[2];
}

}  // namespace

// <edge> parse: the dipolar.* keys
DipolarParams DipolarParams::from_config(const Config& cfg) {
  DipolarParams p;
  const std::string init = cfg.get_choice("dipolar.initial", {"random", "random2d", "file"});
  p.initial = init == "random" ? Initial::Random : init == "random2d" ? Initial::Random2D : Initial::File;
  p.n = static_cast<std::size_t>(cfg.get_int_at_least("dipolar.N", 1));
  if (p.initial == Initial::File && !cfg.was_set("dipolar.N")) p.n = 0;
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
  range_ = par::balanced_range(p_.n, ctx_.size(), ctx_.rank());
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
  if (p_.cutoff > 0.0) cell_geometry();
  for (int a = 0; a < 3; ++a) {
    pair_.box_length[a] = p_.box.kernel_length(a);
    pair_.box_half[a] = p_.box.kernel_half(a);
  }

  counts_.resize(static_cast<std::size_t>(ctx_.size()));
  displs_.resize(counts_.size());
  for (int r = 0; r < ctx_.size(); ++r) {
    const par::Range rr = par::balanced_range(p_.n, ctx_.size(), r);
    counts_[static_cast<std::size_t>(r)] = static_cast<int>(6 * rr.size());
    displs_[static_cast<std::size_t>(r)] = static_cast<int>(6 * rr.begin);
  }
  send_.resize(6 * range_.size());
  if (!tiled()) recv_.resize(6 * p_.n);  // the tiled path receives only the tiles it needs
  mu_local_.resize(3 * range_.size());
  rows_.resize(range_.size());
  sums_.resize(7 * range_.size());
  if (tiled()) {
    bodies_.resize(p_.n);
    plan_ = par::PairPlan(p_.n, bodies_.tile, dipolar::kSlotFields, ctx_.size(), ctx_.rank());
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
    partners_.resize(p_.n);
  }

  y0_.assign(space_.state_size(), 0.0);
  if (p_.initial == DipolarParams::Initial::File)
    read_state_file();
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
  NormalStream rng(p_.seed);
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
  const double kappa = p_.dipole_strength;
  for (std::size_t li = 0; li < nl; ++li) {
    const double* s = y + kStateDim * li;
    double* mu = &mu_local_[3 * li];
    rotate(s + 6, p_.dipole, mu);
    double* out = &send_[6 * li];
    out[0] = s[0], out[1] = s[1], out[2] = s[2];
    out[3] = mu[0], out[4] = mu[1], out[5] = mu[2];
  }
  if (tiled()) {
    exchange_positions();
    return;
  }
  {
    par::ScopedTimer timer(ctx_.timers(), "comm");
    if (ctx_.size() > 1)
      MPI_Allgatherv(send_.data(), static_cast<int>(send_.size()), MPI_DOUBLE, recv_.data(), counts_.data(),
                     displs_.data(), MPI_DOUBLE, ctx_.comm());
    else
      std::copy(send_.begin(), send_.end(), recv_.begin());
  }
  for (std::size_t j = 0; j < p_.n; ++j) {
    const double* mu = &recv_[6 * j + 3];
    const double kmu[3] = {kappa * mu[0], kappa * mu[1], kappa * mu[2]};
    const double* q = &recv_[6 * j];
    // periodic box: the kernel's copies are wrapped, the state keeps q (periodic_box.hpp; an
    // open axis, and every axis without a box, is left as it is)
    const double qw[3] = {p_.box.wrap(0, q[0]), p_.box.wrap(1, q[1]), p_.box.wrap(2, q[2])};
    partners_.set(j, qw, kmu);
  }
}

// One phase of the pair plan: out[k] to sends[k].rank, in[k] (resized) from recvs[k].rank, all
// posted at once; a message to self is copied.
void Dipolar::run_phase(const par::PairPlan::Phase& phase, const std::vector<std::vector<double>>& out,
                        std::vector<std::vector<double>>& in, int tag) {
  par::ScopedTimer timer(ctx_.timers(), "comm");
  const int me = ctx_.rank();
  in.resize(phase.recvs.size());
  requests_.clear();
  for (std::size_t k = 0; k < phase.recvs.size(); ++k) {
    in[k].resize(phase.recvs[k].values);
    if (phase.recvs[k].rank == me) continue;
    requests_.emplace_back();
    MPI_Irecv(in[k].data(), static_cast<int>(in[k].size()), MPI_DOUBLE, phase.recvs[k].rank, tag, ctx_.comm(),
              &requests_.back());
  }
  for (std::size_t k = 0; k < phase.sends.size(); ++k) {
    if (phase.sends[k].rank == me) {
      const auto it = std::find_if(phase.recvs.begin(), phase.recvs.end(),
                                   [&](const par::PairPlan::Peer& p) { return p.rank == me; });
      std::copy(out[k].begin(), out[k].end(), in[static_cast<std::size_t>(it - phase.recvs.begin())].begin());
      continue;
    }
    requests_.emplace_back();
    MPI_Isend(out[k].data(), static_cast<int>(out[k].size()), MPI_DOUBLE, phase.sends[k].rank, tag, ctx_.comm(),
              &requests_.back());
  }
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

// The tiled path's positions: only the tiles this rank's tile pairs read, gathered at each
// tile's root and sent on whole (parallel/pair_plan.hpp: pos_up, pos_down).
void Dipolar::exchange_positions() {
  const par::PairPlan::Phase& up = plan_.pos_up();
  const par::PairPlan::Phase& down = plan_.pos_down();
  auto unpack = [&](const par::PairPlan::Phase& phase, const std::vector<std::vector<double>>& in) {
    for (std::size_t k = 0; k < phase.recvs.size(); ++k) {
      const double* v = in[k].data();
      for (const par::PairPlan::Block& blk : phase.recvs[k].blocks)
        for (std::size_t j = blk.body_begin; j < blk.body_end; ++j, v += 6) bodies_.set(j, v, v + 3);
    }
  };
  // one phase's messages, body after body (6 values each) from `body(j, out)`
  auto pack = [&](const par::PairPlan::Phase& phase, auto&& body) {
    pos_send_bufs_.resize(phase.sends.size());
    for (std::size_t k = 0; k < phase.sends.size(); ++k) {
      pos_send_bufs_[k].resize(phase.sends[k].values);
      double* out = pos_send_bufs_[k].data();
      for (const par::PairPlan::Block& blk : phase.sends[k].blocks)
        for (std::size_t j = blk.body_begin; j < blk.body_end; ++j, out += 6) body(j, out);
    }
  };
  // pos_up: my bodies, packed in send_ (6 per body)
  pack(up, [&](std::size_t j, double* out) {
    const double* v = &send_[6 * (j - range_.begin)];
    std::copy(v, v + 6, out);
  });
  run_phase(up, pos_send_bufs_, pos_recv_bufs_, 1714);
  unpack(up, pos_recv_bufs_);
  // pos_down: whole tiles from the roots' bodies_
  pack(down, [&](std::size_t j, double* out) {
    out[0] = bodies_.x[j], out[1] = bodies_.y[j], out[2] = bodies_.z[j];
    out[3] = bodies_.mx[j], out[4] = bodies_.my[j], out[5] = bodies_.mz[j];
  });
  run_phase(down, pos_send_bufs_, pos_recv_bufs_, 1715);
  unpack(down, pos_recv_bufs_);
}

void Dipolar::compute_tiles(bool want_energy) {
  const double kappa = p_.dipole_strength;
  const auto& pairs = plan_.tile_pairs();
#ifdef SMPI_SAMPLE_FLOPS
  if (modelled_pairs_) {
    smpi_execute_flops_benched(plan_.interactions());  // ordered pair interactions of my tile pairs
  } else
#endif
  {
    tile_scratch_.resize(static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel
    {
      dipolar::TileScratch& scratch = tile_scratch_[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 1)
      for (std::size_t k = 0; k < pairs.size(); ++k) {
        const std::size_t I = pairs[k].first, J = pairs[k].second;
        dipolar::tile_pair_leaves(bodies_, I, J, kappa, pair_, want_energy, leaves_ + plan_.leaf_offset(I, J),
                                  leaves_ + plan_.leaf_offset(J, I), scratch);
      }
    }
  }
  // Maximal owned subtrees to the roots of their row tiles, who finish the trees and send the
  // sums to the bodies' owners (parallel/pair_plan.hpp: sum_up, sum_down).
  plan_.pack(leaves_, send_bufs_);
  run_phase(plan_.sum_up(), send_bufs_, recv_bufs_, 1716);
  plan_.finish(recv_bufs_, send_bufs_);
  run_phase(plan_.sum_down(), send_bufs_, recv_bufs_, 1717);
  plan_.scatter(recv_bufs_, sums_.data());
  const std::size_t nl = range_.size();
  for (std::size_t li = 0; li < nl; ++li)
    for (int k = 3; k < 6; ++k) sums_[7 * li + static_cast<std::size_t>(k)] *= kappa;  // g_i = kappa h_i
}

void Dipolar::cell_geometry() {
  const double inv = 1.0 / p_.cutoff;
  // Cells of side >= cutoff: on an open axis side = cutoff, unbounded keys (as without a box);
  // on a periodic axis (positions wrapped into [0, L)) nc = floor(L / cutoff) >= 2 cells of side
  // L / nc, keys 0 .. nc - 1 (the rounding of L / nc checked: a side below the cutoff would miss
  // pairs).
  for (int a = 0; a < 3; ++a) {
    const std::size_t ax = static_cast<std::size_t>(a);
    ncell_[ax] = 0;
    cell_inv_[ax] = inv;
    if (!p_.box.periodic[ax]) continue;
    const double L = p_.box.length[ax];
    std::int64_t nc = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(L / p_.cutoff)));
    while (nc > 1 && L / static_cast<double>(nc) < p_.cutoff) --nc;
    ncell_[ax] = nc;
    cell_inv_[ax] = static_cast<double>(nc) / L;
  }
}

void Dipolar::build_cells() {
  const std::size_t n = p_.n;
  for (std::size_t j = 0; j < n; ++j)
    if (!(std::fabs(partners_.x[j]) + std::fabs(partners_.y[j]) + std::fabs(partners_.z[j]) < 1e15 * p_.cutoff))
      throw NumericalError("dipolar: body " + std::to_string(j) + " has a non-finite or huge position; cannot bin it");
  auto key = [&](int a, double x) {
    const std::int64_t c = static_cast<std::int64_t>(std::floor(x * cell_inv_[static_cast<std::size_t>(a)]));
    const std::int64_t nc = ncell_[static_cast<std::size_t>(a)];
    return nc > 0 ? std::clamp<std::int64_t>(c, 0, nc - 1) : c;  // wrapped x < L may still round to nc
  };
  cell_of_.resize(n);
  for (std::size_t j = 0; j < n; ++j)
    cell_of_[j] = {key(2, partners_.z[j]), key(1, partners_.y[j]), key(0, partners_.x[j])};
  cell_order_.resize(n);
  for (std::size_t j = 0; j < n; ++j) cell_order_[j] = j;
  std::sort(cell_order_.begin(), cell_order_.end(), [&](std::size_t a, std::size_t b) {
    return cell_of_[a] < cell_of_[b] || (cell_of_[a] == cell_of_[b] && a < b);
  });
  sorted_keys_.resize(n);
  for (std::size_t k = 0; k < n; ++k) sorted_keys_[k] = cell_of_[cell_order_[k]];
}

void Dipolar::compute_rows_cells(bool want_energy) {
  build_cells();
  const std::size_t nl = range_.size(), b = range_.begin;
  // The neighbour cells c - 1, c, c + 1 of one axis, in this order; on a periodic axis taken
  // mod nc, without repeats (nc = 2: c - 1 = c + 1), so that every partner appears once.
  auto neighbours = [&](int a, std::int64_t c, std::int64_t* out) {
    const std::int64_t nc = ncell_[static_cast<std::size_t>(a)];
    if (nc == 0) {
      out[0] = c - 1, out[1] = c, out[2] = c + 1;
      return 3;
    }
    int m = 0;
    for (std::int64_t d = -1; d <= 1; ++d) {
      const std::int64_t v = ((c + d) % nc + nc) % nc;
      if (std::find(out, out + m, v) == out + m) out[m++] = v;
    }
    return m;
  };
  const bool x_open = ncell_[0] == 0;
  thread_candidates_.resize(static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel
  {
    dipolar::PartnerSoA& cand = thread_candidates_[static_cast<std::size_t>(omp_get_thread_num())];
    std::vector<std::size_t> ids;
#pragma omp for schedule(dynamic, 16)
    for (std::size_t li = 0; li < nl; ++li) {
      const std::size_t gi = b + li;
      const CellKey c = cell_of_[gi];
      // Candidates: for z, y in the neighbour order, the cells x - 1, x, x + 1 (an open x axis:
      // one run of the sorted keys), each cell's bodies in index order.
      ids.clear();
      std::size_t self = 0;
      std::int64_t zs[3], ys[3], xs[3];
      const int nz = neighbours(2, c.z, zs), ny = neighbours(1, c.y, ys), nx = neighbours(0, c.x, xs);
      auto take = [&](const CellKey& lo, const CellKey& hi) {
        auto first = std::lower_bound(sorted_keys_.begin(), sorted_keys_.end(), lo);
        auto last = std::upper_bound(first, sorted_keys_.end(), hi);
        for (auto it = first; it != last; ++it) {
          const std::size_t j = cell_order_[static_cast<std::size_t>(it - sorted_keys_.begin())];
          if (j == gi) self = ids.size();
          ids.push_back(j);
        }
      };
      for (int iz = 0; iz < nz; ++iz)
        for (int iy = 0; iy < ny; ++iy) {
          if (x_open) {
            take({zs[iz], ys[iy], c.x - 1}, {zs[iz], ys[iy], c.x + 1});
          } else {
            for (int ix = 0; ix < nx; ++ix) take({zs[iz], ys[iy], xs[ix]}, {zs[iz], ys[iy], xs[ix]});
          }
        }
      if (cand.x.size() < ids.size() + dipolar::kLanes) cand.resize(2 * ids.size() + dipolar::kLanes);
      cand.n = ids.size();
      for (std::size_t k = 0; k < ids.size(); ++k) {
        const std::size_t j = ids[k];
        cand.x[k] = partners_.x[j], cand.y[k] = partners_.y[j], cand.z[k] = partners_.z[j];
        cand.mx[k] = partners_.mx[j], cand.my[k] = partners_.my[j], cand.mz[k] = partners_.mz[j];
      }
      const double qi[3] = {partners_.x[gi], partners_.y[gi], partners_.z[gi]};
      dipolar::RowSums& r = rows_[li];
      dipolar::ordered_row(cand, 0, ids.size(), self, qi, &mu_local_[3 * li], pair_, want_energy, r);
      r.energy *= 0.5;
    }
  }
}

void Dipolar::compute_rows(bool want_energy) {
  if (tiled()) {
    compute_tiles(want_energy);
    return;
  }
  compute_rows_cells(want_energy);
  // F_i = force + s mu_i (dipolar_kernel.hpp)
  const std::size_t nl = range_.size();
  for (std::size_t li = 0; li < nl; ++li) {
    const dipolar::RowSums& r = rows_[li];
    const double* mu = &mu_local_[3 * li];
    double* out = &sums_[7 * li];
    for (int k = 0; k < 3; ++k) out[k] = r.force[k] + r.s * mu[k];
    for (int k = 0; k < 3; ++k) out[3 + k] = r.field[k];
    out[6] = r.energy;
  }
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
#pragma omp parallel for schedule(static) if (nl >= 256)
  for (std::size_t li = 0; li < nl; ++li) {
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
  }
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
#pragma omp parallel for schedule(static) if (nl >= 256)
  for (std::size_t li = 0; li < nl; ++li) {
    const double* Fi = &sums_[7 * li];
    const double* g = Fi + 3;
    const double* mu = &mu_local_[3 * li];
    const double* Q = y + kStateDim * li + 6;
    for (int k = 0; k < 3; ++k) F[3 * li + k] = Fi[k];
    body_torque(mu, g, Q, tau + 3 * li);
  }
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
  ctx_.allreduce(std::span<par::ExactSum>(sums.data(), sums.size()));
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
}

std::vector<std::string> Dipolar::observable_names() const {
  return {"total_energy",       "kinetic_energy",     "potential_energy",   "linear_momentum_x",
          "linear_momentum_y",  "linear_momentum_z",  "angular_momentum_x", "angular_momentum_y",
          "angular_momentum_z", "orthogonality_error"};
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
