#include "studies/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace lie::studies {

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "--:--";
  const long t = static_cast<long>(s + 0.5);
  char b[32];
  if (t >= 3600) std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  else std::snprintf(b, sizeof b, "%02ld:%02ld", t / 60, t % 60);
  return b;
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
  char line[256];
  if (tty_) {
    const int width = 30;
    const int filled = static_cast<int>(f * width);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(width, '.');
    std::snprintf(line, sizeof line, "\r[%s] %5.1f%%  run %zu/%zu %-24.24s  elapsed %s  ETA %s ", bar.c_str(), 100.0 * f,
                  index_ + 1, runs_, label_.c_str(), format_duration(elapsed).c_str(), format_duration(eta).c_str());
    std::fputs(line, stderr);
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
