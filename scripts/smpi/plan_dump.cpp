// par::PairPlan of every rank in the forms of pair_plan.py (the replica used by the cost model,
// scripts/smpi/README.md, "Cost model", (C10); compared live by tests/cli/smpi_model.sh). Built
// from this tree's PairPlan sources (so that the class matches its header whatever the state of
// a build's library), tile_size_for from a regular build's libliebench:
//   mpicxx -std=c++20 -O1 -fopenmp -I src scripts/smpi/plan_dump.cpp src/parallel/pair_plan.cpp
//     src/parallel/context.cpp -L build -lliebench -Wl,-rpath,$PWD/build -o plan_dump
//   ./plan_dump N P            "rank R interactions X tile_pairs K leaves L"   (pair_plan.py --dump)
//   ./plan_dump N P --phases   per rank the four phases of the two-level exchange, one line each
//                              "rank R PHASE sends PEER:VALUES:BLOCKS... recvs ..." (--dump-phases)
//   ./plan_dump N P --expand   the same, pos_up and pos_down only                  (--dump-expand)
//   a last argument --two_level or --direct: that scheme instead of the plan's own (--scheme)
// Peers in rank order, self left out (PairPlan lists it: a local copy, no message).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "models/dipolar_kernel.hpp"
#include "parallel/pair_plan.hpp"

namespace {

using lie::par::PairPlan;

// The phases' lists: PairPlan::pos_up_sends() ... or PairPlan::pos_up().sends ... (either form
// of the accessors; a template, so that only the form the class has is compiled).
#define LIEBENCH_PHASE_LISTS(name)                                                               \
  template <class Plan>                                                                          \
  const std::vector<PairPlan::Peer>& name##_lists(const Plan& p, bool sends) {                   \
    if constexpr (requires { p.name##_sends(); }) return sends ? p.name##_sends() : p.name##_recvs(); \
    else return sends ? p.name().sends : p.name().recvs;                                         \
  }
LIEBENCH_PHASE_LISTS(pos_up)
LIEBENCH_PHASE_LISTS(pos_down)
LIEBENCH_PHASE_LISTS(sum_up)
LIEBENCH_PHASE_LISTS(sum_down)
#undef LIEBENCH_PHASE_LISTS

std::string peers(const std::vector<PairPlan::Peer>& list, int self) {
  std::string out;
  for (const auto& p : list)
    if (p.rank != self)
      out += " " + std::to_string(p.rank) + ":" + std::to_string(p.values) + ":" + std::to_string(p.blocks.size());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string scheme = argc >= 4 ? argv[argc - 1] : "";
  if (scheme == "--two_level" || scheme == "--direct") --argc;
  else scheme.clear();
  const std::string mode = argc == 4 ? argv[3] : "";
  if ((argc != 3 && mode != "--phases" && mode != "--expand") || std::atoll(argv[1]) < 1 || std::atoi(argv[2]) < 1) {
    std::fprintf(stderr, "usage: plan_dump N P [--phases | --expand] [--two_level | --direct] (N, P positive integers)\n");
    return 2;
  }
  const PairPlan::Messages messages = scheme == "--two_level" ? PairPlan::Messages::two_level
                                      : scheme == "--direct"  ? PairPlan::Messages::direct
                                                              : PairPlan::Messages::automatic;
  const std::size_t n = std::strtoull(argv[1], nullptr, 10);
  const int P = std::atoi(argv[2]);
  const std::size_t tile = lie::dipolar::tile_size_for(n);
  struct Named {
    const char* name;
    const std::vector<PairPlan::Peer>& (*lists)(const PairPlan&, bool);
  };
  const Named phases[] = {{"pos_up", pos_up_lists<PairPlan>},
                          {"pos_down", pos_down_lists<PairPlan>},
                          {"sum_up", sum_up_lists<PairPlan>},
                          {"sum_down", sum_down_lists<PairPlan>}};
  for (int r = 0; r < P; ++r) {
    const PairPlan plan(n, tile, lie::dipolar::kSlotFields, P, r, messages);
    if (mode.empty()) {
      std::printf("rank %d interactions %lld tile_pairs %zu leaves %zu\n", r,
                  static_cast<long long>(plan.interactions()), plan.tile_pairs().size(),
                  plan.leaf_values() / (tile * static_cast<std::size_t>(plan.fields())));
      continue;
    }
    for (int k = 0; k < (mode == "--phases" ? 4 : 2); ++k) {
      const std::string line = "rank " + std::to_string(r) + " " + phases[k].name + " sends" +
                               peers(phases[k].lists(plan, true), r) + " recvs" + peers(phases[k].lists(plan, false), r);
      std::puts(line.c_str());
    }
  }
  return 0;
}
