// The chain's per-link kernels in plain doubles (src/groups/se3_ts2_lanes.hpp) and the batch RKMK
// stage that runs them across links in vector registers (src/groups/se3_ts2_batch.cpp):
//  - dexpinv has the bits of the Eigen form se3::dexpinv it replaced;
//  - exp_act agrees with the group exponential and action (se3::exp, SE3OnTS2::act) and its
//    coefficients with long-double references on both sides of the short series' switch;
//  - the short series equal the closed coefficients bitwise where they are used, and say so;
//  - the batch stage gives every link the bits of the scalar stage, for every stage kind, tile
//    remainders, links beyond the series' range (the scalar fallback) and in-place outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "groups/factors.hpp"
#include "groups/se3_ts2_batch.hpp"
#include "groups/se3_ts2_lanes.hpp"
#include "groups/space.hpp"

using namespace lie;

namespace {

using LD = long double;

bool same_bits(const double* a, const double* b, std::size_t n) { return std::memcmp(a, b, n * sizeof(double)) == 0; }

/// A random algebra element whose rotation part has norm t.
void random_alg(std::mt19937_64& rng, double t, double* x) {
  std::normal_distribution<double> g;
  double r[3] = {g(rng), g(rng), g(rng)};
  const double n = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  for (int c = 0; c < 3; ++c) x[c] = t * r[c] / n;
  for (int c = 3; c < 6; ++c) x[c] = g(rng);
}
/// A random point of TS^2.
void random_point(std::mt19937_64& rng, double* y) {
  std::normal_distribution<double> g;
  Vec3 q(g(rng), g(rng), g(rng));
  q.normalize();
  Vec3 w(g(rng), g(rng), g(rng));
  w -= w.dot(q) * q;
  for (int c = 0; c < 3; ++c) {
    y[c] = q[c];
    y[3 + c] = w[c];
  }
}

/// Angles spread over (0, 6): tiny, around the short series' switch (0.25), around the closed
/// forms' switch (2.5), large.
std::vector<double> angles() {
  std::vector<double> t = {0.0, 1e-300, 1e-12, 1e-8, 1e-4, 1e-3, 0.01, 0.1, 0.2, 0.2499999999, 0.25,
                           0.2500000001, 0.3, 1.0, 2.0, 2.4999999, 2.5, 3.0, 3.14159, 4.0, 5.5};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 6.0);
  std::uniform_real_distribution<double> small(0.0, 0.25);
  for (int i = 0; i < 400; ++i) t.push_back(u(rng));
  for (int i = 0; i < 400; ++i) t.push_back(small(rng));
  return t;
}

}  // namespace

TEST(Se3Ts2Lanes, DexpinvHasTheBitsOfTheEigenForm) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g;
  int checked = 0;
  for (double t : angles()) {
    double x[6], y[6], out[6];
    random_alg(rng, t, x);
    for (double& v : y) v = g(rng);
    se3_ts2::dexpinv<se3_ts2::Closed>(x, y, out);
    Vec6 X, Y;
    for (int a = 0; a < 6; ++a) {
      X[a] = x[a];
      Y[a] = y[a];
    }
    const Vec6 ref = se3::dexpinv(X, Y);
    EXPECT_TRUE(same_bits(out, ref.data(), 6)) << "t = " << t;
    double via_factor[6];
    factors::SE3OnTS2::dexpinv(x, y, via_factor);
    EXPECT_TRUE(same_bits(out, via_factor, 6));
    ++checked;
  }
  EXPECT_GT(checked, 800);
}

TEST(Se3Ts2Lanes, ExpActIsTheGroupExponentialsAction) {
  std::mt19937_64 rng(4);
  double worst = 0.0;
  for (double t : angles()) {
    double xi[6], y[6], out[6], ref[6];
    random_alg(rng, t, xi);
    random_point(rng, y);
    se3_ts2::exp_act<se3_ts2::Closed>(xi, y, out);
    Vec6 X;
    for (int a = 0; a < 6; ++a) X[a] = xi[a];
    factors::SE3OnTS2::act(se3::exp(X), y, ref);
    double scale = 1.0;
    for (int a = 0; a < 6; ++a) scale = std::max(scale, std::abs(ref[a]));
    for (int a = 0; a < 6; ++a) worst = std::max(worst, std::abs(out[a] - ref[a]) / scale);
    // in place (out = y), the same bits
    double yy[6];
    std::memcpy(yy, y, sizeof yy);
    se3_ts2::exp_act<se3_ts2::Closed>(xi, yy, yy);
    EXPECT_TRUE(same_bits(out, yy, 6));
  }
  // two formulations of the same map (matrix exponential and action against the coefficient form)
  EXPECT_LT(worst, 2e-14) << "largest relative difference";
}

/// sum_k (-1)^k t^(2k) / (2k+m)! in long double (30 terms), m = 1, 2, 3: sin t/t, (1 - cos t)/t^2,
/// (t - sin t)/t^3 without cancellation (for t < 1.5; the code's series have 8 terms below 0.25)
LD ref_series(LD t, int m) {
  LD term = 1;
  for (int j = 2; j <= m; ++j) term /= j;
  LD s = 0;
  for (int k = 0; k < 30; ++k) {
    s += term;
    term *= -t * t / ((2 * k + m + 1) * (2 * k + m + 2));
  }
  return s;
}

TEST(Se3Ts2Lanes, ExpCoefficientsAgainstLongDouble) {
  // A = sin t/t, B = (1 - cos t)/t^2, C = (t - sin t)/t^3: long-double series below 1.5, libm's
  // long-double sinl, cosl above (an independent evaluation on both sides of both switches).
  double worst[3] = {0, 0, 0};
  for (double t : angles()) {
    double A, B, C;
    so3::detail::exp_coefficients(t, A, B, C);
    const LD T = t, s = std::sin(T), c = std::cos(T);
    LD ref[3];
    for (int m = 1; m <= 3; ++m) ref[m - 1] = ref_series(T, m);
    if (t >= 1.5) {
      ref[0] = s / T;
      ref[1] = (1 - c) / (T * T);
      ref[2] = (T - s) / (T * T * T);
    }
    const double got[3] = {A, B, C};
    for (int k = 0; k < 3; ++k)
      worst[k] = std::max(worst[k], static_cast<double>(std::abs((got[k] - ref[k]) / ref[k])));
  }
  // a few ulp (the closed forms above 2.5 lose ~10 ulp of C to cancellation: so3.hpp)
  EXPECT_LT(worst[0], 4e-16);
  EXPECT_LT(worst[1], 4e-16);
  EXPECT_LT(worst[2], 3e-15);
}

TEST(Se3Ts2Lanes, ShortSeriesAreTheClosedCoefficientsWhereValid) {
  int valid = 0, invalid = 0;
  for (double t : angles()) {
    double a[3], b[3], g[2], h[2];
    const bool ok_exp = se3_ts2::Series::exp(t, a[0], a[1], a[2]);
    se3_ts2::Closed::exp(t, b[0], b[1], b[2]);
    const bool ok_dexpinv = se3_ts2::Series::dexpinv(t, g[0], g[1]);
    se3_ts2::Closed::dexpinv(t, h[0], h[1]);
    const bool inside = t * t < so3::detail::kShortSeriesT2;
    EXPECT_EQ(ok_exp, inside) << t;
    EXPECT_EQ(ok_dexpinv, inside) << t;
    if (inside) {
      EXPECT_TRUE(same_bits(a, b, 3)) << t;
      EXPECT_TRUE(same_bits(g, h, 2)) << t;
      ++valid;
    } else {
      ++invalid;
    }
  }
  EXPECT_GT(valid, 400);
  EXPECT_GT(invalid, 300);
}

namespace {
// Arrays of one stage on n links: f, u, sigma, y and the stage point.
struct StageArrays {
  std::vector<double> f, u, sigma, y, y_out;
};
StageArrays random_stage(std::size_t n, unsigned seed, double large_fraction) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> pick(0.0, 1.0), small(0.0, 0.2), large(0.3, 3.0);
  std::normal_distribution<double> g;
  StageArrays a;
  a.f.resize(6 * n);
  a.u.resize(6 * n);
  a.sigma.resize(6 * n);
  a.y.resize(6 * n);
  a.y_out.assign(6 * n, -7.0);
  for (std::size_t i = 0; i < n; ++i) {
    // f is scaled by ck or cu = 0.05 below: |f_rot| up to 4 keeps most next angles < 0.25
    random_alg(rng, pick(rng) < large_fraction ? 20.0 * large(rng) : 20.0 * small(rng), &a.f[6 * i]);
    random_alg(rng, pick(rng) < large_fraction ? large(rng) : small(rng), &a.u[6 * i]);
    random_alg(rng, pick(rng) < large_fraction ? large(rng) : small(rng), &a.sigma[6 * i]);
    random_point(rng, &a.y[6 * i]);
  }
  return a;
}
}  // namespace

TEST(Se3Ts2Batch, StageGivesEveryLinkTheScalarBits) {
  int fallbacks_seen = 0;
  for (std::size_t n : {1u, 15u, 16u, 17u, 37u, 300u})
    for (int kind = 0; kind < 4; ++kind)
      for (double ck : {0.0, 0.05})
        for (double cu : {0.0, 0.05})
          for (bool in_place : {false, true}) {
            Space::RkmkStage s;
            s.first = kind & 1;
            s.last = kind & 2;
            s.ck = ck;
            s.cu = cu;
            const StageArrays in = random_stage(n, static_cast<unsigned>(n * 8 + kind), 0.15);
            StageArrays batch = in, scalar = in;
            auto bind = [&](StageArrays& a) {
              s.f = a.f.data();
              s.u = a.u.data();
              s.sigma = a.sigma.data();
              s.y = a.y.data();
              s.y_out = in_place ? a.y.data() : a.y_out.data();
            };
            bind(batch);
            se3_ts2::rkmk_stage_batch(s, 0, 0, n, false);
            bind(scalar);
            for (std::size_t i = 0; i < n; ++i) se3_ts2::rkmk_stage_scalar(s, 0, 0, i);
            const std::string what = "n=" + std::to_string(n) + " kind=" + std::to_string(kind) +
                                     " ck=" + std::to_string(ck) + " cu=" + std::to_string(cu);
            EXPECT_TRUE(same_bits(batch.u.data(), scalar.u.data(), 6 * n)) << what;
            EXPECT_TRUE(same_bits(batch.sigma.data(), scalar.sigma.data(), 6 * n)) << what;
            EXPECT_TRUE(same_bits(batch.y.data(), scalar.y.data(), 6 * n)) << what;
            EXPECT_TRUE(same_bits(batch.y_out.data(), scalar.y_out.data(), 6 * n)) << what;
            // something was computed (the stage point moved off the input)
            // (unless the exp argument is 0: first and last with ck = 0, or cu = 0 before the last)
            const double* out = in_place ? batch.y.data() : batch.y_out.data();
            const bool moves = s.last ? !(s.first && ck == 0.0) : cu != 0.0;
            if (moves) {
              EXPECT_FALSE(same_bits(out, in.y.data(), 6 * n)) << what;
            }
            // count links that took the scalar fallback: an angle of u (later stages) or of the
            // exp argument at or beyond the switch
            for (std::size_t i = 0; i < n; ++i) {
              const double* uu = &in.u[6 * i];
              if (!s.first && uu[0] * uu[0] + uu[1] * uu[1] + uu[2] * uu[2] >= 0.0625) ++fallbacks_seen;
            }
          }
  EXPECT_GT(fallbacks_seen, 100) << "the scalar fallback was exercised";
}

TEST(Se3Ts2Batch, SpaceStageUsesTheBatchOnMixedProducts) {
  // A product with a block before and after the links: Space::rkmk_stage runs the links through
  // the batch and the others through the generic body; the links get the scalar bits.
  Space sp;
  sp.add(FactorKind::Translation3, 3, "points");
  sp.add(FactorKind::SE3OnTS2, 45, "links");
  sp.add(FactorKind::SO3OnR3, 2, "vectors");
  std::mt19937_64 rng(8);
  std::normal_distribution<double> g;
  std::vector<double> f(sp.alg_size()), u(sp.alg_size()), sigma(sp.alg_size()), y(sp.state_size());
  for (auto* v : {&f, &u, &sigma, &y})
    for (double& x : *v) x = 0.1 * g(rng);
  const Block& links = sp.blocks()[1];
  for (std::size_t i = 0; i < links.count; ++i) random_point(rng, &y[links.state_offset + 6 * i]);
  Space::RkmkStage s;
  s.ck = 0.1;
  s.cu = 0.2;
  std::vector<double> u1 = u, s1 = sigma, y1(y.size()), u2 = u, s2 = sigma, y2(y.size());
  s.f = f.data();
  s.y = y.data();
  s.u = u1.data();
  s.sigma = s1.data();
  s.y_out = y1.data();
  sp.rkmk_stage(s);
  s.u = u2.data();
  s.sigma = s2.data();
  s.y_out = y2.data();
  for (std::size_t i = 0; i < links.count; ++i) se3_ts2::rkmk_stage_scalar(s, links.alg_offset, links.state_offset, i);
  EXPECT_TRUE(same_bits(&y1[links.state_offset], &y2[links.state_offset], 6 * links.count));
  EXPECT_TRUE(same_bits(&u1[links.alg_offset], &u2[links.alg_offset], 6 * links.count));
  EXPECT_TRUE(same_bits(&s1[links.alg_offset], &s2[links.alg_offset], 6 * links.count));
  // the other blocks were done too
  EXPECT_NE(y1[0], 0.0);
  EXPECT_NE(y1[y1.size() - 1], 0.0);
}

TEST(Se3Ts2Batch, ExpActAndDexpinvGiveEveryLinkTheScalarBits) {
  // Space::exp_act and Space::dexpinv on a block of links (whole tiles and a remainder, 15 % of
  // the angles beyond the short series), against factors::SE3OnTS2 link by link; in place too.
  const std::size_t n = 53;  // whole tiles, two pairs and a last link alone (kTile = 8 or 16)
  static_assert(53 % se3_ts2::kTile == 5);
  Space sp;
  sp.add(FactorKind::SE3OnTS2, n, "links");
  const StageArrays in = random_stage(n, 21, 0.15);
  std::vector<double> out(6 * n), ref(6 * n), in_place = in.y;
  sp.exp_act(in.u.data(), in.y.data(), out.data());
  sp.exp_act(in.u.data(), in_place.data(), in_place.data());
  for (std::size_t i = 0; i < n; ++i) factors::SE3OnTS2::exp_act(&in.u[6 * i], &in.y[6 * i], &ref[6 * i]);
  EXPECT_TRUE(same_bits(out.data(), ref.data(), 6 * n));
  EXPECT_TRUE(same_bits(in_place.data(), ref.data(), 6 * n));
  sp.dexpinv(in.u.data(), in.f.data(), out.data());
  for (std::size_t i = 0; i < n; ++i) factors::SE3OnTS2::dexpinv(&in.u[6 * i], &in.f[6 * i], &ref[6 * i]);
  EXPECT_TRUE(same_bits(out.data(), ref.data(), 6 * n));
  int large = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double* u = &in.u[6 * i];
    large += u[0] * u[0] + u[1] * u[1] + u[2] * u[2] >= so3::detail::kShortSeriesT2;
  }
  EXPECT_GT(large, 2) << "the scalar fallback was exercised";
  EXPECT_LT(large, static_cast<int>(n) - 2) << "the lanes were exercised";
}

TEST(Se3Ts2Batch, TiledScratchGivesTheSameStages) {
  // RkmkStage::scratch_tiled (the fused RKMK stepper's u and sigma kept in the batch's tile
  // layout between passes): a whole step of four stages (first, two middle, last), each with its
  // own f, gives every stage point and y_{n+1} the bits of the array-of-structures layout; whole
  // tiles, pairs and a last link alone; some angles beyond the short series (the scalar fallback
  // reads u and sigma from the tiles).
  const std::size_t n = 53;
  Space sp;
  sp.add(FactorKind::SE3OnTS2, n, "links");
  const StageArrays in = random_stage(n, 23, 0.15);
  std::vector<std::vector<double>> f(4);
  for (int st = 0; st < 4; ++st) f[static_cast<std::size_t>(st)] = random_stage(n, 30 + st, 0.15).f;
  std::vector<double> y_out[2], y[2];
  int fallback = 0;
  for (int tiled = 0; tiled < 2; ++tiled) {
    std::vector<double> u(6 * n, 0.0), sigma(6 * n, 0.0), ys(6 * n);
    y[tiled] = in.y;
    for (int st = 0; st < 4; ++st) {
      Space::RkmkStage s;
      s.f = f[static_cast<std::size_t>(st)].data();
      s.u = u.data();
      s.sigma = sigma.data();
      s.y = y[tiled].data();
      s.first = st == 0;
      s.last = st == 3;
      s.ck = 0.05 * (st == 0 || st == 3 ? 1.0 : 2.0) / 6.0;
      s.cu = st == 3 ? 0.0 : 0.05 * (st == 2 ? 1.0 : 0.5);
      s.y_out = s.last ? y[tiled].data() : ys.data();
      s.scratch_tiled = tiled == 1;
      sp.rkmk_stage(s);
      if (!s.last) y_out[tiled].insert(y_out[tiled].end(), ys.begin(), ys.end());
      if (tiled == 0 && !s.last)
        for (std::size_t i = 0; i < n; ++i) {
          const double* uu = &u[6 * i];
          fallback += uu[0] * uu[0] + uu[1] * uu[1] + uu[2] * uu[2] >= so3::detail::kShortSeriesT2;
        }
    }
  }
  EXPECT_TRUE(same_bits(y_out[0].data(), y_out[1].data(), y_out[0].size()));
  EXPECT_TRUE(same_bits(y[0].data(), y[1].data(), y[0].size()));
  EXPECT_GT(fallback, 2) << "the scalar fallback was exercised";
}
