// The yardstick of the pair kernel's "fraction of peak" (issue 27): this core's clock and its
// FP64 FMA throughput, both measured here rather than taken from the data sheet.
//
//   clock:  a chain of dependent 64-bit integer adds (one cycle of latency each on every x86-64
//           core of the last decade), timed: adds per second = cycles per second, whatever the
//           boost state the core runs at under load.
//   peak:   independent chains of vfmadd231pd (12 on 256-bit registers, 24 on 512-bit where
//           AVX-512 is present: more chains than latency x pipes on current cores), timed:
//           flops per second counting an FMA as 2. flops_per_cycle = peak / clock (16 on cores
//           with two 256-bit FMA pipes, Zen 2-4 and Skylake client; 32 with two 512-bit pipes).
//   pair mix: the floating-point instructions of the pair kernel's unmasked loop per 4 pairs
//           (models/dipolar_kernel.cpp: 1 vdivpd, 1 vsqrtpd, 23 vfmadd, 28 vmulpd, 18 vaddpd on
//           256-bit registers), all independent, timed: the throughput bound of that mix on this
//           core (the divider shares a pipe with the multiplies on some cores, so the bound is
//           measured, not added up), reported as pairs per second (pair_mix_mpairs).
// Each figure is the best of `repeats` runs of about `seconds` each. Output: key=value lines.
// x86-64 with GCC or Clang only (inline assembly and target attributes).
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "bench_args.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// 16 dependent adds per iteration: 16 * iters cycles.
long add_chain(long iters) {
  long x = 0;
  const long one = 1;
  for (long i = 0; i < iters; ++i) {
    asm volatile(
        "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
        "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
        "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
        "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
        : "+r"(x)
        : "r"(one));
  }
  return x;
}

/// 12 independent FMA chains of 4 doubles (ymm0-11 += ymm12 * ymm13): 12 * 4 * 2 flops per
/// iteration. In assembly, so that the accumulators stay in registers.
__attribute__((target("avx2,fma"))) double fma_ymm(long iters) {
  alignas(32) double out[4] = {1.0, 1.0, 1.0, 1.0};
  const double a = 0.999999, b = 1e-7;
  asm volatile(
      "vbroadcastsd %2, %%ymm12\n\tvbroadcastsd %3, %%ymm13\n\t"
      "vmovapd (%1), %%ymm0\n\tvmovapd %%ymm0, %%ymm1\n\tvmovapd %%ymm0, %%ymm2\n\tvmovapd %%ymm0, %%ymm3\n\t"
      "vmovapd %%ymm0, %%ymm4\n\tvmovapd %%ymm0, %%ymm5\n\tvmovapd %%ymm0, %%ymm6\n\tvmovapd %%ymm0, %%ymm7\n\t"
      "vmovapd %%ymm0, %%ymm8\n\tvmovapd %%ymm0, %%ymm9\n\tvmovapd %%ymm0, %%ymm10\n\tvmovapd %%ymm0, %%ymm11\n\t"
      "1:\n\t"
      "vfmadd231pd %%ymm12, %%ymm13, %%ymm0\n\tvfmadd231pd %%ymm12, %%ymm13, %%ymm1\n\t"
      "vfmadd231pd %%ymm12, %%ymm13, %%ymm2\n\tvfmadd231pd %%ymm12, %%ymm13, %%ymm3\n\t"
      "vfmadd231pd %%ymm12, %%ymm13, %%ymm4\n\tvfmadd231pd %%ymm12, %%ymm13, %%ymm5\n\t"
      "vfmadd231pd %%ymm12, %%ymm13, %%ymm6\n\tvfmadd231pd %%ymm12, %%ymm13, %%ymm7\n\t"
      "vfmadd231pd %%ymm12, %%ymm13, %%ymm8\n\tvfmadd231pd %%ymm12, %%ymm13, %%ymm9\n\t"
      "vfmadd231pd %%ymm12, %%ymm13, %%ymm10\n\tvfmadd231pd %%ymm12, %%ymm13, %%ymm11\n\t"
      "dec %0\n\tjnz 1b\n\t"
      "vaddpd %%ymm1, %%ymm0, %%ymm0\n\tvaddpd %%ymm11, %%ymm0, %%ymm0\n\t"
      "vmovapd %%ymm0, (%1)\n\tvzeroupper"
      : "+r"(iters)
      : "r"(out), "m"(a), "m"(b)
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
        "xmm13", "memory", "cc");
  return out[0] + out[1] + out[2] + out[3];
}

/// 24 independent FMA chains of 8 doubles (zmm0-23 += zmm24 * zmm25): 24 * 8 * 2 flops per
/// iteration.
__attribute__((target("avx512f"))) double fma_zmm(long iters) {
  alignas(64) double out[8] = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
  const double a = 0.999999, b = 1e-7;
#define LIEBENCH_Z(k) "vfmadd231pd %%zmm24, %%zmm25, %%zmm" #k "\n\t"
#define LIEBENCH_M(k) "vmovapd %%zmm0, %%zmm" #k "\n\t"
  asm volatile(
      "vbroadcastsd %2, %%zmm24\n\tvbroadcastsd %3, %%zmm25\n\tvmovapd (%1), %%zmm0\n\t"
      LIEBENCH_M(1) LIEBENCH_M(2) LIEBENCH_M(3) LIEBENCH_M(4) LIEBENCH_M(5) LIEBENCH_M(6) LIEBENCH_M(7)
      LIEBENCH_M(8) LIEBENCH_M(9) LIEBENCH_M(10) LIEBENCH_M(11) LIEBENCH_M(12) LIEBENCH_M(13) LIEBENCH_M(14)
      LIEBENCH_M(15) LIEBENCH_M(16) LIEBENCH_M(17) LIEBENCH_M(18) LIEBENCH_M(19) LIEBENCH_M(20) LIEBENCH_M(21)
      LIEBENCH_M(22) LIEBENCH_M(23)
      "1:\n\t"
      LIEBENCH_Z(0) LIEBENCH_Z(1) LIEBENCH_Z(2) LIEBENCH_Z(3) LIEBENCH_Z(4) LIEBENCH_Z(5) LIEBENCH_Z(6)
      LIEBENCH_Z(7) LIEBENCH_Z(8) LIEBENCH_Z(9) LIEBENCH_Z(10) LIEBENCH_Z(11) LIEBENCH_Z(12) LIEBENCH_Z(13)
      LIEBENCH_Z(14) LIEBENCH_Z(15) LIEBENCH_Z(16) LIEBENCH_Z(17) LIEBENCH_Z(18) LIEBENCH_Z(19) LIEBENCH_Z(20)
      LIEBENCH_Z(21) LIEBENCH_Z(22) LIEBENCH_Z(23)
      "dec %0\n\tjnz 1b\n\t"
      "vaddpd %%zmm1, %%zmm0, %%zmm0\n\tvaddpd %%zmm23, %%zmm0, %%zmm0\n\t"
      "vmovapd %%zmm0, (%1)\n\tvzeroupper"
      : "+r"(iters)
      : "r"(out), "m"(a), "m"(b)
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
        "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24",
        "xmm25", "memory", "cc");
#undef LIEBENCH_Z
#undef LIEBENCH_M
  double s = 0.0;
  for (double v : out) s += v;
  return s;
}

/// One iteration = the pair kernel's floating-point instruction mix for 4 pairs (see the header),
/// every instruction independent of the loop's others: 8 FMA chains (latency x pipes on current
/// cores), the multiplies and adds write-only. Returns a value so that nothing is dropped.
__attribute__((target("avx2,fma"))) double pair_mix(long iters) {
  alignas(32) double out[4] = {1.0, 1.0, 1.0, 1.0};
  const double a = 0.999999, b = 1e-7;
#define LIEBENCH_F(k) "vfmadd231pd %%ymm14, %%ymm15, %%ymm" #k "\n\t"
#define LIEBENCH_MUL "vmulpd %%ymm14, %%ymm15, %%ymm12\n\t"
#define LIEBENCH_ADD "vaddpd %%ymm14, %%ymm15, %%ymm13\n\t"
  asm volatile(
      "vbroadcastsd %2, %%ymm14\n\tvbroadcastsd %3, %%ymm15\n\tvmovapd (%1), %%ymm4\n\t"
      "vmovapd %%ymm4, %%ymm5\n\tvmovapd %%ymm4, %%ymm6\n\tvmovapd %%ymm4, %%ymm7\n\tvmovapd %%ymm4, %%ymm8\n\t"
      "vmovapd %%ymm4, %%ymm9\n\tvmovapd %%ymm4, %%ymm10\n\tvmovapd %%ymm4, %%ymm11\n\t"
      "1:\n\t"
      "vdivpd %%ymm15, %%ymm14, %%ymm0\n\t"
      LIEBENCH_MUL LIEBENCH_F(4) LIEBENCH_ADD LIEBENCH_MUL LIEBENCH_F(5) LIEBENCH_ADD LIEBENCH_MUL LIEBENCH_F(6)
      "vsqrtpd %%ymm14, %%ymm3\n\t"
      LIEBENCH_MUL LIEBENCH_ADD LIEBENCH_F(7) LIEBENCH_MUL LIEBENCH_ADD LIEBENCH_MUL LIEBENCH_F(8) LIEBENCH_MUL
      LIEBENCH_F(9) LIEBENCH_ADD LIEBENCH_MUL LIEBENCH_F(10) LIEBENCH_MUL LIEBENCH_ADD LIEBENCH_F(11) LIEBENCH_MUL
      LIEBENCH_ADD LIEBENCH_F(4) LIEBENCH_MUL LIEBENCH_MUL LIEBENCH_F(5) LIEBENCH_ADD LIEBENCH_MUL LIEBENCH_F(6)
      LIEBENCH_ADD LIEBENCH_MUL LIEBENCH_F(7) LIEBENCH_MUL LIEBENCH_ADD LIEBENCH_F(8) LIEBENCH_MUL LIEBENCH_ADD
      LIEBENCH_F(9) LIEBENCH_MUL LIEBENCH_MUL LIEBENCH_F(10) LIEBENCH_ADD LIEBENCH_MUL LIEBENCH_F(11) LIEBENCH_ADD
      LIEBENCH_MUL LIEBENCH_F(4) LIEBENCH_MUL LIEBENCH_ADD LIEBENCH_F(5) LIEBENCH_MUL LIEBENCH_ADD LIEBENCH_MUL
      LIEBENCH_F(6) LIEBENCH_MUL LIEBENCH_F(7) LIEBENCH_ADD LIEBENCH_MUL LIEBENCH_F(8) LIEBENCH_MUL LIEBENCH_ADD
      LIEBENCH_F(9) LIEBENCH_MUL LIEBENCH_ADD LIEBENCH_F(10) LIEBENCH_MUL
      "dec %0\n\tjnz 1b\n\t"
      "vaddpd %%ymm5, %%ymm4, %%ymm4\n\tvaddpd %%ymm3, %%ymm4, %%ymm4\n\tvaddpd %%ymm0, %%ymm4, %%ymm4\n\t"
      "vmovapd %%ymm4, (%1)\n\tvzeroupper"
      : "+r"(iters)
      : "r"(out), "m"(a), "m"(b)
      : "xmm0", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
        "xmm15", "memory", "cc");
#undef LIEBENCH_F
#undef LIEBENCH_MUL
#undef LIEBENCH_ADD
  return out[0] + out[1] + out[2] + out[3];
}

/// Best rate (units per second) of `repeats` runs of fn(iters), iters calibrated to ~seconds.
template <class Fn>
double best_rate(Fn fn, double units_per_iter, double seconds, int repeats, double& sink) {
  long iters = 1 << 16;
  for (;;) {  // calibrate
    const auto t0 = Clock::now();
    sink += static_cast<double>(fn(iters));
    const double t = seconds_since(t0);
    if (t > 0.05) {
      iters = std::max(1L, static_cast<long>(static_cast<double>(iters) * seconds / t));
      break;
    }
    iters *= 4;
  }
  double best = 0.0;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    sink += static_cast<double>(fn(iters));
    best = std::max(best, units_per_iter * static_cast<double>(iters) / seconds_since(t0));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  bench::Args args("bench_fma_peak",
                   "This core's clock (a dependent integer add chain) and FP64 FMA peak (independent\n"
                   "vfmadd231pd chains, 256- and 512-bit), measured; key=value lines: clock_ghz,\n"
                   "ymm_gflops, zmm_gflops (0 without AVX-512), fma_peak_gflops (the larger), flops_per_cycle,\n"
                   "pair_mix_mpairs (the pair kernel's instruction mix alone: million pairs per second).",
                   {{"seconds", bench::Kind::Real, "0.3", "length of one timed run"},
                    {"repeats", bench::Kind::Int, "3", "runs per figure; the best is reported"}});
  if (const int rc = args.parse(argc, argv, true); rc >= 0) return rc;
  const double seconds = args.real("seconds");
  const int repeats = static_cast<int>(args.integer("repeats"));
  if (!(seconds > 0.0) || repeats < 1) {
    std::fprintf(stderr, "bench_fma_peak: --seconds must be > 0 and --repeats >= 1 (see --help)\n");
    return 2;
  }
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    std::fprintf(stderr, "bench_fma_peak: this CPU has no AVX2 + FMA; nothing to measure\n");
    return 1;
  }
  double sink = 0.0;
  const double hz = best_rate(add_chain, 16.0, seconds, repeats, sink);
  const double ymm = best_rate(fma_ymm, 12 * 4 * 2, seconds, repeats, sink);
  const double zmm = __builtin_cpu_supports("avx512f") ? best_rate(fma_zmm, 24 * 8 * 2, seconds, repeats, sink) : 0.0;
  const double peak = std::max(ymm, zmm);
  const double mix = best_rate(pair_mix, 4.0, seconds, repeats, sink);  // pairs per second
  std::printf(
      "clock_ghz=%.4g ymm_gflops=%.4g zmm_gflops=%.4g fma_peak_gflops=%.4g flops_per_cycle=%.3g pair_mix_mpairs=%.4g "
      "pair_mix_cycles_per_4_pairs=%.4g sink=%.3g\n",
      hz * 1e-9, ymm * 1e-9, zmm * 1e-9, peak * 1e-9, peak / hz, mix * 1e-6, 4.0 * hz / mix, sink * 0.0);
  return 0;
}
