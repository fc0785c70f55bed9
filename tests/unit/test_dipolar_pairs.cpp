// Each pair once in fixed tiles (dipolar_kernel.hpp), and the pair decomposition over ranks
// with its fixed summation tree (parallel/pair_plan.hpp): the tile pairs cover every pair exactly
// once, the slots do not depend on the order in which tile pairs are computed or on which
// work space computes them (what makes ranks x threads layouts bitwise equal), and forces,
// fields and energies agree with the straightforward ordered row sums (every pair twice, the
// reference kernel) to rounding: the order of arithmetic changed, so bits differ, and the
// tolerance is stated per test.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
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
      std::string key = "n";  // appended, not "n" + ...: GCC 12's -Wrestrict false positive on that
      key += std::to_string(c.n);
      key += q == 0 ? "_force_reldiff" : "_field_reldiff";
      RecordProperty(key.c_str(), rel);
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

using Phase = lie::par::PairPlan::Phase;
using Buffers = std::vector<std::vector<double>>;

// Delivers one phase among P virtual ranks: what rank d sends to r (its sends entry for r) is
// what r receives from d (its recvs entry for d), block for block; returns each rank's
// receive buffers in the order of its recvs.
std::vector<Buffers> deliver(const std::vector<PairPlan>& plans, const Phase& (PairPlan::*phase)() const,
                             const std::vector<Buffers>& sent) {
  const int P = static_cast<int>(plans.size());
  std::vector<Buffers> got(plans.size());
  for (int r = 0; r < P; ++r) {
    const Phase& mine = (plans[static_cast<std::size_t>(r)].*phase)();
    for (const PairPlan::Peer& from : mine.recvs) {
      const Phase& theirs = (plans[static_cast<std::size_t>(from.rank)].*phase)();
      std::size_t k = 0;
      while (k < theirs.sends.size() && theirs.sends[k].rank != r) ++k;
      EXPECT_LT(k, theirs.sends.size()) << "rank " << from.rank << " sends nothing to " << r;
      if (k == theirs.sends.size()) {
        got[static_cast<std::size_t>(r)].emplace_back(from.values, std::nan(""));
        continue;
      }
      const PairPlan::Peer& to = theirs.sends[k];
      EXPECT_EQ(to.values, from.values);
      EXPECT_EQ(to.blocks.size(), from.blocks.size());
      for (std::size_t b = 0; b < std::min(to.blocks.size(), from.blocks.size()); ++b) {
        EXPECT_EQ(to.blocks[b].tile, from.blocks[b].tile);
        EXPECT_EQ(to.blocks[b].lo, from.blocks[b].lo);
        EXPECT_EQ(to.blocks[b].hi, from.blocks[b].hi);
        EXPECT_EQ(to.blocks[b].body_begin, from.blocks[b].body_begin);
        EXPECT_EQ(to.blocks[b].body_end, from.blocks[b].body_end);
      }
      got[static_cast<std::size_t>(r)].push_back(sent[static_cast<std::size_t>(from.rank)][k]);
    }
  }
  return got;
}

// Runs the pipeline of every virtual rank, all four phases of the plan; returns the sums of all
// bodies (7 per body, fields as the slots: F, h, V). A rank starts from its own bodies only
// (every other body NaN: a read of a body the plan did not deliver poisons the sums). Tile
// pairs in a shuffled order per rank (seed) if seed != 0.
std::vector<double> pipeline(const BodySoA& s, int P, double kappa, const PairParams& pp, unsigned seed,
                             PairPlan::Messages messages = PairPlan::Messages::automatic, bool sum_local = false) {
  std::vector<PairPlan> plans;
  for (int r = 0; r < P; ++r) plans.emplace_back(s.n, s.tile, kSlotFields, P, r, messages);
  const auto R = static_cast<std::size_t>(P);
  std::vector<BodySoA> bodies(R, s);
  for (BodySoA& b : bodies)
    for (auto* v : {&b.x, &b.y, &b.z, &b.mx, &b.my, &b.mz})
      std::fill(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(s.n), std::nan(""));
  auto pack_positions = [&](const BodySoA& from, const PairPlan::Peer& to) {
    std::vector<double> buf;
    for (const PairPlan::Block& blk : to.blocks)
      for (std::size_t j = blk.body_begin; j < blk.body_end; ++j)
        buf.insert(buf.end(), {from.x[j], from.y[j], from.z[j], from.mx[j], from.my[j], from.mz[j]});
    return buf;
  };
  auto unpack_positions = [&](const Phase& phase, const Buffers& in, BodySoA& into) {
    for (std::size_t k = 0; k < phase.recvs.size(); ++k) {
      const double* v = in[k].data();
      for (const PairPlan::Block& blk : phase.recvs[k].blocks)
        for (std::size_t j = blk.body_begin; j < blk.body_end; ++j, v += 6) into.set(j, v, v + 3);
    }
  };
  // pos_up: the owners send their own bodies (taken from the true state) to the roots (direct:
  // to themselves)
  std::vector<Buffers> sent(R);
  for (std::size_t r = 0; r < R; ++r)
    for (const PairPlan::Peer& to : plans[r].pos_up().sends) {
      const lie::par::Range own = lie::par::balanced_range(s.n, P, static_cast<int>(r));
      for (const PairPlan::Block& blk : to.blocks) {
        EXPECT_GE(blk.body_begin, own.begin);
        EXPECT_LE(blk.body_end, own.end);
      }
      sent[r].push_back(pack_positions(s, to));
    }
  std::vector<Buffers> got = deliver(plans, &PairPlan::pos_up, sent);
  for (std::size_t r = 0; r < R; ++r) unpack_positions(plans[r].pos_up(), got[r], bodies[r]);
  // pos_down: the roots send whole tiles from what they gathered
  for (std::size_t r = 0; r < R; ++r) {
    sent[r].clear();
    for (const PairPlan::Peer& to : plans[r].pos_down().sends) sent[r].push_back(pack_positions(bodies[r], to));
  }
  got = deliver(plans, &PairPlan::pos_down, sent);
  for (std::size_t r = 0; r < R; ++r) unpack_positions(plans[r].pos_down(), got[r], bodies[r]);
  // the tile pairs and the subtree sums to the roots
  std::mt19937 g(seed);
  for (std::size_t r = 0; r < R; ++r) {
    const PairPlan& plan = plans[r];
    std::vector<double> leaves(plan.leaf_values(), std::nan(""));
    auto pairs = plan.tile_pairs();
    if (seed != 0) std::shuffle(pairs.begin(), pairs.end(), g);
    TileScratch scratch;
    for (const auto& [I, J] : pairs)
      tile_pair_leaves(bodies[r], I, J, kappa, pp, true, leaves.data() + plan.leaf_offset(I, J),
                       leaves.data() + plan.leaf_offset(J, I), scratch);
    if (sum_local) {  // one rank: the trees straight into the sums (PairPlan::sum_local)
      std::vector<double> out(s.n * kSlotFields, std::nan(""));
      plan.sum_local(leaves.data(), out.data());
      return out;
    }
    plan.pack(leaves.data(), sent[r]);
  }
  got = deliver(plans, &PairPlan::sum_up, sent);
  for (std::size_t r = 0; r < R; ++r) plans[r].finish(got[r], sent[r]);
  got = deliver(plans, &PairPlan::sum_down, sent);
  std::vector<double> out(s.n * kSlotFields, std::nan(""));
  for (std::size_t r = 0; r < R; ++r) {
    const lie::par::Range mine = lie::par::balanced_range(s.n, P, static_cast<int>(r));
    plans[r].scatter(got[r], out.data() + mine.begin * kSlotFields);
  }
  return out;
}

}  // namespace

TEST(DipolarPairs, PlanCoversEveryTilePairOnceAndMessagesMatch) {
  using M = PairPlan::Messages;
  for (const M messages : {M::automatic, M::two_level, M::direct})
  for (const std::size_t n : {1u, 100u, 130u, 1000u, 5000u}) {
    const std::size_t tile = tile_size_for(n), T = (n + tile - 1) / tile;
    for (const int P : {1, 2, 3, 4, 7, 16, 64}) {
      std::vector<PairPlan> plans;
      for (int r = 0; r < P; ++r) plans.emplace_back(n, tile, kSlotFields, P, r, messages);
      if (messages != M::automatic) {
        EXPECT_EQ(plans[0].messages(), messages);
      } else {  // the plan's choice: direct only on 2 to 8 ranks
        EXPECT_TRUE(plans[0].messages() == M::two_level || (P > 1 && P <= 8)) << "n " << n << " P " << P;
      }
      if (messages == M::direct) {  // nothing moves through a third rank: positions and sums stay home
        for (int r = 0; r < P; ++r)
          for (const auto phase : {&PairPlan::pos_up, &PairPlan::sum_down})
            for (const PairPlan::Peer& p : (plans[static_cast<std::size_t>(r)].*phase)().sends) {
              EXPECT_EQ(p.rank, r);
            }
      }
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
      }
      // every phase: each message is expected by its receiver, block for block (deliver), and
      // nothing is expected that is not sent
      for (const auto phase : {&PairPlan::pos_up, &PairPlan::pos_down, &PairPlan::sum_up, &PairPlan::sum_down}) {
        std::vector<Buffers> sent(static_cast<std::size_t>(P));
        std::size_t sends = 0, recvs = 0;
        for (int r = 0; r < P; ++r) {
          for (const PairPlan::Peer& to : (plans[static_cast<std::size_t>(r)].*phase)().sends)
            sent[static_cast<std::size_t>(r)].emplace_back(to.values, 1.0);
          sends += (plans[static_cast<std::size_t>(r)].*phase)().sends.size();
          recvs += (plans[static_cast<std::size_t>(r)].*phase)().recvs.size();
        }
        deliver(plans, phase, sent);
        EXPECT_EQ(sends, recvs) << "n " << n << " P " << P;
      }
      // a rank receives exactly the bodies of the tiles its tile pairs read, each once; the
      // roots finish exactly their tiles, and every local body gets its sums once
      for (int r = 0; r < P; ++r) {
        const PairPlan& plan = plans[static_cast<std::size_t>(r)];
        std::vector<int> have(n, 0), want(n, 0), sums(n, 0);
        for (const PairPlan::Peer& from : plan.pos_down().recvs)
          for (const PairPlan::Block& blk : from.blocks) {
            EXPECT_EQ(from.rank, plan.root_of(blk.body_begin));
            for (std::size_t j = blk.body_begin; j < blk.body_end; ++j) ++have[j];
          }
        for (const auto& [I, J] : plan.tile_pairs())
          for (const std::size_t t : {I, J})
            for (std::size_t j = plan.tile_range(t).begin; j < plan.tile_range(t).end; ++j) want[j] = 1;
        EXPECT_EQ(have, want) << "n " << n << " P " << P << " rank " << r;
        for (const PairPlan::Peer& from : plan.sum_down().recvs)
          for (const PairPlan::Block& blk : from.blocks)
            for (std::size_t j = blk.body_begin; j < blk.body_end; ++j) ++sums[j];
        const lie::par::Range own = plan.owned(r);
        for (std::size_t j = 0; j < n; ++j) EXPECT_EQ(sums[j], j >= own.begin && j < own.end ? 1 : 0) << j;
        // the owners: the same contiguous ranges on every rank, covering the bodies in rank order
        EXPECT_EQ(own.begin, r == 0 ? 0 : plans[static_cast<std::size_t>(r) - 1].owned(r - 1).end);
        for (int q = 0; q < P; ++q) {
          EXPECT_EQ(plan.owned(q).begin, plans[0].owned(q).begin);
          EXPECT_EQ(plan.owned(q).end, plans[0].owned(q).end);
        }
        if (r == P - 1) {
          EXPECT_EQ(own.end, n);
        }
      }
      for (std::size_t I = 0; I < T; ++I)
        for (std::size_t J = I; J < T; ++J) EXPECT_EQ(owners[I * T + J], 1) << "n " << n << " P " << P;
      EXPECT_EQ(interactions, static_cast<double>(n) * static_cast<double>(n - 1)) << "n " << n << " P " << P;
    }
  }
}

// Balance and volume at the case, N = 64000 on 1024 ranks (sampled ranks: a plan per
// rank costs T^2 log T): every rank's share is within one tile pair of W / P; a rank reads a
// few tiles, not all 64000 bodies; an owner talks to the roots of its <= 2 tiles only (the two
// levels: owners + readers messages per tile instead of owners x readers). What a rank sends
// per evaluation is recorded (doubles, self excluded).
TEST(DipolarPairs, PlanBalancesWorkAtN64000On1024Ranks) {
  const std::size_t n = 64000, tile = tile_size_for(n);
  const int P = 1024;
  const double W = static_cast<double>(n) * static_cast<double>(n - 1);
  const double one_pair = 2.0 * static_cast<double>(tile) * static_cast<double>(tile);
  std::size_t max_send = 0, max_recv = 0, max_peers = 0, max_bodies = 0, max_owner_peers = 0;
  auto peers = [](const std::vector<PairPlan::Peer>& v, int self) {
    return static_cast<std::size_t>(std::count_if(v.begin(), v.end(), [&](const PairPlan::Peer& p) { return p.rank != self; }));
  };
  for (const int r : {0, 1, 100, 511, 512, 777, 1022, 1023}) {
    const PairPlan plan(n, tile, kSlotFields, P, r);
    EXPECT_LE(std::fabs(plan.interactions() - W / P), one_pair) << "rank " << r;
    max_bodies = std::max(max_bodies, plan.pos_down().recv_values(true, r) / PairPlan::kPositionValues);
    max_owner_peers = std::max({max_owner_peers, peers(plan.pos_up().sends, r), peers(plan.sum_down().recvs, r)});
    for (const PairPlan::Phase* ph : {&plan.pos_up(), &plan.pos_down(), &plan.sum_up(), &plan.sum_down()}) {
      max_send = std::max(max_send, ph->send_values(false, r));
      max_recv = std::max(max_recv, ph->recv_values(false, r));
      max_peers = std::max({max_peers, peers(ph->sends, r), peers(ph->recvs, r)});
    }
  }
  // A compact patch: well under the old exchange (the full slot array, 64000 x 16 x 7).
  EXPECT_LT(max_send, 64000u * 16u * 7u / 20u);
  EXPECT_LT(max_bodies, n / 10);
  EXPECT_LE(max_owner_peers, 2u);
  RecordProperty("tiles", std::to_string((n + tile - 1) / tile));
  RecordProperty("max_position_bodies", std::to_string(max_bodies));
  RecordProperty("max_send_doubles", std::to_string(max_send));
  RecordProperty("max_recv_doubles", std::to_string(max_recv));
  RecordProperty("max_peers", std::to_string(max_peers));
  std::printf("N = 64000, P = 1024, tile %zu: sampled ranks read <= %zu bodies; per phase send <= %zu, receive <= %zu "
              "doubles, <= %zu peers (owners: <= %zu roots)\n",
              tile, max_bodies, max_send, max_recv, max_peers, max_owner_peers);
}

// At most two tile pairs per rank (up to 8 ranks): the costliest first to the least loaded rank when that evens the
// estimated cost (a diagonal tile pair's interactions weigh 7/5, pair_plan.cpp) better than the Z-order cut. [K]'s
// N = 100 (tiles of 64 and 36) on 2 ranks keeps the Z-order cut (0,0) | (0,1), (1,1): costs 28224 | 32340 where the
// count-balanced 4608 | 4032 + 1260 costs 23040 | 37044 (and ran 9.5-9.9 us per evaluation on its busier rank
// against 8.5-8.7). N = 128 (two tiles of 64) on 2 ranks: the Z-order cut puts (0,1) and (1,1) together (costs
// 28224 | 69184), largest first gives (0,1) | (0,0), (1,1) (40960 | 56448). On 3 ranks one tile pair each. Every
// tile pair is still computed once (the sum over ranks).
TEST(DipolarPairs, FewTilePairsAreBalancedByCost) {
  using Pairs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;
  for (const auto& [n, P, want] :
       {std::tuple{std::size_t{100}, 2, std::vector<Pairs>{{{0, 0}}, {{0, 1}, {1, 1}}}},
        std::tuple{std::size_t{128}, 2, std::vector<Pairs>{{{0, 1}}, {{0, 0}, {1, 1}}}},
        std::tuple{std::size_t{100}, 3, std::vector<Pairs>{{{0, 0}}, {{0, 1}}, {{1, 1}}}}}) {
    const std::size_t tile = tile_size_for(n);
    ASSERT_EQ(tile, 64u);
    double total = 0.0;
    for (int r = 0; r < P; ++r) {
      const PairPlan plan(n, tile, kSlotFields, P, r);
      total += plan.interactions();
      EXPECT_EQ(plan.tile_pairs(), want[static_cast<std::size_t>(r)]) << "n = " << n << ", P = " << P << ", rank " << r;
    }
    EXPECT_EQ(total, static_cast<double>(n) * static_cast<double>(n - 1)) << "n = " << n << ", P = " << P;
  }
}

// The owners (pair_plan.hpp, "Owners"): one whole tile per rank where T = P among few tile pairs
// and that lowers the estimated cost of the busiest rank (its tile pairs' cost, 7 or 5 per
// ordered interaction, + 120 per body), else the balanced ranges. [K]'s N = 100 on 2 ranks:
// tiles 0..63 | 64..99 (costs 28224 + 64 x 120 | 31860 + 36 x 120 = 36180 at most, balanced
// 31860 + 50 x 120 = 37860); then rank 0, whose tile pair (0,0) reads only its own tile, receives
// no positions and sends no sums, rank 1 no sums, and both are their tiles' roots in either
// scheme. N = 70 on 2 ranks (tiles of 64 and 6) stays balanced: whole tiles would leave rank 0
// with (0,0) and 64 bodies. N = 200 on 2 ranks (tiles of 128 and 72) takes whole tiles, N = 340
// on 3 (tiles of 128, 128, 84) does not; N = 128 on 2 and 384 on 3 are the same either way; N = 100
// on 3 ranks (2 tiles) and 300 on 2 (6 tile pairs) are not among the cases.
TEST(DipolarPairs, OwnersHoldWholeTilesWhereThatEvensTheWorkOut) {
  using M = PairPlan::Messages;
  using Owned = std::vector<std::size_t>;  // first body of every rank, then n
  for (const auto& [n, P, want] : {std::tuple{std::size_t{100}, 2, Owned{0, 64, 100}},
                                   std::tuple{std::size_t{70}, 2, Owned{0, 35, 70}},
                                   std::tuple{std::size_t{128}, 2, Owned{0, 64, 128}},
                                   std::tuple{std::size_t{200}, 2, Owned{0, 128, 200}},
                                   std::tuple{std::size_t{340}, 3, Owned{0, 114, 227, 340}},
                                   std::tuple{std::size_t{384}, 3, Owned{0, 128, 256, 384}},
                                   std::tuple{std::size_t{100}, 3, Owned{0, 34, 67, 100}},
                                   std::tuple{std::size_t{300}, 2, Owned{0, 150, 300}}}) {
    for (int r = 0; r < P; ++r) {
      const PairPlan plan(n, tile_size_for(n), kSlotFields, P, r);
      Owned got;
      for (int q = 0; q < P; ++q) got.push_back(plan.owned(q).begin);
      got.push_back(plan.owned(P - 1).end);
      EXPECT_EQ(got, want) << "n = " << n << ", P = " << P << ", rank " << r;
    }
  }
  for (const M m : {M::direct, M::two_level}) {
    const PairPlan p0(100, 64, kSlotFields, 2, 0, m), p1(100, 64, kSlotFields, 2, 1, m);
    EXPECT_TRUE(p0.pos_up().self_only(0) && p1.pos_up().self_only(1));
    EXPECT_TRUE(p0.sum_down().self_only(0) && p1.sum_down().self_only(1));
    for (const PairPlan::Peer& from : p0.pos_down().recvs) EXPECT_EQ(from.rank, 0);  // (0,0): its own tile
    for (const PairPlan::Peer& to : p0.sum_up().sends) EXPECT_EQ(to.rank, 0);
    for (const PairPlan::Peer& from : p1.sum_up().recvs) EXPECT_EQ(from.rank, 1);  // tile 1's leaves are all rank 1's
    EXPECT_EQ(p1.pos_down().recv_values(false, 1), 64u * PairPlan::kPositionValues);  // tile 0, from rank 0
    EXPECT_EQ(p0.sum_up().recv_values(false, 0), 64u * static_cast<std::size_t>(kSlotFields));  // (0,1)'s node of tile 0
  }
}

// The plan's choice of scheme where the counts are known by hand (scripts/smpi/pair_plan.py
// --counts, tests/cli/smpi_model.sh): [K]'s N = 100 and N = 300 on 2 ranks, N = 129 on 3 direct;
// N = 4000 on 16 ranks (direct: 20 position messages on the busiest rank, two levels 2 + 17) and
// on 64 (beyond 8 ranks) two levels.
TEST(DipolarPairs, PlanTakesDirectMessagesOnFewRanks) {
  using M = PairPlan::Messages;
  for (const auto& [n, P, want] : {std::tuple{100, 2, M::direct}, {300, 2, M::direct}, {129, 3, M::direct},
                                   {4000, 16, M::two_level}, {4000, 64, M::two_level}, {100, 1, M::two_level}}) {
    const PairPlan plan(static_cast<std::size_t>(n), tile_size_for(static_cast<std::size_t>(n)), kSlotFields, P, 0);
    EXPECT_EQ(plan.messages(), want) << "n " << n << " P " << P;
  }
}

// The whole pipeline: the same bits for 1..7 virtual ranks, either scheme of messages and
// shuffled tile-pair orders, and the ordered row sums (every pair twice, index order) to 1e-13 of
// the largest value.
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
    for (const int P : {2, 3, 4, 5, 7})
      for (const PairPlan::Messages m : {PairPlan::Messages::two_level, PairPlan::Messages::direct}) {
        const std::vector<double> got = pipeline(s, P, kappa, pp, static_cast<unsigned>(P), m);
        EXPECT_EQ(std::memcmp(got.data(), ref.data(), ref.size() * sizeof(double)), 0)
            << "n " << n << " P " << P << (m == PairPlan::Messages::direct ? " direct" : " two levels");
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

// One rank's trees without the rounds (PairPlan::sum_local, what Dipolar runs on one rank): the
// bits of pack, finish and scatter, on one and on two threads (n = 3000: twelve tiles, enough
// additions for the threaded trees), for one tile, two uneven tiles ([K]'s N = 100) and more.
TEST(DipolarPairs, OneRankTreesStraightIntoTheSumsAreThePipelinesBits) {
  const int saved_threads = omp_get_max_threads();
  for (const std::size_t n : {1u, 37u, 100u, 600u, 3000u}) {
    const Bodies b = random_bodies(n, n <= 100 ? 6.0 : n == 600 ? 14.0 : 30.0, 5);
    const BodySoA s = soa(b);
    PairParams pp;
    pp.attraction = 1.0;
    pp.cutoff2 = std::numeric_limits<double>::infinity();
    const std::vector<double> ref = pipeline(s, 1, 0.8, pp, 0);
    for (double v : ref) ASSERT_TRUE(std::isfinite(v)) << "n " << n;
    for (const int threads : {1, 2}) {
      omp_set_num_threads(threads);
      const std::vector<double> got = pipeline(s, 1, 0.8, pp, 0, PairPlan::Messages::automatic, true);
      EXPECT_EQ(std::memcmp(got.data(), ref.data(), ref.size() * sizeof(double)), 0)
          << "n " << n << " threads " << threads;
    }
    omp_set_num_threads(saved_threads);
  }
  const PairPlan two(100, 64, kSlotFields, 2, 0);
  std::vector<double> leaves(two.leaf_values()), sums(64 * kSlotFields);
  EXPECT_THROW(two.sum_local(leaves.data(), sums.data()), std::logic_error);
}

// Rounds without another rank (Dipolar skips their exchange and, for pos_up, the copies): on one
// rank every phase; in the direct scheme on two ranks pos_up and sum_down (each owner is its own
// root) but not pos_down and sum_up; in the two-level scheme at N = 300 (tiles of 128; tile 1's
// bodies 128..149 belong to rank 0, its root) rank 1 still sends its share of tile 1 up.
TEST(DipolarPairs, SelfOnlyPhasesAreTheRoundsWithoutAnotherRank) {
  using M = PairPlan::Messages;
  const PairPlan one(100, 64, kSlotFields, 1, 0);
  for (const PairPlan::Phase* ph : {&one.pos_up(), &one.pos_down(), &one.sum_up(), &one.sum_down()})
    EXPECT_TRUE(ph->self_only(0));
  for (int r = 0; r < 2; ++r) {
    const PairPlan direct(100, 64, kSlotFields, 2, r, M::direct);
    EXPECT_TRUE(direct.pos_up().self_only(r)) << r;
    EXPECT_TRUE(direct.sum_down().self_only(r)) << r;
    EXPECT_FALSE(direct.pos_down().self_only(r)) << r;
    EXPECT_FALSE(direct.sum_up().self_only(r)) << r;
  }
  const PairPlan two(300, 128, kSlotFields, 2, 1, M::two_level);
  EXPECT_FALSE(two.pos_up().self_only(1));
  EXPECT_FALSE(two.sum_down().self_only(1));
}
