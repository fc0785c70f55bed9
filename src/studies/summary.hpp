#pragma once
// The /summary table of a result file: one row per run (ordered by run index), one 1-D
// dataset per column. `liebench report` reads only this table and run attributes, so a
// study run in one job and the same study run in parts and merged give identical reports.
//
// Column order: "run_index", "run_id", the study's key columns (grid axes, method, step
// axis), then every other column in name order. Missing cells: NaN (reals), -1 (integers),
// "" (text).
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "io/h5.hpp"
#include "io/units.hpp"

namespace lie::studies {

using Value = std::variant<std::int64_t, double, std::string>;

/// One run's cells.
struct Row {
  std::int64_t run_index = 0;
  std::vector<std::pair<std::string, Value>> cells;
  void set(const std::string& name, Value v);
  const Value* find(const std::string& name) const;
};

struct Column {
  std::string name;
  h5::Kind kind = h5::Kind::Real;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;
  std::vector<std::string> texts;
  std::size_t size() const;
  double real(std::size_t i) const;  // numeric cell as double (NaN if missing/text)
  std::string text(std::size_t i) const;  // any cell as text
};

class Summary {
 public:
  Summary() = default;
  /// Builds the table from rows (any order) and the study's key columns.
  Summary(std::vector<Row> rows, const std::vector<std::string>& key_columns);
  std::size_t rows() const { return run_index_.size(); }
  const std::vector<std::int64_t>& run_index() const { return run_index_; }
  const std::vector<Column>& columns() const { return columns_; }
  const Column* find(const std::string& name) const;
  const Column& get(const std::string& name) const;  // throws naming the column
  bool has(const std::string& name) const { return find(name) != nullptr; }
  /// Rows back (for merging).
  std::vector<Row> to_rows() const;

  /// Writes /summary (collective on parallel files; replicated data).
  /// Writes /summary; `units` decides the `unit` attribute of every column with a dimension.
  void write(const h5::File& f, hid_t root, const io::Units& units) const;
  /// Reads /summary of an open file.
  static Summary read(hid_t root);

 private:
  std::vector<std::int64_t> run_index_;
  std::vector<Column> columns_;
};

/// Cells by column name, shared by the analyses and the report tables: NaN / "" where the file
/// has no such column; failed_at: a failed run (status "failed: ..." or "nonfinite"), whose
/// numbers are not results; group_label: "c1=v1, c2=v2" of the grid columns `cols`.
double real_at(const Summary& s, const std::string& col, std::size_t row);
std::string text_at(const Summary& s, const std::string& col, std::size_t row);
bool failed_at(const Summary& s, std::size_t row);
std::string group_label(const Summary& s, const std::vector<std::string>& cols, std::size_t row);
/// Key columns of the method and the step axis (method, steps, h, tol), not grid axes.
bool is_step_column(const std::string& name);

/// Unit and meaning of a column/metric, by name (one place for all studies; a kind's own
/// columns: StudyEntry::columns).
struct ColumnInfo {
  std::string unit;  // SI unit in the suite's notation (io/units.hpp); "" = none (pure number or mixed)
  std::string description;
  bool wall_clock = false;  // seconds of wall time: unit "s" whatever the model's unit system
};
ColumnInfo describe_column(const std::string& name);

}  // namespace lie::studies
