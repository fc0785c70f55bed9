// par::PairPlan of every rank, one line each, in the form of `pair_plan.py N P --dump`: the
// C++ side of the check of the cost model's replica (scripts/smpi/README.md, "Cost model",
// (C10); run by tests/cli/smpi_model.sh). Built from this tree's PairPlan sources (so that the
// class matches its header whatever the state of a build's library), tile_size_for from a
// regular build's libliebench:
//   mpicxx -std=c++20 -O1 -fopenmp -I src scripts/smpi/plan_dump.cpp src/parallel/pair_plan.cpp \
//     src/parallel/context.cpp -L build -lliebench -Wl,-rpath,$PWD/build -o plan_dump
//   ./plan_dump N P            (leaves and the subtree exchange: pair_plan.py --dump)
//   ./plan_dump N P --expand   (the position expand, bodies per message: --dump-expand)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "models/dipolar_kernel.hpp"
#include "parallel/pair_plan.hpp"

int main(int argc, char** argv) {
  const bool expand = argc == 4 && std::string(argv[3]) == "--expand";
  if ((argc != 3 && !expand) || std::atoll(argv[1]) < 1 || std::atoi(argv[2]) < 1) {
    std::fprintf(stderr, "usage: plan_dump N P [--expand] (N, P positive integers)\n");
    return 2;
  }
  const std::size_t n = std::strtoull(argv[1], nullptr, 10);
  const int P = std::atoi(argv[2]);
  const std::size_t tile = lie::dipolar::tile_size_for(n);
  for (int r = 0; r < P; ++r) {
    const lie::par::PairPlan plan(n, tile, lie::dipolar::kSlotFields, P, r);
    if (expand) {
      std::string line = "rank " + std::to_string(r) + " sends";
      for (const auto& p : plan.body_sends()) line += " " + std::to_string(p.rank) + ":" + std::to_string(p.bodies);
      line += " recvs";
      for (const auto& p : plan.body_recvs()) line += " " + std::to_string(p.rank) + ":" + std::to_string(p.bodies);
      std::puts(line.c_str());
      continue;
    }
    std::string line = "rank " + std::to_string(r) + " interactions " +
                       std::to_string(static_cast<long long>(plan.interactions())) + " tile_pairs " +
                       std::to_string(plan.tile_pairs().size()) + " leaves " +
                       std::to_string(plan.leaf_values() / (tile * static_cast<std::size_t>(plan.fields())));
    line += " sends";
    for (const auto& p : plan.sends())
      line += " " + std::to_string(p.rank) + ":" + std::to_string(p.values) + ":" + std::to_string(p.blocks.size());
    line += " recvs";
    for (const auto& p : plan.recvs())
      line += " " + std::to_string(p.rank) + ":" + std::to_string(p.values) + ":" + std::to_string(p.blocks.size());
    std::puts(line.c_str());
  }
  return 0;
}
