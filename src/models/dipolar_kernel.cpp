// Pair kernels of the dipolar model; formulas and the ordering argument in dipolar_kernel.hpp.
//
// Vectorisation: the j loops are `omp simd` loops over independent lanes (no cross-lane
// reduction in the ordered kernel), with masks as factors 0/1. sqrt must not set errno for
// the loop to vectorise: this file is compiled with -fno-math-errno (CMakeLists.txt; it
// changes no result, sqrt is correctly rounded either way). Each kernel is compiled for AVX-512, AVX2 and
// the baseline ISA (target_clones, chosen at load time by the CPU); with FP contraction off
// (CMakeLists.txt) all three give bitwise identical results, because every lane performs
// the same IEEE operations in the same order.
#include "models/dipolar_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lie::dipolar {

#if defined(LIEBENCH_KERNEL_CLONES)
// set by the includer (tools comparing the ISA variants)
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LIEBENCH_KERNEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define LIEBENCH_KERNEL_CLONES
#endif
// The tile kernel uses explicit fma: its clones need the FMA extension (x86-64-v3 = AVX2 + FMA,
// x86-64-v4 = AVX-512 F/VL/DQ/BW), which target "avx2"/"avx512f" alone do not enable.
#if defined(LIEBENCH_TILE_CLONES)
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LIEBENCH_TILE_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LIEBENCH_TILE_CLONES
#endif

void PartnerSoA::resize(std::size_t n_particles) {
  n = n_particles;
  npad = (n + kLanes - 1) / kLanes * kLanes;
  if (npad == 0) npad = kLanes;
  for (auto* v : {&x, &y, &z, &mx, &my, &mz}) v->assign(npad, 0.0);
}

namespace {

template <bool kEnergy, bool kBox>
__attribute__((always_inline)) inline void ordered_row_body(const PartnerSoA& s, std::size_t j_begin,
                                                            std::size_t j_end, std::size_t gi, const double* qi,
                                                            const double* mui, const PairParams& pp, RowSums& out) {
  alignas(64) double fx[kLanes] = {}, fy[kLanes] = {}, fz[kLanes] = {}, sm[kLanes] = {};
  alignas(64) double gx[kLanes] = {}, gy[kLanes] = {}, gz[kLanes] = {}, en[kLanes] = {};
  const double xi = qi[0], yi = qi[1], zi = qi[2];
  const double ux = mui[0], uy = mui[1], uz = mui[2];
  const double sig2 = pp.sigma * pp.sigma, e48 = 48.0 * pp.eps, e24a = 24.0 * pp.eps * pp.attraction;
  const double e4 = 4.0 * pp.eps, att = pp.attraction, rc2 = pp.cutoff2, vshift = pp.energy_shift;
  const double Lx = pp.box_length[0], Ly = pp.box_length[1], Lz = pp.box_length[2];
  const double hx = pp.box_half[0], hy = pp.box_half[1], hz = pp.box_half[2];
  // Stand-in r^2 of masked lanes: a run-time value (1), so that the compiler cannot
  // specialise the masked lanes into a branch.
  const double r2_masked = pp.masked_r2;
  const double* __restrict X = s.x.data();
  const double* __restrict Y = s.y.data();
  const double* __restrict Z = s.z.data();
  const double* __restrict MX = s.mx.data();
  const double* __restrict MY = s.my.data();
  const double* __restrict MZ = s.mz.data();
  const std::size_t jb0 = j_begin / kLanes * kLanes;
  for (std::size_t jb = jb0; jb < j_end; jb += kLanes) {
#pragma omp simd aligned(fx, fy, fz, sm, gx, gy, gz, en : 64)
    for (int l = 0; l < kLanes; ++l) {
      const std::size_t j = jb + static_cast<std::size_t>(l);
      double dx = xi - X[j], dy = yi - Y[j], dz = zi - Z[j];
      if constexpr (kBox) {  // minimum image (dipolar_kernel.hpp: PairParams)
        dx -= Lx * ((dx > hx ? 1.0 : 0.0) - (dx < -hx ? 1.0 : 0.0));
        dy -= Ly * ((dy > hy ? 1.0 : 0.0) - (dy < -hy ? 1.0 : 0.0));
        dz -= Lz * ((dz > hz ? 1.0 : 0.0) - (dz < -hz ? 1.0 : 0.0));
      }
      const double r2 = dx * dx + dy * dy + dz * dz;
      // Padding (j >= n, zero entries) and the particle itself are masked out by a factor 0
      // on finite values (selects of computed values would be sunk into branches that
      // cannot be if-converted under IEEE trapping semantics).
      const bool valid = (r2 < rc2) & (j != gi) & (j >= j_begin) & (j < j_end);
      const double w = valid ? 1.0 : 0.0;
      const double inv_r2 = 1.0 / (w * r2 + (1.0 - w) * r2_masked);  // exact select (r2 finite)
      const double inv_r = std::sqrt(inv_r2);
      const double inv_r3 = inv_r * inv_r2;
      const double c2 = 3.0 * inv_r3 * inv_r2;  // 3/r^5
      const double s2 = sig2 * inv_r2;
      const double s6 = s2 * s2 * s2;
      const double s12 = s6 * s6;
      const double mjx = MX[j], mjy = MY[j], mjz = MZ[j];  // kappa mu_j
      const double dd = ux * mjx + uy * mjy + uz * mjz;
      const double ai = ux * dx + uy * dy + uz * dz;
      const double aj = mjx * dx + mjy * dy + mjz * dz;
      const double t = c2 * aj;                              // 3 kappa (mu_j.r)/r^5
      const double c1 = (e48 * s12 - e24a * s6) * inv_r2 + c2 * dd - 5.0 * ai * t * inv_r2;
      const double cm = c2 * ai;                             // coefficient of kappa mu_j
      fx[l] += w * (c1 * dx + cm * mjx);
      fy[l] += w * (c1 * dy + cm * mjy);
      fz[l] += w * (c1 * dz + cm * mjz);
      sm[l] += w * t;
      gx[l] += w * (inv_r3 * mjx - t * dx);
      gy[l] += w * (inv_r3 * mjy - t * dy);
      gz[l] += w * (inv_r3 * mjz - t * dz);
      if constexpr (kEnergy) en[l] += w * (e4 * (s12 - att * s6) - vshift + dd * inv_r3 - ai * t);
    }
  }
  // Fixed combination tree of the lanes: pairwise, (0+1), (2+3), ... then pairs of those.
  static_assert((kLanes & (kLanes - 1)) == 0, "kLanes must be a power of two");
  auto tree = [](double* a) {
    for (int w = kLanes / 2; w >= 1; w /= 2)
      for (int l = 0; l < w; ++l) a[l] = a[2 * l] + a[2 * l + 1];
    return a[0];
  };
  out.force[0] = tree(fx);
  out.force[1] = tree(fy);
  out.force[2] = tree(fz);
  out.s = tree(sm);
  out.field[0] = tree(gx);
  out.field[1] = tree(gy);
  out.field[2] = tree(gz);
  out.energy = kEnergy ? tree(en) : 0.0;
}

}  // namespace

LIEBENCH_KERNEL_CLONES
void ordered_row(const PartnerSoA& partners, std::size_t j_begin, std::size_t j_end, std::size_t gi,
                 const double* qi, const double* mui, const PairParams& pp, bool want_energy, RowSums& out) {
  if (pp.periodic) {
    if (want_energy)
      ordered_row_body<true, true>(partners, j_begin, j_end, gi, qi, mui, pp, out);
    else
      ordered_row_body<false, true>(partners, j_begin, j_end, gi, qi, mui, pp, out);
  } else if (want_energy) {
    ordered_row_body<true, false>(partners, j_begin, j_end, gi, qi, mui, pp, out);
  } else {
    ordered_row_body<false, false>(partners, j_begin, j_end, gi, qi, mui, pp, out);
  }
}

// ---------------------------------------------------------------------------------------------
// The cutoff path's pair rows (dipolar_kernel.hpp: pair_rows), one row in loops over row
// buffers T: the terms of all its partners in 8-lane vectors (gathered by slot; those beyond the
// cutoff and past the row's end masked), the positions of the partners within the cutoff picked
// out in order (and their accumulators looked up and prefetched), then the fold, one such
// partner after another, into the row's accumulator (in registers) and the partners'
// accumulators. Measured against other arrangements (N = 32768,
// one core, 2026-11-28): a fold after every block of four in the same loop 1.2x slower (the
// fold's scalar loads wait for the block's vector stores), the partners compacted before their
// terms 1.05x slower, the partners' data as one 64-byte record per slot 2.2x slower.
namespace {

struct RowTerms {
  std::size_t cap = 0;
  std::vector<double> v;  // 10 arrays of cap: F (3), h_i (3), h_j (3), V
  // per partner: within the cutoff; the positions of those, and their accumulators
  std::vector<std::uint32_t> keep, within, target;
  double* at(int k) { return v.data() + static_cast<std::size_t>(k) * cap; }
};

template <bool kEnergy, bool kBox>
__attribute__((always_inline)) inline void pair_rows_body(const SlotBodies& b, const par::PairPart& part,
                                                          const std::uint32_t* __restrict home_of_slot,
                                                          const PairCoeffs& k, const PairParams& pp,
                                                          double* __restrict acc, RowTerms& T) {
  const double* __restrict X = b.x;
  const double* __restrict Y = b.y;
  const double* __restrict Z = b.z;
  const double* __restrict MX = b.mx;
  const double* __restrict MY = b.my;
  const double* __restrict MZ = b.mz;
  double* __restrict Fx = T.at(0);
  double* __restrict Fy = T.at(1);
  double* __restrict Fz = T.at(2);
  double* __restrict Hix = T.at(3);
  double* __restrict Hiy = T.at(4);
  double* __restrict Hiz = T.at(5);
  double* __restrict Hjx = T.at(6);
  double* __restrict Hjy = T.at(7);
  double* __restrict Hjz = T.at(8);
  double* __restrict V = T.at(9);
  const double rc2 = pp.cutoff2;
  const double Lx = pp.box_length[0], Ly = pp.box_length[1], Lz = pp.box_length[2];
  const double hx = pp.box_half[0], hy = pp.box_half[1], hz = pp.box_half[2];
  const std::uint32_t h0 = part.home_begin, hn = part.home_end - part.home_begin, trash = part.trash;
  std::uint32_t* __restrict within = T.within.data();
  std::uint32_t* __restrict target = T.target.data();
  for (const par::PairRow& row : part.rows) {
    const std::uint32_t i = row.slot;
    const double xi = X[i], yi = Y[i], zi = Z[i], ux = MX[i], uy = MY[i], uz = MZ[i];
    const std::uint32_t* __restrict e = row.begin;
    const std::size_t n = static_cast<std::size_t>(row.end - row.begin);
    const std::size_t nv = (n + 7) / 8 * 8;  // whole 8-lane vectors, <= n + kPairRowPad - 1
    std::uint32_t* __restrict keep = T.keep.data();
    // 1. the terms of every partner (beyond the cutoff or the row's end: masked, zeros)
    for (std::size_t tb = 0; tb < nv; tb += 8)
#pragma omp simd
    for (std::size_t t = tb; t < tb + 8; ++t) {
      const std::uint32_t j = e[t];  // past the row's end: a readable slot (kPairRowPad), masked
      double dx = xi - X[j], dy = yi - Y[j], dz = zi - Z[j];
      if constexpr (kBox) {  // minimum image, as SpatialDomains::pair_r2
        dx -= Lx * ((dx > hx ? 1.0 : 0.0) - (dx < -hx ? 1.0 : 0.0));
        dy -= Ly * ((dy > hy ? 1.0 : 0.0) - (dy < -hy ? 1.0 : 0.0));
        dz -= Lz * ((dz > hz ? 1.0 : 0.0) - (dz < -hz ? 1.0 : 0.0));
      }
      const double r2 = dx * dx + dy * dy + dz * dz;
      const double w = ((r2 < rc2) & (t < n)) ? 1.0 : 0.0;
      double v = 0.0;
      pair_terms<kEnergy>(k, dx, dy, dz, r2, w, ux, uy, uz, MX[j], MY[j], MZ[j], Fx[t], Fy[t], Fz[t], Hix[t], Hiy[t],
                          Hiz[t], Hjx[t], Hjy[t], Hjz[t], v);
      if constexpr (kEnergy) V[t] = v;
      keep[t] = w != 0.0;
    }
    // 2. the partners within the cutoff, in order (the others' terms are zeros: x + 0 = x, so
    // leaving them out changes no sum)
    std::size_t m = 0;
    for (std::size_t t = 0; t < n; ++t) {
      within[m] = static_cast<std::uint32_t>(t);
      m += keep[t];
    }
    // those partners' accumulators, and each on its way to L1 before the fold reads it (they
    // are scattered over the part's homes: at N = 32768 the accumulators are 2 MB)
    for (std::size_t p = 0; p < m; ++p) {
      const std::uint32_t hj = home_of_slot[e[within[p]]];
      const std::uint32_t c = hj - h0 < hn ? hj : trash;
      target[p] = c;
      __builtin_prefetch(acc + kAccStride * c, 1);
    }
    // 3. the fold, partner after partner
    double* __restrict ar = acc + kAccStride * row.acc;
    double a0 = ar[0], a1 = ar[1], a2 = ar[2], a3 = ar[3], a4 = ar[4], a5 = ar[5], a6 = ar[6];
    for (std::size_t p = 0; p < m; ++p) {
      const std::size_t q = within[p];
      a0 += Fx[q], a1 += Fy[q], a2 += Fz[q];
      a3 += Hix[q], a4 += Hiy[q], a5 += Hiz[q];
      if constexpr (kEnergy) a6 += V[q];
      double* __restrict c = acc + kAccStride * target[p];
      c[0] -= Fx[q], c[1] -= Fy[q], c[2] -= Fz[q];
      c[3] += Hjx[q], c[4] += Hjy[q], c[5] += Hjz[q];
      if constexpr (kEnergy) c[6] += V[q];
    }
    ar[0] = a0, ar[1] = a1, ar[2] = a2, ar[3] = a3, ar[4] = a4, ar[5] = a5, ar[6] = a6;
  }
}

LIEBENCH_TILE_CLONES
void pair_rows_kernel(const SlotBodies& b, const par::PairPart& part, const std::uint32_t* home_of_slot,
                      double kappa, const PairParams& pp, bool want_energy, double* acc, RowTerms& T) {
  const PairCoeffs k = PairCoeffs::of(pp, kappa);
  if (pp.periodic) {
    if (want_energy)
      pair_rows_body<true, true>(b, part, home_of_slot, k, pp, acc, T);
    else
      pair_rows_body<false, true>(b, part, home_of_slot, k, pp, acc, T);
  } else if (want_energy) {
    pair_rows_body<true, false>(b, part, home_of_slot, k, pp, acc, T);
  } else {
    pair_rows_body<false, false>(b, part, home_of_slot, k, pp, acc, T);
  }
}

}  // namespace

void pair_rows(const SlotBodies& bodies, const par::PairPart& part, const std::uint32_t* home_of_slot,
               double kappa, const PairParams& pp, bool want_energy, double* acc) {
  thread_local RowTerms T;
  const std::size_t need = part.longest + par::kPairRowPad;
  if (T.cap < need) {
    T.cap = need;
    T.v.assign(10 * need, 0.0);
    T.keep.assign(need, 0), T.within.assign(need, 0), T.target.assign(need, 0);
  }
  pair_rows_kernel(bodies, part, home_of_slot, kappa, pp, want_energy, acc, T);
}

}  // namespace lie::dipolar

// ---------------------------------------------------------------------------------------------
// Each pair once: tiles, slots and the summation orders are described in dipolar_kernel.hpp.
namespace lie::dipolar {

std::size_t tile_size_for(std::size_t n) {
  if (n <= kMinTile) return kSmallTile;
  std::size_t tile = kMinTile;
  while ((n + tile - 1) / tile > kMaxTiles && tile < kMaxTile) tile += kMinTile;
  return tile;
}

void BodySoA::resize(std::size_t n_bodies) {
  n = n_bodies;
  tile = tile_size_for(n);
  tiles = std::max<std::size_t>(1, (n + tile - 1) / tile);
  for (auto* v : {&x, &y, &z, &mx, &my, &mz}) v->assign(tiles * tile, 0.0);
}

std::size_t tile_pair_count(std::size_t tiles) { return tiles * (tiles + 1) / 2; }

void tile_pair_at(std::size_t k, std::size_t tiles, std::size_t& I, std::size_t& J) {
  I = 0;
  std::size_t row = tiles;  // pairs (I, I..tiles-1)
  while (k >= row) {
    k -= row;
    ++I;
    --row;
  }
  J = I + k;
}

void combine_slots(const double* slots, std::size_t i, std::size_t tiles, double* out7) {
  const double* s = slots + i * tiles * kSlotFields;
  for (int f = 0; f < kSlotFields; ++f) out7[f] = s[f];
  for (std::size_t t = 1; t < tiles; ++t)
    for (int f = 0; f < kSlotFields; ++f) out7[f] += s[t * kSlotFields + static_cast<std::size_t>(f)];
}

namespace {

// One tile pair, in vector blocks of kPairLanes partners j.
// Masks: a block may hold padding (j >= n, at the end of the last tile) or, on a diagonal tile,
// partners j <= i (the first block of row i). Only such blocks run the masked variant of the
// lane loop (kMasked): a weight w = 0 (precomputed per block, as doubles, so that the loop stays
// one 4-wide vector) with a stand-in r^2 (as in ordered_row_body); every other block runs the
// unmasked loop. Both give the same bits for a valid lane (w = 1: r2 * 1 + 0 * 1 = r2 and
// 1 * x = x exactly), so where the mask boundaries fall changes no result.
// Arithmetic: explicit std::fma where a product is added (correctly rounded everywhere, so the
// x86-64-v4 (AVX-512), x86-64-v3 (AVX2 + FMA) and default clones give the same bits; the
// default clone calls libm's fma, slow but identical); no other contraction (the file is
// compiled with -ffp-contract=off).
// Operations of one pair interaction (no energy, unmasked), as written below:
//   r: 3 sub; r^2: 1 mul 2 fma; 1/r^2: 1 div; 1/r: 1 sqrt; 1/r^3, 3/r^5: 3 mul;
//   s^2..s^12: 4 mul; mu_i.mu_j, mu_i.r, mu_j.r: 3 mul 6 fma; t_j, t_i, kappa t_j, kappa t_i
//   (4 mul); LJ part: 1 mul 1 fma; c1: 3 mul 2 fma; F: 3 mul 6 fma; h_i, h_j: 6 mul 6 fma
//   (the sign flips of -t_j, -t_i fold into vfnmadd); row and column accumulation: 12 add/sub.
//   Total 68 instructions = 28 mul + 15 add/sub + 23 fma + div + sqrt, i.e. 91 flops counting
//   an fma as 2 (div and sqrt as 1 each). The row loop computes r twice (once for the
//   reciprocals, one row ahead, once for the rest): 3 more sub, not counted. The compiled
//   unmasked loop (objdump of the x86-64-v4 clone) has exactly these: per 4 pairs 28 vmulpd,
//   18 vaddpd/vsubpd, 23 vfmadd/vfnmadd, 1 vdivpd, 1 vsqrtpd, 16 moves (loads and stores).
// Why one row ahead: 1/r^2 and 1/r (divide, then square root: ~35 cycles of latency on Zen 4)
// head the dependence chain of the ~70 instructions of each block, and the out-of-order window
// then holds too few blocks to cover it; computed one row ahead, in the same loop, the divider
// works in parallel with the multiply-adds of the current row (measured on Zen 4, one core, old
// and new kernel alternated in one program: +14-23 % pairs per second at N = 64-100, +21-30 % at
// N = 300-4100; the same bits).
struct RowLanes {
  alignas(32) double fx[kPairLanes];
  alignas(32) double fy[kPairLanes];
  alignas(32) double fz[kPairLanes];
  alignas(32) double hx[kPairLanes];
  alignas(32) double hy[kPairLanes];
  alignas(32) double hz[kPairLanes];
  alignas(32) double en[kPairLanes];
  // Zeroed field by field: `RowLanes a{}` compiled to one 224-byte `rep stos` per row, whose
  // start-up cost showed in the short rows of small systems.
  void clear() {
    for (double* v : {fx, fy, fz, hx, hy, hz, en})
      for (int l = 0; l < kPairLanes; ++l) v[l] = 0.0;
  }
};

struct TileConsts {
  const double* __restrict X;
  const double* __restrict Y;
  const double* __restrict Z;
  const double* __restrict MX;
  const double* __restrict MY;
  const double* __restrict MZ;
  double* __restrict CFX;
  double* __restrict CFY;
  double* __restrict CFZ;
  double* __restrict CHX;
  double* __restrict CHY;
  double* __restrict CHZ;
  double sig2, e48, e24a, e4, att, kappa, r2_masked;
};

// 1/r^2 and 1/r of an unmasked block's lanes (body (xi, yi, zi) against j = jb + l) into
// IR2[c], IR[c], c = j - s0: the first part of the pair interaction, which the row loop runs one
// row ahead (tile_pair_body), so that the divider's latency is off the path of the rest.
__attribute__((always_inline)) inline void pair_reciprocals(const TileConsts& k, std::size_t jb, std::size_t s0,
                                                            double xi, double yi, double zi, double* __restrict IR2,
                                                            double* __restrict IR) {
  const double* __restrict X = k.X;
  const double* __restrict Y = k.Y;
  const double* __restrict Z = k.Z;
#pragma omp simd
  for (int l = 0; l < kPairLanes; ++l) {
    const std::size_t j = jb + static_cast<std::size_t>(l);
    const double dx = xi - X[j], dy = yi - Y[j], dz = zi - Z[j];
    const double inv_r2 = 1.0 / std::fma(dx, dx, std::fma(dy, dy, dz * dz));
    IR2[j - s0] = inv_r2;
    IR[j - s0] = std::sqrt(inv_r2);
  }
}

// The lane weights of row r's masked block [jb, jb + kPairLanes) (w = 1 for r < j < s1, else 0)
// into wv[l], and the lanes' 1/r^2 and 1/r into MIR2[l], MIR[l]: the masked lanes' reciprocals
// as pair_block<kMasked> computes them (the stand-in r^2 where w = 0), so that a diagonal row's
// masked first block can have them one row ahead too. The weights are computed in the lanes, not
// stored one by one and loaded as a vector (a load that waits for four stores to reach the cache).
__attribute__((always_inline)) inline void masked_reciprocals(const TileConsts& k, std::size_t jb, std::size_t r,
                                                              std::size_t s1, double xi, double yi, double zi,
                                                              double* __restrict wv, double* __restrict MIR2,
                                                              double* __restrict MIR) {
  const double* __restrict X = k.X;
  const double* __restrict Y = k.Y;
  const double* __restrict Z = k.Z;
#pragma omp simd aligned(wv, MIR2, MIR : 32)
  for (int l = 0; l < kPairLanes; ++l) {
    const std::size_t j = jb + static_cast<std::size_t>(l);
    const double dx = xi - X[j], dy = yi - Y[j], dz = zi - Z[j];
    const double w = (j > r && j < s1) ? 1.0 : 0.0;
    wv[l] = w;
    const double inv_r2 = 1.0 / (w * std::fma(dx, dx, std::fma(dy, dy, dz * dz)) + (1.0 - w) * k.r2_masked);
    MIR2[l] = inv_r2;
    MIR[l] = std::sqrt(inv_r2);
  }
}

// The lanes of one block [jb, jb + kPairLanes) against body i (position xi, dipole u);
// s0: first body of the sub-block (column index c = j - s0). A masked block (kMasked; wv: the
// lane weights) computes its own 1/r^2 and 1/r, or with kMaskedAhead reads them from IR2[l],
// IR[l] (masked_reciprocals); an unmasked one reads them from IR2[c], IR[c] (pair_reciprocals,
// the same operations) and, with kNext, computes those of the next row (xn, yn, zn) into NIR2,
// NIR alongside.
template <bool kEnergy, bool kMasked, bool kNext, bool kMaskedAhead = false>
__attribute__((always_inline)) inline void pair_block(const TileConsts& k, std::size_t jb, std::size_t s0,
                                                      double xi, double yi, double zi, double ux, double uy,
                                                      double uz, const double* wv, const double* __restrict IR2,
                                                      const double* __restrict IR, RowLanes& a, double xn = 0,
                                                      double yn = 0, double zn = 0, double* __restrict NIR2 = nullptr,
                                                      double* __restrict NIR = nullptr) {
  constexpr int L = kPairLanes;
  const double* __restrict X = k.X;
  const double* __restrict Y = k.Y;
  const double* __restrict Z = k.Z;
  const double* __restrict MX = k.MX;
  const double* __restrict MY = k.MY;
  const double* __restrict MZ = k.MZ;
  double* __restrict CFX = k.CFX;
  double* __restrict CFY = k.CFY;
  double* __restrict CFZ = k.CFZ;
  double* __restrict CHX = k.CHX;
  double* __restrict CHY = k.CHY;
  double* __restrict CHZ = k.CHZ;
  const double sig2 = k.sig2, e48 = k.e48, e24a = k.e24a, e4 = k.e4, att = k.att, kappa = k.kappa;
#pragma omp simd aligned(wv : 32)
  for (int l = 0; l < L; ++l) {
    const std::size_t j = jb + static_cast<std::size_t>(l);
    const std::size_t c = j - s0;
    if constexpr (kNext) {  // the next row's reciprocals (as pair_reciprocals)
      const double ex = xn - X[j], ey = yn - Y[j], ez = zn - Z[j];
      const double ninv = 1.0 / std::fma(ex, ex, std::fma(ey, ey, ez * ez));
      NIR2[c] = ninv;
      NIR[c] = std::sqrt(ninv);
    }
    const double dx = xi - X[j], dy = yi - Y[j], dz = zi - Z[j];
    double w = 1.0;
    if constexpr (kMasked) w = wv[l];
    double inv_r2, inv_r;
    if constexpr (kMaskedAhead) {
      inv_r2 = IR2[l];
      inv_r = IR[l];
    } else if constexpr (kMasked) {
      const double r2 = w * std::fma(dx, dx, std::fma(dy, dy, dz * dz)) + (1.0 - w) * k.r2_masked;  // exact select
      inv_r2 = 1.0 / r2;
      inv_r = std::sqrt(inv_r2);
    } else {
      inv_r2 = IR2[c];
      inv_r = IR[c];
    }
    const double inv_r3 = inv_r * inv_r2;
    const double c5 = 3.0 * inv_r3 * inv_r2;  // 3/r^5
    const double s2 = sig2 * inv_r2;
    const double s6 = s2 * s2 * s2;
    const double s12 = s6 * s6;
    const double mjx = MX[j], mjy = MY[j], mjz = MZ[j];
    const double dd = std::fma(ux, mjx, std::fma(uy, mjy, uz * mjz));  // mu_i.mu_j
    const double ai = std::fma(ux, dx, std::fma(uy, dy, uz * dz));     // mu_i.r
    const double aj = std::fma(mjx, dx, std::fma(mjy, dy, mjz * dz));  // mu_j.r
    const double tj = c5 * aj, ti = c5 * ai;  // 3 (mu_j.r)/r^5, 3 (mu_i.r)/r^5
    const double ktj = kappa * tj, kti = kappa * ti;
    // F_i = [48 eps s12/r^2 - 24 a eps s6/r^2 + 3 kappa dd/r^5 - 15 kappa ai aj/r^7] r
    //       + 3 kappa/r^5 [(mu_j.r) mu_i + (mu_i.r) mu_j]         (dipolar_kernel.hpp)
    const double lj = std::fma(e48, s12, -(e24a * s6));
    const double c1 = std::fma(std::fma(-5.0 * ai, ktj, lj), inv_r2, (kappa * c5) * dd);
    const double Fx = w * std::fma(c1, dx, std::fma(ktj, ux, kti * mjx));
    const double Fy = w * std::fma(c1, dy, std::fma(ktj, uy, kti * mjy));
    const double Fz = w * std::fma(c1, dz, std::fma(ktj, uz, kti * mjz));
    // h_i = g_i / kappa = mu_j/r^3 - 3 (mu_j.r) r/r^5; h_j likewise with i <-> j (r -> -r)
    a.fx[l] += Fx;
    a.fy[l] += Fy;
    a.fz[l] += Fz;
    a.hx[l] += w * std::fma(-tj, dx, inv_r3 * mjx);
    a.hy[l] += w * std::fma(-tj, dy, inv_r3 * mjy);
    a.hz[l] += w * std::fma(-tj, dz, inv_r3 * mjz);
    CFX[c] -= Fx;
    CFY[c] -= Fy;
    CFZ[c] -= Fz;
    CHX[c] += w * std::fma(-ti, dx, inv_r3 * ux);
    CHY[c] += w * std::fma(-ti, dy, inv_r3 * uy);
    CHZ[c] += w * std::fma(-ti, dz, inv_r3 * uz);
    if constexpr (kEnergy) a.en[l] += w * std::fma(e4, s12 - att * s6, kappa * std::fma(dd, inv_r3, -(ai * tj)));
  }
}

// Outputs: the partial of row body i (tile I) at row_out + (i - i0) * stride, of column body j
// (tile J) at col_out + (j - j0) * stride (kSlotFields doubles each; on the diagonal both are
// the same leaf).
template <bool kEnergy, bool kDiag>
__attribute__((always_inline)) inline void tile_pair_body(const BodySoA& b, std::size_t I, std::size_t J, double kappa,
                                                          const PairParams& pp, double* row_out, double* col_out,
                                                          std::size_t stride, double* col) {
  constexpr int L = kPairLanes;
  constexpr std::size_t SB = kSubBlock;
  static_assert(SB % L == 0, "sub-blocks hold whole vector blocks");
  const std::size_t tile = b.tile, n = b.n;
  const std::size_t i0 = I * tile, i1 = std::min(n, i0 + tile);
  const std::size_t j0 = J * tile, j1 = std::min(n, j0 + tile);
  TileConsts k{b.x.data(), b.y.data(), b.z.data(), b.mx.data(), b.my.data(), b.mz.data(),
               col,        col + SB,   col + 2 * SB, col + 3 * SB, col + 4 * SB, col + 5 * SB,
               pp.sigma * pp.sigma, 48.0 * pp.eps, 24.0 * pp.eps * pp.attraction, 4.0 * pp.eps, pp.attraction,
               kappa, pp.masked_r2};
  // Row partials start at zero; sub-blocks of J add to them in increasing order.
  for (std::size_t i = i0; i < i1; ++i)
    for (int f = 0; f < kSlotFields; ++f) row_out[(i - i0) * stride + static_cast<std::size_t>(f)] = 0.0;
  // Sub-blocks of kSubBlock partners j (their positions, dipoles and column sums stay in L1),
  // in increasing order; every i of I against the sub-block, i increasing.
  for (std::size_t s0 = j0; s0 < j1; s0 += SB) {
  const std::size_t s1 = std::min(j1, s0 + SB);
  const std::size_t full_end = s0 + (s1 - s0) / L * L;  // blocks below hold no padding
  const std::size_t send = (s1 + L - 1) / L * L;        // <= s0 + SB
  for (int f = 0; f < 6; ++f)  // the columns this sub-block's blocks touch (padding lanes included)
    for (std::size_t c = 0; c < send - s0; ++c) col[static_cast<std::size_t>(f) * SB + c] = 0.0;
  // 1/r^2 and 1/r of the current row's unmasked blocks (cur2, cur) and of the next row's (nxt2, nxt)
  alignas(64) double bufA2[SB], bufA[SB], bufB2[SB], bufB[SB];
  double *cur2 = bufA2, *cur = bufA, *nxt2 = bufB2, *nxt = bufB;
  const std::size_t ilast = kDiag ? std::min(i1, s1) : i1;  // diagonal: rows i < j only
  auto row_first = [&](std::size_t i) { return kDiag ? std::max(s0, (i + 1) / L * L) : s0; };
  auto row_mid = [&](std::size_t i) {  // first unmasked block of row i
    const std::size_t jf = row_first(i);
    return (kDiag && jf < send && jf <= i) ? jf + L : jf;
  };
  auto masked_first_block = [&](std::size_t i) { return row_mid(i) != row_first(i); };  // diagonal rows only
  // A diagonal row's masked first block: its lane weights and reciprocals, also one row ahead
  // (masked_reciprocals, computed while the row before runs; the same bits as computed in place).
  alignas(32) double wA[L], wB[L], mA2[L], mA[L], mB2[L], mB[L];
  double *wcur = wA, *wnxt = wB, *mcur2 = mA2, *mcur = mA, *mnxt2 = mB2, *mnxt = mB;
  auto masked_ahead = [&](std::size_t r, double* w, double* m2, double* m) {
    masked_reciprocals(k, row_first(r), r, s1, k.X[r], k.Y[r], k.Z[r], w, m2, m);
  };
  // The lane weights of the block that holds padding (j >= s1), if any, for every row that
  // reaches it: written once here, not before each row's vector load of them.
  alignas(32) double wpad[L];
  for (int l = 0; l < L; ++l) wpad[l] = full_end + static_cast<std::size_t>(l) < s1 ? 1.0 : 0.0;
  if (i0 < ilast) {  // the first row's reciprocals
    const double x0 = k.X[i0], y0 = k.Y[i0], z0 = k.Z[i0];
    for (std::size_t jb = row_mid(i0); jb < full_end; jb += L) pair_reciprocals(k, jb, s0, x0, y0, z0, cur2, cur);
    if (masked_first_block(i0)) masked_ahead(i0, wcur, mcur2, mcur);
  }
  for (std::size_t i = i0; i < ilast; ++i) {
    RowLanes a;
    a.clear();
    const double xi = k.X[i], yi = k.Y[i], zi = k.Z[i];
    const double ux = k.MX[i], uy = k.MY[i], uz = k.MZ[i];
    const std::size_t jfirst = row_first(i), jmid = row_mid(i);
    const bool masked_first = masked_first_block(i);  // it may hold j <= i (and padding)
    const std::size_t jmid_end = std::max(jmid, full_end);
    const bool masked_last = jmid_end < send;  // last block with padding j >= s1
    alignas(32) double wv[L];
    if (masked_first)
      pair_block<kEnergy, true, false, true>(k, jfirst, s0, xi, yi, zi, ux, uy, uz, wcur, mcur2, mcur, a);
    if (kDiag && i + 1 < ilast && masked_first_block(i + 1)) masked_ahead(i + 1, wnxt, mnxt2, mnxt);
    // unmasked blocks; from the next row's first unmasked block on, its reciprocals alongside
    const bool has_next = i + 1 < ilast;
    const std::size_t jn = has_next ? std::max(jmid, row_mid(i + 1)) : full_end;
    std::size_t jb = jmid;
    for (; jb < std::min(jn, full_end); jb += L)
      pair_block<kEnergy, false, false>(k, jb, s0, xi, yi, zi, ux, uy, uz, wv, cur2, cur, a);
    if (has_next) {
      const double xn = k.X[i + 1], yn = k.Y[i + 1], zn = k.Z[i + 1];
      for (; jb < full_end; jb += L)
        pair_block<kEnergy, false, true>(k, jb, s0, xi, yi, zi, ux, uy, uz, wv, cur2, cur, a, xn, yn, zn, nxt2, nxt);
    }
    if (masked_last) {
      const double* w_last = wpad;  // the padded block's weights (computed before the rows) ...
      if (jmid_end != full_end) {   // ... unless a short diagonal row starts beyond it
        for (int l = 0; l < L; ++l) wv[l] = jmid_end + static_cast<std::size_t>(l) < s1 ? 1.0 : 0.0;
        w_last = wv;
      }
      pair_block<kEnergy, true, false>(k, jmid_end, s0, xi, yi, zi, ux, uy, uz, w_last, cur2, cur, a);
    }
    std::swap(cur, nxt);
    std::swap(cur2, nxt2);
    std::swap(wcur, wnxt);
    std::swap(mcur, mnxt);
    std::swap(mcur2, mnxt2);
    // Fixed combination tree of the lanes: (0+1), (2+3), ... then pairs of those.
    static_assert((L & (L - 1)) == 0, "kPairLanes must be a power of two");
    auto tree = [](double* v) {
      for (int width = L / 2; width >= 1; width /= 2)
        for (int l = 0; l < width; ++l) v[l] = v[2 * l] + v[2 * l + 1];
      return v[0];
    };
    double* s = row_out + (i - i0) * stride;
    s[0] += tree(a.fx);
    s[1] += tree(a.fy);
    s[2] += tree(a.fz);
    s[3] += tree(a.hx);
    s[4] += tree(a.hy);
    s[5] += tree(a.hz);
    if constexpr (kEnergy) s[6] += tree(a.en);
  }
  // Column partials of the sub-block's bodies j (complete: every i of I has been added).
  const double* colf[6] = {k.CFX, k.CFY, k.CFZ, k.CHX, k.CHY, k.CHZ};
  for (std::size_t j = s0; j < s1; ++j) {
    double* s = col_out + (j - j0) * stride;
    if constexpr (kDiag) {
      for (int f = 0; f < 6; ++f) s[f] += colf[f][j - s0];  // row (j' > j) + column (j' < j)
    } else {
      for (int f = 0; f < 6; ++f) s[f] = colf[f][j - s0];
      s[6] = 0.0;  // each pair's energy is in its row partial
    }
  }
  }  // sub-blocks
}

template <bool kEnergy>
__attribute__((always_inline)) inline void tile_pair_dispatch(const BodySoA& b, std::size_t I, std::size_t J,
                                                              double kappa, const PairParams& pp, double* row_out,
                                                              double* col_out, std::size_t stride, double* col) {
  if (I == J)
    tile_pair_body<kEnergy, true>(b, I, J, kappa, pp, row_out, col_out, stride, col);
  else
    tile_pair_body<kEnergy, false>(b, I, J, kappa, pp, row_out, col_out, stride, col);
}

LIEBENCH_TILE_CLONES
void tile_pair_kernel(const BodySoA& b, std::size_t I, std::size_t J, double kappa, const PairParams& pp,
                      bool want_energy, double* row_out, double* col_out, std::size_t stride, double* col) {
  if (want_energy)
    tile_pair_dispatch<true>(b, I, J, kappa, pp, row_out, col_out, stride, col);
  else
    tile_pair_dispatch<false>(b, I, J, kappa, pp, row_out, col_out, stride, col);
}

}  // namespace

void tile_pair(const BodySoA& bodies, std::size_t I, std::size_t J, double kappa, const PairParams& pp,
               bool want_energy, double* slots, TileScratch& scratch) {
  if (scratch.col.size() < 6 * kSubBlock) scratch.col.resize(6 * kSubBlock);
  const std::size_t T = bodies.tiles, t = bodies.tile;
  tile_pair_kernel(bodies, I, J, kappa, pp, want_energy, slots + (I * t * T + J) * kSlotFields,
                   slots + (J * t * T + I) * kSlotFields, T * kSlotFields, scratch.col.data());
}

void tile_pair_leaves(const BodySoA& bodies, std::size_t I, std::size_t J, double kappa, const PairParams& pp,
                      bool want_energy, double* row_leaf, double* col_leaf, TileScratch& scratch) {
  if (scratch.col.size() < 6 * kSubBlock) scratch.col.resize(6 * kSubBlock);
  tile_pair_kernel(bodies, I, J, kappa, pp, want_energy, row_leaf, col_leaf, kSlotFields, scratch.col.data());
}

}  // namespace lie::dipolar
