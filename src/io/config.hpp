#pragma once
// Resolved configuration of a run: the experiment file (INI style, read by
// Boost.Program_options) merged with --key=value overrides from the command line, which use
// the same option description. Everything below apps/ reads its parameters through the typed,
// validating getters here; a bad value raises a UsageError that names the key, the value and
// what is allowed.
#include <boost/program_options.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace lie {

namespace po = boost::program_options;

class Config {
 public:
  Config() = default;
  /// From parsed options; validates every explicitly set value against the OptionCatalog.
  Config(const po::variables_map& vm, std::string source_text, std::string command_line, std::string source_file);

  /// An empty config with only the given key=value pairs set (tests, nested runs).
  static Config from_pairs(const std::vector<std::pair<std::string, std::string>>& kv);
  /// An experiment file (INI) alone, without command-line overrides (tools such as
  /// `liebench tableau FILE.cfg`). Unknown keys and bad values raise a UsageError naming the file.
  static Config from_file(const std::string& path);
  /// A copy with some keys replaced (used by studies to run one grid point).
  Config with(const std::vector<std::pair<std::string, std::string>>& kv) const;

  bool has(const std::string& key) const;  // set in file/command line or has a default
  bool was_set(const std::string& key) const;  // set explicitly (not a default)

  std::string get_string(const std::string& key) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;
  double get_double(const std::string& key) const;  // finite
  double get_double(const std::string& key, double fallback) const;
  double get_positive(const std::string& key) const;  // finite and > 0
  double get_nonnegative(const std::string& key) const;
  long get_int(const std::string& key) const;
  long get_int(const std::string& key, long fallback) const;
  long get_int_at_least(const std::string& key, long min) const;
  bool get_bool(const std::string& key) const;
  bool get_bool(const std::string& key, bool fallback) const;
  /// Comma- or whitespace-separated lists, e.g. "methods = rkmk4, cf4".
  std::vector<std::string> get_list(const std::string& key) const;
  std::vector<double> get_double_list(const std::string& key) const;  // all finite
  std::vector<long> get_int_list(const std::string& key) const;
  /// One of `allowed` (error lists them).
  std::string get_choice(const std::string& key, const std::vector<std::string>& allowed) const;

  /// All keys with their resolved values ("key = value" lines, sorted): stored in every
  /// result file so that a run can be repeated exactly.
  std::string resolved_text() const;
  std::vector<std::pair<std::string, std::string>> resolved_pairs() const;
  const std::string& source_text() const { return source_text_; }
  const std::string& source_file() const { return source_file_; }
  const std::string& command_line() const { return command_line_; }

 private:
  const std::string& raw(const std::string& key) const;
  std::map<std::string, std::string> values_;
  std::set<std::string> explicit_;
  std::string source_text_, command_line_, source_file_;
};

/// Declared type of an option; every explicitly set value is checked against it when the
/// configuration is read (so that a bad value of any key is reported before anything runs).
enum class OptionType { Real, PositiveReal, NonNegativeReal, Int, PositiveInt, NonNegativeInt, Bool, String, Choice,
                        RealList, PositiveRealList, IntList, PositiveIntList, StringList, ChoiceList };

struct OptionSpec {
  /// A key, or a family of keys with one free name: "tableau.<name>.A" declares
  /// tableau.rkmk38.A, tableau.ralston.A, ... (section [tableau.rkmk38] in an experiment file);
  /// the name is letters, digits, '_' and '-'.
  std::string key;
  OptionType type = OptionType::String;
  std::string default_value;  // empty: no default (optional key)
  std::string help;
  std::vector<std::string> allowed;  // for Choice / ChoiceList
  std::string group;                 // "run", "study", "<model name>", ...
};

/// Every option liebench knows, registered by the components that read them.
class OptionCatalog {
 public:
  static OptionCatalog& instance();
  /// Declares an option (idempotent for identical re-declarations).
  void add(OptionSpec spec);
  const OptionSpec* find(const std::string& key) const;  // a key, or the family it belongs to
  /// True if `key` starts like a family of keys ("tableau.<name>.A" -> "tableau."), so that
  /// Boost's wildcard for the family accepted it: it must then be a member (find) or is refused.
  bool family_prefix_of(const std::string& key) const;
  /// "unknown key 'KEY'" with the keys the user probably meant (keys that start with KEY, or
  /// within two edits of it) and where to find the list: one line for a UsageError.
  std::string unknown_key_message(const std::string& key, const std::string& where = "") const;
  std::vector<const OptionSpec*> all() const;
  /// Boost description of every option (string-valued, defaults shown), grouped.
  po::options_description description(bool with_help_text = true) const;
  /// Checks `value` against the declared type; throws UsageError naming key, value, allowed.
  void validate(const std::string& key, const std::string& value) const;
  /// Markdown table of all keys (README / experiments docs).
  std::string markdown() const;

 private:
  std::vector<OptionSpec> specs_;
};

/// Helper for registration at namespace scope: declares a batch of options.
bool declare_options(std::vector<OptionSpec> specs);

/// Reads an experiment file: refuses (UsageError) a path that is a directory or unreadable;
/// returns its text without a UTF-8 byte-order mark.
std::string read_experiment_file(const std::string& path);
/// Checks the INI text line by line before Boost parses it, so that errors carry the line
/// number: a line that is not `key = value`, `[section]`, blank or a `#` comment, and a key
/// that is not declared, throw UsageError "<file>:<line>: ...".
void check_ini_text(const std::string& text, const std::string& file);

/// Parses a finite double from text; throws UsageError naming `key` on failure.
double parse_double(const std::string& key, const std::string& text);
long parse_int(const std::string& key, const std::string& text);
std::vector<std::string> split_list(const std::string& text);

}  // namespace lie
