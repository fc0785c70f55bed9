#include "studies/run_log.hpp"

#include "studies/plan.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/error.hpp"
#include "io/provenance.hpp"
#include "io/safe_output.hpp"
#include "studies/analysis.hpp"
#include "studies/summary.hpp"

namespace lie::studies {

namespace {

const bool kKeys = declare_options({
    {"log_every", OptionType::NonNegativeInt, "1000",
     "steps between the periodic lines of the run log <output>.log (step, t, h, energy and manifold errors; "
     "adaptive runs: accepted steps); 0: none (the log keeps its configuration and summary)",
     {}, "run"},
});

RunLog* g_active = nullptr;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// min, avg, max of a per-rank vector
struct Stats {
  double min = 0.0, avg = 0.0, max = 0.0;
};
template <class T>
Stats stats(const std::vector<T>& v) {
  Stats s;
  if (v.empty()) return s;
  s.min = s.max = static_cast<double>(v[0]);
  double sum = 0.0;
  for (T x : v) {
    s.min = std::min(s.min, static_cast<double>(x));
    s.max = std::max(s.max, static_cast<double>(x));
    sum += static_cast<double>(x);
  }
  s.avg = sum / static_cast<double>(v.size());
  return s;
}

std::int64_t int_cell(const Row& row, const char* name, std::int64_t fallback) {
  if (const Value* v = row.find(name))
    if (const auto* i = std::get_if<std::int64_t>(v)) return *i;
  return fallback;
}

std::string text_cell(const Row& row, const char* name) {
  if (const Value* v = row.find(name))
    if (const auto* s = std::get_if<std::string>(v)) return *s;
  return "";
}

}  // namespace

RunLog::RunLog(std::string output, int rank, bool echo) : output_(std::move(output)), rank_(rank), echo_(echo) {
  path_ = output_ + ".log";
  g_active = this;
}

RunLog::~RunLog() {
  if (!closed_) discard();
  if (g_active == this) g_active = nullptr;
}

RunLog* RunLog::active() { return g_active; }

void RunLog::write(const std::string& text) {
  if (rank_ != 0) return;
  if (echo_) {
    std::cout << text;
    std::cout.flush();
  }
  if (file_ && !failed_) {
    if (std::fputs(text.c_str(), file_) < 0 || std::fflush(file_) != 0) failed_ = true;  // said at close()
  }
}

void RunLog::start(const StudySettings& settings, const std::string& study, std::size_t runs, int ranks, int threads,
                   bool restarting) {
  if (started_) return;
  started_ = true;
  every_ = settings.log_every;
  wall_start_ = now_seconds();
  if (rank_ != 0) return;
  io::remove_stale_temporaries(path_);  // a log of a killed run (SIGKILL) to this output
  temp_ = path_ + ".tmp." + io::host_tag() + "." + std::to_string(static_cast<long>(::getpid()));
  file_ = std::fopen(temp_.c_str(), "w");
  if (!file_) failed_ = true;  // said at close()
  else slot_ = io::settle_on_signal(temp_, path_);  // a stop signal puts it in place at once
  if (restarting && file_) {
    // The log of the attempts before (the checkpointed ones) stays at the top.
    std::ifstream earlier(path_);
    if (earlier) {
      std::ostringstream all;
      all << earlier.rdbuf();
      std::fputs(all.str().c_str(), file_);
      std::fputs("\n", file_);
    }
  }
  std::ostringstream os;
  os << "liebench " << io::code_version() << " run log, " << utc_now() << "\n"
     << "command: " << settings.command_line << "\n"
     << "study " << study << ", " << runs << " run(s) on " << ranks << " rank(s) x " << threads << " thread(s) -> "
     << output_ << (restarting ? " (continuing from a checkpoint)" : "") << "\n"
     << "resolved configuration:\n";
  std::istringstream resolved(settings.resolved_text);
  for (std::string l; std::getline(resolved, l);) os << "  " << l << "\n";
  write(os.str());
}

void RunLog::begin_run(const std::string& id, const std::string& label) {
  if (!started_) return;
  columns_.clear();
  header_due_ = true;
  open_run_ = id;
  has_line_ = false;
  write("\nrun " + id + " (" + label + ")\n");
}

void RunLog::line(std::uint64_t step, double t, double h, const Observables& now, const Observables& initial) {
  if (!started_ || rank_ != 0) return;
  last_step_ = step;
  last_t_ = t;
  has_line_ = true;
  std::ostringstream os;
  if (header_due_) {
    header_due_ = false;
    columns_.clear();
    for (const auto& [name, v] : now.items())
      if (observable_role(name) != ObservableRole::Other) columns_.push_back(name);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%12s %16s %16s", "step", "t", "h");
    os << buf;
    for (const auto& c : columns_) {
      const ObservableRole role = observable_role(c);
      const std::string head = role == ObservableRole::Energy      ? c + ".rel_error"
                               : role == ObservableRole::Conserved ? c + ".abs_error"
                                                                   : c;
      std::snprintf(buf, sizeof buf, " %*s", static_cast<int>(std::max<std::size_t>(16, head.size())), head.c_str());
      os << buf;
    }
    os << "\n";
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, "%12llu %16.9e %16.9e", static_cast<unsigned long long>(step), t, h);
  os << buf;
  for (const auto& c : columns_) {
    const ObservableRole role = observable_role(c);
    double v = NAN;
    if (now.has(c)) {
      v = now.get(c);
      // the same deviation the report computes from the file's series (analysis.hpp)
      if (role != ObservableRole::ManifoldError && initial.has(c)) v = observable_errors(c, {initial.get(c), v})[1];
    }
    const std::string head = role == ObservableRole::Energy      ? c + ".rel_error"
                             : role == ObservableRole::Conserved ? c + ".abs_error"
                                                                 : c;
    std::snprintf(buf, sizeof buf, " %*.9e", static_cast<int>(std::max<std::size_t>(16, head.size())), v);
    os << buf;
  }
  os << "\n";
  write(os.str());
}

void RunLog::timings(const std::string& phase, const std::vector<double>& per_rank) {
  if (!started_) return;
  auto& sum = phase_sums_[phase];
  if (sum.size() < per_rank.size()) sum.resize(per_rank.size(), 0.0);
  for (std::size_t r = 0; r < per_rank.size(); ++r) sum[r] += per_rank[r];
}

void RunLog::end_run(const Row& row) {
  if (!started_) return;
  const std::string status = text_cell(row, "status");
  const std::int64_t rhs = int_cell(row, "rhs_evaluations", 0);
  const bool adaptive = row.find("accepted") != nullptr;
  const std::int64_t acc = adaptive ? int_cell(row, "accepted", 0) : int_cell(row, "steps", 0);
  const std::int64_t rej = int_cell(row, "rejected", 0);
  open_run_.clear();
  ++runs_done_;
  if (!status.empty() && status != "ok") ++runs_failed_;
  rhs_ += rhs;
  accepted_ += acc;
  rejected_ += rej;
  std::ostringstream os;
  os << "run " << text_cell(row, "run_id") << ": " << (status.empty() ? "done" : status) << "; "
     << (adaptive ? "accepted steps " : "steps ") << acc;
  if (adaptive) os << ", rejected " << rej;
  os << ", RHS evaluations " << rhs << "\n";
  write(os.str());
}

void RunLog::memory(const std::vector<std::int64_t>& max_rss_kib) { rss_kib_ = max_rss_kib; }

void RunLog::close(const std::string& outcome, int status) {
  if (closed_) return;
  closed_ = true;
  if (!started_) {
    discard();
    return;
  }
  if (rank_ == 0) {
    std::ostringstream os;
    if (!open_run_.empty()) {
      os << "run " << open_run_ << ": not finished";
      if (has_line_) os << " (last line: step " << last_step_ << ", t = " << fmt("%.9e", last_t_) << ")";
      os << "\n";
    }
    os << "\nsummary: " << runs_done_ << " run(s) written";
    if (runs_failed_) os << " (" << runs_failed_ << " failed)";
    os << "; steps " << accepted_ << " (rejected " << rejected_ << "), RHS evaluations " << rhs_ << "; wall time "
       << fmt("%.3f", now_seconds() - wall_start_) << " s\n";
    if (!phase_sums_.empty()) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%-28s %12s %12s %12s   (seconds over the runs, per rank: timings/<phase>)\n",
                    "phase", "min", "avg", "max");
      os << buf;
      for (const auto& [phase, v] : phase_sums_) {
        const Stats s = stats(v);
        std::snprintf(buf, sizeof buf, "%-28s %12.6f %12.6f %12.6f\n", phase.c_str(), s.min, s.avg, s.max);
        os << buf;
      }
    }
    if (rss_kib_.empty()) {
      // the job ended before the file's provenance was complete: rank 0's own peak
      rusage ru{};
      ::getrusage(RUSAGE_SELF, &ru);
      os << "peak memory (max RSS) of rank 0: " << fmt("%.1f", static_cast<double>(ru.ru_maxrss) / 1024.0)
         << " MiB\n";
    } else {
      const Stats s = stats(rss_kib_);
      os << "peak memory (max RSS, MiB): min " << fmt("%.1f", s.min / 1024.0) << " avg " << fmt("%.1f", s.avg / 1024.0)
         << " max " << fmt("%.1f", s.max / 1024.0) << " over " << rss_kib_.size() << " rank(s)\n";
    }
    os << "end: " << outcome << " (exit status " << status << "), " << utc_now() << "\n";
    write(os.str());
    if (file_) {
      const bool ok = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
      std::fclose(file_);
      file_ = nullptr;
      if (withdraw()) {  // a stop signal has put it under its final name already
        if (ok && !failed_) return;
      } else {
        if (ok && !failed_ && std::rename(temp_.c_str(), path_.c_str()) == 0) return;
        std::remove(temp_.c_str());
      }
    }
    // One warning, except after an I/O error (a full disk: its one line says it all); an
    // earlier log is then left as it was.
    if (status != exit_status::io_error)
      std::cerr << "liebench: warning: the run log could not be written to " << path_ << "\n";
  }
}

void RunLog::discard() noexcept {
  if (file_) {
    std::fclose(file_);
    file_ = nullptr;
  }
  if (!withdraw() && rank_ == 0 && !temp_.empty()) std::remove(temp_.c_str());
  closed_ = true;
}

bool RunLog::withdraw() noexcept {
  const bool moved = slot_ >= 0 && io::withdraw_settle(slot_);
  slot_ = -1;
  return moved;
}

}  // namespace lie::studies
