#pragma once
// Numbers derived from runs: least-squares fits, the observed order of convergence over the
// asymptotic range, and statistics of invariant errors over time (max, mean, drift rate).
// Pure functions of their inputs, so a report computed from a file, from a merged file and
// during the study agree to the last bit.
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace lie::studies {

struct LineFit {
  double slope = 0.0, intercept = 0.0;
  double max_abs_residual = 0.0;  // max |y_i - (intercept + slope x_i)|
  std::size_t n = 0;
};
/// Ordinary least squares y ~ intercept + slope x (x centred for accuracy). n >= 2, else NaN slope.
LineFit least_squares(const std::vector<double>& x, const std::vector<double>& y);

/// Rule for the asymptotic range of a convergence series (documented in results/README.md,
/// "Observed order"; the same text as OrderFitRule::describe):
///  1. candidates: points with a finite error e > floor, where
///     floor = max(floor_factor * eps * scale, reference_factor * reference_error);
///     points at or below it are at the round-off floor (or below what the reference resolves);
///  2. least squares of log10 e against log10 h over the asymptotic range, which lies at the
///     fine end: the finest window of min_points consecutive candidates that is in line (every
///     |residual| <= max_residual and every segment rate log(e_a/e_b)/log(h_a/h_b) within
///     rate_tolerance of the slope) is grown towards coarser h while the next point keeps it in
///     line; pre-asymptotic coarse points and fine points polluted just above the floor stay out;
///  3. the slope of that fit is the observed order; the h range used is stored.
/// When no window is in line, or fewer than min_points (at least 2) candidates remain, there is
/// no order (NaN, no point used) and OrderFit::no_order says why: the fit never falls back to
/// points that are out of line.
struct OrderFitRule {
  double floor_factor = 1e3;      // x eps x scale
  double reference_factor = 10.0; // x the reference solution's own error estimate
  double max_residual = 0.1;      // log10 units (a factor 1.26)
  double rate_tolerance = 0.1;    // |segment rate - fitted slope|
  std::size_t min_points = 3;
  std::string describe() const;
};

struct OrderFit {
  double order = 0.0;               // NaN: no order (see no_order)
  double h_min = 0.0, h_max = 0.0;  // range of h used by the fit
  std::size_t points = 0;           // points used
  double floor = 0.0;               // error floor applied
  double max_residual = 0.0;        // of the final fit (log10 units)
  std::vector<bool> used;           // per input point
  std::string no_order;             // "" when there is an order, else "no order: <why>"
};

/// h and error per point (any order); scale = size of the solution (for the floor).
OrderFit observed_order(const std::vector<double>& h, const std::vector<double>& error, double scale,
                        double reference_error, const OrderFitRule& rule);

/// Statistics of a time series of errors d(t): max |d|, mean |d| (over samples) and the drift
/// rate = slope of the least-squares line d ~ a + b t (units of d per unit time).
struct SeriesStats {
  double max_abs = 0.0, mean_abs = 0.0, drift = 0.0;
  double final_value = 0.0;
};
SeriesStats series_stats(const std::vector<double>& t, const std::vector<double>& d);

/// How an error grows over a long run, the law that separates the families (Hairer, Lubich &
/// Wanner, GNI ch. IX-X): bounded for symplectic, variational and time-reversible methods, a
/// linear drift ~ C h^p t for the others, a random walk ~ sqrt(t) for round-off (Brouwer's law).
/// Rule: the running maximum M(t) = max_{s <= t} |e(s)| at 25 log-spaced times over the last two
/// decades of the run (t - t0 in [T'/100, T'], T' = T - t0; over all samples when the run is
/// shorter than two decades of its sampling), least-squares exponent b of log M = a + b log(t - t0);
/// b < 0.25: "bounded", b < 0.75: "sqrt(t)", b < 1.5: "linear", else "faster". "exact": e = 0 at
/// every sample; "": fewer than 8 samples after t0 or less than one decade of time;
/// "saturated": |e| reached `saturation` (a relative error of 0.1 for the energy: the quantity is
/// lost, and an error that cannot grow further looks bounded), b still fitted.
struct GrowthFit {
  double exponent = 0.0;  // b (NaN when law is "" or "exact")
  std::string law;
};
/// DETEST's tolerance proportionality and reliability (Hull, Enright, Fellen & Sedgwick, SIAM J.
/// Numer. Anal. 9, 1972; Enright & Pryce, ACM TOMS 13, 1987) of one method's tolerance sweep:
/// least squares log10(error) = a + b log10(tol) over the runs with a finite positive error; b
/// near 1 with a small scatter (max |residual|, log10 units) is proportional. Reliability: the
/// largest error/tol and how many runs end with error > tol. Fewer than 3 such runs: slope NaN.
struct ToleranceFit {
  double slope = 0.0, intercept = 0.0, scatter = 0.0, worst_ratio = 0.0;
  std::size_t runs = 0, above = 0;  // runs fitted; runs whose error exceeds their tolerance
};
ToleranceFit tolerance_fit(const std::vector<double>& tol, const std::vector<double>& error);

GrowthFit growth_law(const std::vector<double>& t, const std::vector<double>& e,
                     double saturation = std::numeric_limits<double>::infinity());

/// What an observable means for the invariant statistics (by its name, see models/model.hpp):
///   ManifoldError: "*_error" (unit_norm_error, tangency_error, orthogonality_error): the
///                  value itself is the error;
///   Energy:        "total_energy" / "energy" / "hamiltonian": relative error (H - H0)/|H0|;
///   Conserved:     "casimir*", "*momentum*": absolute error x - x0;
///   Other:         recorded as a time series, no error statistics (e.g. kinetic_energy).
enum class ObservableRole { ManifoldError, Energy, Conserved, Other };
ObservableRole observable_role(const std::string& name);
/// Deviation series of an observable according to its role (empty for Other).
std::vector<double> observable_errors(const std::string& name, const std::vector<double>& values);
/// Metric name prefix for an observable's error statistics, e.g. "total_energy.rel_error",
/// "casimir.abs_error", "unit_norm_error" (metrics are "<prefix>.max", ".mean", ".drift").
std::string error_metric_prefix(const std::string& name);

}  // namespace lie::studies
