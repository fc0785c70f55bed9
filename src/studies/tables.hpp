#pragma once
// Report tables computed from a result file alone: /summary, /study, /parameters (and, for
// the scaling table only, the per-rank timings of the runs). Shared by `liebench report`,
// the studies (which store the convergence analysis in /analysis) and `liebench merge`.
#include <map>
#include <string>
#include <vector>

#include "io/h5.hpp"
#include "io/table.hpp"
#include "studies/analysis.hpp"
#include "studies/study.hpp"
#include "studies/summary.hpp"

namespace lie::studies {

struct StudyFile {
  std::string kind, title, model;
  double t0 = 0.0, t_final = 0.0;
  std::int64_t run_count = 0;
  std::vector<std::string> key_columns;
  std::map<std::string, std::string> parameters;  // resolved keys (attributes of /parameters)
  Summary summary;
  // run index -> phase -> seconds per rank (scaling table only)
  std::map<std::int64_t, std::map<std::string, std::vector<double>>> timings;
};

/// Reads what the reports need. Throws UsageError if the file is missing or not a study file.
StudyFile load_study_file(const std::string& path, bool with_timings);

/// The report tables of the study kinds (StudyEntry::tables): convergence, invariants,
/// energy-drift, adaptive, scaling. CSV tables are long: one row per run. Each throws
/// UsageError if the file lacks its data.
ReportTable convergence_table();
ReportTable invariants_table();
ReportTable energy_drift_table();
ReportTable adaptive_table();
ReportTable scaling_table();

/// Names of the tables a study kind produces by default (its StudyEntry's; none for a kind not
/// registered), and the tables of every registered kind.
std::vector<std::string> default_tables(const std::string& kind);
std::vector<std::string> all_table_names();
/// The table named `name` of any registered kind (UsageError naming the allowed ones).
const ReportTable& find_table(const std::string& name);

/// Builds table `name` for `format`.
std::vector<io::Table> build_table(const StudyFile& f, const std::string& name, io::TableFormat format);

// ---- convergence analysis (also stored in /analysis/convergence)
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
OrderFitRule fit_rule(const std::map<std::string, std::string>& parameters);
std::vector<ConvergenceSeries> convergence_series(const Summary& s, const std::vector<std::string>& key_columns,
                                                  const OrderFitRule& rule);
void write_convergence_analysis(const h5::File& f, const Summary& s, const std::vector<std::string>& key_columns,
                                const OrderFitRule& rule);

}  // namespace lie::studies
