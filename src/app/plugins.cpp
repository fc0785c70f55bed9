#include "app/plugins.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/quote.hpp"
#include "core/registry.hpp"
#include "io/config.hpp"

namespace lie {

namespace {

const bool kKeys = declare_options({
    {"plugin", OptionType::StringList, "",
     "shared libraries to load before the run (plugins with models, methods, controllers, studies); relative "
     "paths in an experiment file are relative to its directory",
     {}, "run"},
});

std::vector<std::string>& loaded() {
  static std::vector<std::string> paths;
  return paths;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

void split_into(const std::string& list, char sep, std::vector<std::string>& out) {
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!trim(item).empty()) out.push_back(trim(item));
}

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// The value of the top-level key `plugin` of an INI experiment file (before any [section]),
// read without the option parser (which needs the plugins' keys first). A missing or
// unreadable file is left to `liebench run` to report.
std::vector<std::string> plugins_in_file(const std::string& file) {
  std::vector<std::string> out;
  std::ifstream in(file);
  if (!in) return out;
  std::string line;
  while (std::getline(in, line)) {
    std::string s = trim(line);
    if (s.rfind("\xEF\xBB\xBF", 0) == 0) s = trim(s.substr(3));  // UTF-8 byte order mark
    if (s.empty() || s[0] == '#' || s[0] == ';') continue;
    if (s[0] == '[') break;
    const auto eq = s.find('=');
    if (eq == std::string::npos || trim(s.substr(0, eq)) != "plugin") continue;
    std::vector<std::string> items;
    split_into(s.substr(eq + 1), ',', items);
    for (auto& p : items) out.push_back(p[0] == '/' || p.find('/') == std::string::npos ? p : directory_of(file) + "/" + p);
  }
  return out;
}

}  // namespace

const std::vector<std::string>& loaded_plugins() { return loaded(); }

void load_plugin(const std::string& path) {
  if (std::find(loaded().begin(), loaded().end(), path) != loaded().end()) return;
  const std::size_t problems_before = registration_problems().size();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char* why = dlerror();
    throw UsageError("plugin " + quote(path) + " could not be loaded: " + (why ? why : "unknown error") +
                     "; give the path of a shared library built against LieBench::core (see examples/plugin)");
  }
  // The handle is never closed: the registries now hold the plugin's factories.
  if (registration_problems().size() > problems_before)
    throw UsageError("plugin " + quote(path) + ": " + registration_problems()[problems_before] +
                     " (a built-in or an earlier plugin has that name); rename the plugin's entry");
  loaded().push_back(path);
}

std::vector<std::string> load_plugins(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  std::vector<std::string> paths;
  if (const char* env = std::getenv("LIEBENCH_PLUGINS")) split_into(env, ':', paths);
  const bool run = argc > 1 && args[1] == "run";
  // --plugin on the command line (it overrides the experiment file's key, like every key).
  std::vector<std::string> from_cli, kept;
  bool cli_given = false;
  std::string experiment;
  for (int i = 0; i < argc; ++i) {
    const std::string& a = args[static_cast<std::size_t>(i)];
    if (i >= 2 && a == "--plugin" && i + 1 < argc) {
      cli_given = true;
      split_into(args[static_cast<std::size_t>(i + 1)], ',', from_cli);
      if (run) {
        kept.push_back(a);
        kept.push_back(args[static_cast<std::size_t>(i + 1)]);
      }
      ++i;
      continue;
    }
    if (i >= 2 && a.rfind("--plugin=", 0) == 0) {
      cli_given = true;
      split_into(a.substr(9), ',', from_cli);
      if (run && a.size() > 9) kept.push_back(a);  // `--plugin=` (none) is not a value the key parser takes
      continue;
    }
    // `run`: the experiment file is the first argument that is not an option (or its value).
    if (run && i >= 2 && experiment.empty()) {
      if (a.rfind("-", 0) == 0) {
        if ((a == "--output" || a == "-o" || a == "--part") && i + 1 < argc) {
          kept.push_back(a);
          kept.push_back(args[static_cast<std::size_t>(++i)]);
          continue;
        }
      } else {
        experiment = a;
      }
    }
    kept.push_back(a);
  }
  if (cli_given) paths.insert(paths.end(), from_cli.begin(), from_cli.end());
  else if (!experiment.empty()) {
    const auto from_file = plugins_in_file(experiment);
    paths.insert(paths.end(), from_file.begin(), from_file.end());
  }
  for (const auto& p : paths) load_plugin(p);
  return kept;
}

}  // namespace lie
