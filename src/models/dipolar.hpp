#pragma once
// Dipolar soft spheres [K] 3.2: N identical rigid bodies on T*(R^3 x SO(3)), left
// trivialised ([K] eq. (2.44)); state of body i = (q_i, p_i, Q_i row-major, m_i) (18 values),
// algebra (dq, dp, xi, alpha) (12 values) acting through factor rigid_body_left:
//   q' = dq, p' = dp, Q' = Q hat(xi), m' = alpha + m x xi.
// With f_i = (p_i/M, -dV/dq_i, I^-1 m_i, -rot(Q_i^T dV/dQ_i)) this is exactly [K] eq. (3.4):
//   q' = p/M, p' = -dV/dq, Q' = Q hat(I^-1 m), m' = m x I^-1 m - rot(Q^T dV/dQ).
// Hamiltonian H = sum_i |p_i|^2/(2M) + m_i.I^-1 m_i/2 + sum_{i<j} V_ij, V_ij in
// dipolar_kernel.hpp (soft sphere 4 eps (s/r)^12, optional -4 eps (s/r)^6, point dipoles
// mu_i = Q_i mubar with coupling kappa). All pairs, unbounded domain ([K]), optional cutoff.
//
// Periodic box (issue 28, dipolar.box / periodic / cutoff_shift; docs/models.md): cutoff path
// only, cutoff <= L/2 on the periodic axes. The state holds unwrapped positions (the RKMK stages
// and splittings move q freely; restart needs nothing else); gather_partners wraps the copies of
// the cell list and the row kernel, which takes minimum-image differences
// (periodic_box.hpp, dipolar_kernel.hpp). Truncation as LAMMPS's lj/cut/dipole/cut: forces and
// energies of pairs with r < rc, nothing beyond; cutoff_shift subtracts the soft-sphere/LJ value
// at rc from every pair's energy (pair_modify shift yes), the dipole term is not shifted.
// No long-range dipolar sums (Ewald, P3M).
//
// Classical baselines integrate Model::ambient_field = psi_*(f(y)), i.e. [K] eq. (3.4) above with
// Q in R^{3x3} unconstrained (Q' = Q hat(I^-1 m) off SO(3) too). [K] compares RKMK methods only
// and has no classical baseline; this is the suite's choice (the direct embedding of (3.4), as in
// [P] 5.2 for the chain). Not [L] Example 5: [L]'s magnetic dipoles are pendula on (S^2)^n, a
// different model that the suite does not implement.
//
// Distribution: rank k owns a contiguous range of bodies, par::balanced_range(N, P, k), or on the
// all-pairs path the pair plan's owners (par::PairPlan::owned: whole tiles where that evens the
// work out, [K]'s N = 100 on two ranks 0..63 | 64..99).
// All pairs (either value of `deterministic`): each evaluation sends every rank the (q_j, mu_j)
// of the tiles it needs; every pair is computed once (Newton's third
// law) in fixed tiles of bodies (dipolar_kernel.hpp), decomposed over ranks by
// par::PairPlan (parallel/pair_plan.hpp): rank k computes a compact 2-D patch of tile pairs
// (its threads take them dynamically), each (body, partner tile) partial is a leaf of a fixed
// binary tree over the partner tiles, a rank sums the subtrees whose leaves it holds and sends
// them, point to point, to the owners of the bodies, which finish the tree. f and every
// observable are therefore bitwise identical for every ranks x threads layout. With a cutoff
// (issue 28): a spatial decomposition (parallel/spatial_domains.hpp: cells of side >= rc + skin
// along a Morton curve split over the ranks, ghosts from the neighbouring cells, Verlet lists
// rebuilt when a body has moved more than skin / 2); each pair once within a rank, every body's
// sums the fold of its pair terms in partner order (spatial_domains.hpp: pair rows), bitwise on
// every layout, every skin and every rebuild schedule. `deterministic = false` changes only the global reductions of the
// observables (plain sums): the tiled pair sums are the fastest path anyway (issue 16: 1.4-2.3x
// the former plain Newton's-third-law kernel), so there is no separate non-deterministic one.
//
// Initial states ([K] 3.2.2), all drawn on every rank from one seeded stream (mt19937_64,
// Box-Muller normals) in global order, so they do not depend on the layout either:
//   random   : positions: 3N standard normals g (body by body), scaled by S / max|g| with
//              S = spread (0: S = N), i.e. Gaussian components stretched to fill [-S, S]
//              ("Gaussian distributed random components between -N and N"); orientations:
//              uniformly (Haar) random rotations from normalised Gaussian quaternions; p = m = 0.
//   random2d : as [K] 3.2.2's 2-D runs: 2N normals for (x, y), z = 0, same scaling;
//              Q_i = rotation about z by a uniform angle; default mubar = (1, 1, 0).
//   lattice  : (issue 28) a simple cubic lattice of nx x ny x nz sites (dipolar.lattice) filling
//              dipolar.box, site (ix + 1/2, iy + 1/2, iz + 1/2) (Lx/nx, Ly/ny, Lz/nz); the bodies
//              numbered along the Morton curve of the sites (parallel/spatial_domains.hpp), so
//              that the ranks' index ranges are compact in space; orientations Haar-random from
//              a counter-based stream per body (SplitMix64 of seed and index: each rank draws
//              only its own bodies); p = m = 0.
//   file     : rows [N][18] of an HDF5 dataset (default /runs/run_00000/final_state).
#include <array>
#include <memory>
#include <cstdint>
#include <string>
#include <vector>

#include "models/dipolar_kernel.hpp"
#include "models/model.hpp"
#include "parallel/periodic_box.hpp"
#include "models/rigid_bodies.hpp"
#include "parallel/pair_plan.hpp"
#include "parallel/phase_exchange.hpp"
#include "parallel/spatial_domains.hpp"

namespace lie {

struct DipolarParams {
  enum class Initial { Random, Random2D, Lattice, File };
  std::size_t n = 100;
  double mass = 1.0;
  std::array<double, 3> inertia{1.0, 1.88, 2.88};
  double epsilon = 1.0, sigma = 1.0;
  std::array<double, 3> dipole{0.0, 1.0, 1.0};  // mubar (body frame)
  double dipole_strength = 1.0;                 // kappa
  bool lj_attraction = false;
  double cutoff = 0.0;  // 0: none
  double skin = 0.3;    // Verlet skin of the cutoff path (dipolar.skin)
  bool cutoff_shift = false;  // energy shift at the cutoff (dipolar.cutoff_shift)
  PeriodicBox box;            // no periodic axis: unbounded ([K])
  Initial initial = Initial::Random;
  double spread = 0.0;  // 0: N
  std::array<std::size_t, 3> lattice{0, 0, 0};  // initial = lattice: sites per axis
  bool order_parameters = false;  // observe polarization and nematic_order (dipolar.order_parameters)
  par::PairPlan::Messages pair_messages = par::PairPlan::Messages::automatic;  // dipolar.pair_messages
  par::PairPlan::Owners pair_owners = par::PairPlan::Owners::automatic;        // dipolar.pair_owners
  par::PhaseExchange::Transport pair_transport = par::PhaseExchange::Transport::automatic;  // dipolar.pair_transport
  std::uint64_t seed = 1;
  std::string file, dataset = "/runs/run_00000/final_state";

  /// Reads and validates the dipolar.* keys (UsageError naming key and value otherwise).
  /// For initial = file and no explicit N, n = 0 (taken from the file by the model).
  static DipolarParams from_config(const Config& cfg);
  /// Refuses (UsageError, one line) a box without a cutoff, cutoff > L/2 on a periodic axis,
  /// non-positive lengths, periodic axes without a length.
  void check_box() const;
};

/// The sites of the lattice start (initial = lattice): body i sits at the centre of the lattice
/// cell of Morton rank i, ((c + 0.5) L / n per axis), in the box's unwrapped coordinates. A cube
/// of 2^k sites per side (or 2^(k+1) x 2^k x 2^k, 2^(k+1) x 2^(k+1) x 2^k) fills the keys
/// 0 .. N - 1: the site is the key's cell (O(1) per body, nothing stored: 10^8 bodies on 1024
/// simulated ranks); else the sites are sorted by key once (the same order on every rank).
class LatticeSites {
 public:
  LatticeSites(const std::array<std::size_t, 3>& n, const std::array<double, 3>& length);
  void position(std::size_t i, double* q) const;

 private:
  std::array<std::size_t, 3> n_;
  double a_[3];
  bool cube2_;
  std::vector<std::uint64_t> site_;  // by Morton rank: ix + nx (iy + ny iz) (not cube2)
};

class Dipolar final : public Model, public RigidBodySystem {
 public:
  static constexpr int kStateDim = 18;  // q(3) p(3) Q(9) m(3)
  static constexpr int kAlgDim = 12;    // dq(3) dp(3) xi(3) alpha(3)

  /// Collective over ctx (reads the initial-state file if any). ctx must outlive the model.
  Dipolar(DipolarParams params, par::Context& ctx);
  using Options = DipolarParams;
  /// Reads the model's keys into its options: the entry's parse function (at the plan only).
  static Options parse(const Config& cfg);
  /// Builds the model from its options (ModelEntry::create).
  static std::unique_ptr<Model> create(const ModelOptions& options, par::Context& ctx);

  std::string name() const override { return "dipolar"; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return p_.n; }
  std::size_t global_offset() const override { return range_.begin; }
  int state_dim_per_component() const override { return kStateDim; }

  void initial_state(double* y) const override;
  void vector_field(double t, const double* y, double* xi) override;
  void observables(double t, const double* y, Observables& out) override;
  std::vector<std::string> observable_names() const override;

  std::vector<TrajectoryField> trajectory_fields() const override;
  void trajectory_field(const std::string& name, const double* y, double* out) const override;
  std::string particle_group() const override { return "bodies"; }

  ModelCapabilities capabilities() const override;
  /// RigidBodySystem (the splittings): body = (q, p, Q, m), mass M, inertia diag(I).
  RigidBodyLayout rigid_body_layout() const override;
  void forces_and_torques(double t, const double* y, double* F, double* tau) override;

  /// V(y) = sum_{i<j} V_ij over all bodies. Collective; same value on all ranks.
  double potential_energy(const double* y);

  const DipolarParams& params() const { return p_; }
  std::size_t local_bodies() const { return range_.size(); }
  /// True if the observables' global reductions are exact sums (deterministic = true); the pair
  /// sums are bitwise layout-independent in both modes.
  bool ordered_sums() const { return ctx_.deterministic(); }
  const par::Context& context() const { return ctx_; }
  /// The spatial decomposition of the cutoff path (nullptr for all pairs): its traffic() counters.
  const par::SpatialDomains* domains() const { return domains_.get(); }

 private:
  // (q_j, mu_j) of the partners: into bodies_ (tiled: the needed tiles, exchange_positions) or
  // the spatial domains (cutoff path: homes and ghosts)
  void gather_partners(const double* y);
  void exchange_positions();  // pos_up, then pos_down started (positions_pending_)
  void finish_positions();    // pos_down finished and unpacked, if pending
  void unpack_positions(const par::PairPlan::Phase& phase, const std::vector<std::vector<double>>& in, bool self);
  // One round of the pair plan: round_bufs_[round].out[k] to sends[k].rank, .in[k] from
  // recvs[k].rank (exchange_; a message to self is not copied: out's and in's buffers are swapped).
  enum class Round { pos_up, pos_down, sum_up, sum_down };
  void run_phase(Round round);
  void start_round(Round round);   // run_phase's halves (PhaseExchange::start, finish)
  void finish_round(Round round);
  // Pair sums of every local body into sums_ (F_i, g_i, V_i: 7 values per body).
  void compute_rows(bool want_energy);
  // Default all-pairs path: each pair once in fixed tiles (dipolar_kernel.hpp).
  void compute_tiles(bool want_energy);
  bool tiled() const { return !(p_.cutoff > 0.0); }
  // Cutoff path: the spatial decomposition (parallel/spatial_domains.hpp) distributes the
  // bodies; every home body's row runs over its partners within the cutoff, in index order.
  void compute_rows_domains(bool want_energy);
  void make_random_state(bool planar);
  void make_lattice_state();
  void read_state_file();

  DipolarParams p_;
  par::Context& ctx_;
  par::Range range_;
  Space space_;
  dipolar::PairParams pair_;
  std::vector<double> y0_;  // local initial state
  // Work arrays.
  std::vector<double> send_;              // tiled path: packed (q, mu) of the local bodies (empty where pos_up is self-only)
  std::vector<double> mu_local_;          // unscaled mu_i of local bodies (3 per body)
  std::vector<double> sums_;              // F_i (3), g_i (3), V_i of local bodies
  dipolar::BodySoA bodies_;               // tiled path: unscaled mu; only the needed tiles filled
  par::PairPlan plan_;                    // tiled path: tile pairs, leaves, messages
  std::vector<double> leaf_store_;        // this rank's leaves (plan_.leaf_values())
  double* leaves_ = nullptr;              // leaf_store_.data(), or one shared block (SMPI, modelled pairs)
  bool modelled_pairs_ = false;           // SMPI only: LIEBENCH_SMPI_MODEL_PAIRS=1 (dipolar.cpp)
  // messages of each round (Round), apart: no reallocation when the rounds' lengths differ
  struct RoundBuffers {
    std::vector<std::vector<double>> out, in;
  };
  std::array<RoundBuffers, 4> round_bufs_;
  // rounds with no other rank (PairPlan::Phase::self_only): untimed (the exchange only swaps the
  // message to self); a self-only pos_up is skipped altogether (gather_partners writes the bodies
  // straight into bodies_, send_ stays empty)
  std::array<bool, 4> self_only_{};
  std::vector<std::size_t> local_pairs_, remote_pairs_;  // my tile pairs without / with a tile from pos_down
  bool positions_pending_ = false;                       // pos_down started, not finished
  par::PhaseExchange exchange_;            // tiled path: the plan's rounds, by messages or a shared window
  std::vector<dipolar::TileScratch> tile_scratch_;
  std::unique_ptr<par::SpatialDomains> domains_;      // cutoff path
  std::vector<double> pair_acc_;                      // cutoff path: accumulators (dipolar_kernel.hpp)
  std::vector<double> home_sums_;                     // cutoff path: 7 values per home body
};

}  // namespace lie
