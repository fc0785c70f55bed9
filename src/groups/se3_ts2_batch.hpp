#pragma once
// The fused RKMK stage of Space::rkmk_stage for a block of se3_on_ts2 factors (the chain's
// links), and Space::exp_act and dexpinv on such a block, run across links in vector registers: links in tiles of kTile, gathered into
// structure-of-arrays tiles, the stage (exact dexpinv, sigma and u updates, exp action) done
// by one `omp simd` loop over the tile with the 8-term series of the coefficient functions,
// the results scattered back. A link whose angle lies outside the short series' range is
// redone by the scalar kernel from its untouched inputs. Every link gets the bits of the scalar
// path (factors::SE3OnTS2 through the generic rkmk_stage): both run se3_ts2_lanes.hpp, and the
// series equal the closed coefficients where they are used (tests/unit/test_se3_ts2_batch.cpp).
//
// Compiled for AVX-512, AVX2 and the baseline ISA (target_clones; no FMA, contraction off, so
// the clones give the same bits). The truncated dexpinv (key dexpinv = q) runs the generic path.
#include <cstddef>

#include "groups/space.hpp"

namespace lie::se3_ts2 {

inline constexpr std::size_t kTile = 8;  // links per structure-of-arrays tile

/// Space::rkmk_stage's pass for `count` consecutive se3_on_ts2 components whose algebra and state
/// entries start at alg_offset and state_offset (s.terms must be kExactDexpinv); on an OpenMP team
/// when `threaded`.
void rkmk_stage_batch(const Space::RkmkStage& s, std::size_t alg_offset, std::size_t state_offset, std::size_t count,
                      bool threaded);

/// Space::exp_act and the exact Space::dexpinv on `count` consecutive links (pointers at the
/// block's first entries; out may be either input), the same bits as factors::SE3OnTS2's calls.
void exp_act_batch(const double* xi, const double* y, double* out, std::size_t count, bool threaded);
void dexpinv_batch(const double* u, const double* v, double* out, std::size_t count, bool threaded);

/// The same pass, one link at a time through the scalar kernel (the reference of the tests and
/// the fallback of a link outside the series' range).
void rkmk_stage_scalar(const Space::RkmkStage& s, std::size_t alg_offset, std::size_t state_offset, std::size_t i);

}  // namespace lie::se3_ts2
