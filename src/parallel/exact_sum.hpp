#pragma once
// Exact (order-independent) summation of doubles: a fixed-point superaccumulator covering
// the whole double range with 32-bit digits held in int64 words (carry-save). Every double
// is added exactly, so the final value -- rounded once, to nearest -- does not depend on the
// order of the additions, on how terms are split across OpenMP threads, or on how the
// partial accumulators of MPI ranks are combined. This is what makes liebench's reductions
// bitwise identical for every ranks x threads layout (see parallel/context.hpp).
//
// Cost: roughly 3-6 ns per added term (measured in tests/benchmarks/bench_reductions.cpp).
#include <cmath>
#include <cstdint>
#include <cstring>

namespace lie::par {

class ExactSum {
 public:
  static constexpr int kDigits = 72;        // 72 * 32 bits = 2304 bits > 2098 + headroom
  static constexpr int kBias = 1126;        // lsb exponent of the smallest subnormal is -1074-52
  static constexpr int kMaxPending = 1 << 29;

  ExactSum() { clear(); }
  void clear() {
    std::memset(d_, 0, sizeof(d_));
    pending_ = 0;
    nonfinite_ = 0.0;
  }

  void add(double x) {
    if (x == 0.0) return;
    if (!std::isfinite(x)) {
      nonfinite_ += x;  // inf/nan propagate as in ordinary arithmetic
      return;
    }
    int e = 0;
    const double f = std::frexp(x, &e);  // x = f 2^e, 0.5 <= |f| < 1
    const double af = std::fabs(f);
    const std::uint64_t m = static_cast<std::uint64_t>(std::ldexp(af, 53));  // exact, < 2^53
    const int pos = e - 53 + kBias;                                           // >= 0
    const int idx = pos >> 5, off = pos & 31;
    const unsigned __int128 wide = static_cast<unsigned __int128>(m) << off;  // < 2^85
    const std::int64_t d0 = static_cast<std::int64_t>(static_cast<std::uint64_t>(wide) & 0xffffffffu);
    const std::int64_t d1 = static_cast<std::int64_t>(static_cast<std::uint64_t>(wide >> 32) & 0xffffffffu);
    const std::int64_t d2 = static_cast<std::int64_t>(static_cast<std::uint64_t>(wide >> 64));
    if (f > 0) {
      d_[idx] += d0;
      d_[idx + 1] += d1;
      d_[idx + 2] += d2;
    } else {
      d_[idx] -= d0;
      d_[idx + 1] -= d1;
      d_[idx + 2] -= d2;
    }
    if (++pending_ >= kMaxPending) normalize();
  }

  /// Adds another accumulator (exactly).
  void add(const ExactSum& o) {
    normalize();
    ExactSum t = o;
    t.normalize();
    for (int i = 0; i < kDigits; ++i) d_[i] += t.d_[i];
    nonfinite_ += t.nonfinite_;
    normalize();
  }

  /// Propagates carries so that digits 0..kDigits-2 lie in [0, 2^32) and the top digit
  /// carries the sign. After normalize(), raw words may be summed elementwise (MPI_SUM)
  /// by up to 2^31 accumulators without overflow.
  void normalize() {
    for (int i = 0; i < kDigits - 1; ++i) {
      const std::int64_t c = d_[i] >> 32;  // floor division by 2^32
      d_[i] -= c * (std::int64_t(1) << 32);
      d_[i + 1] += c;
    }
    pending_ = 0;
  }

  /// The exact sum rounded to the nearest double.
  double value() const {
    ExactSum t = *this;
    t.normalize();
    if (t.nonfinite_ != 0.0 || std::isnan(t.nonfinite_)) return t.nonfinite_;
    bool negative = t.d_[kDigits - 1] < 0;
    if (negative) {
      for (int i = 0; i < kDigits; ++i) t.d_[i] = -t.d_[i];
      t.normalize();
    }
    int top = kDigits - 1;
    while (top >= 0 && t.d_[top] == 0) --top;
    if (top < 0) return 0.0;
    // Collect the top 4 digits (128 bits) and a sticky bit for everything below.
    unsigned __int128 v = 0;
    int lowest = top - 3;
    for (int i = top; i >= lowest; --i) v = (v << 32) | static_cast<std::uint64_t>(i >= 0 ? t.d_[i] : 0);
    bool sticky = false;
    for (int i = lowest - 1; i >= 0; --i)
      if (t.d_[i] != 0) {
        sticky = true;
        break;
      }
    int exponent = 32 * lowest - kBias;  // value = v * 2^exponent
    // Reduce v to 63 bits, jamming the discarded bits into the lsb (correct rounding).
    int hb = 127;
    while (hb > 0 && !((v >> hb) & 1)) --hb;
    if (hb > 62) {
      const int sh = hb - 62;
      const unsigned __int128 mask = (static_cast<unsigned __int128>(1) << sh) - 1;
      if (v & mask) sticky = true;
      v >>= sh;
      exponent += sh;
    }
    std::uint64_t u = static_cast<std::uint64_t>(v);
    if (sticky) u |= 1u;
    const double r = std::ldexp(static_cast<double>(u), exponent);
    return negative ? -r : r;
  }

  const std::int64_t* words() const { return d_; }
  std::int64_t* words() { return d_; }
  double nonfinite() const { return nonfinite_; }
  void set_nonfinite(double v) { nonfinite_ = v; }

 private:
  std::int64_t d_[kDigits];
  int pending_;
  double nonfinite_;
};

}  // namespace lie::par
