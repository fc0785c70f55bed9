#include "groups/se3_ts2_batch.hpp"

#include <stdexcept>

#include "core/lanes.hpp"
#include "groups/se3_ts2_lanes.hpp"
#include "parallel/loops.hpp"

namespace lie::se3_ts2 {

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LIEBENCH_STAGE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define LIEBENCH_STAGE_CLONES
#endif

// One link of Space::rkmk_stage (the generic body in space.cpp, operation for operation):
//   k = f (first) | dexpinv_u(f);  sigma = 0.0 + ck k (first; 0.0 if ck == 0) | sigma + ck k (ck != 0);
//   last: y_out = exp_act(sigma, y);  otherwise u = 0.0 + cu k (0.0 if cu == 0), y_out = exp_act(u, y).
// Each argument is a pointer to the link's 6 entries or a Strided lane; the outputs may be the
// inputs. Returns the coefficient policy's validity.
template <class Coef, bool First, bool Last, class Fi, class Ui, class Si, class Yi, class Uo, class So, class Yo>
[[gnu::always_inline]] inline long stage_lane(double ck, double cu, const Fi& f, const Ui& u, const Si& sg, const Yi& y,
                                              Uo&& u_out, So&& sg_out, Yo&& y_out) {
  double k[6];
  long ok = 1;
  if constexpr (First) {
    for (int a = 0; a < 6; ++a) k[a] = f[a];
  } else {
    ok = dexpinv<Coef>(u, f, k);
  }
  const bool ck0 = ck == 0.0, cu0 = cu == 0.0;
  double sn[6];
  for (int a = 0; a < 6; ++a) {
    if constexpr (First)
      sn[a] = ck0 ? 0.0 : 0.0 + ck * k[a];
    else
      sn[a] = ck0 ? sg[a] : sg[a] + ck * k[a];
  }
  for (int a = 0; a < 6; ++a) sg_out[a] = sn[a];
  long ok2;
  if constexpr (Last) {
    ok2 = exp_act<Coef>(sn, y, y_out);
  } else {
    double un[6];
    for (int a = 0; a < 6; ++a) un[a] = cu0 ? 0.0 : 0.0 + cu * k[a];
    for (int a = 0; a < 6; ++a) u_out[a] = un[a];
    ok2 = exp_act<Coef>(un, y, y_out);
  }
  return ok & ok2;
}

// fn.template operator()<First, Last>() for the stage's kind.
template <class Fn>
[[gnu::always_inline]] inline void with_stage_kind(const Space::RkmkStage& s, Fn&& fn) {
  if (s.first && s.last)
    fn.template operator()<true, true>();
  else if (s.first)
    fn.template operator()<true, false>();
  else if (s.last)
    fn.template operator()<false, true>();
  else
    fn.template operator()<false, false>();
}

// A tile of W links in structure-of-arrays form: entry a of the tile's link i at [a][i]. W is
// kTile, or kPair for the links a block has beyond its whole tiles (small systems: N = 2 is one
// pair, two lanes of one 128-bit vector instead of two scalar passes).
inline constexpr std::size_t kPair = 2;
template <std::size_t W>
using Tile = double[6][W];

// The tile of links i0 .. i0 + W - 1 of an array of 6 doubles per link, and back. Four links
// (24 doubles) at a time as six 4-double vectors rearranged by shuffles (core/lanes.hpp: pure
// data movement, the values' bits do not change), where W is a multiple of 4; element by
// element otherwise.
using lanes::V4;
using lanes::load4;
using lanes::store4;
template <std::size_t W>
[[gnu::always_inline]] inline void load_tile(const double* src, std::size_t i0, Tile<W>& t) {
  if constexpr (W % 4 == 0) {
    for (std::size_t g = 0; g < W; g += 4) {
      const double* p = src + 6 * (i0 + g);
      V4 r[6], col[6];
      for (int k = 0; k < 6; ++k) load4(p + 4 * k, r[k]);
      lanes::aos6_to_soa(r, col);
      for (int a = 0; a < 6; ++a) store4(&t[a][g], col[a]);
    }
  } else {
    for (std::size_t i = 0; i < W; ++i)
      for (int a = 0; a < 6; ++a) t[a][i] = src[6 * (i0 + i) + static_cast<std::size_t>(a)];
  }
}
template <std::size_t W>
[[gnu::always_inline]] inline void store_tile(const Tile<W>& t, std::size_t i0, double* dst) {
  if constexpr (W % 4 == 0) {
    for (std::size_t g = 0; g < W; g += 4) {
      V4 col[6], r[6];
      for (int a = 0; a < 6; ++a) load4(&t[a][g], col[a]);
      lanes::soa_to_aos6(col, r);
      double* p = dst + 6 * (i0 + g);
      for (int k = 0; k < 6; ++k) store4(p + 4 * k, r[k]);
    }
  } else {
    for (std::size_t i = 0; i < W; ++i)
      for (int a = 0; a < 6; ++a) dst[6 * (i0 + i) + static_cast<std::size_t>(a)] = t[a][i];
  }
}

// A tile copied as it is (the tiled scratch): vector moves, not memcpy, which an AVX2 clone of a
// baseline build expands to rep movsq.
template <std::size_t W>
[[gnu::always_inline]] inline void copy_tile(const Tile<W>& t, double* dst) {
  static_assert(W % 4 == 0);
  for (int a = 0; a < 6; ++a)
    for (std::size_t g = 0; g < W; g += 4) {
      V4 v;
      load4(&t[a][g], v);
      store4(dst + W * static_cast<std::size_t>(a) + g, v);
    }
}

// The stage on a tile's lanes with the short series: inputs F, U, S, Y (U and S unread in the
// first stage), outputs Uo, So, Yo; bad[i] = 1 where lane i's angles are outside the series
// (the validity flags are longs: se3_ts2_lanes.hpp says why).
template <std::size_t T, bool First, bool Last>
[[gnu::always_inline]] inline void stage_lanes(double ck, double cu, const Tile<T>& F, const Tile<T>& U,
                                               const Tile<T>& S, const Tile<T>& Y, Tile<T>& Uo, Tile<T>& So,
                                               Tile<T>& Yo, long (&bad)[T]) {
#pragma omp simd
  for (std::size_t i = 0; i < T; ++i) {
    const long ok = stage_lane<Series, First, Last>(
        ck, cu, Strided<const double, T>{&F[0][i]}, Strided<const double, T>{&U[0][i]},
        Strided<const double, T>{&S[0][i]}, Strided<const double, T>{&Y[0][i]}, Strided<double, T>{&Uo[0][i]},
        Strided<double, T>{&So[0][i]}, Strided<double, T>{&Yo[0][i]});
    bad[i] = 1 - ok;
  }
}

// The tile of W links starting at link i0 (pointers at the block's first entries):
// gathered into structure-of-arrays tiles, one omp simd loop over the lanes (inputs and outputs
// in separate tiles), the links outside the series' range redone by the scalar kernel from the
// untouched arrays, scattered back.
//
// Tiled: u and sigma are the stepper's own scratch (RkmkStage::scratch_tiled) and stay in this
// tile layout between the passes (tile t's entry a of link i at [6 kTile t + kTile a + i]): read
// and written without transposes. Every stage of a step uses the same layout, so the values (and
// the bits of y) are those of the array-of-structures layout.
template <std::size_t T, bool First, bool Last, bool Tiled>
[[gnu::always_inline]] inline void stage_tile_body(double ck, double cu, const double* f, double* u, double* sg,
                                                   const double* y, double* y_out, std::size_t i0) {
  alignas(64) Tile<T> F, U, S, Y, Uo, So, Yo;  // the first stage reads no u, sigma (only writes them)
  alignas(64) long bad[T];
  const std::size_t o = 6 * i0;
  const Tile<T>& Ui = Tiled ? *reinterpret_cast<const Tile<T>*>(u + o) : U;
  const Tile<T>& Si = Tiled ? *reinterpret_cast<const Tile<T>*>(sg + o) : S;
  load_tile(f, i0, F);
  if constexpr (!First && !Tiled) {
    load_tile(u, i0, U);
    load_tile(sg, i0, S);
  }
  load_tile(y, i0, Y);
  stage_lanes<T, First, Last>(ck, cu, F, Ui, Si, Y, Uo, So, Yo, bad);
  for (std::size_t i = 0; i < T; ++i) {
    const std::size_t e = o + 6 * i;
    if (bad[i]) {
      // outside the short series: the scalar kernel from the untouched inputs
      if constexpr (Tiled)
        stage_lane<Closed, First, Last>(ck, cu, f + e, Strided<const double, T>{&Ui[0][i]},
                                        Strided<const double, T>{&Si[0][i]}, y + e, Strided<double, T>{&Uo[0][i]},
                                        Strided<double, T>{&So[0][i]}, Strided<double, T>{&Yo[0][i]});
      else
        stage_lane<Closed, First, Last>(ck, cu, f + e, u + e, sg + e, y + e, Strided<double, T>{&Uo[0][i]},
                                        Strided<double, T>{&So[0][i]}, Strided<double, T>{&Yo[0][i]});
    }
  }
  if constexpr (Tiled) {
    if (!Last) {  // after the last stage the scratch is dead (scratch_tiled's contract)
      copy_tile(So, sg + o);
      copy_tile(Uo, u + o);
    }
  } else {
    store_tile(So, i0, sg);
    if (!Last) store_tile(Uo, i0, u);
  }
  store_tile(Yo, i0, y_out);
}

template <std::size_t W, bool Tiled = false>
[[gnu::always_inline]] inline void stage_tile_of(const Space::RkmkStage& s, const double* f, double* u, double* sg,
                                                 const double* y, double* y_out, std::size_t i0) {
  // spelled out, not with_stage_kind: a lambda's body is compiled for the default ISA, not this clone's
  if (s.first && s.last)
    stage_tile_body<W, true, true, Tiled>(s.ck, s.cu, f, u, sg, y, y_out, i0);
  else if (s.first)
    stage_tile_body<W, true, false, Tiled>(s.ck, s.cu, f, u, sg, y, y_out, i0);
  else if (s.last)
    stage_tile_body<W, false, true, Tiled>(s.ck, s.cu, f, u, sg, y, y_out, i0);
  else
    stage_tile_body<W, false, false, Tiled>(s.ck, s.cu, f, u, sg, y, y_out, i0);
}
LIEBENCH_STAGE_CLONES
void stage_tile(const Space::RkmkStage& s, const double* f, double* u, double* sg, const double* y, double* y_out,
                std::size_t i0) {
  if (s.scratch_tiled)
    stage_tile_of<kTile, true>(s, f, u, sg, y, y_out, i0);
  else
    stage_tile_of<kTile, false>(s, f, u, sg, y, y_out, i0);
}
LIEBENCH_STAGE_CLONES
void stage_pair(const Space::RkmkStage& s, const double* f, double* u, double* sg, const double* y, double* y_out,
                std::size_t i0) {
  stage_tile_of<kPair>(s, f, u, sg, y, y_out, i0);
}

// exp_act (Exp) or the exact dexpinv on a tile: out = op(a, b) link by link, out may be a or b.
template <std::size_t T, bool Exp>
[[gnu::always_inline]] inline void binary_tile_body(const double* a, const double* b, double* out, std::size_t i0) {
  alignas(64) Tile<T> P, Q, O;
  alignas(64) long bad[T];
  const std::size_t o = 6 * i0;
  load_tile(a, i0, P);
  load_tile(b, i0, Q);
#pragma omp simd
  for (std::size_t i = 0; i < T; ++i) {
    const Strided<const double, T> p{&P[0][i]}, q{&Q[0][i]};
    const long ok = Exp ? exp_act<Series>(p, q, Strided<double, T>{&O[0][i]})
                        : dexpinv<Series>(p, q, Strided<double, T>{&O[0][i]});
    bad[i] = 1 - ok;
  }
  for (std::size_t i = 0; i < T; ++i) {
    const std::size_t e = o + 6 * i;
    if (bad[i]) {
      if constexpr (Exp)
        exp_act<Closed>(a + e, b + e, Strided<double, T>{&O[0][i]});
      else
        dexpinv<Closed>(a + e, b + e, Strided<double, T>{&O[0][i]});
    }
  }
  store_tile(O, i0, out);
}

// exp_act (exp) or dexpinv on a tile or a pair (spelled out: a lambda's body is compiled for
// the default ISA, not the clone's).
LIEBENCH_STAGE_CLONES
void binary_tile(bool exp, const double* a, const double* b, double* out, std::size_t i0) {
  if (exp)
    binary_tile_body<kTile, true>(a, b, out, i0);
  else
    binary_tile_body<kTile, false>(a, b, out, i0);
}
LIEBENCH_STAGE_CLONES
void binary_pair(bool exp, const double* a, const double* b, double* out, std::size_t i0) {
  if (exp)
    binary_tile_body<kPair, true>(a, b, out, i0);
  else
    binary_tile_body<kPair, false>(a, b, out, i0);
}

// out = op(a, b) on `count` links: whole tiles, then pairs, an odd last link alone.
template <bool Exp>
void binary_batch(const double* a, const double* b, double* out, std::size_t count, bool threaded) {
  const std::size_t tiles = count / kTile;
  par::for_each_index(tiles, threaded, [&](std::size_t t) { binary_tile(Exp, a, b, out, t * kTile); });
  std::size_t i = tiles * kTile;
  for (; i + kPair <= count; i += kPair) binary_pair(Exp, a, b, out, i);
  for (; i < count; ++i) {
    if constexpr (Exp)
      exp_act<Closed>(a + 6 * i, b + 6 * i, out + 6 * i);
    else
      dexpinv<Closed>(a + 6 * i, b + 6 * i, out + 6 * i);
  }
}

}  // namespace

void exp_act_batch(const double* xi, const double* y, double* out, std::size_t count, bool threaded) {
  binary_batch<true>(xi, y, out, count, threaded);
}

void dexpinv_batch(const double* u, const double* v, double* out, std::size_t count, bool threaded) {
  binary_batch<false>(u, v, out, count, threaded);
}

void rkmk_stage_batch(const Space::RkmkStage& s, std::size_t alg_offset, std::size_t state_offset, std::size_t count,
                      bool threaded) {
  if (s.terms != kExactDexpinv) throw std::logic_error("se3_ts2::rkmk_stage_batch: exact dexpinv only");
  const double* f = s.f + alg_offset;
  double* u = s.u + alg_offset;
  double* sg = s.sigma + alg_offset;
  const double* y = s.y + state_offset;
  double* y_out = s.y_out + state_offset;
  // whole tiles across lanes; the remainder (all of a system smaller than a tile) in pairs of
  // lanes, without a tile's padding, an odd last link alone
  const std::size_t tiles = count / kTile;
  par::for_each_index(tiles, threaded, [&](std::size_t t) { stage_tile(s, f, u, sg, y, y_out, t * kTile); });
  std::size_t i = tiles * kTile;
  for (; i + kPair <= count; i += kPair) stage_pair(s, f, u, sg, y, y_out, i);
  for (; i < count; ++i) rkmk_stage_scalar(s, alg_offset, state_offset, i);
}

void rkmk_stage_scalar(const Space::RkmkStage& s, std::size_t alg_offset, std::size_t state_offset, std::size_t i) {
  const std::size_t o = alg_offset + 6 * i, so = state_offset + 6 * i;
  const double *f = s.f + o, *u = s.u + o, *sg = s.sigma + o, *y = s.y + so;
  double *uo = s.u + o, *sgo = s.sigma + o, *yo = s.y_out + so;
  with_stage_kind(s, [&]<bool First, bool Last>() {
    stage_lane<Closed, First, Last>(s.ck, s.cu, f, u, sg, y, uo, sgo, yo);
  });
}

}  // namespace lie::se3_ts2
