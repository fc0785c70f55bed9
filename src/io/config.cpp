#include "io/config.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/quote.hpp"

namespace lie {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

const char* type_name(OptionType t) {
  switch (t) {
    case OptionType::Real: return "real";
    case OptionType::PositiveReal: return "real > 0";
    case OptionType::NonNegativeReal: return "real >= 0";
    case OptionType::Int: return "integer";
    case OptionType::PositiveInt: return "integer >= 1";
    case OptionType::NonNegativeInt: return "integer >= 0";
    case OptionType::Bool: return "true|false";
    case OptionType::String: return "text";
    case OptionType::Choice: return "one of";
    case OptionType::RealList: return "list of reals";
    case OptionType::PositiveRealList: return "list of reals > 0";
    case OptionType::IntList: return "list of integers";
    case OptionType::PositiveIntList: return "list of integers >= 1";
    case OptionType::StringList: return "list";
    case OptionType::ChoiceList: return "list of";
  }
  return "?";
}

bool parse_bool(const std::string& key, const std::string& v) {
  std::string s = v;
  std::transform(s.begin(), s.end(), s.begin(), ::tolower);
  if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return false;
  throw UsageError("key " + quote(key) + " has value " + quote(v) + "; allowed: true or false");
}

}  // namespace

// ---------------------------------------------------------------- parsing helpers
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == ';') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

double parse_double(const std::string& key, const std::string& text) {
  const std::string t = trim(text);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || errno == ERANGE)
    throw UsageError("key " + quote(key) + " has value " + quote(text) + "; expected a real number");
  if (!std::isfinite(v)) throw UsageError("key " + quote(key) + " has value " + quote(text) + "; must be a finite number");
  return v;
}

long parse_int(const std::string& key, const std::string& text) {
  const std::string t = trim(text);
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(t.c_str(), &end, 10);
  if (t.empty() || end != t.c_str() + t.size() || errno == ERANGE) {
    // accept integral reals like 1e6
    try {
      const double d = parse_double(key, t);
      if (d == std::floor(d) && std::fabs(d) < 9.0e18) return static_cast<long>(d);
    } catch (const UsageError&) {
    }
    throw UsageError("key " + quote(key) + " has value " + quote(text) + "; expected an integer");
  }
  return v;
}

// ---------------------------------------------------------------- catalog
OptionCatalog& OptionCatalog::instance() {
  static OptionCatalog c;
  return c;
}

void OptionCatalog::add(OptionSpec spec) {
  for (auto& s : specs_) {
    if (s.key == spec.key) {
      if (s.type != spec.type || s.default_value != spec.default_value)
        throw std::logic_error("option '" + spec.key + "' declared twice with different type or default");
      return;
    }
  }
  specs_.push_back(std::move(spec));
}

namespace {
constexpr const char* kFreeName = "<name>";

/// "tableau.<name>.A" -> ("tableau.", ".A"); false for a plain key.
bool family_parts(const std::string& pattern, std::string& prefix, std::string& suffix) {
  const auto at = pattern.find(kFreeName);
  if (at == std::string::npos) return false;
  prefix = pattern.substr(0, at);
  suffix = pattern.substr(at + std::string(kFreeName).size());
  return true;
}

bool family_member(const std::string& pattern, const std::string& key) {
  std::string prefix, suffix;
  if (!family_parts(pattern, prefix, suffix) || key.size() <= prefix.size() + suffix.size()) return false;
  if (key.compare(0, prefix.size(), prefix) != 0 || key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  const std::string name = key.substr(prefix.size(), key.size() - prefix.size() - suffix.size());
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; });
}
}  // namespace

const OptionSpec* OptionCatalog::find(const std::string& key) const {
  for (const auto& s : specs_)
    if (s.key == key) return &s;
  for (const auto& s : specs_)
    if (family_member(s.key, key)) return &s;
  return nullptr;
}

bool OptionCatalog::family_prefix_of(const std::string& key) const {
  std::string prefix, suffix;
  for (const auto& s : specs_)
    if (family_parts(s.key, prefix, suffix) && key.compare(0, prefix.size(), prefix) == 0) return true;
  return false;
}

namespace {
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string OptionCatalog::unknown_key_message(const std::string& key, const std::string& where) const {
  std::vector<std::string> close;
  for (const auto& s : specs_)
    if (s.key.rfind(key, 0) == 0 && !key.empty()) close.push_back(s.key);
  if (close.empty()) {
    const std::size_t most = std::min<std::size_t>(2, key.size() / 3);
    for (const auto& s : specs_)  // (lengths first: a 1 MB key costs no 1 MB x 20 edit table)
      if (key.size() <= s.key.size() + most && s.key.size() <= key.size() + most && edit_distance(key, s.key) <= most)
        close.push_back(s.key);
  }
  std::sort(close.begin(), close.end());
  std::string hint;
  for (std::size_t i = 0; i < close.size() && i < 4; ++i) hint += (i ? "', '" : "") + close[i];
  if (close.size() > 4) hint += "', ...";
  else if (!hint.empty()) hint += "'";
  return "unknown key " + quote(key) + where + (hint.empty() ? "" : " (did you mean '" + hint + "?)") +
         "; run `liebench run --help` for the list of keys (or `liebench list keys`)";
}

std::vector<const OptionSpec*> OptionCatalog::all() const {
  std::vector<const OptionSpec*> out;
  for (const auto& s : specs_) out.push_back(&s);
  std::stable_sort(out.begin(), out.end(), [](const OptionSpec* a, const OptionSpec* b) {
    return a->group != b->group ? a->group < b->group : a->key < b->key;
  });
  return out;
}

po::options_description OptionCatalog::description(bool with_help_text) const {
  po::options_description all("Experiment keys (in the .cfg file, or --key=value on the command line)", 100, 50);
  std::map<std::string, po::options_description> groups;
  // A family of keys ("tableau.<name>.A") is one Boost wildcard option per prefix
  // ("tableau.*"), which accepts any key so named; Config then keeps only the members (find).
  std::map<std::string, std::string> families;  // prefix -> the patterns (help text)
  for (const OptionSpec* s : this->all()) {
    std::string prefix, suffix;
    if (!family_parts(s->key, prefix, suffix)) continue;
    std::string& help = families[prefix];
    help += (help.empty() ? "" : ", ") + s->key;
  }
  for (const auto& [prefix, patterns] : families) {
    auto it = groups.find("named keys");
    if (it == groups.end()) it = groups.emplace("named keys", po::options_description("[named keys]", 100, 50)).first;
    const std::string name = prefix + "*", help = "keys with a name of your choice: " + patterns;
    it->second.add_options()(name.c_str(), po::value<std::string>(), help.c_str());
  }
  for (const OptionSpec* s : this->all()) {
    std::string prefix, suffix;
    if (family_parts(s->key, prefix, suffix)) continue;
    auto it = groups.find(s->group);
    if (it == groups.end()) it = groups.emplace(s->group, po::options_description("[" + s->group + "]", 100, 50)).first;
    std::string help = s->help;
    if (with_help_text) {
      help += " (" + std::string(type_name(s->type));
      if (!s->allowed.empty()) help += ": " + join(s->allowed);
      help += ")";
    }
    auto* sem = po::value<std::string>();
    if (!s->default_value.empty()) sem->default_value(s->default_value);
    it->second.add_options()(s->key.c_str(), sem, help.c_str());
  }
  for (auto& [g, d] : groups) all.add(d);
  return all;
}

void OptionCatalog::validate(const std::string& key, const std::string& value) const {
  const OptionSpec* s = find(key);
  if (!s) throw UsageError(unknown_key_message(key));
  auto check_choice = [&](const std::string& v) {
    if (std::find(s->allowed.begin(), s->allowed.end(), v) == s->allowed.end())
      throw UsageError("key " + quote(key) + " has value " + quote(v) + "; allowed: " + join(s->allowed));
  };
  switch (s->type) {
    case OptionType::Real: parse_double(key, value); break;
    case OptionType::PositiveReal:
      if (parse_double(key, value) <= 0.0) throw UsageError("key " + quote(key) + " has value " + quote(value) + "; must be > 0");
      break;
    case OptionType::NonNegativeReal:
      if (parse_double(key, value) < 0.0) throw UsageError("key " + quote(key) + " has value " + quote(value) + "; must be >= 0");
      break;
    case OptionType::Int: parse_int(key, value); break;
    case OptionType::PositiveInt:
      if (parse_int(key, value) < 1) throw UsageError("key " + quote(key) + " has value " + quote(value) + "; must be an integer >= 1");
      break;
    case OptionType::NonNegativeInt:
      if (parse_int(key, value) < 0) throw UsageError("key " + quote(key) + " has value " + quote(value) + "; must be an integer >= 0");
      break;
    case OptionType::Bool: parse_bool(key, value); break;
    case OptionType::String: break;
    case OptionType::Choice: check_choice(trim(value)); break;
    case OptionType::RealList:
    case OptionType::PositiveRealList: {
      const auto items = split_list(value);
      if (items.empty()) throw UsageError("key " + quote(key) + " is empty; expected a list of numbers");
      for (const auto& it : items) {
        const double d = parse_double(key, it);
        if (s->type == OptionType::PositiveRealList && d <= 0.0)
          throw UsageError("key " + quote(key) + " has value " + quote(it) + "; every entry must be > 0");
      }
      break;
    }
    case OptionType::IntList:
    case OptionType::PositiveIntList: {
      const auto items = split_list(value);
      if (items.empty()) throw UsageError("key " + quote(key) + " is empty; expected a list of integers");
      for (const auto& it : items) {
        const long d = parse_int(key, it);
        if (s->type == OptionType::PositiveIntList && d < 1)
          throw UsageError("key " + quote(key) + " has value " + quote(it) + "; every entry must be an integer >= 1");
      }
      break;
    }
    case OptionType::StringList: break;
    case OptionType::ChoiceList:
      for (const auto& it : split_list(value)) check_choice(it);
      break;
  }
}

std::string OptionCatalog::markdown() const {
  auto cell = [](const std::string& x) {  // a '|' inside a cell would end it
    std::string o;
    for (char c : x) o += c == '|' ? std::string("\\|") : std::string(1, c);
    return o;
  };
  std::ostringstream os;
  os << "| key | group | type | default | meaning |\n|---|---|---|---|---|\n";
  for (const OptionSpec* s : all()) {
    std::string type = type_name(s->type);
    if (!s->allowed.empty()) type += ": " + join(s->allowed);
    os << "| `" << s->key << "` | " << s->group << " | " << cell(type) << " | ";
    if (s->default_value.empty()) os << "(none)";
    else os << "`" << cell(s->default_value) << "`";
    os << " | " << cell(s->help) << " |\n";
  }
  return os.str();
}

bool declare_options(std::vector<OptionSpec> specs) {
  for (auto& s : specs) OptionCatalog::instance().add(std::move(s));
  return true;
}

// ---------------------------------------------------------------- Config
Config::Config(const po::variables_map& vm, std::string source_text, std::string command_line, std::string source_file)
    : source_text_(std::move(source_text)), command_line_(std::move(command_line)), source_file_(std::move(source_file)) {
  const OptionCatalog& cat = OptionCatalog::instance();
  for (const auto& [key, val] : vm) {
    if (!cat.find(key)) {
      // a key the wildcard of a family accepted that is not a member (tableau.x.typo)
      if (cat.family_prefix_of(key)) throw UsageError(cat.unknown_key_message(key));
      continue;  // CLI-only options (output, force, ...) are not experiment keys
    }
    const std::string v = val.as<std::string>();
    if (!val.defaulted()) {
      cat.validate(key, v);
      explicit_.insert(key);
    }
    values_[key] = v;
  }
}

Config Config::from_pairs(const std::vector<std::pair<std::string, std::string>>& kv) {
  Config c;
  const OptionCatalog& cat = OptionCatalog::instance();
  for (const OptionSpec* s : cat.all())
    if (!s->default_value.empty()) c.values_[s->key] = s->default_value;
  for (const auto& [k, v] : kv) {
    cat.validate(k, v);
    c.values_[k] = v;
    c.explicit_.insert(k);
  }
  return c;
}

std::string read_experiment_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw UsageError("experiment file " + quote(path) + " is a directory; give a .cfg file");
  std::ifstream in(path);
  if (!in) throw UsageError("cannot open experiment file " + quote(path) + " (no such file or not readable)");
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw UsageError("cannot read experiment file " + quote(path));
  std::string text = ss.str();
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // UTF-8 byte-order mark (some editors write one)
  return text;
}

void check_ini_text(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::string line, section;
  const auto trim = [](std::string s) {
    const auto a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos) return std::string();
    const auto b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
  };
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = file + ":" + std::to_string(number) + ": ";
    line = trim(line.substr(0, line.find('#')));  // Boost drops everything from '#'
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']') throw UsageError(where + quote(line) + " is not a [section] line");
      section = trim(line.substr(1, line.size() - 2));
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos)
      throw UsageError(where + quote(line) + " is not `key = value` (nor a [section] or # comment)");
    const std::string name = trim(line.substr(0, eq));
    if (name.empty()) throw UsageError(where + quote(line) + " has no key before '='");
    const std::string key = section.empty() ? name : section + "." + name;
    if (!OptionCatalog::instance().find(key))
      throw UsageError(where + OptionCatalog::instance().unknown_key_message(key));
  }
}

Config Config::from_file(const std::string& path) {
  const std::string text = read_experiment_file(path);
  check_ini_text(text, path);
  const po::options_description keys = OptionCatalog::instance().description(false);
  po::variables_map vm;
  try {
    std::istringstream is(text);
    po::store(po::parse_config_file(is, keys, false), vm);
  } catch (const po::unknown_option& e) {
    throw UsageError(OptionCatalog::instance().unknown_key_message(e.get_option_name(), " in " + path));
  } catch (const po::error& e) {
    throw UsageError(std::string(e.what()) + " in " + path);
  }
  po::notify(vm);
  return Config(vm, text, "", path);
}

Config Config::with(const std::vector<std::pair<std::string, std::string>>& kv) const {
  Config c = *this;
  const OptionCatalog& cat = OptionCatalog::instance();
  for (const auto& [k, v] : kv) {
    cat.validate(k, v);
    c.values_[k] = v;
    c.explicit_.insert(k);
  }
  return c;
}

bool Config::has(const std::string& key) const { return values_.count(key) != 0; }
bool Config::was_set(const std::string& key) const { return explicit_.count(key) != 0; }

const std::string& Config::raw(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) {
    if (!OptionCatalog::instance().find(key)) throw std::logic_error("liebench reads undeclared key '" + key + "'");
    throw UsageError("key " + quote(key) + " is required but not set; add `" + key + " = ...` to the experiment file");
  }
  return it->second;
}

std::string Config::get_string(const std::string& key) const { return trim(raw(key)); }
std::string Config::get_string(const std::string& key, const std::string& fallback) const {
  return has(key) ? get_string(key) : fallback;
}
double Config::get_double(const std::string& key) const { return parse_double(key, raw(key)); }
double Config::get_double(const std::string& key, double fallback) const { return has(key) ? get_double(key) : fallback; }
double Config::get_positive(const std::string& key) const {
  const double v = get_double(key);
  if (v <= 0.0) throw UsageError("key " + quote(key) + " has value " + quote(raw(key)) + "; must be > 0");
  return v;
}
double Config::get_nonnegative(const std::string& key) const {
  const double v = get_double(key);
  if (v < 0.0) throw UsageError("key " + quote(key) + " has value " + quote(raw(key)) + "; must be >= 0");
  return v;
}
long Config::get_int(const std::string& key) const { return parse_int(key, raw(key)); }
long Config::get_int(const std::string& key, long fallback) const { return has(key) ? get_int(key) : fallback; }
long Config::get_int_at_least(const std::string& key, long min) const {
  const long v = get_int(key);
  if (v < min) throw UsageError("key " + quote(key) + " has value " + quote(raw(key)) + "; must be >= " + std::to_string(min));
  return v;
}
bool Config::get_bool(const std::string& key) const { return parse_bool(key, raw(key)); }
bool Config::get_bool(const std::string& key, bool fallback) const { return has(key) ? get_bool(key) : fallback; }
std::vector<std::string> Config::get_list(const std::string& key) const { return split_list(raw(key)); }
std::vector<double> Config::get_double_list(const std::string& key) const {
  std::vector<double> out;
  for (const auto& s : get_list(key)) out.push_back(parse_double(key, s));
  return out;
}
std::vector<long> Config::get_int_list(const std::string& key) const {
  std::vector<long> out;
  for (const auto& s : get_list(key)) out.push_back(parse_int(key, s));
  return out;
}
std::string Config::get_choice(const std::string& key, const std::vector<std::string>& allowed) const {
  const std::string v = get_string(key);
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
    throw UsageError("key " + quote(key) + " has value " + quote(v) + "; allowed: " + join(allowed));
  return v;
}

std::vector<std::pair<std::string, std::string>> Config::resolved_pairs() const {
  return {values_.begin(), values_.end()};
}

std::string Config::resolved_text() const {
  std::ostringstream os;
  for (const auto& [k, v] : values_) os << k << " = " << v << "\n";
  return os.str();
}

}  // namespace lie
