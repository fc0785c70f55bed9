#include "io/table.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/error.hpp"

namespace lie::io {

TableFormat parse_table_format(const std::string& s) {
  if (s == "md" || s == "markdown") return TableFormat::Markdown;
  if (s == "tex" || s == "latex") return TableFormat::Latex;
  if (s == "csv") return TableFormat::Csv;
  throw UsageError("option --format has value '" + s + "'; allowed: md, tex, csv");
}

namespace {

std::string special(double x) {
  if (std::isnan(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

std::string tex_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '_': o += "\\_"; break;
      case '%': o += "\\%"; break;
      case '&': o += "\\&"; break;
      case '#': o += "\\#"; break;
      case '$': o += "\\$"; break;
      case '^': o += "\\^{}"; break;
      case '~': o += "\\~{}"; break;
      case '{': o += "\\{"; break;
      case '}': o += "\\}"; break;
      case '\\': o += "\\textbackslash{}"; break;
      default: o += c;
    }
  }
  return o;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string md_cell(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
  return o;
}

bool is_numeric(const Table& t, std::size_t j) { return j < t.numeric.size() && t.numeric[j]; }

}  // namespace

std::string fmt_sci(double x, int digits) {
  if (!std::isfinite(x)) return special(x);
  char b[48];
  std::snprintf(b, sizeof b, "%.*e", digits, x);
  return b;
}

std::string fmt_fixed(double x, int decimals) {
  if (!std::isfinite(x)) return special(x);
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, x);
  std::string s = b;
  if (s.rfind("-0.", 0) == 0 && std::stod(s) == 0.0) s = s.substr(1);  // no "-0.00"
  return s;
}

std::string fmt_general(double x, int digits) {
  if (!std::isfinite(x)) return special(x);
  char b[48];
  std::snprintf(b, sizeof b, "%.*g", digits, x);
  return b;
}

std::string render(const Table& t, TableFormat f) {
  std::ostringstream os;
  const std::size_t nc = t.header.size();
  switch (f) {
    case TableFormat::Markdown: {
      if (!t.title.empty()) os << "**" << t.title << "**\n\n";
      std::vector<std::size_t> w(nc, 3);
      for (std::size_t j = 0; j < nc; ++j) w[j] = std::max(w[j], md_cell(t.header[j]).size());
      for (const auto& r : t.rows)
        for (std::size_t j = 0; j < nc && j < r.size(); ++j) w[j] = std::max(w[j], md_cell(r[j]).size());
      auto line = [&](const std::vector<std::string>& cells) {
        os << "|";
        for (std::size_t j = 0; j < nc; ++j) {
          const std::string c = j < cells.size() ? md_cell(cells[j]) : "";
          const std::string pad(w[j] - c.size(), ' ');
          os << " " << (is_numeric(t, j) ? pad + c : c + pad) << " |";
        }
        os << "\n";
      };
      line(t.header);
      os << "|";
      for (std::size_t j = 0; j < nc; ++j)
        if (is_numeric(t, j)) os << std::string(w[j] + 1, '-') << ":|";
        else os << ":" << std::string(w[j] + 1, '-') << "|";
      os << "\n";
      for (const auto& r : t.rows) line(r);
      if (!t.notes.empty()) {
        os << "\n";
        for (const auto& n : t.notes) os << n << "\n";
      }
      break;
    }
    case TableFormat::Latex: {
      os << "\\begin{table}[htbp]\n\\centering\n";
      if (!t.title.empty()) os << "\\caption{" << tex_escape(t.title) << "}\n";
      os << "\\begin{tabular}{";
      for (std::size_t j = 0; j < nc; ++j) os << (is_numeric(t, j) ? "r" : "l");
      os << "}\n\\toprule\n";
      for (std::size_t j = 0; j < nc; ++j) os << (j ? " & " : "") << tex_escape(t.header[j]);
      os << " \\\\\n\\midrule\n";
      for (const auto& r : t.rows) {
        for (std::size_t j = 0; j < nc; ++j) os << (j ? " & " : "") << (j < r.size() ? tex_escape(r[j]) : "");
        os << " \\\\\n";
      }
      os << "\\bottomrule\n\\end{tabular}\n";
      for (const auto& n : t.notes) os << "% " << n << "\n";
      os << "\\end{table}\n";
      break;
    }
    case TableFormat::Csv: {
      if (!t.title.empty()) os << "# " << t.title << "\n";
      for (const auto& n : t.notes) os << "# " << n << "\n";
      for (std::size_t j = 0; j < nc; ++j) os << (j ? "," : "") << csv_field(t.header[j]);
      os << "\n";
      for (const auto& r : t.rows) {
        for (std::size_t j = 0; j < nc; ++j) os << (j ? "," : "") << (j < r.size() ? csv_field(r[j]) : "");
        os << "\n";
      }
      break;
    }
  }
  return os.str();
}

std::string render(const std::vector<Table>& tables, TableFormat f) {
  std::string out;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (i) out += "\n";
    out += render(tables[i], f);
  }
  return out;
}

}  // namespace lie::io
