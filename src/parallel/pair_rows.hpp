#pragma once
// Each pair once within a rank (issue 27): the pair rows of a short-range pair sum, as
// SpatialDomains builds them (spatial_domains.hpp: pair_parts, the order argument) and the pair
// kernels run them (models/dipolar_kernel.hpp: pair_rows). No MPI here: the kernels' ISA tests
// compile without it.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lie::par {

/// Entries readable past every row's end (a kernel reads whole vector blocks and masks the rest).
inline constexpr std::size_t kPairRowPad = 8;
/// home_of_slot() of a ghost.
inline constexpr std::uint32_t kNotHome = 0xffffffffu;

/// Body `slot` against the partners [begin, end) (slots > slot, increasing). `acc`: the
/// accumulator of the row's body (its home number, or the part's trash row for a foreign row).
struct PairRow {
  std::uint32_t slot, acc;
  const std::uint32_t* begin;
  const std::uint32_t* end;
};

/// The rows one part (thread) walks, in increasing slot order. A partner's accumulator is its
/// home number if that lies in [home_begin, home_end), else `trash`.
struct PairPart {
  std::uint32_t home_begin = 0, home_end = 0, trash = 0;
  std::vector<PairRow> rows;
  std::vector<std::uint32_t> foreign;  // the foreign rows' entries (+ kPairRowPad)
  std::size_t pairs = 0;               // entries of all rows (pair terms computed by this part)
  std::size_t longest = 0;             // entries of the longest row
};

}  // namespace lie::par
