#pragma once
// Pair kernels of the dipolar soft-sphere model ([K] 3.2): soft-sphere (optionally full
// Lennard-Jones) + point-dipole interactions, written so that the inner loop over partners j
// vectorises and the result does not depend on how particles are split over ranks/threads.
//
// Pair potential (r = q_i - q_j, r = |r|, mu_i = Q_i mubar, kappa = dipole strength):
//   V_ij = 4 eps [(s/r)^12 - a (s/r)^6] + kappa [ mu_i.mu_j / r^3 - 3 (mu_i.r)(mu_j.r) / r^5 ]
// (a = 1 adds the attractive term of Lennard-Jones; [K] 3.2 has a = 0, kappa = 1.)
// Derived here (the [K] 3.2.1 formulas have typos: mu_i.mu_i for mu_i.mu_j, and 48 without
// eps sigma^12); checked against finite differences of V in tests/unit/test_dipolar_model.cpp:
//   F_i = -dV/dq_i = sum_j [ (48 eps s12 - 24 a eps s6)/r^2 + 3 kappa mu_i.mu_j / r^5
//                            - 15 kappa (mu_i.r)(mu_j.r) / r^7 ] r
//                          + 3 kappa/r^5 [ (mu_j.r) mu_i + (mu_i.r) mu_j ]
//   g_i = dV/dmu_i = kappa sum_j [ mu_j / r^3 - 3 (mu_j.r) r / r^5 ]
// and the body torque term of [K] eq. (3.4): rot(Q_i^T dV/dQ_i) = mubar x Q_i^T g_i
// = Q_i^T (mu_i x g_i), since dV/dQ_i = g_i mubar^T and rot(a b^T) = b x a.
//
// The j side stores kappa mu_j (every term is linear in mu_j), so kappa costs nothing.
//
// Deterministic ("ordered") row sums: for particle i the partners j run over *all* N
// particles in global index order, accumulated in kLanes interleaved lanes (lane = j mod
// kLanes) that are combined by a fixed tree at the end. The summation order is then a
// function of the global state only -- not of the rank or the thread that owns i -- so
// forces are bitwise identical for every ranks x threads layout.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "parallel/pair_rows.hpp"

namespace lie::dipolar {

inline constexpr int kLanes = 16;

struct PairParams {
  double eps = 1.0;         // epsilon
  double sigma = 1.0;       // sigma
  double attraction = 0.0;  // 1: -4 eps (s/r)^6 term present, 0: soft spheres [K]
  double cutoff2 = 0.0;     // squared cutoff radius; +inf: all pairs
  double masked_r2 = 1.0;   // r^2 used (and then multiplied by 0) in masked lanes
  // ordered_row only: V_ij - energy_shift for every pair within the cutoff (energy only; the
  // LJ/soft-sphere value at the cutoff with dipolar.cutoff_shift, as pair_modify shift yes in
  // LAMMPS's lj/cut/dipole/cut); 0: plain truncation (x - 0 = x: the same bits).
  double energy_shift = 0.0;
  // ordered_row only: minimum image in a periodic box (periodic_box.hpp). The positions must be
  // wrapped into [0, L) on the periodic axes, so that |dx| < L; then
  //   dx <- dx - L ((dx > L/2) - (dx < -L/2))
  // with L = box_length (0 on open axes) and box_half = L/2 (+inf on open axes).
  bool periodic = false;
  double box_length[3] = {0.0, 0.0, 0.0};
  double box_half[3] = {0.0, 0.0, 0.0};
};

/// Positions and kappa-scaled dipoles of all particles, structure of arrays, padded to a
/// multiple of kLanes with NaN entries (which the kernels mask out).
struct PartnerSoA {
  std::size_t n = 0, npad = 0;
  std::vector<double> x, y, z, mx, my, mz;
  void resize(std::size_t n_particles);
  /// Fills entry j from q (3 values) and kappa * mu (3 values).
  void set(std::size_t j, const double* q, const double* kmu) {
    x[j] = q[0], y[j] = q[1], z[j] = q[2];
    mx[j] = kmu[0], my[j] = kmu[1], mz[j] = kmu[2];
  }
};

/// Row sums of particle i (global index gi) against every partner:
///   force[3] = F_i without the mu_i term, s = coefficient of mu_i in F_i (F_i = force + s mu_i),
///   field[3] = g_i, energy = sum_j V_ij (only if want_energy; else 0).
struct RowSums {
  double force[3];
  double s;
  double field[3];
  double energy;
};

/// Ordered row sum over the partners j in [j_begin, j_end), j != gi, r_ij^2 < cutoff2, in
/// interleaved lanes by global index (deterministic when [j_begin, j_end) = [0, n)); with
/// pp.periodic, r_ij is the minimum-image difference (positions wrapped into the box).
void ordered_row(const PartnerSoA& partners, std::size_t j_begin, std::size_t j_end, std::size_t gi,
                 const double* qi, const double* mui, const PairParams& pp, bool want_energy, RowSums& out);

// ---------------------------------------------------------------------------------------------
// The cutoff path: each pair once within a rank, every body's sum the fold of its pair terms in
// partner order (parallel/spatial_domains.hpp: pair_parts; issue 27).

/// The constants of one pair's terms (PairParams and kappa, as pair_terms uses them).
struct PairCoeffs {
  double sig2, e48, e24a, e4, att, kappa, vshift, r2_masked;
  static PairCoeffs of(const PairParams& pp, double kappa) {
    return {pp.sigma * pp.sigma, 48.0 * pp.eps, 24.0 * pp.eps * pp.attraction, 4.0 * pp.eps, pp.attraction, kappa,
            pp.energy_shift, pp.masked_r2};
  }
};

/// The terms of the pair (i, j), i < j by global index: d = q_i - q_j (minimum image, as
/// SpatialDomains::pair_r2), r2 = d.d written as pair_r2 writes it, u = mu_i, m = mu_j (unscaled),
/// w = 1 for a pair within the cutoff, 0 for a masked one (r2 is then replaced by r2_masked and
/// every term is +-0). Out: F, the pair force on i (on j: -F); hi = dV/dmu_i / kappa, hj =
/// dV/dmu_j / kappa; V = V_ij - vshift (kEnergy). The arithmetic of tile_pair (explicit fma, so
/// that every ISA clone and the tests' scalar reference give the same bits). One place: the
/// cutoff kernel's vector lanes and the tests' reference fold both call it.
template <bool kEnergy>
__attribute__((always_inline)) inline void pair_terms(const PairCoeffs& k, double dx, double dy, double dz, double r2,
                                                      double w, double ux, double uy, double uz, double mx, double my,
                                                      double mz, double& Fx, double& Fy, double& Fz, double& hix,
                                                      double& hiy, double& hiz, double& hjx, double& hjy, double& hjz,
                                                      double& V) {
  const double inv_r2 = 1.0 / (w * r2 + (1.0 - w) * k.r2_masked);  // exact select (r2 finite)
  const double inv_r = std::sqrt(inv_r2);
  const double inv_r3 = inv_r * inv_r2;
  const double c5 = 3.0 * inv_r3 * inv_r2;  // 3/r^5
  const double s2 = k.sig2 * inv_r2;
  const double s6 = s2 * s2 * s2;
  const double s12 = s6 * s6;
  const double dd = std::fma(ux, mx, std::fma(uy, my, uz * mz));  // mu_i.mu_j
  const double ai = std::fma(ux, dx, std::fma(uy, dy, uz * dz));  // mu_i.r
  const double aj = std::fma(mx, dx, std::fma(my, dy, mz * dz));  // mu_j.r
  const double tj = c5 * aj, ti = c5 * ai;                         // 3 (mu_j.r)/r^5, 3 (mu_i.r)/r^5
  const double ktj = k.kappa * tj, kti = k.kappa * ti;
  const double lj = std::fma(k.e48, s12, -(k.e24a * s6));
  const double c1 = std::fma(std::fma(-5.0 * ai, ktj, lj), inv_r2, (k.kappa * c5) * dd);
  Fx = w * std::fma(c1, dx, std::fma(ktj, ux, kti * mx));
  Fy = w * std::fma(c1, dy, std::fma(ktj, uy, kti * my));
  Fz = w * std::fma(c1, dz, std::fma(ktj, uz, kti * mz));
  hix = w * std::fma(-tj, dx, inv_r3 * mx);
  hiy = w * std::fma(-tj, dy, inv_r3 * my);
  hiz = w * std::fma(-tj, dz, inv_r3 * mz);
  hjx = w * std::fma(-ti, dx, inv_r3 * ux);
  hjy = w * std::fma(-ti, dy, inv_r3 * uy);
  hjz = w * std::fma(-ti, dz, inv_r3 * uz);
  if constexpr (kEnergy) V = w * (std::fma(k.e4, s12 - k.att * s6, k.kappa * std::fma(dd, inv_r3, -(ai * tj))) - k.vshift);
}

/// A rank's domain bodies by slot (parallel/spatial_domains.hpp, pair_rows.hpp): wrapped positions, unscaled
/// dipoles.
struct SlotBodies {
  const double *x, *y, *z, *mx, *my, *mz;
};

/// Accumulator fields of the cutoff path, kAccStride doubles per accumulator: F (3, the force),
/// h (3, dV/dmu / kappa), V (the pair energies, each pair in both bodies' sums).
inline constexpr std::size_t kAccStride = 8;

/// Runs the pair rows of one part (SpatialDomains::pair_parts): for every row i and partner j
/// within the cutoff (pp.cutoff2; minimum image with pp.periodic), the pair terms folded into
/// the accumulators acc + kAccStride * a (a: the row's acc, the partner's home number when it is
/// the part's own, else the part's trash row), in row order and, within a row, partner order.
/// The accumulators hold the sums so far (zero at the start of an evaluation).
void pair_rows(const SlotBodies& bodies, const par::PairPart& part, const std::uint32_t* home_of_slot,
               double kappa, const PairParams& pp, bool want_energy, double* acc);

// ---------------------------------------------------------------------------------------------
// Each pair once (Newton's third law) with results bitwise independent of the layout.
//
// The bodies are cut into fixed tiles of `tile` consecutive global indices (tile_size_for(n):
// a function of N only, never of ranks or threads). A tile pair (I, J), I <= J, is computed
// once, by whichever rank/thread the layout gives it to, and produces
//   - for every body i of I the row partial sum over the partners j of J, and
//   - for every body j of J (I < J) the column partial sum over the partners i of I,
// each summed in an order fixed by the tile contents alone (rows: J is walked in sub-blocks of
// kSubBlock bodies in increasing order; within one, j runs in kPairLanes interleaved lanes by
// index, combined by a fixed tree, and the sub-block sums are added to the row partial in
// order; columns: i in increasing index, sequentially in the lane of j). On a diagonal tile
// (I, I) only the pairs i < j are computed; body i's partial of its own tile then adds its row
// parts (j > i) and its column part (j' < i) in the fixed order of the sub-blocks. Every partial is thus a
// function of the state only, and it is written into its own slot (body, partner tile) of a
// slot array [n][tiles][kSlotFields]: no two tile pairs write the same slot. The final sum of
// a body runs over its slots in tile order 0, 1, ..., tiles - 1 -- again independent of who
// computed them. (The model itself no longer uses the slot array: it sums the same partials,
// as leaves, over a fixed binary tree and exchanges subtree sums, parallel/pair_plan.hpp; the
// slot functions remain as the reference of the unit tests.) Across ranks the slots are combined by a bitwise OR of the 64-bit patterns
// (MPI_BOR over MPI_UINT64_T: exactly one rank wrote each slot, the others hold +0.0 = all
// zero bits), which moves the bits unchanged.
//
// Why slots and not the fixed-point (integer) accumulators per body first considered: an
// exact window accumulator costs ~16 int64 words per body and field and a carry-propagating
// conversion per body and field at the end (estimated at tens of ns each, 10-25 % of an
// evaluation at N = 1000); a slot costs one store and the final combine one add per partner
// tile (n * tiles * 7 adds against n^2/2 * kPairFlops flops: 0.1 % at N = 1000). The price is
// memory and MPI volume of n * tiles * kSlotFields doubles (8 * 7 * 16 n bytes at most),
// bounded by choosing the tile so that tiles <= kMaxTiles (tile grows with N: 128 up to
// N = 2048, 256 up to 4096, 1024 at N = 16000; the kernel's sub-blocks keep its working set in
// L1 whatever the tile). 16 tiles still give 136 tile pairs to share out over ranks x threads.
//
// Slot fields: F (3, the full pair force on the body), h (3, the field dV/dmu divided by
// kappa), V (the pair energies V_ij, each pair in exactly one row partial; 0 unless energy
// is wanted).
// 4 lanes: one AVX2 vector; with 8 (two AVX2 vectors) the row accumulators and temporaries
// exceed the 16 ymm registers and spill (measured: ~2x the instructions per pair). On AMD Zen 4
// AVX-512 executes as two 256-bit halves, so 4 lanes cost little there.
inline constexpr int kPairLanes = 4;
inline constexpr int kSlotFields = 7;
/// Floating-point operations of one pair interaction in tile_pair (forces and fields, no
/// energy), an fma counted as 2: counted by hand in dipolar_kernel.cpp, cross-checked against
/// the instructions of the compiled x86-64-v3 loop (objdump).
inline constexpr int kPairFlops = 91;
inline constexpr std::size_t kMinTile = 128;
/// Tile of the small systems (N <= kMinTile): two tiles from N = 65 on, so that two ranks or
/// threads share the work ([K]'s N = 100: 2016 + 2304 + 630 pairs in three tile pairs). Smaller
/// tiles would balance better but cost more per pair (per-row overheads: 1.8x at tile 32).
inline constexpr std::size_t kSmallTile = 64;
/// The kernel walks the partner tile in sub-blocks of this many bodies (fixed order).
inline constexpr std::size_t kSubBlock = 128;
inline constexpr std::size_t kMaxTiles = 16;
/// Largest tile: beyond 16 tiles of 256 (N > 4096) the tiles stay at 256 bodies and their
/// number grows (N = 64000: 250 tiles, 31375 tile pairs to share over up to 1024 ranks); the
/// partials then live in a rank's leaves only (parallel/pair_plan.hpp), not in a full array.
inline constexpr std::size_t kMaxTile = 256;

/// Tile size for n bodies: kSmallTile up to n = kMinTile, else the smallest multiple of kMinTile
/// with ceil(n / tile) <= kMaxTiles, at most kMaxTile.
std::size_t tile_size_for(std::size_t n);

/// All bodies, structure of arrays with unscaled dipoles mu, padded to tiles * tile entries
/// (padding: zeros, masked out by the kernel).
struct BodySoA {
  std::size_t n = 0, tile = 0, tiles = 0;
  std::vector<double> x, y, z, mx, my, mz;
  void resize(std::size_t n_bodies);  // tile = tile_size_for(n)
  void set(std::size_t j, const double* q, const double* mu) {
    x[j] = q[0], y[j] = q[1], z[j] = q[2];
    mx[j] = mu[0], my[j] = mu[1], mz[j] = mu[2];
  }
};

/// Per-thread work space of tile_pair (column accumulators of one sub-block).
struct TileScratch {
  std::vector<double> col;
};

/// Computes the tile pair (I, J), I <= J, and writes its partials into
/// slots[(body * tiles + partner_tile) * kSlotFields + field] for every body of I (partner
/// tile J) and, if I < J, every body of J (partner tile I). kappa: the dipole coupling.
/// All pairs: pp.cutoff2 is not used (the cutoff path has its own cell-list sums).
void tile_pair(const BodySoA& bodies, std::size_t I, std::size_t J, double kappa, const PairParams& pp,
               bool want_energy, double* slots, TileScratch& scratch);

/// The same tile pair with the partials written into two leaves (parallel/pair_plan.hpp):
/// body i of I at row_leaf + (i - I tile) * kSlotFields, body j of J at col_leaf +
/// (j - J tile) * kSlotFields (I == J: row_leaf == col_leaf). Same bits as tile_pair.
void tile_pair_leaves(const BodySoA& bodies, std::size_t I, std::size_t J, double kappa, const PairParams& pp,
                      bool want_energy, double* row_leaf, double* col_leaf, TileScratch& scratch);

/// Number of tile pairs (I, J), I <= J, and the k-th of them in the fixed enumeration
/// (I = 0: J = 0..tiles-1, then I = 1, ...).
std::size_t tile_pair_count(std::size_t tiles);
void tile_pair_at(std::size_t k, std::size_t tiles, std::size_t& I, std::size_t& J);

/// Sums the slots of body i in tile order: F[3], h[3] (field / kappa), V.
void combine_slots(const double* slots, std::size_t i, std::size_t tiles, double* out7);

}  // namespace lie::dipolar
