// Each pair once in fixed tiles (dipolar_kernel.hpp): the tile pairs cover every pair exactly
// once, the slots do not depend on the order in which tile pairs are computed or on which
// work space computes them (what makes ranks x threads layouts bitwise equal), and forces,
// fields and energies agree with the straightforward ordered row sums (every pair twice, the
// reference kernel) to rounding: the order of arithmetic changed, so bits differ, and the
// tolerance is stated per test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "models/dipolar_kernel.hpp"

using namespace lie::dipolar;

namespace {

struct Bodies {
  std::size_t n;
  std::vector<double> q, mu;  // 3 per body
};

// n bodies in a cube of side `side`, no two closer than 0.8 (the soft core keeps forces of
// one scale), random unit dipoles.
Bodies random_bodies(std::size_t n, double side, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.0, side);
  std::normal_distribution<double> n01(0.0, 1.0);
  Bodies b{n, {}, {}};
  while (b.q.size() < 3 * n) {
    const double p[3] = {u(g), u(g), u(g)};
    bool ok = true;
    for (std::size_t j = 0; j < b.q.size() / 3 && ok; ++j) {
      const double dx = p[0] - b.q[3 * j], dy = p[1] - b.q[3 * j + 1], dz = p[2] - b.q[3 * j + 2];
      ok = dx * dx + dy * dy + dz * dz > 0.64;
    }
    if (ok) b.q.insert(b.q.end(), p, p + 3);
  }
  for (std::size_t i = 0; i < n; ++i) {
    double m[3] = {n01(g), n01(g), n01(g)};
    const double s = 1.0 / std::sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
    for (double v : m) b.mu.push_back(v * s);
  }
  return b;
}

BodySoA soa(const Bodies& b) {
  BodySoA s;
  s.resize(b.n);
  for (std::size_t j = 0; j < b.n; ++j) s.set(j, &b.q[3 * j], &b.mu[3 * j]);
  return s;
}

// All tile pairs in the given order, each with the work space `scratch[k % scratch.size()]`.
std::vector<double> all_slots(const BodySoA& s, const std::vector<std::size_t>& order, double kappa,
                              const PairParams& pp, bool energy, std::size_t workspaces = 1) {
  std::vector<double> slots(s.n * s.tiles * kSlotFields, -1.0);
  std::vector<TileScratch> scratch(workspaces);
  for (std::size_t k = 0; k < order.size(); ++k) {
    std::size_t I = 0, J = 0;
    tile_pair_at(order[k], s.tiles, I, J);
    tile_pair(s, I, J, kappa, pp, energy, slots.data(), scratch[k % workspaces]);
  }
  return slots;
}

std::vector<std::size_t> iota_order(std::size_t count) {
  std::vector<std::size_t> o(count);
  for (std::size_t k = 0; k < count; ++k) o[k] = k;
  return o;
}

}  // namespace

TEST(DipolarPairs, TileSizeDependsOnNOnlyAndBoundsTheTiles) {
  EXPECT_EQ(tile_size_for(1), kSmallTile);
  EXPECT_EQ(tile_size_for(128), kSmallTile);
  EXPECT_EQ(tile_size_for(129), 128u);
  EXPECT_EQ(tile_size_for(2048), 128u);
  EXPECT_EQ(tile_size_for(2049), 256u);
  EXPECT_EQ(tile_size_for(16000), 1024u);
  for (std::size_t n : {1u, 100u, 1000u, 4097u, 16000u, 100000u}) {
    const std::size_t t = tile_size_for(n);
    EXPECT_EQ(t % kPairLanes, 0u);
    EXPECT_LE((n + t - 1) / t, kMaxTiles) << n;
  }
}

// The ranks' shares of the tile pairs: contiguous, in rank order, covering every tile pair once,
// and balanced by pair count as far as whole tile pairs allow.
TEST(DipolarPairs, TilePairSharesPartitionTheWorkAndBalanceIt) {
  for (std::size_t n : {1u, 2u, 65u, 100u, 1000u, 4000u, 16000u}) {
    const std::size_t tile = tile_size_for(n), tiles = (n + tile - 1) / tile, count = tile_pair_count(tiles);
    double total = 0.0;
    for (std::size_t k = 0; k < count; ++k) {
      std::size_t I = 0, J = 0;
      tile_pair_at(k, tiles, I, J);
      total += tile_pair_work(n, tile, I, J);
    }
    EXPECT_EQ(total, 0.5 * static_cast<double>(n) * static_cast<double>(n - 1)) << n;
    for (int ranks : {1, 2, 3, 4, 7}) {
      std::size_t next = 0;
      double largest = 0.0;
      for (int r = 0; r < ranks; ++r) {
        const Range share = tile_pair_share(n, tile, tiles, ranks, r);
        if (share.begin == share.end) continue;
        EXPECT_EQ(share.begin, next) << "n " << n << " ranks " << ranks << " rank " << r;
        next = share.end;
        double work = 0.0;
        for (std::size_t k = share.begin; k < share.end; ++k) {
          std::size_t I = 0, J = 0;
          tile_pair_at(k, tiles, I, J);
          work += tile_pair_work(n, tile, I, J);
        }
        largest = std::max(largest, work);
      }
      EXPECT_EQ(next, count) << "n " << n << " ranks " << ranks;
      if (n == 100 && ranks == 2) EXPECT_LE(largest, 0.6 * total);  // 2934 of 4950 pairs
      if (n >= 4000 && ranks <= 4) EXPECT_LE(largest, 1.15 * total / ranks) << n << " " << ranks;
    }
  }
}

TEST(DipolarPairs, TilePairsCoverEveryPairOnce) {
  for (std::size_t tiles : {1u, 2u, 3u, 8u, 32u}) {
    std::set<std::pair<std::size_t, std::size_t>> seen;
    const std::size_t count = tile_pair_count(tiles);
    for (std::size_t k = 0; k < count; ++k) {
      std::size_t I = 0, J = 0;
      tile_pair_at(k, tiles, I, J);
      EXPECT_LE(I, J);
      EXPECT_LT(J, tiles);
      EXPECT_TRUE(seen.insert({I, J}).second) << "tile pair (" << I << ", " << J << ") twice";
    }
    EXPECT_EQ(seen.size(), tiles * (tiles + 1) / 2);
  }
}

// The slots are a function of the state only: any order of the tile pairs, any split over
// work spaces (threads, ranks) gives the same bits.
TEST(DipolarPairs, SlotsDoNotDependOnTheOrderOfTilePairs) {
  // 600 bodies: 5 tiles of 128, the last one partial; 4500: 12 tiles of 384 (three sub-blocks
  // each), the last one partial.
  for (const std::size_t n : {600u, 4500u}) {
    const Bodies b = random_bodies(n, n == 600 ? 14.0 : 35.0, 5);
    const BodySoA s = soa(b);
    ASSERT_EQ(s.tiles, n == 600 ? 5u : 12u);
    PairParams pp;
    pp.attraction = 1.0;
    const std::size_t count = tile_pair_count(s.tiles);
    const std::vector<double> ref = all_slots(s, iota_order(count), 0.8, pp, true);
    std::vector<std::size_t> order = iota_order(count);
    std::mt19937 g(3);
    for (int trial = 0; trial < 2; ++trial) {
      std::shuffle(order.begin(), order.end(), g);
      const std::vector<double> other = all_slots(s, order, 0.8, pp, true, 1 + static_cast<std::size_t>(trial));
      ASSERT_EQ(other.size(), ref.size());
      EXPECT_EQ(std::memcmp(other.data(), ref.data(), ref.size() * sizeof(double)), 0) << "N = " << n << " trial " << trial;
    }
    // Every slot was written (none holds the fill value -1 any more, except by coincidence).
    std::size_t unwritten = 0;
    for (double v : ref) unwritten += (v == -1.0);
    EXPECT_EQ(unwritten, 0u) << "N = " << n;
  }
}

// Against the reference: ordered_row sums every body over all partners in index order (each
// pair twice). Tolerance: 1e-13 of the largest value of each quantity over all bodies (the two
// sums differ in the order of arithmetic only; measured up to ~1e-15 relative).
TEST(DipolarPairs, AgreesWithOrderedRowSums) {
  struct Case {
    std::size_t n;
    double side, kappa, attraction;
  };
  for (const Case c : {Case{37, 6.0, 1.0, 0.0}, Case{600, 14.0, 0.8, 1.0}, Case{1000, 18.0, 1.0, 0.0},
                       Case{4100, 30.0, 1.3, 1.0}}) {
    const Bodies b = random_bodies(c.n, c.side, static_cast<unsigned>(c.n));
    const BodySoA s = soa(b);
    PairParams pp;
    pp.attraction = c.attraction;
    pp.cutoff2 = std::numeric_limits<double>::infinity();
    const std::vector<double> slots = all_slots(s, iota_order(tile_pair_count(s.tiles)), c.kappa, pp, true);
    PartnerSoA partners;
    partners.resize(c.n);
    for (std::size_t j = 0; j < c.n; ++j) {
      const double km[3] = {c.kappa * b.mu[3 * j], c.kappa * b.mu[3 * j + 1], c.kappa * b.mu[3 * j + 2]};
      partners.set(j, &b.q[3 * j], km);
    }
    std::vector<double> ref(7 * c.n), got(7 * c.n);
    for (std::size_t i = 0; i < c.n; ++i) {
      RowSums r;
      ordered_row(partners, 0, c.n, i, &b.q[3 * i], &b.mu[3 * i], pp, true, r);
      for (int k = 0; k < 3; ++k) {
        ref[7 * i + k] = r.force[k] + r.s * b.mu[3 * i + k];
        ref[7 * i + 3 + k] = r.field[k];
      }
      ref[7 * i + 6] = 0.5 * r.energy;
      combine_slots(slots.data(), i, s.tiles, &got[7 * i]);
      for (int k = 3; k < 6; ++k) got[7 * i + k] *= c.kappa;
    }
    // per quantity: force (0-2), field (3-5), energy (6)
    const int first[3] = {0, 3, 6}, last[3] = {3, 6, 7};
    double energy_ref = 0.0, energy_got = 0.0, energy_abs = 0.0;
    for (std::size_t i = 0; i < c.n; ++i) {
      energy_ref += ref[7 * i + 6];
      energy_got += got[7 * i + 6];
      energy_abs += std::fabs(ref[7 * i + 6]);
    }
    for (int q = 0; q < 2; ++q) {
      double scale = 0.0, diff = 0.0;
      for (std::size_t i = 0; i < c.n; ++i)
        for (int k = first[q]; k < last[q]; ++k) {
          scale = std::max(scale, std::fabs(ref[7 * i + k]));
          diff = std::max(diff, std::fabs(ref[7 * i + k] - got[7 * i + k]));
        }
      EXPECT_GT(scale, 0.0);
      EXPECT_LE(diff, 1e-13 * scale) << "N = " << c.n << (q == 0 ? " force" : " field");
      char rel[32];
      std::snprintf(rel, sizeof rel, "%.3g", diff / scale);
      RecordProperty(("n" + std::to_string(c.n) + (q == 0 ? "_force" : "_field") + "_reldiff").c_str(), rel);
    }
    EXPECT_GT(energy_abs, 0.0);
    EXPECT_LE(std::fabs(energy_ref - energy_got), 1e-13 * energy_abs) << "N = " << c.n << " energy";
  }
}
