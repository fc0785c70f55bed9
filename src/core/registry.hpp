#pragma once
// A LAMMPS-style registry: every method, model and study registers itself by name from its
// own .cpp file (one line, see LIEBENCH_REGISTER below); the CLI, `liebench list` and the
// docs read the registries, so adding a method/model/study never touches the dispatcher.
#include <algorithm>
#include <any>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/quote.hpp"

namespace lie {

/// Problems found while entries registered themselves (duplicate names), in order.
inline std::vector<std::string>& registration_problems() {
  static std::vector<std::string> problems;
  return problems;
}

/// Typed options of a registry entry (a model's parameters, a method's options, a study kind's
/// settings): read from the configuration by the entry's own parse function, once per grid point
/// at the plan (the edge, studies/plan.cpp), and handed to its factory, which takes them back
/// with options_as<T>. Below the plan nothing reads a raw key (docs/architecture.md, "Typed
/// options"; tests/cli/no_raw_keys.sh).
using EntryOptions = std::any;

/// The options of type T in `o`, or `fallback` when `o` is empty (an entry built without
/// options: its defaults). A value of another type is a bug (std::bad_any_cast).
template <class T>
T options_as(const EntryOptions& o, T fallback = T{}) {
  return o.has_value() ? std::any_cast<const T&>(o) : fallback;
}

template <class Entry>
class Registry {
 public:
  static Registry& instance() {
    static Registry r;
    return r;
  }
  /// Registers an entry. Registration runs in static initialisers (of the program, the
  /// library or a plugin being loaded), where an exception would terminate the process: a
  /// duplicate name is therefore kept out of the table and reported by registration_problems()
  /// (the CLI refuses to run while there is one, naming the plugin that caused it).
  bool add(Entry e) {
    const std::string key = e.name;
    if (entries_.count(key)) {
      registration_problems().push_back("'" + key + "' is registered twice");
      return false;
    }
    entries_.emplace(key, std::move(e));
    return true;
  }
  const Entry* find(const std::string& name) const {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }
  /// Like find() but throws a UsageError naming the key, the bad value and what exists.
  const Entry& get(const std::string& name, const std::string& what_key) const {
    if (const Entry* e = find(name)) return *e;
    throw UsageError("unknown " + what_key + " " + quote(name) + "; known: " + names());
  }
  std::vector<const Entry*> all() const {
    std::vector<const Entry*> out;
    for (const auto& [k, v] : entries_) out.push_back(&v);
    return out;
  }
  std::string names() const {
    std::string s;
    for (const auto& [k, v] : entries_) s += (s.empty() ? "" : ", ") + k;
    return s;
  }

 private:
  std::map<std::string, Entry> entries_;
};

#define LIEBENCH_CONCAT_INNER(a, b) a##b
#define LIEBENCH_CONCAT(a, b) LIEBENCH_CONCAT_INNER(a, b)
/// LIEBENCH_REGISTER(RegistryType, entry_expression) at namespace scope in a .cpp file.
#define LIEBENCH_REGISTER(RegistryType, ...)                                        \
  namespace {                                                                       \
  [[maybe_unused]] const bool LIEBENCH_CONCAT(liebench_registered_, __LINE__) =     \
      ::lie::Registry<RegistryType>::instance().add(__VA_ARGS__);                   \
  }

}  // namespace lie
