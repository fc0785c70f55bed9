// One ISA copy of the pair kernels: src/models/dipolar_kernel.cpp compiled here with the target
// of one of its clones as a plain target attribute (LIEBENCH_KERNEL_CLONES, LIEBENCH_TILE_CLONES,
// the hooks the kernel leaves for this) in its own namespace lie_isa_<name>, so that the three
// copies link into one test binary beside the library's dispatched kernel. Built by
// tests/CMakeLists.txt with LIEBENCH_ISA_V4, _V3, _BASE or _LIB and the kernel's own flags.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "isa/dipolar_kernel_isa.hpp"

// The clones of dipolar_kernel.cpp (kRowClones, kTileClones below), one target per copy.
#if defined(LIEBENCH_ISA_V4)
#define LIEBENCH_KERNEL_CLONES __attribute__((target("avx512f")))
#define LIEBENCH_TILE_CLONES __attribute__((target("arch=x86-64-v4")))
#define LIEBENCH_ISA_NS lie_isa_v4
#define LIEBENCH_ISA_FN kernels_v4
#elif defined(LIEBENCH_ISA_V3)
#define LIEBENCH_KERNEL_CLONES __attribute__((target("avx2")))
#define LIEBENCH_TILE_CLONES __attribute__((target("arch=x86-64-v3")))
#define LIEBENCH_ISA_NS lie_isa_v3
#define LIEBENCH_ISA_FN kernels_v3
#elif defined(LIEBENCH_ISA_BASE)
#define LIEBENCH_KERNEL_CLONES
#define LIEBENCH_TILE_CLONES
#define LIEBENCH_ISA_NS lie_isa_base
#define LIEBENCH_ISA_FN kernels_base
#elif defined(LIEBENCH_ISA_LIB)
#define LIEBENCH_ISA_FN kernels_lib
#else
#error "define one of LIEBENCH_ISA_V4, _V3, _BASE, _LIB"
#endif

#if defined(LIEBENCH_ISA_LIB)
#include "models/dipolar_kernel.hpp"
namespace K = lie::dipolar;
namespace lie::isa {
// the test finds these in dipolar_kernel.cpp: the copies' targets are the clones' targets
const char* const kRowClones = R"(target_clones("avx512f", "avx2", "default"))";
const char* const kTileClones = R"(target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))";
}  // namespace lie::isa
#else
#define lie LIEBENCH_ISA_NS
#include "models/dipolar_kernel.cpp"
#undef lie
namespace K = LIEBENCH_ISA_NS::dipolar;
#endif

namespace lie::isa {

KernelOutput LIEBENCH_ISA_FN(const KernelInput& in) {
  const std::size_t n = in.q.size() / 3;
  K::PairParams pp;
  pp.eps = in.eps;
  pp.sigma = in.sigma;
  pp.attraction = in.attraction;
  pp.cutoff2 = in.cutoff2;
  KernelOutput out;

  // Each pair once: every tile pair into the slot array, and into leaves.
  K::BodySoA b;
  b.resize(n);
  for (std::size_t j = 0; j < n; ++j) b.set(j, &in.q[3 * j], &in.mu[3 * j]);
  K::TileScratch scratch;
  const std::size_t T = b.tiles, t = b.tile, F = static_cast<std::size_t>(K::kSlotFields);
  out.slots.assign(T * t * T * F, 0.0);
  std::vector<double> row(t * F), col(t * F);
  for (std::size_t k = 0; k < K::tile_pair_count(T); ++k) {
    std::size_t I = 0, J = 0;
    K::tile_pair_at(k, T, I, J);
    K::tile_pair(b, I, J, in.kappa, pp, in.energy, out.slots.data(), scratch);
    std::fill(row.begin(), row.end(), 0.0);
    std::fill(col.begin(), col.end(), 0.0);
    K::tile_pair_leaves(b, I, J, in.kappa, pp, in.energy, row.data(), I == J ? row.data() : col.data(), scratch);
    out.leaves.insert(out.leaves.end(), row.begin(), row.end());
    out.leaves.insert(out.leaves.end(), col.begin(), col.end());
  }

  // Ordered rows (the cutoff path's kernel): the partners store kappa mu.
  K::PartnerSoA p;
  p.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    const double kmu[3] = {in.kappa * in.mu[3 * j], in.kappa * in.mu[3 * j + 1], in.kappa * in.mu[3 * j + 2]};
    p.set(j, &in.q[3 * j], kmu);
  }
  auto rows = [&](std::size_t j0, std::size_t j1, std::vector<double>& dst) {
    for (std::size_t i = 0; i < n; ++i) {
      K::RowSums r{};
      K::ordered_row(p, j0, j1, i, &in.q[3 * i], &in.mu[3 * i], pp, in.energy, r);
      dst.insert(dst.end(), {r.force[0], r.force[1], r.force[2], r.s, r.field[0], r.field[1], r.field[2], r.energy});
    }
  };
  rows(0, n, out.rows);
  rows(n / 3, n - n / 5, out.part);
  return out;
}

}  // namespace lie::isa
