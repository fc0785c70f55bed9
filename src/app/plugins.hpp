#pragma once
// Plugins: shared libraries with models, methods, controllers, studies or commands written
// outside the source tree. A plugin registers its entries with the same one-line
// LIEBENCH_REGISTER as the built-in ones; loading it (dlopen) runs those registrations into
// the registries of libliebench, which the program and every plugin share.
//
// Where plugins are named (all are loaded, in this order, before any key is parsed, so that a
// plugin's keys are known to the experiment file and the command line):
//   1. the environment variable LIEBENCH_PLUGINS (paths separated by ':'),
//   2. the key `plugin` of the experiment file of `liebench run FILE.cfg` (a comma-separated
//      list; relative paths are relative to the directory of the experiment file),
//   3. `--plugin=PATH` / `--plugin PATH` on the command line of any command (relative to the
//      working directory; may be repeated or comma-separated). Given on the command line, it
//      replaces the experiment file's key (as every key does; `--plugin=` loads none).
// A path without '/' is searched by the dynamic loader (LD_LIBRARY_PATH, ...).
#include <string>
#include <vector>

namespace lie {

/// Loads every plugin named in argv (argv[1] is the command) and in LIEBENCH_PLUGINS, and
/// returns argv without `--plugin` arguments for commands other than `run` (whose option
/// parser knows the key). Throws UsageError naming the plugin when one cannot be loaded or
/// registers a name that already exists.
std::vector<std::string> load_plugins(int argc, char** argv);

/// Loads one plugin (dlopen RTLD_NOW | RTLD_GLOBAL); loading the same path twice is a no-op.
void load_plugin(const std::string& path);

/// Paths of the plugins loaded so far, in load order.
const std::vector<std::string>& loaded_plugins();

}  // namespace lie
