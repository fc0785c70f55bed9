#pragma once
// Small numeric helpers shared across layers.
#include <cmath>

namespace lie {

/// max that propagates NaN (std::max(a, NaN) silently returns a, which would make a blown-up
/// run report zero manifold errors).
inline double nan_max(double a, double b) { return (a > b || std::isnan(a)) ? a : b; }

}  // namespace lie
