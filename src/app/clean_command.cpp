// `liebench clean [DIR ...] [--dry-run]`: removes the temporary files that killed runs left
// behind (io/safe_output.hpp): `*.tmp.<host>.<pid>` and `*.group<G>of<N>.<host>.<pid>.part`,
// only those written on this host by a process that no longer exists. Files of running
// processes and of other hosts are listed and kept.
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>

#include "app/commands.hpp"
#include "core/error.hpp"
#include "core/quote.hpp"
#include "io/safe_output.hpp"

namespace lie::studies {

namespace {

int clean_main(const std::vector<std::string>& args) {
  bool dry = false;
  std::vector<std::string> dirs;
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      if (world_rank_or_0() == 0)
        std::cout << "usage: liebench clean [DIR ...] [--dry-run]\n"
                     "  removes temporary files left by killed runs in each DIR (default .; not recursive):\n"
                     "  *.tmp.<host>.<pid> and *.group<G>of<N>.<host>.<pid>.part written on this host by a\n"
                     "  process that is gone; files of running processes or other hosts are listed, not removed\n";
      return 0;
    }
    if (a == "--dry-run" || a == "-n") dry = true;
    else if (!a.empty() && a[0] == '-') throw UsageError("`liebench clean` got unknown option " + quote(a) + "; run `liebench clean --help`");
    else dirs.push_back(a);
  }
  if (dirs.empty()) dirs.push_back(".");
  for (const auto& d : dirs) {
    struct stat st {};
    if (::stat(d.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw UsageError("`liebench clean` needs directories; " + quote(d) + " is not one");
  }
  if (world_rank_or_0() != 0) return 0;
  std::size_t removed = 0, kept = 0;
  for (const auto& d : dirs)
    for (const auto& t : io::find_temporaries(d)) {
      if (t.stale && !dry) {
        if (::unlink(t.path.c_str()) == 0) {
          std::cout << "removed " << t.path << " (" << t.why << ")\n";
          ++removed;
        } else {
          std::cout << "cannot remove " << t.path << "\n";
          ++kept;
        }
      } else {
        std::cout << (t.stale ? "would remove " : "kept ") << t.path << " (" << t.why << ")\n";
        ++kept;
      }
    }
  std::cerr << "liebench clean: " << removed << " stale temporary file(s) removed, " << kept << " kept\n";
  return 0;
}

}  // namespace

LIEBENCH_REGISTER(CommandEntry,
                  CommandEntry{"clean", "clean [DIR ...] [--dry-run]",
                               "remove temporary files (*.tmp.<host>.<pid>, *.group*of*.<host>.<pid>.part) left by "
                               "killed runs whose process is gone",
                               clean_main, /*needs_mpi=*/false})

}  // namespace lie::studies
