#pragma once
// Provenance of one job (one `liebench run`): code version (git commit, dirty flag), build
// (compiler, flags, library versions), run environment (hosts, ranks, threads, working
// directory, command line), start/end time and the peak memory (max RSS) of every rank.
// Stored as /provenance/job_<k> in result files; a merged file keeps one group per part.
#include <cstdint>
#include <string>
#include <vector>

#include "io/h5.hpp"
#include "parallel/context.hpp"

namespace lie::io {

struct Provenance {
  std::string version, git_commit, git_describe;
  bool git_dirty = false;
  std::string compiler, cxx_flags, build_type, mpi_version, mpi_library, hdf5_version, openmp_version;
  std::string host, working_directory, command_line, user;
  std::vector<std::string> hosts;     // per rank
  int ranks = 1, threads = 1;
  std::string start_time, end_time;  // ISO 8601 UTC
  double wall_seconds = 0.0;
  std::vector<std::int64_t> max_rss_kib;  // per rank, getrusage(RUSAGE_SELF).ru_maxrss
};

/// Everything known at start (collective: gathers host names).
Provenance collect_provenance(const par::Context& ctx, const std::string& command_line);
/// Fills end time, wall time and max RSS per rank (collective).
void finish_provenance(Provenance& p, const par::Context& ctx, double wall_seconds);
/// Writes attributes (and per-rank datasets) into group `g`. Collective on parallel files.
void write_provenance(const h5::File& f, hid_t g, const Provenance& p);

/// Current UTC time as 2026-11-22T12:34:56Z.
std::string utc_now();
/// One-line description of the code version, e.g. "0.1.0 (abc123def456-dirty)".
std::string code_version();

}  // namespace lie::io
