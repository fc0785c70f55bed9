#pragma once
// The fused RKMK stage of Space::rkmk_stage for a block of rigid_body_left factors (the bodies of
// [K] 3.2: the dipolar model): the exact dexpinv of the rotational part (the se(3) dexpinv of the
// opposite group, tstar_left_kernels.hpp) run across bodies in vector registers, in tiles of
// kTile bodies with the 8-term series (a body outside their range redone by the scalar kernel),
// then per body the sigma and u updates, and the exp action across lanes where its angle is in
// sinc's series range (tstar_left::detail::exp_act_apply; elsewhere tstar_left::exp_act, scalar:
// its sin calls have no vector form with libm's bits). A tile short of kTile bodies computes only
// the 4-lane groups that hold one. Every body gets the bits of the generic path
// (factors::RigidBodyLeftTriv through Space::rkmk_stage), tested in
// tests/unit/test_tstar_left_kernels.cpp. The truncated dexpinv (key dexpinv = q) runs the
// generic path.
#include <cstddef>

#include "groups/space.hpp"

namespace lie::rigid_body {

inline constexpr std::size_t kTile = 16;  // bodies per structure-of-arrays tile of dexpinv

/// Space::rkmk_stage's pass for `count` consecutive rigid_body_left components whose algebra and
/// state entries start at alg_offset and state_offset (s.terms must be kExactDexpinv); on an
/// OpenMP team when `threaded`.
void rkmk_stage_batch(const Space::RkmkStage& s, std::size_t alg_offset, std::size_t state_offset, std::size_t count,
                      bool threaded);

}  // namespace lie::rigid_body
