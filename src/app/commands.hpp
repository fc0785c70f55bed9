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
};
using CommandRegistry = Registry<CommandEntry>;

}  // namespace lie
