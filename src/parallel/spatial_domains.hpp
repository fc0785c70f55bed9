#pragma once
// Spatial decomposition of N bodies for short-range pair sums (issue 28): the cutoff path of the
// dipolar model, and any model whose pair interactions vanish beyond a cutoff rc.
//
// Two maps, as the suite needs them. The integrator's state stays where it is: rank k owns the
// contiguous index range of its bodies (Model::global_offset), so that RKMK, the splittings,
// checkpoints and the result files are unchanged. The *pair work* is decomposed in space, as
// in molecular-dynamics codes:
//
//   cells     two grids over the box (periodic axis: [0, L); open axis: the bodies' extent at the
//             last rebuild, clamped at both ends), both of cells of side >= rc + skin: the
//             domain cells, a power of two per axis, ordered along a Morton (Z-order) curve
//             (so that the curve's halves, quarters, ... are boxes), and the list cells,
//             floor(extent / (rc + skin)) per axis, that the Verlet lists are built from;
//   domains   rank r owns the domain cells whose Morton keys lie in [split_r, split_r+1), the splitters
//             chosen at each rebuild from a regular sample of the bodies' keys so that every rank
//             has about N / P bodies (a space-filling-curve decomposition, as in Gadget or 2HOT:
//             it balances any layout of the bodies, with P not restricted to a product grid);
//   home      a body's home rank owns its cell: it sums the body's row;
//   ghosts    a body goes, besides its home, to the owner of every one of the 26 domain cells
//             around its own that lies closer than rc + skin (the bodies within rc + skin of
//             that rank's cells);
//   migration at every rebuild the home of a body is its current cell's owner: the pair work of a
//             body moves with it from rank to rank (its state row does not);
//   lists     Verlet lists of every home body: the bodies within rc + skin at the rebuild, in
//             global index order; rebuilt (collectively) when some body has moved more than
//             skin / 2 since the last rebuild (LAMMPS's `neigh_modify check yes`).
//
// Per evaluation, each index owner sends (wrapped q, payload) of each body to its home and its
// ghost holders, and each home returns the body's row sums to its index owner: point to point,
// a fixed pattern between rebuilds. With index ranges that are coherent in space (the lattice
// start is numbered along the same Morton curve), these are the neighbouring ranks; the
// traffic() counters say how many there are. Bytes and memory per rank are O(N / P + ghosts).
//
// Layout independence: each pair once within a rank (issue 27). The pair rows (pair_parts()
// below) hold every pair (i, j), i < j in global index order, with i or j a home body, within
// rc + skin at the rebuild, grouped by the lower body i; a part of the home bodies (one per
// thread) walks its rows in increasing i and, in each row, the partners j in increasing order,
// adding each pair's reaction on a body of its own to that body's accumulator as it goes. So a
// body b gets its pairs' reactions in the order of its partners' global indices -- first those
// of the rows i < b, then its own row's j > b -- whoever computes them: its sum is the fold of
// its pair terms in partner order, left to right, a function of the state alone (not of the
// ranks, the threads, the splitters, the skin or when the lists were rebuilt: a partner beyond
// the cutoff adds an exact zero, and a sum that starts at +0 is never -0, so x + 0 = x). A pair
// whose bodies are homed on two ranks (or in two parts) is computed by both, each pair within a
// part once. (Until issue 27 each pair was computed twice, once in each body's row.)
//
// Restart: nothing is stored; the first evaluation after a restart rebuilds.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <mpi.h>

#include "parallel/block_layout.hpp"
#include "parallel/context.hpp"
#include "parallel/pair_rows.hpp"
#include "parallel/periodic_box.hpp"

namespace lie::par {

/// The Morton (Z-order) key of the cell (cx, cy, cz), each coordinate < 2^21: the bits of x,
/// y, z interleaved (x lowest). The curve along which the cells are split over the ranks; the
/// dipolar lattice start numbers its sites along it.
std::uint64_t morton_key(std::uint64_t cx, std::uint64_t cy, std::uint64_t cz);
/// The inverse: the cell (cx, cy, cz) of a Morton key.
void morton_cell(std::uint64_t key, std::uint64_t& cx, std::uint64_t& cy, std::uint64_t& cz);

/// A grid of cells over the box: cell c of an axis is [origin + c side, origin + (c + 1) side)
/// (periodic axis: [0, L); open axis: the bodies' extent at the last rebuild, clamped at both ends).
struct DomainGrid {
  double origin[3], side[3], inv_side[3];
  std::int64_t cells[3];
  bool periodic[3];
  std::int64_t coord(int axis, double w) const;  // clamped to [0, cells)
  // The distinct neighbour cells c - 1, c, c + 1 of one axis (periodic: mod cells; open:
  // clipped) and the distance of w (in cell c) to each along the axis (0 for c itself).
  int neighbours(int axis, std::int64_t c, double w, std::int64_t* out, double* gap) const;
};

/// What one rank holds and sends (issue 28: memory and communication per rank).
struct DomainTraffic {
  std::uint64_t evaluations = 0, rebuilds = 0;
  // sent by this rank, messages to itself excluded
  std::uint64_t messages_per_evaluation = 0, bytes_per_evaluation = 0;  // the last evaluation
  std::uint64_t messages_per_rebuild = 0, bytes_per_rebuild = 0;        // the last rebuild
  std::size_t home = 0, ghosts = 0, list_entries = 0;
  std::size_t pair_terms = 0;  // pairs this rank computes per evaluation (within rc + skin; pair_parts)
  std::size_t bytes_held = 0;  // this rank's decomposition arrays (capacity), at the last rebuild
};

class SpatialDomains {
 public:
  struct Options {
    double cutoff = 0.0;  // rc > 0
    double skin = 0.3;    // Verlet skin >= 0
    PeriodicBox box;      // periodic axes: [0, L) with minimum image; the others open
  };

  /// Bodies [owned.begin, owned.end) of n are this rank's (the integrator's index range).
  SpatialDomains(const Options& options, std::size_t n, Range owned, Context& ctx);

  /// Collective. Rebuilds the domains and lists if needed (first call; a body moved more than
  /// skin / 2), then fills the domain arrays with the wrapped position and the 3-value payload
  /// of every home and ghost body. q: unwrapped positions of the owned bodies (3 values at
  /// q + stride * i); payload: 3 values per owned body (packed).
  void distribute(const double* q, std::size_t stride, const double* payload);

  /// Domain arrays (after distribute): bodies sorted by global index, slot s.
  std::size_t domain_size() const { return index_.size(); }
  const std::uint64_t* index() const { return index_.data(); }
  const double* x() const { return x_.data(); }
  const double* y() const { return y_.data(); }
  const double* z() const { return z_.data(); }
  const double* payload(int k) const { return pl_[static_cast<std::size_t>(k)].data(); }

  /// Home bodies (slots, increasing index) and their Verlet lists (slots, increasing index).
  std::size_t home_count() const { return home_.size(); }
  std::uint32_t home_slot(std::size_t h) const { return home_[h]; }
  const std::uint32_t* list_begin(std::size_t h) const { return nbr_.data() + nbr_begin_[h]; }
  const std::uint32_t* list_end(std::size_t h) const { return nbr_.data() + nbr_begin_[h + 1]; }

  /// Each pair once within a rank (issue 27; the order argument in the header comment). The home
  /// bodies are cut into parts (omp_get_max_threads() at the rebuild; consecutive home numbers);
  /// part p walks its rows in order. A row is body `slot` against the partners [begin, end)
  /// (slots > slot, increasing; within rc + skin at the rebuild): the part's own home bodies'
  /// rows hold all their partners j > i, its foreign rows (ghosts, other parts' homes) only the
  /// part's own home bodies. `acc` is the accumulator of the row's body: its home number, or
  /// the part's trash row (home_count() + p) for a foreign row. A partner's accumulator is
  /// home_of_slot()[j] if that lies in [home_begin, home_end), else the trash row.
  /// The entry arrays hold at least kPairRowPad readable entries past every row's end (pair_rows.hpp).
  const std::vector<PairPart>& pair_parts() const { return parts_; }
  /// Home number of every slot; kNotHome for a ghost.
  const std::uint32_t* home_of_slot() const { return home_of_slot_.data(); }

  /// The minimum-image squared distance of slots a and b as the pair kernels compute it
  /// (wrapped positions, select form; dipolar_kernel.hpp): a pair is within the cutoff iff
  /// pair_r2(a, b) < rc^2. Every caller uses this one expression.
  double pair_r2(std::uint32_t a, std::uint32_t b) const {
    return minimum_image_r2(x_[a] - x_[b], y_[a] - y_[b], z_[a] - z_[b], len_, half_);
  }
  /// pair_r2's expression on a difference of wrapped positions: len = kernel_length (0 on open
  /// axes), half = kernel_half (+inf on open axes), periodic_box.hpp.
  static double minimum_image_r2(double dx, double dy, double dz, const double* len, const double* half) {
    dx -= len[0] * ((dx > half[0] ? 1.0 : 0.0) - (dx < -half[0] ? 1.0 : 0.0));
    dy -= len[1] * ((dy > half[1] ? 1.0 : 0.0) - (dy < -half[1] ? 1.0 : 0.0));
    dz -= len[2] * ((dz > half[2] ? 1.0 : 0.0) - (dz < -half[2] ? 1.0 : 0.0));
    return dx * dx + dy * dy + dz * dz;
  }

  /// Collective. home_sums: `width` values per home body (home order) back to the index owners:
  /// owned_out gets `width` values per owned body (local order).
  void collect(const double* home_sums, int width, double* owned_out);

  const DomainTraffic& traffic() const { return traffic_; }
  /// Rank r's share of the Morton curve (tests, diagnostics): the splitters of the last rebuild.
  const std::vector<std::uint64_t>& splitters() const { return split_; }

 private:
  bool needs_rebuild(const double* q, std::size_t stride) const;
  void rebuild(const double* q, std::size_t stride);
  void build_lists();
  void build_pair_rows();
  void exchange(const std::vector<std::vector<double>>& out, const std::vector<int>& to,
                std::vector<std::vector<double>>& in, const std::vector<int>& from,
                const std::vector<std::size_t>& in_values, int tag, bool count_as_rebuild);

  Options opt_;
  std::size_t n_;
  Range owned_;
  Context& ctx_;
  double len_[3], half_[3];  // kernel constants (periodic_box.hpp: kernel_length, kernel_half)
  DomainGrid domain_grid_{}, list_grid_{};
  bool built_ = false;

  // owned side
  std::vector<double> wrapped_;       // 3 per owned body (the current evaluation)
  std::vector<std::uint64_t> key_;    // Morton key of every owned body's cell (rebuild)
  std::vector<double> q_ref_;         // unwrapped positions at the last rebuild
  std::vector<int> dest_;             // ranks receiving my bodies (positions), increasing
  std::vector<std::vector<std::uint32_t>> dest_bodies_;  // per dest: owned local indices
  std::vector<std::vector<std::uint32_t>> home_bodies_;  // per dest: the bodies homed there (collect order)
  std::vector<std::uint64_t> split_;  // P - 1 splitters

  // domain side
  std::vector<int> src_;                                // ranks sending me bodies, increasing
  std::vector<std::vector<std::uint32_t>> src_slots_;   // per src: slot of each message entry
  std::vector<std::vector<std::uint32_t>> src_homes_;   // per src: home number of each returned row
  std::vector<std::uint64_t> index_;
  std::vector<double> x_, y_, z_;
  std::vector<double> pl_[3];
  std::vector<std::uint32_t> home_;
  std::vector<std::size_t> nbr_begin_;
  std::vector<std::uint32_t> nbr_;  // (+ kPairRowPad zeros)
  std::vector<std::uint32_t> home_of_slot_;
  std::vector<PairPart> parts_;

  std::vector<std::vector<double>> out_, in_;
  std::vector<std::size_t> in_values_;  // values expected from each peer (per exchange; reused)
  std::vector<MPI_Request> requests_;
  DomainTraffic traffic_;
};

// The decomposition's steps as functions, shared by SpatialDomains and the simulated clusters'
// replay (parallel/domain_replay.hpp), so that both place every body on the same ranks and send
// the same messages.

/// One phase of point-to-point messages: MPI_Irecv of in_values[k] doubles into in(k) from every
/// from[k], MPI_Isend of out(k) = {data, doubles} to every to[k], then one wait per request in
/// the order posted (all are posted, so no order can deadlock): the same as MPI_Waitall, and
/// O(1) per request in SimGrid, whose Waitall rescans every pending request at each completion
/// (O(P^2) per rank: 256 simulated ranks took 600 s of host time). Entries of this rank itself
/// are skipped (the caller copies them). Adds the messages and bytes sent to the counters.
template <class In, class Out>
void exchange_phase(Context& ctx, int tag, const std::vector<int>& from, const std::vector<std::size_t>& in_values,
                    In in, const std::vector<int>& to, Out out, std::vector<MPI_Request>& requests,
                    std::uint64_t& messages, std::uint64_t& bytes) {
  const int me = ctx.rank();
  requests.clear();
  for (std::size_t k = 0; k < from.size(); ++k) {
    if (from[k] == me) continue;
    requests.emplace_back();
    MPI_Irecv(in(k), static_cast<int>(in_values[k]), MPI_DOUBLE, from[k], tag, ctx.comm(), &requests.back());
  }
  for (std::size_t k = 0; k < to.size(); ++k) {
    if (to[k] == me) continue;
    const auto [data, count] = out(k);
    requests.emplace_back();
    MPI_Isend(data, static_cast<int>(count), MPI_DOUBLE, to[k], tag, ctx.comm(), &requests.back());
    ++messages;
    bytes += count * sizeof(double);
  }
  for (MPI_Request& r : requests) MPI_Wait(&r, MPI_STATUS_IGNORE);
}

/// Collective. The list and domain grids (cells of side >= rc + skin; the domain grid a power
/// of two per axis) from this rank's extent: ext = {-min x, -min y, -min z, max x, max y, max z}
/// of its wrapped positions (-inf for none), reduced over the ranks here.
void make_domain_grids(const SpatialDomains::Options& options, double ext[6], Context& ctx, DomainGrid& list,
                       DomainGrid& domain);
/// The Morton key of the grid cell of the wrapped position w.
std::uint64_t cell_key(const DomainGrid& grid, const double* w);
/// Collective. The P - 1 splitters of the Morton curve from a regular sample of every rank's
/// keys (sorted here): every rank gets about N / P bodies.
std::vector<std::uint64_t> choose_splitters(std::vector<std::uint64_t> keys, Context& ctx);
/// The rank owning the domain cell of Morton key `key`.
int domain_owner(const std::vector<std::uint64_t>& splitters, std::uint64_t key);
/// The ranks that receive a body at wrapped position w: its home (first: the owner of its cell)
/// and the owners of the 26 cells around it that lie closer than reach = sqrt(reach2), each once.
void body_owners(const DomainGrid& domain, const std::vector<std::uint64_t>& splitters, const double* w,
                 double reach2, std::vector<int>& owners);

}  // namespace lie::par
