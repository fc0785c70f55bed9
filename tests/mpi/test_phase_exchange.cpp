// par::PhaseExchange (parallel/phase_exchange.hpp) on 1-4 ranks: the rounds of a PairPlan by MPI
// messages and through the shared-memory window deliver the same doubles, every message where the
// plan says, in every round -- also when one rank runs ahead of the others by many rounds (the
// double buffers and their flags), and when the ranks outnumber the cores (the tests run
// oversubscribed, where waiting yields the core).
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "models/dipolar_kernel.hpp"
#include "parallel/pair_plan.hpp"
#include "parallel/phase_exchange.hpp"

using namespace lie;
using par::PairPlan;
using par::PhaseExchange;

namespace {

// The value k of the message from `from` to `to` in round `round` of phase `phase`: distinct
// for every (phase, round, sender, receiver, k), with bits beyond an integer's.
double payload(std::size_t phase, int round, int from, int to, std::size_t k) {
  return (1.0 + 1e-3 * static_cast<double>(phase) + 1e-6 * round) * (from + 1) / 3.0 + 7.0 * to + 0.125 * static_cast<double>(k);
}

// Runs `rounds` rounds of every phase of `plan` through `ex`; rank `slow` sleeps before some
// rounds, so the others post up to their buffers' slack ahead of it. Returns the number of
// wrong doubles received (and checks the lengths).
std::size_t run_rounds(const PairPlan& plan, PhaseExchange& ex, int rounds, int slow) {
  const std::vector<const PairPlan::Phase*> phases{&plan.pos_up(), &plan.pos_down(), &plan.sum_up(), &plan.sum_down()};
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  std::size_t wrong = 0;
  std::vector<std::vector<double>> out, in;
  for (int round = 0; round < rounds; ++round)
    for (std::size_t p = 0; p < phases.size(); ++p) {
      const PairPlan::Phase& ph = *phases[p];
      out.resize(ph.sends.size());
      for (std::size_t k = 0; k < ph.sends.size(); ++k) {
        out[k].resize(ph.sends[k].values);
        for (std::size_t v = 0; v < out[k].size(); ++v) out[k][v] = payload(p, round, me, ph.sends[k].rank, v);
      }
      if (me == slow && p == 0 && round % 3 == 1) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      ex.run(p, out, in);
      EXPECT_EQ(in.size(), ph.recvs.size());
      for (std::size_t k = 0; k < ph.recvs.size() && k < in.size(); ++k) {
        EXPECT_EQ(in[k].size(), ph.recvs[k].values);
        for (std::size_t v = 0; v < in[k].size(); ++v) {
          const double want = payload(p, round, ph.recvs[k].rank, me, v);
          if (std::memcmp(&in[k][v], &want, sizeof want) != 0) ++wrong;
        }
      }
    }
  return wrong;
}

}  // namespace

TEST(PhaseExchangeMpi, MessagesAndSharedMemoryDeliverEveryRoundExactly) {
  int P = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  using M = PairPlan::Messages;
  using T = PhaseExchange::Transport;
  // [K]'s N = 100 (two tiles), 300 and 1000 (several tiles, bodies of a tile on several ranks)
  for (const std::size_t n : {100u, 300u, 1000u})
    for (const M scheme : {M::direct, M::two_level})
      for (const T transport : {T::messages, T::shared_memory, T::automatic}) {
        SCOPED_TRACE("n = " + std::to_string(n) + (scheme == M::direct ? ", direct" : ", two levels") +
                     ", transport " + std::to_string(static_cast<int>(transport)));
        const PairPlan plan(n, dipolar::tile_size_for(n), dipolar::kSlotFields, P, me, scheme);
        PhaseExchange ex(MPI_COMM_WORLD, {&plan.pos_up(), &plan.pos_down(), &plan.sum_up(), &plan.sum_down()},
                         {11, 12, 13, 14}, transport);
        // automatic: the window on 2 or more ranks of one node (this test's machine), else messages
        const T want = transport == T::automatic ? (P > 1 ? T::shared_memory : T::messages) : transport;
        EXPECT_EQ(ex.transport(), want);
        // 25 rounds: the sequence numbers wrap the two buffers many times; the last rank is slow
        EXPECT_EQ(run_rounds(plan, ex, 25, P - 1), 0u);
      }
}

// A rank that is not slowed down may finish all its rounds of a phase whose messages it only
// sends before the receiver has read one: the window's buffers must then hold it back (the
// receiver's consumed flag) instead of overwriting an unread message.
TEST(PhaseExchangeMpi, ASenderWaitsForItsReceiverToReadBeforeReusingABuffer) {
  int P = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (P < 2) GTEST_SKIP() << "needs 2 or more ranks";
  // rank 0 sends one message per round to every other rank and receives nothing
  PairPlan::Phase ph;
  if (me == 0) {
    for (int r = 1; r < P; ++r) ph.sends.push_back({r, {}, 5});
  } else {
    ph.recvs.push_back({0, {}, 5});
  }
  PhaseExchange ex(MPI_COMM_WORLD, {&ph}, {21}, PhaseExchange::Transport::shared_memory);
  std::vector<std::vector<double>> out(ph.sends.size(), std::vector<double>(5)), in;
  std::size_t wrong = 0;
  for (int round = 0; round < 40; ++round) {
    for (std::size_t k = 0; k < out.size(); ++k)
      for (std::size_t v = 0; v < 5; ++v) out[k][v] = payload(0, round, me, ph.sends[k].rank, v);
    if (me != 0 && round % 7 == 3) std::this_thread::sleep_for(std::chrono::milliseconds(3));  // the reader lags
    ex.run(0, out, in);
    for (std::size_t v = 0; me != 0 && v < 5; ++v) {
      const double want = payload(0, round, 0, me, v);
      if (std::memcmp(&in[0][v], &want, sizeof want) != 0) ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0u);
}

// auto takes the window only where every rank's segment is at most 4 MiB: N = 64000 on 2-4 ranks
// receives megabytes of positions per round (large messages go as fast by MPI's single-copy path,
// and the segments would live in /dev/shm), so it keeps the messages -- and still delivers.
TEST(PhaseExchangeMpi, AutomaticKeepsMessagesWhereTheSegmentsWouldBeLarge) {
  int P = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const std::size_t n = 64000;
  const PairPlan plan(n, dipolar::tile_size_for(n), dipolar::kSlotFields, P, me, PairPlan::Messages::direct);
  PhaseExchange ex(MPI_COMM_WORLD, {&plan.pos_up(), &plan.pos_down(), &plan.sum_up(), &plan.sum_down()},
                   {31, 32, 33, 34}, PhaseExchange::Transport::automatic);
  EXPECT_EQ(ex.transport(), PhaseExchange::Transport::messages);
  EXPECT_EQ(run_rounds(plan, ex, 2, -1), 0u);
}
