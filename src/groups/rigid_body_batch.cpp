#include "groups/rigid_body_batch.hpp"

#include <stdexcept>

#include "core/lanes.hpp"
#include "groups/factors.hpp"
#include "groups/se3_ts2_lanes.hpp"
#include "groups/so3.hpp"
#include "groups/tstar_left_kernels.hpp"
#include "parallel/loops.hpp"

namespace lie::rigid_body {

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LIEBENCH_RIGID_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define LIEBENCH_RIGID_CLONES
#endif

using Body = factors::RigidBodyLeftTriv;
constexpr std::size_t kAlg = Body::alg_dim;      // 12: (dq, dp, xi, alpha)
constexpr std::size_t kState = Body::state_dim;  // 18: (q, p, Q, m)
constexpr std::size_t kRot = 6;                  // the T*SO(3) part's offset in the algebra
constexpr std::size_t kRotState = kState - factors::TstarSO3LeftTriv::state_dim;  // ... and in the state

// Lanes g .. g + 3 of a tile's row from four bodies' values: one vector store (lanes::store4).
using lanes::store4;
static_assert(kTile % 4 == 0, "tiles of whole 4-lane groups");
// The lanes of a tile of n bodies that run: its 4-lane groups that hold a body (a short tile's
// other groups idle; within the last group, lanes past n compute body 0 as padding).
constexpr std::size_t active_lanes(std::size_t n) { return (n + 3) / 4 * 4; }

// k of bodies b0 .. b0 + n - 1 (n <= kTile): k = dexpinv_u(f) body by body, the translations'
// dexpinv the identity, the rotational part se3::dexpinv(-u, f) across lanes.
LIEBENCH_RIGID_CLONES
void dexpinv_tile(const double* u, const double* f, std::size_t n, double (*k)[kAlg]) {
  alignas(64) double X[6][kTile], V[6][kTile], O[6][kTile];
  alignas(64) long bad[kTile];
  const std::size_t active = active_lanes(n);
  for (std::size_t g = 0; g < active; g += 4) {
    std::size_t e[4];  // the rotational part of lane g + q's body (padding: body 0)
    for (std::size_t q = 0; q < 4; ++q) e[q] = kAlg * (g + q < n ? g + q : 0) + kRot;
    for (std::size_t a = 0; a < 6; ++a) {
      store4(&X[a][g], -u[e[0] + a], -u[e[1] + a], -u[e[2] + a], -u[e[3] + a]);
      store4(&V[a][g], f[e[0] + a], f[e[1] + a], f[e[2] + a], f[e[3] + a]);
    }
  }
#pragma omp simd
  for (std::size_t i = 0; i < active; ++i) {
    const long ok = se3_ts2::dexpinv<se3_ts2::Series>(se3_ts2::Strided<const double, kTile>{&X[0][i]},
                                                      se3_ts2::Strided<const double, kTile>{&V[0][i]},
                                                      se3_ts2::Strided<double, kTile>{&O[0][i]});
    bad[i] = 1 - ok;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double* ui = u + kAlg * i;
    const double* fi = f + kAlg * i;
    for (std::size_t a = 0; a < kRot; ++a) k[i][a] = fi[a];
    if (bad[i])
      tstar_left::dexpinv(ui + kRot, fi + kRot, k[i] + kRot);  // outside the short series
    else
      for (int a = 0; a < 6; ++a) k[i][kRot + static_cast<std::size_t>(a)] = O[a][i];
  }
}

// out_i = exp_act(a_i, y_i) for bodies b0 .. b0 + n - 1 (n <= kTile): the translations body by
// body, the T*SO(3) part across lanes where its angle is in sinc's series range (most bodies of
// [K]'s stages at h = 0.01), else by the scalar kernel; the same expressions either way
// (tstar_left::detail::exp_act_apply), so the same bits. out may alias y.
LIEBENCH_RIGID_CLONES
void exp_act_tile(const double* const* a, const double* y, double* y_out, std::size_t n) {
  alignas(64) double X[6][kTile], Y[12][kTile], O[12][kTile];
  alignas(64) long series[kTile];
  const std::size_t active = active_lanes(n);
  for (std::size_t g = 0; g < active; g += 4) {
    const double* x[4];  // lane g + q's algebra element and state, rotational parts (padding: body 0)
    const double* s[4];
    for (std::size_t q = 0; q < 4; ++q) {
      const std::size_t b = g + q < n ? g + q : 0;
      x[q] = a[b] + kRot;
      s[q] = y + kState * b + kRotState;
    }
    for (std::size_t c = 0; c < 6; ++c) store4(&X[c][g], x[0][c], x[1][c], x[2][c], x[3][c]);
    for (std::size_t c = 0; c < 12; ++c) store4(&Y[c][g], s[0][c], s[1][c], s[2][c], s[3][c]);
  }
#pragma omp simd
  for (std::size_t i = 0; i < active; ++i) {
    const se3_ts2::Strided<const double, kTile> xi{&X[0][i]};
    const double t = tstar_left::angle(xi);
    series[i] = t * t < so3::detail::kSincSeriesT2;
    double A, B, C;
    tstar_left::series_coefficients(t, A, B, C);
    tstar_left::detail::exp_act_apply(A, B, C, xi, se3_ts2::Strided<const double, kTile>{&Y[0][i]},
                                      se3_ts2::Strided<double, kTile>{&O[0][i]});
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double* yi = y + kState * i;
    double* oi = y_out + kState * i;
    for (std::size_t c = 0; c < kRotState; ++c) oi[c] = yi[c] + a[i][c];  // Translation<3>::exp_act, twice
    if (series[i])
      for (int c = 0; c < 12; ++c) oi[kRotState + static_cast<std::size_t>(c)] = O[c][i];
    else
      tstar_left::exp_act(a[i] + kRot, yi + kRotState, oi + kRotState);
  }
}

// The stage on bodies b0 .. b0 + n - 1 (pointers at the block's first entries). The sigma and u
// updates of Space::rkmk_stage's generic body, operation for operation, over the tile's n * 12
// algebra entries as one contiguous run (the bodies' entries are consecutive in f, u, sigma and
// k): one vector loop in the clones instead of a scalar loop per body that reloaded the
// coefficients after every store (u and sigma could have aliased the stage). They are the
// stepper's own scratch, distinct from f and the states (RkmkStepper::bind).
LIEBENCH_RIGID_CLONES
void stage_tile(const Space::RkmkStage& s, const double* f, double* u, double* sg, const double* y, double* y_out,
                std::size_t b0, std::size_t n) {
  alignas(64) double k[kTile][kAlg];
  const std::size_t o = kAlg * b0, m = kAlg * n;
  const double* __restrict kk = f + o;  // the first stage's k is f itself (dexpinv_0 = identity)
  if (!s.first) {
    dexpinv_tile(u + o, f + o, n, k);
    kk = &k[0][0];
  }
  const double ck = s.ck, cu = s.cu;
  double* __restrict sgo = sg + o;
  if (s.first) {
    if (ck != 0.0) {
#pragma omp simd
      for (std::size_t e = 0; e < m; ++e) sgo[e] = 0.0 + ck * kk[e];
    } else {
      for (std::size_t e = 0; e < m; ++e) sgo[e] = 0.0;
    }
  } else if (ck != 0.0) {
#pragma omp simd
    for (std::size_t e = 0; e < m; ++e) sgo[e] += ck * kk[e];
  }
  double* act_base = sgo;  // the algebra element each body's exp acts with
  if (!s.last) {
    double* __restrict uo = u + o;
    if (cu != 0.0) {
#pragma omp simd
      for (std::size_t e = 0; e < m; ++e) uo[e] = 0.0 + cu * kk[e];
    } else {
      for (std::size_t e = 0; e < m; ++e) uo[e] = 0.0;
    }
    act_base = uo;
  }
  const double* act[kTile];
  for (std::size_t i = 0; i < n; ++i) act[i] = act_base + kAlg * i;
  exp_act_tile(act, y + kState * b0, y_out + kState * b0, n);
}

}  // namespace

void rkmk_stage_batch(const Space::RkmkStage& s, std::size_t alg_offset, std::size_t state_offset, std::size_t count,
                      bool threaded) {
  if (s.terms != kExactDexpinv) throw std::logic_error("rigid_body::rkmk_stage_batch: exact dexpinv only");
  const double* f = s.f + alg_offset;
  double* u = s.u + alg_offset;
  double* sg = s.sigma + alg_offset;
  const double* y = s.y + state_offset;
  double* y_out = s.y_out + state_offset;
  const std::size_t tiles = (count + kTile - 1) / kTile;
  par::for_each_index(tiles, threaded, [&](std::size_t t) {
    const std::size_t b0 = t * kTile;
    stage_tile(s, f, u, sg, y, y_out, b0, std::min(kTile, count - b0));
  });
}

}  // namespace lie::rigid_body
