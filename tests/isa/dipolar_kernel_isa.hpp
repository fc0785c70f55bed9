#pragma once
// The pair kernels (src/models/dipolar_kernel.cpp) once per ISA in the unit tests
// (dipolar_kernel_isa.cpp, tests/CMakeLists.txt; compared in tests/unit/test_dipolar_isa.cpp).
// Plain data only: every copy has its own types, in its own namespace.
#include <cstddef>
#include <limits>
#include <vector>

namespace lie::isa {

struct KernelInput {
  std::vector<double> q, mu;  // positions and unit dipoles, 3 n each
  double eps = 1.0, sigma = 1.0, attraction = 0.0, kappa = 1.0;
  double cutoff2 = std::numeric_limits<double>::infinity();  // ordered_row only (tile_pair: all pairs)
  bool energy = false;
};

struct KernelOutput {
  std::vector<double> slots;   // tile_pair over every tile pair: [n][tiles][kSlotFields]
  std::vector<double> leaves;  // tile_pair_leaves, tile pair by tile pair: row leaf, column leaf
  std::vector<double> rows;    // ordered_row of every body over [0, n): force, s, field, energy
  std::vector<double> part;    // ordered_row of every body over a range [n/3, n - n/5)
};

// The x86-64-v4 (AVX-512), x86-64-v3 (AVX2 + FMA) and baseline copies, each with the target of
// its clone as a plain target attribute, and the library's own (target_clones: the CPU's pick).
KernelOutput kernels_v4(const KernelInput& in);
KernelOutput kernels_v3(const KernelInput& in);
KernelOutput kernels_base(const KernelInput& in);
KernelOutput kernels_lib(const KernelInput& in);

/// The target_clones attributes the copies mirror (the test checks them against the source).
extern const char* const kRowClones;
extern const char* const kTileClones;

}  // namespace lie::isa
