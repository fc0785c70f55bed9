#pragma once
// Orthorhombic box [0, L_x) x [0, L_y) x [0, L_z) with each axis periodic or open (issue 28):
// wrapping into the box, image counts and minimum-image displacements. Self-contained (no MPI,
// no model), for the dipolar cutoff path and its spatial decomposition (spatial_domains.hpp).
//
// The suite's convention (docs/models.md, `dipolar`): the *state* holds unwrapped positions,
// which the Lie group methods move freely (RKMK stages add displacements to q); only the copies
// handed to a pair kernel are wrapped, q mod L, and the kernel takes minimum-image differences.
// The image counts are then floor(q / L) of the state itself, nothing else is stored, and the
// displacements, the centre of mass and the linear momentum stay those of the unwrapped motion.
//
// An open axis is unbounded (today's domain along that axis): no wrapping, no images; its length
// is not used.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace lie {

struct PeriodicBox {
  std::array<double, 3> length{0.0, 0.0, 0.0};
  std::array<bool, 3> periodic{false, false, false};

  /// True if some axis is periodic (else the box changes nothing).
  bool active() const { return periodic[0] || periodic[1] || periodic[2]; }

  /// x mod L in [0, L) on a periodic axis (the rounding cases x - L floor(x/L) = L or < 0 folded
  /// back); x unchanged on an open one.
  double wrap(int axis, double x) const {
    const std::size_t a = static_cast<std::size_t>(axis);
    if (!periodic[a]) return x;
    const double L = length[a];
    double w = x - L * std::floor(x / L);
    if (w < 0.0) w += L;
    if (w >= L) w = 0.0;
    return w;
  }

  /// The image count floor(x / L) of a periodic axis (0 on an open one): x = wrap(x) + L n up
  /// to the rounding of wrap.
  std::int64_t image(int axis, double x) const {
    const std::size_t a = static_cast<std::size_t>(axis);
    return periodic[a] ? static_cast<std::int64_t>(std::floor(x / length[a])) : 0;
  }

  /// Minimum-image displacement d - L nearest_integer(d / L) on a periodic axis (any d), d on an
  /// open one. The pair kernel uses the equivalent select form for |d| < L (wrapped positions),
  /// where the subtraction d -+ L is exact (Sterbenz: L/2 <= |d| <= 2L).
  double minimum_image(int axis, double d) const {
    const std::size_t a = static_cast<std::size_t>(axis);
    return periodic[a] ? d - length[a] * std::nearbyint(d / length[a]) : d;
  }

  /// The kernel's constants: L on periodic axes, 0 on open ones; half lengths, +inf on open ones
  /// (the select d - L ((d > L/2) - (d < -L/2)) is then d - 0 = d exactly).
  double kernel_length(int axis) const {
    const std::size_t a = static_cast<std::size_t>(axis);
    return periodic[a] ? length[a] : 0.0;
  }
  double kernel_half(int axis) const {
    const std::size_t a = static_cast<std::size_t>(axis);
    return periodic[a] ? 0.5 * length[a] : std::numeric_limits<double>::infinity();
  }
};

}  // namespace lie
