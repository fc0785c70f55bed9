// The rigid body's per-body kernels in plain doubles (src/groups/tstar_left_kernels.hpp) give the
// bits of the Eigen forms they replaced in factors::TstarSO3LeftTriv (kept here as the
// references), for angles from 0 through the series' switches (sinc's at t^2 = 1e-6, the
// closed forms' at 2.5) to 6, in place and out of place; and the factor uses them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "groups/factors.hpp"
#include "groups/space.hpp"
#include "groups/se3.hpp"
#include "groups/so3.hpp"
#include "groups/tstar_left_kernels.hpp"

using namespace lie;

namespace {

bool same_bits(const double* a, const double* b, int n) { return std::memcmp(a, b, sizeof(double) * n) == 0; }
#ifdef __AVX__
// -DLIEBENCH_NATIVE=ON: Eigen's AVX 3x3 product sums in another order than its default (SSE2)
// build, whose bits the kernel keeps on every build; against it here only to a few ulp.
bool same_exp_act(const double* a, const double* b, int n) {
  for (int i = 0; i < n; ++i)
    if (std::abs(a[i] - b[i]) > 8 * std::numeric_limits<double>::epsilon() * (1.0 + std::abs(b[i]))) return false;
  return true;
}
#else
bool same_exp_act(const double* a, const double* b, int n) { return same_bits(a, b, n); }
#endif

// The Eigen form of factors::TstarSO3LeftTriv::exp_act before the plain-double kernel.
void exp_act_eigen(const double* xi, const double* y, double* out) {
  const Vec3 x = CMap3(xi), al = CMap3(xi + 3);
  const Mat3 E = so3::exp(x);
  const Mat3 Q = CMapQ(y);
  const Vec3 m = CMap3(y + 9);
  MapQ{out} = Q * E;
  Map3{out + 9} = E.transpose() * m + so3::dexp(-x, al);
}
// ... and of its dexpinv.
void dexpinv_eigen(const double* u, const double* v, double* out) { Map6{out} = se3::dexpinv(-CMap6(u), CMap6(v)); }

std::vector<double> angles() {
  std::vector<double> t = {0.0, 1e-300, 1e-12, 1e-8, 9.99e-4, 1e-3, 1.001e-3, 0.01, 0.1, 0.25, 1.0,
                           2.0, 2.4999999, 2.5, 2.5000001, 3.0, 3.14159, 4.0, 5.5};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> wide(0.0, 6.0), small(0.0, 0.05);
  for (int i = 0; i < 500; ++i) t.push_back(wide(rng));
  for (int i = 0; i < 500; ++i) t.push_back(small(rng));
  return t;
}

void random_alg(std::mt19937_64& rng, double t, double* xi) {
  std::normal_distribution<double> g;
  const double d[3] = {g(rng), g(rng), g(rng)};
  const double n = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  for (int c = 0; c < 3; ++c) xi[c] = t * d[c] / n;
  for (int c = 3; c < 6; ++c) xi[c] = g(rng);
}

void random_state(std::mt19937_64& rng, double* y) {
  std::normal_distribution<double> g;
  const Mat3 Q = so3::exp(Vec3(g(rng), g(rng), g(rng)));
  MapQ{y} = Q;
  for (int c = 9; c < 12; ++c) y[c] = g(rng);
}

}  // namespace

TEST(TstarLeftKernels, ExpActHasTheBitsOfTheEigenForm) {
  std::mt19937_64 rng(17);
  int checked = 0;
  for (double t : angles()) {
    double xi[6], y[12], out[12], ref[12];
    random_alg(rng, t, xi);
    random_state(rng, y);
    tstar_left::exp_act(xi, y, out);
    exp_act_eigen(xi, y, ref);
    EXPECT_TRUE(same_exp_act(out, ref, 12)) << "t = " << t;
    // in place (out aliases y), as the RKMK stages call it
    double z[12];
    std::memcpy(z, y, sizeof z);
    tstar_left::exp_act(xi, z, z);
    EXPECT_TRUE(same_exp_act(z, ref, 12)) << "in place, t = " << t;
    ++checked;
  }
  EXPECT_GT(checked, 1000);
}

TEST(TstarLeftKernels, DexpinvHasTheBitsOfTheEigenForm) {
  std::mt19937_64 rng(19);
  std::normal_distribution<double> g;
  for (double t : angles()) {
    double u[6], v[6], out[6], ref[6];
    random_alg(rng, t, u);
    for (double& c : v) c = g(rng);
    tstar_left::dexpinv(u, v, out);
    dexpinv_eigen(u, v, ref);
    EXPECT_TRUE(same_bits(out, ref, 6)) << "t = " << t;
  }
}

// The kernels are the factor's (and so the rigid body's and the dipolar model's): the same bits
// through factors::TstarSO3LeftTriv and RigidBodyLeftTriv, whose translations add exactly.
TEST(TstarLeftKernels, TheFactorsUseThem) {
  std::mt19937_64 rng(23);
  std::normal_distribution<double> g;
  for (double t : {0.0, 1e-5, 0.02, 1.3, 3.0}) {
    double xi[12], y[18], out[18], ref[12];
    for (int c = 0; c < 6; ++c) xi[c] = g(rng), y[c] = g(rng);
    random_alg(rng, t, xi + 6);
    random_state(rng, y + 6);
    factors::RigidBodyLeftTriv::exp_act(xi, y, out);
    exp_act_eigen(xi + 6, y + 6, ref);
    EXPECT_TRUE(same_exp_act(out + 6, ref, 12)) << "t = " << t;
    for (int c = 0; c < 6; ++c) EXPECT_EQ(out[c], y[c] + xi[c]);
    double v[12], d[12], dref[6];
    for (double& c : v) c = g(rng);
    factors::RigidBodyLeftTriv::dexpinv(xi, v, d);
    dexpinv_eigen(xi + 6, v + 6, dref);
    EXPECT_TRUE(same_bits(d + 6, dref, 6)) << "t = " << t;
    EXPECT_TRUE(same_bits(d, v, 6));
  }
}

// The rigid bodies' batch RKMK stage (src/groups/rigid_body_batch.cpp, Space::rkmk_stage's path
// for a rigid_body_left block) gives every body the bits of the generic body, written out here
// from factors::RigidBodyLeftTriv: every stage kind, tile remainders, bodies beyond the short
// series (the scalar fallback), exp actions inside and outside sinc's series range (the lanes'
// exp action and its scalar fallback) and in-place outputs.
namespace {
// returns the number of exp actions whose angle lies in sinc's series range
int generic_stage(const Space::RkmkStage& s, std::size_t count) {
  int series = 0;
  auto in_series = [](const double* xi) {
    const double t = tstar_left::angle(xi + 6);
    return t * t < so3::detail::kSincSeriesT2 ? 1 : 0;
  };
  using F = factors::RigidBodyLeftTriv;
  constexpr int A = F::alg_dim;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t o = i * A, so = i * F::state_dim;
    double k[A];
    if (s.first)
      for (int a = 0; a < A; ++a) k[a] = s.f[o + a];
    else
      F::dexpinv(s.u + o, s.f + o, k);
    double* sg = s.sigma + o;
    if (s.first) {
      for (int a = 0; a < A; ++a) sg[a] = s.ck != 0.0 ? 0.0 + s.ck * k[a] : 0.0;
    } else if (s.ck != 0.0) {
      for (int a = 0; a < A; ++a) sg[a] += s.ck * k[a];
    }
    if (s.last) {
      series += in_series(sg);
      F::exp_act(sg, s.y + so, s.y_out + so);
    } else {
      double* u = s.u + o;
      for (int a = 0; a < A; ++a) u[a] = s.cu != 0.0 ? 0.0 + s.cu * k[a] : 0.0;
      series += in_series(u);
      F::exp_act(u, s.y + so, s.y_out + so);
    }
  }
  return series;
}
}  // namespace

TEST(TstarLeftKernels, RigidBodyBatchStageHasTheGenericBits) {
  std::mt19937_64 rng(29);
  std::normal_distribution<double> g;
  int fallbacks = 0, series = 0, beyond = 0;
  for (std::size_t n : {1, 2, 15, 16, 17, 37, 100}) {
    Space space;
    space.add(FactorKind::RigidBodyLeftTriv, n, "bodies");
    const std::size_t na = space.alg_size(), ns = space.state_size();
    std::vector<double> f(na), u(na), sigma(na), y(ns);
    for (std::size_t i = 0; i < n; ++i) {
      random_state(rng, y.data() + 18 * i + 6);
      for (int c = 0; c < 6; ++c) y[18 * i + static_cast<std::size_t>(c)] = g(rng);
      // rotational parts of u from 1e-4 to 3 (|u| > 0.25 takes the scalar fallback)
      const double t = (i % 5 == 4) ? 0.3 + 2.7 * static_cast<double>(i % 7) / 7.0 : 1e-4 * static_cast<double>(i + 1);
      fallbacks += t > 0.25;
      random_alg(rng, t, u.data() + 12 * i + 6);
      for (int c = 0; c < 6; ++c) u[12 * i + static_cast<std::size_t>(c)] = 0.01 * g(rng);
      for (int c = 0; c < 12; ++c) f[12 * i + static_cast<std::size_t>(c)] = g(rng), sigma[12 * i + static_cast<std::size_t>(c)] = g(rng);
      if (i % 3 != 1)  // small rotational f and sigma: exp angles in sinc's series range (t < 1e-3)
        for (int c = 6; c < 9; ++c) f[12 * i + static_cast<std::size_t>(c)] *= 1e-3, sigma[12 * i + static_cast<std::size_t>(c)] *= 1e-5;
    }
    for (int kind = 0; kind < 4; ++kind)
      for (bool in_place : {false, true}) {
        const bool first = kind & 1, last = kind & 2;
        std::vector<double> u1 = u, s1 = sigma, y1 = y, yo1(ns, -1.0), u2 = u, s2 = sigma, y2 = y, yo2(ns, -1.0);
        Space::RkmkStage a{f.data(), u1.data(), s1.data(), y1.data(), in_place ? y1.data() : yo1.data(), 0.01 / 6, 0.005,
                           first, last};
        Space::RkmkStage b{f.data(), u2.data(), s2.data(), y2.data(), in_place ? y2.data() : yo2.data(), 0.01 / 6, 0.005,
                           first, last};
        space.rkmk_stage(a);
        const int in_range = generic_stage(b, n);
        series += in_range;
        beyond += static_cast<int>(n) - in_range;
        const std::string where = "n = " + std::to_string(n) + ", kind " + std::to_string(kind) + (in_place ? ", in place" : "");
        EXPECT_TRUE(same_bits(u1.data(), u2.data(), static_cast<int>(na))) << where;
        EXPECT_TRUE(same_bits(s1.data(), s2.data(), static_cast<int>(na))) << where;
        EXPECT_TRUE(same_bits(y1.data(), y2.data(), static_cast<int>(ns))) << where;
        EXPECT_TRUE(same_bits(yo1.data(), yo2.data(), static_cast<int>(ns))) << where;
      }
  }
  EXPECT_GT(fallbacks, 10);
  EXPECT_GT(series, 300);  // exp actions of the lanes ...
  EXPECT_GT(beyond, 300);  // ... and of the scalar fallback
}
