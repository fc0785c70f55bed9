#include "io/provenance.hpp"

#include <mpi.h>
#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <ctime>

#include "build_info.hpp"
#include "git_version.hpp"
#include "parallel/context.hpp"

namespace lie::io {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string code_version() { return std::string(LIEBENCH_VERSION) + " (" + LIEBENCH_GIT_DESCRIBE + ")"; }

Provenance collect_provenance(const par::Context& ctx, const std::string& command_line) {
  Provenance p;
  p.version = LIEBENCH_VERSION;
  p.git_commit = LIEBENCH_GIT_COMMIT;
  p.git_describe = LIEBENCH_GIT_DESCRIBE;
  const std::string d = p.git_describe;
  p.git_dirty = d.size() >= 6 && d.compare(d.size() - 6, 6, "-dirty") == 0;
  p.compiler = LIEBENCH_CXX_COMPILER;
  p.cxx_flags = LIEBENCH_CXX_FLAGS;
  p.build_type = LIEBENCH_BUILD_TYPE;
  p.mpi_version = LIEBENCH_MPI_VERSION;
  p.openmp_version = LIEBENCH_OPENMP_VERSION;
  {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    std::string s(lib, static_cast<std::size_t>(len));
    const auto nl = s.find('\n');
    p.mpi_library = nl == std::string::npos ? s : s.substr(0, nl);
    while (!p.mpi_library.empty() && (p.mpi_library.back() == '\0' || p.mpi_library.back() == ' '))
      p.mpi_library.pop_back();
  }
  {
    unsigned maj = 0, min = 0, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    p.hdf5_version = std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel) + " (parallel)";
  }
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  std::array<char, 4096> cwd{};
  if (!getcwd(cwd.data(), cwd.size() - 1)) cwd[0] = '\0';
  p.working_directory = cwd.data();
  p.command_line = command_line;
  if (const char* u = std::getenv("USER")) p.user = u;
  p.ranks = ctx.size();
  p.threads = ctx.threads();
  // Gather host names (fixed width) so that every rank knows them.
  std::vector<char> all(static_cast<std::size_t>(ctx.size()) * host.size());
  MPI_Allgather(host.data(), static_cast<int>(host.size()), MPI_CHAR, all.data(), static_cast<int>(host.size()), MPI_CHAR,
                ctx.comm());
  for (int r = 0; r < ctx.size(); ++r) p.hosts.emplace_back(all.data() + static_cast<std::size_t>(r) * host.size());
  p.host = p.hosts.empty() ? std::string(host.data()) : p.hosts[0];
  p.working_directory = par::broadcast_string(p.working_directory, 0, ctx.comm());
  p.command_line = par::broadcast_string(p.command_line, 0, ctx.comm());
  p.user = par::broadcast_string(p.user, 0, ctx.comm());
  p.start_time = par::broadcast_string(utc_now(), 0, ctx.comm());
  return p;
}

void finish_provenance(Provenance& p, const par::Context& ctx, double wall_seconds) {
  p.end_time = par::broadcast_string(utc_now(), 0, ctx.comm());
  p.wall_seconds = ctx.max(wall_seconds);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::int64_t mine = ru.ru_maxrss;  // KiB on Linux
  p.max_rss_kib.assign(static_cast<std::size_t>(ctx.size()), 0);
  MPI_Allgather(&mine, 1, MPI_INT64_T, p.max_rss_kib.data(), 1, MPI_INT64_T, ctx.comm());
}

void write_provenance(const h5::File& f, hid_t g, const Provenance& p) {
  h5::attr(g, "version", p.version);
  h5::attr(g, "git_commit", p.git_commit);
  h5::attr(g, "git_describe", p.git_describe);
  h5::attr(g, "git_dirty", static_cast<std::int64_t>(p.git_dirty ? 1 : 0));
  h5::attr(g, "compiler", p.compiler);
  h5::attr(g, "cxx_flags", p.cxx_flags);
  h5::attr(g, "build_type", p.build_type);
  h5::attr(g, "mpi_version", p.mpi_version);
  h5::attr(g, "mpi_library", p.mpi_library);
  h5::attr(g, "hdf5_version", p.hdf5_version);
  h5::attr(g, "openmp_version", p.openmp_version);
  h5::attr(g, "host", p.host);
  h5::attr(g, "user", p.user);
  h5::attr(g, "working_directory", p.working_directory);
  h5::attr(g, "command_line", p.command_line);
  h5::attr(g, "mpi_ranks", static_cast<std::int64_t>(p.ranks));
  h5::attr(g, "omp_threads_per_rank", static_cast<std::int64_t>(p.threads));
  h5::attr(g, "start_time", p.start_time);
  h5::attr(g, "end_time", p.end_time);
  h5::attr(g, "wall_seconds", p.wall_seconds);
  {
    h5::Handle d = h5::write_vector(f, g, "hosts", p.hosts);
    h5::attr(d, "description", "host name of every MPI rank");
  }
  if (!p.max_rss_kib.empty()) {
    h5::Handle d = h5::write_vector(f, g, "max_rss", p.max_rss_kib);
    h5::attr_ascii(d, "unit", "KiB");  // H5MD: unit attributes are fixed-length ASCII (not an SI unit: a size)
    h5::attr(d, "description", "peak resident memory of every MPI rank (getrusage ru_maxrss)");
  }
}

}  // namespace lie::io
