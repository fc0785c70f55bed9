#pragma once
// Extra `liebench <command>` subcommands (report, merge, ...), registered from their own
// .cpp files so that main.cpp never changes when one is added.
#include <functional>
#include <string>
#include <vector>

#include "core/registry.hpp"

namespace lie {

struct CommandEntry {
  std::string name;
  std::string usage;    // e.g. "report FILE.h5 [--format md|tex|csv] [--table NAME]"
  std::string summary;
  std::function<int(const std::vector<std::string>& args)> main;  // returns exit status
  /// false: the command only reads files and prints (no other rank, no MPI call but
  /// world_rank_or_0()). Started without an MPI launcher it then runs without MPI_Init, whose
  /// singleton start of Open MPI's runtime took about 0.35 s of the 0.4 s of a `liebench
  /// report`; under mpirun or srun every command initializes MPI, and rank 0 speaks for all.
  bool needs_mpi = true;
};
using CommandRegistry = Registry<CommandEntry>;

/// This process's rank in MPI_COMM_WORLD; 0 where MPI was not initialized (a command with
/// needs_mpi = false, started without a launcher).
int world_rank_or_0();

}  // namespace lie
