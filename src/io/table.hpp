#pragma once
// Plain text tables rendered as Markdown, LaTeX (booktabs) or CSV, for `liebench report`.
#include <string>
#include <vector>

namespace lie::io {

struct Table {
  std::string title;                      // caption
  std::vector<std::string> header;
  std::vector<bool> numeric;               // right-align (md) / r columns (tex); default left
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;          // printed below the table (md, tex; visible text); not in csv
  // LaTeX: a table wider than the text is split into several of the same rows; the first
  // `key_columns` columns are repeated in every part, the others are split in groups of
  // `column_stride` columns that stay together (e.g. a method's error and its rate).
  std::size_t key_columns = 1;
  std::size_t column_stride = 1;
};

enum class TableFormat { Markdown, Latex, Csv };
TableFormat parse_table_format(const std::string& s);  // md | tex | csv (UsageError otherwise)

/// Markdown; LaTeX for \input into a document with booktabs (a comment at the top says so),
/// split into parts that fit the \textwidth of a standard article; CSV: header and rows only
/// (one rectangular table: rendering several tables as CSV is a logic error).
std::string render(const Table& t, TableFormat f);
std::string render(const std::vector<Table>& tables, TableFormat f);

/// LaTeX preamble lines a document needs to \input the tables of render(..., Latex).
inline constexpr const char* kLatexPackages = "\\usepackage{booktabs}";

/// Number formatting shared by all tables (fixed so that outputs compare byte for byte).
std::string fmt_sci(double x, int digits = 3);   // 1.234e-05, "nan", "inf"
std::string fmt_fixed(double x, int decimals);   // 4.02
std::string fmt_general(double x, int digits = 6);

}  // namespace lie::io
