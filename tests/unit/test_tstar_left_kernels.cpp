// The rigid body's per-body kernels in plain doubles (src/groups/tstar_left_kernels.hpp) give the
// bits of the Eigen forms they replaced in factors::TstarSO3LeftTriv (kept here as the
// references), for angles from 0 through the series' switches (sinc's at t^2 = 1e-6, the
// closed forms' at 2.5) to 6, in place and out of place; and the factor uses them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "groups/factors.hpp"
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
