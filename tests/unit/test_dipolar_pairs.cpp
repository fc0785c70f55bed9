// Each pair once in fixed tiles (dipolar_kernel.hpp), and the pair decomposition over ranks
// with its fixed summation tree (parallel/pair_plan.hpp): the tile pairs cover every pair exactly
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
#include "parallel/pair_plan.hpp"

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
  EXPECT_EQ(tile_size_for(4096), 256u);
  EXPECT_EQ(tile_size_for(16000), 256u);  // capped: 63 tiles
  EXPECT_EQ(tile_size_for(64000), 256u);  // 250 tiles
  for (std::size_t n : {1u, 100u, 1000u, 4097u, 16000u, 100000u}) {
    const std::size_t t = tile_size_for(n);
    EXPECT_EQ(t % kPairLanes, 0u);
    EXPECT_LE(t, kMaxTile) << n;
    if (n <= kMaxTiles * kMaxTile) {
      EXPECT_LE((n + t - 1) / t, kMaxTiles) << n;
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
  // 600 bodies: 5 tiles of 128, the last one partial; 4500: 18 tiles of 256 (two sub-blocks
  // each), the last one partial.
  for (const std::size_t n : {600u, 4500u}) {
    const Bodies b = random_bodies(n, n == 600 ? 14.0 : 35.0, 5);
    const BodySoA s = soa(b);
    ASSERT_EQ(s.tiles, n == 600 ? 5u : 18u);
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

// ---------------------------------------------------------------------------------------------
// The pair decomposition (parallel/pair_plan.hpp), with P virtual ranks in one process: the
// plans of all ranks cover every tile pair once, their messages match, and the whole pipeline
// (leaves, maximal subtree sums, exchange, the owners' tree) gives bitwise the same sums for
// every P, in every order of the tile pairs.
namespace {

using lie::par::PairPlan;

// Runs the pipeline of every virtual rank; returns the sums of all bodies (7 per body, fields
// as the slots: F, h, V). Tile pairs in a shuffled order per rank (seed) if seed != 0.
std::vector<double> pipeline(const BodySoA& s, int P, double kappa, const PairParams& pp, unsigned seed) {
  std::vector<PairPlan> plans;
  for (int r = 0; r < P; ++r) plans.emplace_back(s.n, s.tile, kSlotFields, P, r);
  std::vector<std::vector<std::vector<double>>> sent(static_cast<std::size_t>(P));
  std::mt19937 g(seed);
  for (int r = 0; r < P; ++r) {
    const PairPlan& plan = plans[static_cast<std::size_t>(r)];
    // The rank's positions: only its own needed bodies and what the owners send it; every other
    // body is NaN (a read of a body the plan did not deliver poisons the sums).
    BodySoA mine = s;
    for (auto* v : {&mine.x, &mine.y, &mine.z, &mine.mx, &mine.my, &mine.mz})
      std::fill(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(s.n), std::nan(""));
    auto deliver = [&](const lie::par::Range& range) {
      for (std::size_t j = range.begin; j < range.end; ++j) {
        const double q[3] = {s.x[j], s.y[j], s.z[j]}, mu[3] = {s.mx[j], s.my[j], s.mz[j]};
        mine.set(j, q, mu);
      }
    };
    for (const lie::par::Range& range : plan.body_own()) deliver(range);
    for (const PairPlan::BodyPeer& from : plan.body_recvs()) {
      const PairPlan& sender = plans[static_cast<std::size_t>(from.rank)];
      auto it = std::find_if(sender.body_sends().begin(), sender.body_sends().end(),
                             [&](const PairPlan::BodyPeer& p) { return p.rank == r; });
      EXPECT_NE(it, sender.body_sends().end()) << "rank " << from.rank << " sends no positions to " << r;
      for (const lie::par::Range& range : from.ranges) deliver(range);
    }
    std::vector<double> leaves(plan.leaf_values(), std::nan(""));
    auto pairs = plan.tile_pairs();
    if (seed != 0) std::shuffle(pairs.begin(), pairs.end(), g);
    TileScratch scratch;
    for (const auto& [I, J] : pairs)
      tile_pair_leaves(mine, I, J, kappa, pp, true, leaves.data() + plan.leaf_offset(I, J),
                       leaves.data() + plan.leaf_offset(J, I), scratch);
    plan.pack(leaves.data(), sent[static_cast<std::size_t>(r)]);
  }
  std::vector<double> out(s.n * kSlotFields, std::nan(""));
  for (int d = 0; d < P; ++d) {
    const PairPlan& plan = plans[static_cast<std::size_t>(d)];
    std::vector<std::vector<double>> got;
    for (const PairPlan::Peer& from : plan.recvs()) {
      const PairPlan& sender = plans[static_cast<std::size_t>(from.rank)];
      std::size_t k = 0;
      while (k < sender.sends().size() && sender.sends()[k].rank != d) ++k;
      EXPECT_LT(k, sender.sends().size()) << "rank " << from.rank << " sends nothing to " << d;
      got.push_back(sent[static_cast<std::size_t>(from.rank)][k]);
      EXPECT_EQ(got.back().size(), from.values);
    }
    const lie::par::Range mine = lie::par::balanced_range(s.n, P, d);
    plan.finish(got, out.data() + mine.begin * kSlotFields);
  }
  return out;
}

}  // namespace

TEST(DipolarPairs, PlanCoversEveryTilePairOnceAndMessagesMatch) {
  for (const std::size_t n : {1u, 130u, 1000u, 5000u}) {
    const std::size_t tile = tile_size_for(n), T = (n + tile - 1) / tile;
    for (const int P : {1, 2, 3, 4, 7, 16, 64}) {
      std::vector<PairPlan> plans;
      for (int r = 0; r < P; ++r) plans.emplace_back(n, tile, kSlotFields, P, r);
      std::vector<int> owners(T * T, 0);
      double interactions = 0.0;
      for (int r = 0; r < P; ++r) {
        const PairPlan& plan = plans[static_cast<std::size_t>(r)];
        interactions += plan.interactions();
        for (const auto& [I, J] : plan.tile_pairs()) {
          ASSERT_LE(I, J);
          ++owners[I * T + J];
          EXPECT_GE(plan.leaf_offset(I, J), 0);
          EXPECT_GE(plan.leaf_offset(J, I), 0);
        }
        // messages: what r sends to d is what d expects from r, block for block
        for (const PairPlan::Peer& to : plan.sends()) {
          const auto& rv = plans[static_cast<std::size_t>(to.rank)].recvs();
          auto it = std::find_if(rv.begin(), rv.end(), [&](const PairPlan::Peer& p) { return p.rank == r; });
          ASSERT_NE(it, rv.end());
          ASSERT_EQ(it->blocks.size(), to.blocks.size());
          for (std::size_t b = 0; b < to.blocks.size(); ++b) {
            EXPECT_EQ(it->blocks[b].tile, to.blocks[b].tile);
            EXPECT_EQ(it->blocks[b].lo, to.blocks[b].lo);
            EXPECT_EQ(it->blocks[b].hi, to.blocks[b].hi);
            EXPECT_EQ(it->blocks[b].body_begin, to.blocks[b].body_begin);
            EXPECT_EQ(it->blocks[b].body_end, to.blocks[b].body_end);
          }
        }
      }
      // positions: what r sends to d is what d expects from r, range for range; a rank receives
      // (or has) exactly the bodies of the tiles its tile pairs read, each once
      for (int r = 0; r < P; ++r) {
        const PairPlan& plan = plans[static_cast<std::size_t>(r)];
        for (const PairPlan::BodyPeer& to : plan.body_sends()) {
          ASSERT_NE(to.rank, r);
          const auto& rv = plans[static_cast<std::size_t>(to.rank)].body_recvs();
          auto it = std::find_if(rv.begin(), rv.end(), [&](const PairPlan::BodyPeer& p) { return p.rank == r; });
          ASSERT_NE(it, rv.end());
          ASSERT_EQ(it->ranges.size(), to.ranges.size());
          EXPECT_EQ(it->bodies, to.bodies);
          for (std::size_t k = 0; k < to.ranges.size(); ++k) {
            EXPECT_EQ(it->ranges[k].begin, to.ranges[k].begin);
            EXPECT_EQ(it->ranges[k].end, to.ranges[k].end);
          }
        }
        std::size_t senders = 0;
        for (int d = 0; d < P; ++d)
          for (const PairPlan::BodyPeer& to : plans[static_cast<std::size_t>(d)].body_sends()) senders += to.rank == r;
        EXPECT_EQ(senders, plan.body_recvs().size()) << "n " << n << " P " << P << " rank " << r;
        std::vector<int> have(n, 0), want(n, 0);
        for (const lie::par::Range& range : plan.body_own())
          for (std::size_t j = range.begin; j < range.end; ++j) ++have[j];
        for (const PairPlan::BodyPeer& from : plan.body_recvs())
          for (const lie::par::Range& range : from.ranges)
            for (std::size_t j = range.begin; j < range.end; ++j) ++have[j];
        for (const auto& [I, J] : plan.tile_pairs())
          for (const std::size_t t : {I, J})
            for (std::size_t j = plan.tile_range(t).begin; j < plan.tile_range(t).end; ++j) want[j] = 1;
        EXPECT_EQ(have, want) << "n " << n << " P " << P << " rank " << r;
      }
      for (std::size_t I = 0; I < T; ++I)
        for (std::size_t J = I; J < T; ++J) EXPECT_EQ(owners[I * T + J], 1) << "n " << n << " P " << P;
      EXPECT_EQ(interactions, static_cast<double>(n) * static_cast<double>(n - 1)) << "n " << n << " P " << P;
    }
  }
}

// Balance and volume at the case, N = 64000 on 1024 ranks (sampled ranks: a plan per
// rank costs T^2 log T): every rank's share is within one tile pair of W / P, and what a rank
// sends per evaluation is recorded (doubles), beside the previous design's N x 16 x 7 slot
// array reduced over all ranks.
TEST(DipolarPairs, PlanBalancesWorkAtN64000On1024Ranks) {
  const std::size_t n = 64000, tile = tile_size_for(n);
  const int P = 1024;
  const double W = static_cast<double>(n) * static_cast<double>(n - 1);
  const double one_pair = 2.0 * static_cast<double>(tile) * static_cast<double>(tile);
  std::size_t max_send = 0, max_recv = 0, max_peers = 0, max_bodies = 0, max_body_peers = 0;
  for (const int r : {0, 1, 100, 511, 512, 777, 1022, 1023}) {
    const PairPlan plan(n, tile, kSlotFields, P, r);
    EXPECT_LE(std::fabs(plan.interactions() - W / P), one_pair) << "rank " << r;
    std::size_t bodies = 0;
    for (const PairPlan::BodyPeer& from : plan.body_recvs()) bodies += from.bodies;
    max_bodies = std::max(max_bodies, bodies);
    max_body_peers = std::max({max_body_peers, plan.body_sends().size(), plan.body_recvs().size()});
    max_send = std::max(max_send, plan.send_values());
    max_recv = std::max(max_recv, plan.recv_values());
    max_peers = std::max({max_peers, plan.sends().size(), plan.recvs().size()});
  }
  // A compact patch: well under the old exchange (the full slot array, 64000 x 16 x 7).
  EXPECT_LT(max_send, 64000u * 16u * 7u / 20u);
  // positions: a patch reads a few row and column tiles, not all 64000 bodies
  EXPECT_LT(max_bodies, n / 10);
  RecordProperty("max_position_bodies", std::to_string(max_bodies));
  RecordProperty("max_position_peers", std::to_string(max_body_peers));
  std::printf("N = 64000, P = 1024: sampled ranks receive <= %zu bodies' positions from <= %zu peers\n", max_bodies,
              max_body_peers);
  RecordProperty("tiles", std::to_string((n + tile - 1) / tile));
  RecordProperty("max_send_doubles", std::to_string(max_send));
  RecordProperty("max_recv_doubles", std::to_string(max_recv));
  RecordProperty("max_peers", std::to_string(max_peers));
  std::printf("N = 64000, P = 1024, tile %zu: sampled ranks send <= %zu, receive <= %zu doubles, <= %zu peers\n",
              tile, max_send, max_recv, max_peers);
}

// The whole pipeline: the same bits for 1..7 virtual ranks and shuffled tile-pair orders, and
// the ordered row sums (every pair twice, index order) to 1e-13 of the largest value.
TEST(DipolarPairs, TreeSumsBitwiseForEveryRankCountAndOrder) {
  for (const std::size_t n : {37u, 600u, 3000u}) {  // 1 tile; 5 of 128; 12 of 256
    const Bodies b = random_bodies(n, n == 37 ? 6.0 : n == 600 ? 14.0 : 30.0, 11);
    const BodySoA s = soa(b);
    PairParams pp;
    pp.attraction = 1.0;
    pp.cutoff2 = std::numeric_limits<double>::infinity();
    const double kappa = 0.8;
    const std::vector<double> ref = pipeline(s, 1, kappa, pp, 0);
    for (double v : ref) ASSERT_TRUE(std::isfinite(v)) << "n " << n;
    for (const int P : {2, 3, 4, 5, 7}) {
      const std::vector<double> got = pipeline(s, P, kappa, pp, static_cast<unsigned>(P));
      EXPECT_EQ(std::memcmp(got.data(), ref.data(), ref.size() * sizeof(double)), 0) << "n " << n << " P " << P;
    }
    // against the straightforward ordered reference
    PartnerSoA partners;
    partners.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
      const double km[3] = {kappa * b.mu[3 * j], kappa * b.mu[3 * j + 1], kappa * b.mu[3 * j + 2]};
      partners.set(j, &b.q[3 * j], km);
    }
    double fscale = 0.0, fdiff = 0.0, hscale = 0.0, hdiff = 0.0, e_ref = 0.0, e_got = 0.0, e_abs = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      RowSums r;
      ordered_row(partners, 0, n, i, &b.q[3 * i], &b.mu[3 * i], pp, true, r);
      for (int k = 0; k < 3; ++k) {
        const double F = r.force[k] + r.s * b.mu[3 * i + k];
        fscale = std::max(fscale, std::fabs(F));
        fdiff = std::max(fdiff, std::fabs(F - ref[7 * i + k]));
        hscale = std::max(hscale, std::fabs(r.field[k]));
        hdiff = std::max(hdiff, std::fabs(r.field[k] - kappa * ref[7 * i + 3 + k]));
      }
      e_ref += 0.5 * r.energy;
      e_got += ref[7 * i + 6];
      e_abs += std::fabs(0.5 * r.energy);
    }
    EXPECT_GT(fscale, 0.0);
    EXPECT_LE(fdiff, 1e-13 * fscale) << "n " << n << " force";
    EXPECT_LE(hdiff, 1e-13 * hscale) << "n " << n << " field";
    EXPECT_LE(std::fabs(e_ref - e_got), 1e-13 * e_abs) << "n " << n << " energy";
  }
}
