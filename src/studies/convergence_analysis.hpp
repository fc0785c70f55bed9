#pragma once
// The convergence analysis a study stores under /analysis/convergence (and `liebench merge`
// again on the joined summary): runs grouped into series (grid point x method), the observed
// order of each by OrderFitRule (analysis.hpp); the report's convergence table reads the same.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/h5.hpp"
#include "studies/analysis.hpp"
#include "studies/summary.hpp"

namespace lie::studies {

struct ConvergenceSeries {
  std::string group;    // grid values, e.g. "free_rigid_body.seed=2" ("" without grid)
  std::string method;
  std::int64_t nominal_order = 0;
  std::vector<std::size_t> rows;  // summary rows, sorted by h descending (coarse first)
  std::vector<std::size_t> failed_rows;  // rows of failed runs: not in rows, h, error or the fit
  std::vector<double> h, error;
  double scale = 0.0, reference_error = 0.0;
  OrderFit fit;
};
/// The rule from the resolved keys convergence.* (declared here).
OrderFitRule fit_rule(const std::map<std::string, std::string>& parameters);
std::vector<ConvergenceSeries> convergence_series(const Summary& s, const std::vector<std::string>& key_columns,
                                                  const OrderFitRule& rule);
void write_convergence_analysis(const h5::File& f, const Summary& s, const std::vector<std::string>& key_columns,
                                const OrderFitRule& rule);

}  // namespace lie::studies
