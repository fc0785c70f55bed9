#pragma once
// Four doubles in one vector (GCC vector extension) and the data movement the vectorised kernels
// share: loads and stores, and transposes between four records of doubles (array of structures)
// and one vector per field (structure of arrays). In an AVX2 or AVX-512 clone (target_clones)
// a V4 is one ymm register, in the baseline build two xmm; arithmetic on V4 is the IEEE
// operation lane by lane (the scalar bits, FP contraction off), shuffles only move values.
// Used by groups/se3_ts2_batch.cpp and rigid_body_batch.cpp (the RKMK stage tiles), the chain's right-hand side
// (models/nfold_pendulum.cpp) and parallel/tridiagonal.hpp (the vector sweep).
namespace lie::lanes {

using V4 = double __attribute__((vector_size(4 * sizeof(double))));
using M4 = long __attribute__((vector_size(4 * sizeof(long))));  // shuffle masks

// The same vector at any double's address (an unaligned load or store of one register):
// memcpy into a V4 is copied in pieces of the TU's base ISA, two xmm moves through the stack in
// an AVX2 clone of a baseline build.
using V4Unaligned = double __attribute__((vector_size(4 * sizeof(double)), aligned(sizeof(double)), may_alias));

// By reference: a vector returned by value would have another ABI in the AVX clones (-Wpsabi).
[[gnu::always_inline]] inline void load4(const double* p, V4& v) { v = *reinterpret_cast<const V4Unaligned*>(p); }
[[gnu::always_inline]] inline void store4(double* p, const V4& v) { *reinterpret_cast<V4Unaligned*>(p) = v; }
/// Four scalars put together in a register and stored as one vector at p: four scalar stores that
/// a vector load then reads back would make that load wait until the stores reach the cache (store
/// forwarding cannot combine them). Gathers into structure-of-arrays tiles.
[[gnu::always_inline]] inline void store4(double* p, double v0, double v1, double v2, double v3) {
  const V4 v = {v0, v1, v2, v3};
  store4(p, v);
}

/// Four records of 6 doubles a, b, c, d in r[0..5] (a0..a3 | a4 a5 b0 b1 | b2..b5 | c0..c3 |
/// c4 c5 d0 d1 | d2..d5, i.e. 24 consecutive doubles) -> field k in col[k] = (a_k, b_k, c_k, d_k).
[[gnu::always_inline]] inline void aos6_to_soa(const V4 (&r)[6], V4 (&col)[6]) {
  V4 x[3], z[3];  // (a_k, b_k, a_k+1, b_k+1) and (c_k, d_k, c_k+1, d_k+1) for k = 0, 2, 4
  for (int p = 0; p < 2; ++p) {
    const V4* q = r + 3 * p;
    V4* o = p == 0 ? x : z;
    o[0] = __builtin_shuffle(q[0], q[1], M4{0, 6, 1, 7});
    o[1] = __builtin_shuffle(q[0], q[2], M4{2, 4, 3, 5});
    o[2] = __builtin_shuffle(q[1], q[2], M4{0, 6, 1, 7});
  }
  for (int k = 0; k < 3; ++k) {
    col[2 * k] = __builtin_shuffle(x[k], z[k], M4{0, 1, 4, 5});
    col[2 * k + 1] = __builtin_shuffle(x[k], z[k], M4{2, 3, 6, 7});
  }
}
/// The inverse of aos6_to_soa.
[[gnu::always_inline]] inline void soa_to_aos6(const V4 (&col)[6], V4 (&r)[6]) {
  V4 x[3], z[3];
  for (int k = 0; k < 3; ++k) {
    x[k] = __builtin_shuffle(col[2 * k], col[2 * k + 1], M4{0, 1, 4, 5});
    z[k] = __builtin_shuffle(col[2 * k], col[2 * k + 1], M4{2, 3, 6, 7});
  }
  for (int p = 0; p < 2; ++p) {
    const V4* o = p == 0 ? x : z;
    V4* q = r + 3 * p;
    q[0] = __builtin_shuffle(o[0], o[1], M4{0, 2, 4, 6});
    q[1] = __builtin_shuffle(o[2], o[0], M4{0, 2, 5, 7});
    q[2] = __builtin_shuffle(o[1], o[2], M4{1, 3, 5, 7});
  }
}
/// Four vectors r[l] = (l_0, l_1, l_2, l_3) -> col[k] = (0_k, 1_k, 2_k, 3_k).
[[gnu::always_inline]] inline void transpose4(const V4 (&r)[4], V4 (&col)[4]) {
  const V4 t0 = __builtin_shuffle(r[0], r[1], M4{0, 4, 2, 6}), t1 = __builtin_shuffle(r[0], r[1], M4{1, 5, 3, 7});
  const V4 t2 = __builtin_shuffle(r[2], r[3], M4{0, 4, 2, 6}), t3 = __builtin_shuffle(r[2], r[3], M4{1, 5, 3, 7});
  col[0] = __builtin_shuffle(t0, t2, M4{0, 1, 4, 5});
  col[1] = __builtin_shuffle(t1, t3, M4{0, 1, 4, 5});
  col[2] = __builtin_shuffle(t0, t2, M4{2, 3, 6, 7});
  col[3] = __builtin_shuffle(t1, t3, M4{2, 3, 6, 7});
}

}  // namespace lie::lanes
