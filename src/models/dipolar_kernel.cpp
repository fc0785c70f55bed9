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

void PartnerSoA::resize(std::size_t n_particles) {
  n = n_particles;
  npad = (n + kLanes - 1) / kLanes * kLanes;
  if (npad == 0) npad = kLanes;
  for (auto* v : {&x, &y, &z, &mx, &my, &mz}) v->assign(npad, 0.0);
}

namespace {

template <bool kEnergy>
__attribute__((always_inline)) inline void ordered_row_body(const PartnerSoA& s, std::size_t j_begin,
                                                            std::size_t j_end, std::size_t gi, const double* qi,
                                                            const double* mui, const PairParams& pp, RowSums& out) {
  alignas(64) double fx[kLanes] = {}, fy[kLanes] = {}, fz[kLanes] = {}, sm[kLanes] = {};
  alignas(64) double gx[kLanes] = {}, gy[kLanes] = {}, gz[kLanes] = {}, en[kLanes] = {};
  const double xi = qi[0], yi = qi[1], zi = qi[2];
  const double ux = mui[0], uy = mui[1], uz = mui[2];
  const double sig2 = pp.sigma * pp.sigma, e48 = 48.0 * pp.eps, e24a = 24.0 * pp.eps * pp.attraction;
  const double e4 = 4.0 * pp.eps, att = pp.attraction, rc2 = pp.cutoff2;
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
      const double dx = xi - X[j], dy = yi - Y[j], dz = zi - Z[j];
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
      if constexpr (kEnergy) en[l] += w * (e4 * (s12 - att * s6) + dd * inv_r3 - ai * t);
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
  if (want_energy)
    ordered_row_body<true>(partners, j_begin, j_end, gi, qi, mui, pp, out);
  else
    ordered_row_body<false>(partners, j_begin, j_end, gi, qi, mui, pp, out);
}

namespace {

template <bool kEnergy>
__attribute__((always_inline)) inline void newton3_body(const PartnerSoA& s, const PartnerSoA& p, std::size_t i,
                                                        double kappa, const PairParams& pp, double* acc,
                                                        std::size_t stride) {
  const double xi = s.x[i], yi = s.y[i], zi = s.z[i];
  const double ux = p.mx[i], uy = p.my[i], uz = p.mz[i];  // unscaled mu_i
  const double sig2 = pp.sigma * pp.sigma, e48 = 48.0 * pp.eps, e24a = 24.0 * pp.eps * pp.attraction;
  const double e4 = 4.0 * pp.eps, att = pp.attraction, rc2 = pp.cutoff2;
  const double* __restrict X = s.x.data();
  const double* __restrict Y = s.y.data();
  const double* __restrict Z = s.z.data();
  const double* __restrict MX = s.mx.data();
  const double* __restrict MY = s.my.data();
  const double* __restrict MZ = s.mz.data();
  double* __restrict AFX = acc;
  double* __restrict AFY = acc + stride;
  double* __restrict AFZ = acc + 2 * stride;
  double* __restrict AGX = acc + 3 * stride;
  double* __restrict AGY = acc + 4 * stride;
  double* __restrict AGZ = acc + 5 * stride;
  const double r2_masked = pp.masked_r2;
  double fx = 0, fy = 0, fz = 0, gx = 0, gy = 0, gz = 0, en = 0;
  const std::size_t n = s.n;
#pragma omp simd reduction(+ : fx, fy, fz, gx, gy, gz, en)
  for (std::size_t j = i + 1; j < n; ++j) {
    const double dx = xi - X[j], dy = yi - Y[j], dz = zi - Z[j];
    const double r2 = dx * dx + dy * dy + dz * dz;
    const bool valid = r2 < rc2;
    const double w = valid ? 1.0 : 0.0;  // masks by a factor 0 (see ordered_row_body)
    const double inv_r2 = 1.0 / (w * r2 + (1.0 - w) * r2_masked);  // exact select (r2 finite)
    const double inv_r = std::sqrt(inv_r2);
    const double inv_r3 = inv_r * inv_r2;
    const double c2 = 3.0 * inv_r3 * inv_r2;
    const double s2 = sig2 * inv_r2;
    const double s6 = s2 * s2 * s2;
    const double s12 = s6 * s6;
    const double mjx = MX[j], mjy = MY[j], mjz = MZ[j];
    const double dd = ux * mjx + uy * mjy + uz * mjz;
    const double ai = ux * dx + uy * dy + uz * dz;
    const double aj = mjx * dx + mjy * dy + mjz * dz;
    const double t = c2 * aj;
    const double c1 = (e48 * s12 - e24a * s6) * inv_r2 + c2 * dd - 5.0 * ai * t * inv_r2;
    const double cm = c2 * ai;
    const double Fx = w * (c1 * dx + cm * mjx + t * ux);
    const double Fy = w * (c1 * dy + cm * mjy + t * uy);
    const double Fz = w * (c1 * dz + cm * mjz + t * uz);
    fx += Fx, fy += Fy, fz += Fz;
    AFX[j] -= Fx, AFY[j] -= Fy, AFZ[j] -= Fz;
    gx += w * (inv_r3 * mjx - t * dx);
    gy += w * (inv_r3 * mjy - t * dy);
    gz += w * (inv_r3 * mjz - t * dz);
    const double ki3 = w * kappa * inv_r3, kci = w * kappa * cm;  // g_j = kappa (mu_i/r^3 - 3 (mu_i.r) r / r^5)
    AGX[j] += ki3 * ux - kci * dx;
    AGY[j] += ki3 * uy - kci * dy;
    AGZ[j] += ki3 * uz - kci * dz;
    if constexpr (kEnergy) en += w * (e4 * (s12 - att * s6) + dd * inv_r3 - ai * t);
  }
  AFX[i] += fx, AFY[i] += fy, AFZ[i] += fz;
  AGX[i] += gx, AGY[i] += gy, AGZ[i] += gz;
  if constexpr (kEnergy) acc[6 * stride + i] += en;
}

}  // namespace

LIEBENCH_KERNEL_CLONES
void newton3_row(const PartnerSoA& scaled, const PartnerSoA& plain, std::size_t i, double kappa,
                 const PairParams& pp, bool want_energy, double* acc, std::size_t stride) {
  if (want_energy)
    newton3_body<true>(scaled, plain, i, kappa, pp, acc, stride);
  else
    newton3_body<false>(scaled, plain, i, kappa, pp, acc, stride);
}

}  // namespace lie::dipolar
