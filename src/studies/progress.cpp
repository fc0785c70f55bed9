#include "studies/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace lie::studies {

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "--:--";
  const long t = static_cast<long>(s + 0.5);
  char b[32];
  if (t >= 3600) std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  else std::snprintf(b, sizeof b, "%02ld:%02ld", t / 60, t % 60);
  return b;
}

int terminal_columns(int fd) {
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    const int n = std::atoi(c);
    if (n > 0) return n;
  }
  return 80;
}

std::string progress_bar_line(double f, std::size_t run, std::size_t runs, const std::string& label,
                              const std::string& elapsed, const std::string& eta, int columns) {
  char pct[16];
  std::snprintf(pct, sizeof pct, "%5.1f%%", 100.0 * std::clamp(f, 0.0, 1.0));
  const std::size_t limit = static_cast<std::size_t>(std::max(columns - 1, 1));
  const std::string runs_text = "  run " + std::to_string(run + 1) + "/" + std::to_string(runs);
  const std::string times = "  elapsed " + elapsed + "  ETA " + eta;
  // Without bar and label; the bar takes what is left, up to 30 cells, at least 10.
  std::string tail(" ");
  tail += pct;
  tail += runs_text;
  tail += times;
  std::size_t bar_cells = 0;
  if (tail.size() + 2 + 10 <= limit) bar_cells = std::min<std::size_t>(30, limit - tail.size() - 2);
  std::string line;
  if (bar_cells > 0) {
    const std::size_t filled = static_cast<std::size_t>(std::clamp(f, 0.0, 1.0) * static_cast<double>(bar_cells));
    line.assign(1, '[');
    line.append(filled, '#');
    line.append(bar_cells - filled, '.');
    line.push_back(']');
  }
  std::string lab = label;
  const std::size_t room = limit > line.size() + tail.size() + 1 ? limit - line.size() - tail.size() - 1 : 0;
  if (lab.size() > std::min<std::size_t>(room, 24)) lab = lab.substr(0, std::min<std::size_t>(room, 24));
  line += std::string(" ") + pct + runs_text + (lab.empty() ? "" : " " + lab) + times;
  if (line.size() > limit) {  // narrow terminal: drop the times, then the run counter
    line = (bar_cells > 0 ? line.substr(0, bar_cells + 2) : std::string()) + " " + pct + runs_text;
    if (line.size() > limit) line = std::string(pct);
    if (line.size() > limit) line = line.substr(0, limit);
  }
  return line;
}

Progress::Progress(bool enabled, double total_work, std::size_t runs, double interval_seconds)
    : enabled_(enabled), total_(std::max(total_work, 1e-300)), interval_(interval_seconds), runs_(runs) {
  tty_ = enabled_ && isatty(STDERR_FILENO);
  start_ = last_ = std::chrono::steady_clock::now();
}

Progress::~Progress() {
  if (enabled_ && tty_ && drawn_) std::fputc('\n', stderr);
}

void Progress::begin_run(std::size_t index, const std::string& label, double work) {
  index_ = index;
  label_ = label;
  run_work_ = work;
  run_fraction_ = 0.0;
  draw(false);
}

void Progress::update(double fraction) {
  if (!enabled_) return;
  run_fraction_ = std::clamp(fraction, 0.0, 1.0);
  draw(false);
}

void Progress::end_run() {
  done_ += run_work_;
  run_work_ = 0.0;
  run_fraction_ = 0.0;
}

void Progress::draw(bool force) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  const double due = tty_ ? 0.25 : interval_;
  if (!force && since < due) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double f = std::clamp((done_ + run_fraction_ * run_work_) / total_, 0.0, 1.0);
  const double eta = f > 1e-9 ? elapsed * (1.0 - f) / f : NAN;
  char line[512];
  if (tty_) {
    // Fits the terminal as it is now (it may have been resized); \x1b[K clears the rest.
    const std::string bar_line = progress_bar_line(f, index_, runs_, label_, format_duration(elapsed),
                                                   format_duration(eta), terminal_columns(STDERR_FILENO));
    std::fprintf(stderr, "\r%s\x1b[K", bar_line.c_str());
    drawn_ = true;
  } else {
    std::snprintf(line, sizeof line, "liebench: %5.1f%% done, run %zu/%zu (%s), elapsed %s, ETA %s\n", 100.0 * f,
                  index_ + 1, runs_, label_.c_str(), format_duration(elapsed).c_str(), format_duration(eta).c_str());
    std::fputs(line, stderr);
  }
  std::fflush(stderr);
}

void Progress::finish(const std::string& message) {
  if (!enabled_) return;
  if (tty_) {
    run_fraction_ = 0.0;
    draw(true);
    std::fputc('\n', stderr);
    drawn_ = false;
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(stderr, "liebench: %s (%s)\n", message.c_str(), format_duration(elapsed).c_str());
}

}  // namespace lie::studies
