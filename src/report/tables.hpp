#pragma once
// Report tables computed from a result file alone: /summary, /study, /parameters (and, for
// the scaling table only, the per-rank timings of the runs), for `liebench report`. The report
// floor: it reads what the studies wrote (summary, analysis) and includes nothing above it.
#include <map>
#include <string>
#include <vector>

#include "io/h5.hpp"
#include "io/table.hpp"
#include "studies/convergence_analysis.hpp"
#include "studies/study.hpp"

namespace lie::studies {

/// Reads what the reports need. Throws UsageError if the file is missing or not a study file.
StudyFile load_study_file(const std::string& path, bool with_timings);

/// Names of the tables a study kind produces by default (its StudyEntry's; none for a kind not
/// registered), and every registered table (ReportTableRegistry).
std::vector<std::string> default_tables(const std::string& kind);
std::vector<std::string> all_table_names();
/// The registered table named `name` (UsageError naming the allowed ones).
const ReportTable& find_table(const std::string& name);

/// Builds table `name` for `format`.
std::vector<io::Table> build_table(const StudyFile& f, const std::string& name, io::TableFormat format);

}  // namespace lie::studies
