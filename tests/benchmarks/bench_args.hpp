#pragma once
// Command-line options of the benchmark and baseline programs (tests/benchmarks): one parser for
// all of them (issue 27, "Honest baselines"). --help or -h prints the program's usage with every
// option, its default and meaning on stdout (exit 0); an unknown argument or a malformed value is
// refused with one line on stderr naming it (exit 2). Forms: --key=value and --key value; a flag
// (Kind::Flag) takes no value. Parse after MPI_Init and print on one rank only.
#include <fcntl.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace bench {

enum class Kind { Text, Int, Real, Flag };  // Int: whole decimal >= 0; Real: finite number

struct Option {
  std::string name;
  Kind kind;
  std::string value;  // the default; Flag: "" (off)
  std::string help;
};

/// Silences stderr while alive (Args::parse_with_benchmark).
class StderrOff {
 public:
  StderrOff() {
    std::fflush(stderr);
    saved_ = dup(2);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2), close(null);
  }
  ~StderrOff() {
    std::fflush(stderr);
    if (saved_ >= 0) dup2(saved_, 2), close(saved_);
  }
  StderrOff(const StderrOff&) = delete;
  StderrOff& operator=(const StderrOff&) = delete;

 private:
  int saved_ = -1;
};

class Args {
 public:
  /// usage: lines printed after "usage: <program> [options]" (what the program does, its output).
  Args(std::string program, std::string usage, std::vector<Option> options)
      : program_(std::move(program)), usage_(std::move(usage)), opt_(std::move(options)) {
    opt_.push_back({"help", Kind::Flag, "", "this text"});
  }

  /// Returns -1 to go on, 0 after printing the help, 2 after a refusal (one line on stderr).
  /// Messages are printed only where print is true (rank 0).
  int parse(int argc, char** argv, bool print) {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "-h" || a == "--help") {
        if (print) help();
        return 0;
      }
      const auto eq = a.find('=');
      const std::string name = eq == std::string::npos ? a.substr(2) : a.substr(2, eq - 2);
      Option* o = a.rfind("--", 0) == 0 ? find(name) : nullptr;
      if (!o && a.rfind("--benchmark_", 0) == 0)  // left in argv by Google Benchmark (see StderrOff)
        return refuse("'" + a + "' is no Google Benchmark flag, or its value is malformed", print);
      if (!o) return refuse("unknown argument '" + a + "'", print);
      if (o->kind == Kind::Flag) {
        if (eq != std::string::npos) return refuse("--" + o->name + " takes no value ('" + a + "')", print);
        o->value.assign(1, '1');  // (not = "1": GCC 12 warns -Wrestrict on it, PR 105329)
        continue;
      }
      std::string v;
      if (eq != std::string::npos) v = a.substr(eq + 1);
      else if (i + 1 < argc) v = argv[++i];
      else return refuse("--" + o->name + " needs a value", print);
      if (!valid(*o, v))
        return refuse("--" + o->name + "=" + v + ": give " +
                          (o->kind == Kind::Int ? "a whole number >= 0" : "a finite number"),
                      print);
      o->value = v;
    }
    return -1;
  }

  /// For the Google Benchmark programs: --help / -h print this usage and the library's flags;
  /// benchmark::Initialize takes the library's flags out of argv (its own message silenced: a
  /// malformed --benchmark_* value stays in argv and is refused here with one line). As parse().
  int parse_with_benchmark(int* argc, char** argv) {
    for (int i = 1; i < *argc; ++i)
      if (std::string(argv[i]) == "-h" || std::string(argv[i]) == "--help") {
        help();
        std::printf("Google Benchmark's flags go to the library (e.g. --benchmark_filter=REGEX, "
                    "--benchmark_min_time=SECONDS):\n");
        std::fflush(stdout);
        benchmark::PrintDefaultHelp();
        return 0;
      }
    {
      StderrOff quiet;
      benchmark::Initialize(argc, argv);
    }
    return parse(*argc, argv, true);
  }

  const std::string& text(const std::string& name) const { return get(name).value; }
  long integer(const std::string& name) const { return std::strtol(get(name).value.c_str(), nullptr, 10); }
  double real(const std::string& name) const { return std::strtod(get(name).value.c_str(), nullptr); }
  bool flag(const std::string& name) const { return !get(name).value.empty(); }

  /// One line "<program>: <what> (see --help)" on stderr where print is true; returns 2.
  int refuse(const std::string& what, bool print) const {
    if (print) std::fprintf(stderr, "%s: %s (see --help)\n", program_.c_str(), what.c_str());
    return 2;
  }

  void help() const {
    std::printf("usage: %s [options]\n%s\noptions (--key=value or --key value; default in brackets):\n",
                program_.c_str(), usage_.c_str());
    for (const Option& o : opt_) {
      std::string lhs = "--" + o.name;
      if (o.kind != Kind::Flag) lhs += o.kind == Kind::Int ? "=INT" : o.kind == Kind::Real ? "=REAL" : "=TEXT";
      if (o.name == "help") lhs = "-h, --help";
      std::printf("  %-24s %s", lhs.c_str(), o.help.c_str());
      if (o.kind != Kind::Flag) std::printf(" [%s]", o.value.empty() ? "unset" : o.value.c_str());
      std::printf("\n");
    }
    std::fflush(stdout);
  }

 private:
  Option* find(const std::string& name) {
    for (Option& o : opt_)
      if (o.name == name) return &o;
    return nullptr;
  }
  const Option& get(const std::string& name) const {
    for (const Option& o : opt_)
      if (o.name == name) return o;
    std::fprintf(stderr, "%s: internal error: no option --%s\n", program_.c_str(), name.c_str());
    std::abort();
  }
  static bool valid(const Option& o, const std::string& v) {
    if (o.kind == Kind::Text) return true;
    if (v.empty()) return false;
    char* end = nullptr;
    errno = 0;
    if (o.kind == Kind::Int) {
      if (v[0] < '0' || v[0] > '9') return false;
      std::strtol(v.c_str(), &end, 10);
    } else {
      const double x = std::strtod(v.c_str(), &end);
      if (!std::isfinite(x)) return false;
    }
    return errno == 0 && *end == '\0';
  }

  std::string program_, usage_;
  std::vector<Option> opt_;
};

}  // namespace bench
