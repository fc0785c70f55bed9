#pragma once
// Small numeric helpers shared across layers.
#include <cmath>
#include <cstdint>

namespace lie {

/// max that propagates NaN (std::max(a, NaN) silently returns a, which would make a blown-up
/// run report zero manifold errors).
inline double nan_max(double a, double b) { return (a > b || std::isnan(a)) ? a : b; }

/// splitmix64 (Steele, Lea, Flood 2014): a bijective 64-bit mix; counter-based random numbers
/// (the value for a counter does not depend on which rank computes it) and state hashes.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace lie
