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
  std::vector<std::string> notes;          // printed below the table (md, tex) or as # lines (csv)
};

enum class TableFormat { Markdown, Latex, Csv };
TableFormat parse_table_format(const std::string& s);  // md | tex | csv (UsageError otherwise)

std::string render(const Table& t, TableFormat f);
std::string render(const std::vector<Table>& tables, TableFormat f);

/// Number formatting shared by all tables (fixed so that outputs compare byte for byte).
std::string fmt_sci(double x, int digits = 3);   // 1.234e-05, "nan", "inf"
std::string fmt_fixed(double x, int decimals);   // 4.02
std::string fmt_general(double x, int digits = 6);

}  // namespace lie::io
