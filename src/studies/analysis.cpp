#include "studies/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

namespace lie::studies {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEps = std::numeric_limits<double>::epsilon();

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

LineFit least_squares(const std::vector<double>& x, const std::vector<double>& y) {
  LineFit f;
  f.n = std::min(x.size(), y.size());
  if (f.n < 2) {
    f.slope = f.intercept = f.max_abs_residual = kNaN;
    return f;
  }
  double mx = 0.0, my = 0.0;
  for (std::size_t i = 0; i < f.n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(f.n);
  my /= static_cast<double>(f.n);
  double sxx = 0.0, sxy = 0.0;
  for (std::size_t i = 0; i < f.n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (sxx == 0.0) {
    f.slope = f.intercept = f.max_abs_residual = kNaN;
    return f;
  }
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  for (std::size_t i = 0; i < f.n; ++i)
    f.max_abs_residual = std::max(f.max_abs_residual, std::fabs(y[i] - (f.intercept + f.slope * x[i])));
  return f;
}

std::string OrderFitRule::describe() const {
  std::ostringstream os;
  os << "least squares of log10(error) vs log10(h); errors <= max(" << floor_factor << " eps |y(T)|, "
     << reference_factor << " x reference error estimate) excluded; the end point (coarsest or finest h) that is "
     << "further out of line is dropped while its |residual| > " << max_residual << " or its end-segment rate differs "
     << "from the slope by > " << rate_tolerance << ", keeping at least " << min_points << " points";
  return os.str();
}

OrderFit observed_order(const std::vector<double>& h, const std::vector<double>& error, double scale,
                        double reference_error, const OrderFitRule& rule) {
  OrderFit out;
  const std::size_t n = std::min(h.size(), error.size());
  out.used.assign(n, false);
  out.floor = std::max(rule.floor_factor * kEps * (std::isfinite(scale) ? std::fabs(scale) : 0.0),
                       std::isfinite(reference_error) ? rule.reference_factor * reference_error : 0.0);
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(error[i]) && std::isfinite(h[i]) && h[i] > 0.0 && error[i] > out.floor) idx.push_back(i);
  // sort by h ascending (finest first); ties by input order for determinism
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return h[a] < h[b]; });
  auto fit_of = [&](const std::vector<std::size_t>& ids) {
    std::vector<double> x, y;
    for (std::size_t i : ids) {
      x.push_back(std::log10(h[i]));
      y.push_back(std::log10(error[i]));
    }
    return least_squares(x, y);
  };
  LineFit f = fit_of(idx);
  // How far an end point is out of line, relative to the thresholds (> 1: out of line).
  auto excess = [&](bool coarse_end) {
    const std::size_t a = coarse_end ? idx.back() : idx.front();
    const std::size_t b = coarse_end ? idx[idx.size() - 2] : idx[1];
    const double residual = std::fabs(std::log10(error[a]) - (f.intercept + f.slope * std::log10(h[a])));
    const double rate = std::log(error[a] / error[b]) / std::log(h[a] / h[b]);
    return std::max(residual / rule.max_residual, std::fabs(rate - f.slope) / rule.rate_tolerance);
  };
  while (idx.size() > std::max<std::size_t>(rule.min_points, 2)) {
    const double coarse = excess(true), fine = excess(false);
    if (std::max(coarse, fine) <= 1.0) break;
    if (coarse >= fine) idx.pop_back();
    else idx.erase(idx.begin());
    f = fit_of(idx);
  }
  out.points = idx.size();
  if (idx.size() < 2) {
    out.order = kNaN;
    out.h_min = out.h_max = kNaN;
    out.max_residual = kNaN;
    for (std::size_t i : idx) out.used[i] = true;
    return out;
  }
  out.order = f.slope;
  out.max_residual = f.max_abs_residual;
  out.h_min = h[idx.front()];
  out.h_max = h[idx.back()];
  for (std::size_t i : idx) out.used[i] = true;
  return out;
}

SeriesStats series_stats(const std::vector<double>& t, const std::vector<double>& d) {
  SeriesStats s;
  const std::size_t n = std::min(t.size(), d.size());
  if (n == 0) {
    s.max_abs = s.mean_abs = s.drift = s.final_value = kNaN;
    return s;
  }
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = std::fabs(d[i]);
    s.max_abs = std::isnan(a) ? a : std::max(s.max_abs, a);
    sum += a;
    if (std::isnan(s.max_abs)) break;
  }
  s.mean_abs = sum / static_cast<double>(n);
  s.final_value = d[n - 1];
  s.drift = n >= 2 ? least_squares(std::vector<double>(t.begin(), t.begin() + static_cast<long>(n)),
                                   std::vector<double>(d.begin(), d.begin() + static_cast<long>(n)))
                         .slope
                   : 0.0;
  return s;
}

ObservableRole observable_role(const std::string& name) {
  if (ends_with(name, "_error")) return ObservableRole::ManifoldError;
  if (name == "total_energy" || name == "energy" || name == "hamiltonian") return ObservableRole::Energy;
  if (name.rfind("casimir", 0) == 0 || name.find("momentum") != std::string::npos) return ObservableRole::Conserved;
  return ObservableRole::Other;
}

std::vector<double> observable_errors(const std::string& name, const std::vector<double>& v) {
  std::vector<double> out;
  if (v.empty()) return out;
  const ObservableRole role = observable_role(name);
  if (role == ObservableRole::Other) return out;
  out.resize(v.size());
  const double x0 = v[0];
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (role) {
      case ObservableRole::ManifoldError: out[i] = v[i]; break;
      case ObservableRole::Energy: out[i] = x0 != 0.0 ? (v[i] - x0) / std::fabs(x0) : v[i] - x0; break;
      case ObservableRole::Conserved: out[i] = v[i] - x0; break;
      case ObservableRole::Other: break;
    }
  }
  return out;
}

std::string error_metric_prefix(const std::string& name) {
  switch (observable_role(name)) {
    case ObservableRole::ManifoldError: return name;
    case ObservableRole::Energy: return name + ".rel_error";
    case ObservableRole::Conserved: return name + ".abs_error";
    case ObservableRole::Other: return "";
  }
  return "";
}

}  // namespace lie::studies
