#include "studies/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <sstream>

namespace lie::studies {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEps = std::numeric_limits<double>::epsilon();

std::string sci(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2e", x);
  return b;
}
std::string fixed2(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", x);
  return b;
}
std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", x);
  return b;
}

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
     << reference_factor << " x reference error estimate) excluded; fit over the finest window of "
     << min_points << " points that is in line (|residual| <= " << max_residual << ", every segment rate within "
     << rate_tolerance << " of the slope), grown towards coarser h while the next point stays in line; no such "
     << "window: no order";
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
  // The asymptotic range lies at the fine end (above the floor). Take the finest window of
  // min_points points that is in line (every residual <= max_residual and every segment rate
  // within rate_tolerance of the slope), then grow it towards coarser h while the next point
  // stays in line. Pre-asymptotic coarse points and fine points polluted just above the floor
  // are thereby both left out.
  auto in_line = [&](const std::vector<std::size_t>& ids, const LineFit& fit) {
    for (std::size_t k = 0; k < ids.size(); ++k) {
      const std::size_t i = ids[k];
      if (std::fabs(std::log10(error[i]) - (fit.intercept + fit.slope * std::log10(h[i]))) > rule.max_residual)
        return false;
      if (k > 0) {
        const std::size_t j = ids[k - 1];
        const double rate = std::log(error[i] / error[j]) / std::log(h[i] / h[j]);
        if (std::fabs(rate - fit.slope) > rule.rate_tolerance) return false;
      }
    }
    return true;
  };
  const std::size_t m = std::max<std::size_t>(rule.min_points, 2);
  std::vector<std::size_t> best;
  LineFit f;
  for (std::size_t s0 = 0; s0 + m <= idx.size(); ++s0) {
    std::vector<std::size_t> win(idx.begin() + static_cast<long>(s0), idx.begin() + static_cast<long>(s0 + m));
    LineFit fw = fit_of(win);
    if (!in_line(win, fw)) continue;
    for (std::size_t k = s0 + m; k < idx.size(); ++k) {
      std::vector<std::size_t> grown = win;
      grown.push_back(idx[k]);
      const LineFit fg = fit_of(grown);
      if (!in_line(grown, fg)) break;
      win = std::move(grown);
      fw = fg;
    }
    best = std::move(win);
    f = fw;
    break;
  }
  if (idx.size() < m) {
    // Fewer candidates than a window: no order (a line through 2 points is always "in line").
    out.order = out.h_min = out.h_max = out.max_residual = kNaN;
    std::ostringstream why;
    why << "no order: " << idx.size() << " of " << n << " points above the error floor " << sci(out.floor)
        << (reference_error > 0.0 && rule.reference_factor * reference_error >= out.floor
                ? " (" + num(rule.reference_factor) + " x the reference's estimated error)"
                : " (" + num(rule.floor_factor) + " eps |y(T)|: round-off)")
        << ", " << m << " needed (convergence.min_points)";
    out.no_order = why.str();
    return out;
  }
  if (best.empty()) {
    // No window is in line: no order (a fit through points out of line is not an order).
    out.order = out.h_min = out.h_max = out.max_residual = kNaN;
    std::ostringstream why;
    why << "no order: no " << m << " consecutive points above the error floor are in line (segment rates";
    for (std::size_t k = idx.size() - 1; k > 0; --k)  // coarse to fine, as in the tables
      why << (k + 1 == idx.size() ? " " : ", ")
          << fixed2(std::log(error[idx[k]] / error[idx[k - 1]]) / std::log(h[idx[k]] / h[idx[k - 1]]));
    why << "; in line = every rate within " << num(rule.rate_tolerance) << " of the slope and every |residual| <= "
        << num(rule.max_residual) << ")";
    out.no_order = why.str();
    return out;
  }
  idx = std::move(best);
  out.points = idx.size();
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

ToleranceFit tolerance_fit(const std::vector<double>& tol, const std::vector<double>& error) {
  ToleranceFit f;
  f.slope = f.intercept = f.scatter = f.worst_ratio = kNaN;
  std::vector<double> x, y;
  for (std::size_t i = 0; i < std::min(tol.size(), error.size()); ++i) {
    if (!(error[i] > 0.0) || !std::isfinite(error[i]) || !(tol[i] > 0.0)) continue;
    x.push_back(std::log10(tol[i]));
    y.push_back(std::log10(error[i]));
    const double ratio = error[i] / tol[i];
    f.worst_ratio = std::isnan(f.worst_ratio) ? ratio : std::max(f.worst_ratio, ratio);
    f.above += ratio > 1.0 ? 1 : 0;
  }
  f.runs = x.size();
  if (f.runs < 3) return f;
  const LineFit l = least_squares(x, y);
  f.slope = l.slope;
  f.intercept = l.intercept;
  f.scatter = l.max_abs_residual;
  return f;
}

GrowthFit growth_law(const std::vector<double>& t, const std::vector<double>& e, double saturation) {
  GrowthFit g;
  g.exponent = kNaN;
  const std::size_t n = std::min(t.size(), e.size());
  if (n < 2) return g;
  const double t0 = t[0];
  std::size_t first = 1, positive = 0;  // first sample after t0
  while (first < n && !(t[first] > t0)) ++first;
  bool any = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(e[i])) return g;  // a run that blew up has no law
    any = any || e[i] != 0.0;
    positive += i >= first ? 1 : 0;
  }
  if (!any) {
    g.law = "exact";
    return g;
  }
  if (positive < 8) return g;
  const double span = t[n - 1] - t0, s_min = t[first] - t0;
  if (!(span >= 10.0 * s_min)) return g;
  const double lo = std::max(s_min, span / 100.0);
  constexpr int kTimes = 25;
  std::vector<double> x, y;
  double running = 0.0;
  std::size_t i = 0;
  for (int k = 0; k < kTimes; ++k) {
    const double edge = lo * std::pow(span / lo, static_cast<double>(k) / (kTimes - 1));
    while (i < n && t[i] - t0 <= edge * (1.0 + 1e-12)) running = std::max(running, std::fabs(e[i++]));
    if (running > 0.0) {
      x.push_back(std::log(edge));
      y.push_back(std::log(running));
    }
  }
  if (x.size() < 3) return g;
  g.exponent = least_squares(x, y).slope;
  g.law = g.exponent < 0.25 ? "bounded" : g.exponent < 0.75 ? "sqrt(t)" : g.exponent < 1.5 ? "linear" : "faster";
  if (running >= saturation) g.law = "saturated";
  return g;
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
