// "Same bits on every ISA" (issue 29): the pair kernels' x86-64-v4 (AVX-512), x86-64-v3 (AVX2 +
// FMA) and baseline clones (target_clones in src/models/dipolar_kernel.cpp), each compiled into
// this binary as its own copy (tests/isa/dipolar_kernel_isa.cpp), and the library's own kernel
// (the clone this CPU picks) give bitwise equal slots, leaves and ordered rows on the same
// inputs: N from 1 to 2100 (tails that are not a multiple of the 4 or 16 lanes, one to nine
// tiles, tiles of several sub-blocks), random positions and orientations, with and without
// energies, all pairs and a cutoff, full and partial partner ranges. A copy the CPU cannot run
// is skipped, and says so.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#if defined(LIEBENCH_ISA_VARIANTS)
#include "isa/dipolar_kernel_isa.hpp"

namespace {

using lie::isa::KernelInput;
using lie::isa::KernelOutput;

// n bodies in a cube of side (n / 0.3)^(1/3) (density 0.3, as [K] 3.2), no two closer than
// 0.7, random unit dipoles.
KernelInput random_input(std::size_t n, unsigned seed) {
  std::mt19937_64 g(seed);
  const double side = std::cbrt(static_cast<double>(n) / 0.3);
  std::uniform_real_distribution<double> u(0.0, side);
  std::normal_distribution<double> n01(0.0, 1.0);
  KernelInput in;
  while (in.q.size() < 3 * n) {
    const double p[3] = {u(g), u(g), u(g)};
    bool ok = true;
    for (std::size_t j = 0; ok && j < in.q.size(); j += 3) {
      const double dx = p[0] - in.q[j], dy = p[1] - in.q[j + 1], dz = p[2] - in.q[j + 2];
      ok = dx * dx + dy * dy + dz * dz > 0.49;
    }
    if (!ok) continue;
    in.q.insert(in.q.end(), p, p + 3);
    double m[3] = {n01(g), n01(g), n01(g)};
    const double r = std::sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
    for (double& c : m) in.mu.push_back(c / r);
  }
  return in;
}

// "" if a and b hold the same bits, else the first differing entry and the count.
std::string bit_diff(const char* what, const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return std::string(what) + ": sizes differ";
  std::size_t count = 0, first = a.size();
  for (std::size_t k = 0; k < a.size(); ++k)
    if (std::memcmp(&a[k], &b[k], sizeof(double)) != 0 && count++ == 0) first = k;
  if (count == 0) return "";
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s: %zu of %zu entries differ, first [%zu]: %a vs %a", what, count, a.size(), first,
                a[first], b[first]);
  return buf;
}

std::string diff(const KernelOutput& a, const KernelOutput& b) {
  std::string d;
  for (const std::string& s : {bit_diff("slots", a.slots, b.slots), bit_diff("leaves", a.leaves, b.leaves),
                               bit_diff("rows", a.rows, b.rows), bit_diff("part", a.part, b.part)})
    if (!s.empty()) d += (d.empty() ? "" : "; ") + s;
  return d;
}

const std::size_t kSizes[] = {1, 2, 3, 4, 5, 7, 15, 16, 17, 31, 33, 63, 64, 65, 66, 100, 127, 128, 129, 131,
                              254, 257, 383, 2100};

// Every case of the sweep through `copy`, compared with the baseline copy bit for bit.
void sweep(KernelOutput (*copy)(const KernelInput&)) {
  __builtin_cpu_init();
  for (std::size_t n : kSizes)
    for (bool energy : {false, true})
      for (double cutoff : {0.0, 2.5}) {
        if (n > 1000 && cutoff > 0.0) continue;  // the ordered rows cost n^2 in the baseline's libm fma
        KernelInput in = random_input(n, static_cast<unsigned>(n * 4 + energy * 2 + (cutoff > 0.0)));
        in.energy = energy;
        in.attraction = cutoff > 0.0 ? 1.0 : 0.0;  // Lennard-Jones with the cutoff, soft spheres without
        in.kappa = 1.5;
        if (cutoff > 0.0) in.cutoff2 = cutoff * cutoff;
        const KernelOutput base = lie::isa::kernels_base(in), other = copy(in);
        ASSERT_EQ(diff(base, other), "") << "N = " << n << ", energy " << energy << ", cutoff " << cutoff;
      }
}

TEST(DipolarIsa, CopiesMirrorTheClones) {
  std::ifstream f(LIEBENCH_SOURCE_DIR "/src/models/dipolar_kernel.cpp");
  std::stringstream s;
  s << f.rdbuf();
  EXPECT_NE(s.str().find(lie::isa::kRowClones), std::string::npos) << lie::isa::kRowClones;
  EXPECT_NE(s.str().find(lie::isa::kTileClones), std::string::npos) << lie::isa::kTileClones;
}

TEST(DipolarIsa, Avx512SameBitsAsBaseline) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("x86-64-v4")) GTEST_SKIP() << "this CPU cannot run x86-64-v4 (AVX-512) code";
  sweep(lie::isa::kernels_v4);
}

TEST(DipolarIsa, Avx2SameBitsAsBaseline) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("x86-64-v3")) GTEST_SKIP() << "this CPU cannot run x86-64-v3 (AVX2 + FMA) code";
  sweep(lie::isa::kernels_v3);
}

TEST(DipolarIsa, LibraryCloneSameBitsAsBaseline) { sweep(lie::isa::kernels_lib); }

}  // namespace

#else
TEST(DipolarIsa, Avx512SameBitsAsBaseline) { GTEST_SKIP() << "no ISA clones of the pair kernel here (x86-64 GCC only)"; }
#endif
