#include "io/table.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>
#include <algorithm>

#include "core/error.hpp"
#include "core/quote.hpp"

namespace lie::io {

TableFormat parse_table_format(const std::string& s) {
  if (s == "md" || s == "markdown") return TableFormat::Markdown;
  if (s == "tex" || s == "latex") return TableFormat::Latex;
  if (s == "csv") return TableFormat::Csv;
  throw UsageError("option --format has value " + quote(s) + "; allowed: md, tex, csv");
}

namespace {

std::string special(double x) {
  if (std::isnan(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

// Text to LaTeX: special characters escaped; |, < and > as themselves (in text mode the OT1
// font sets them as em-dash and inverted marks); the energy error's symbols as math.
std::string tex_escape(const std::string& s) {
  static const std::vector<std::pair<std::string, std::string>> kMath = {
      {"|dH/H0|", "$|\\mathrm{d}H/H_0|$"}, {"(H - H0)/|H0|", "$(H - H_0)/|H_0|$"}};
  std::string o;
  for (std::size_t i = 0; i < s.size(); ++i) {
    bool done = false;
    for (const auto& [from, to] : kMath)
      if (s.compare(i, from.size(), from) == 0) {
        o += to;
        i += from.size() - 1;
        done = true;
        break;
      }
    if (done) continue;
    switch (const char c = s[i]) {
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
      case '|': o += "$|$"; break;
      case '<': o += "$<$"; break;
      case '>': o += "$>$"; break;
      default: o += c;
    }
  }
  return o;
}

// ---- LaTeX layout: widths estimated from the characters of each column in \small (9 pt in a
// 10 pt article: digits 4.5 pt, '.', '-', 'e' less) plus 2 \tabcolsep (set to 4 pt); a standard
// article's \textwidth is 345 pt. tests/cli/latex_tables.sh compiles the result and fails on
// an overfull box, so an estimate too small shows.
constexpr double kTexCharPt = 4.6, kTexColSepPt = 8.0, kTexTextWidthPt = 345.0;

/// LaTeX headers: a dotted key (`nfold_pendulum.N`) shortened to its last part (`N`) where
/// that is unique among the headers; the legend lists the long names.
std::vector<std::string> tex_short_headers(const Table& t, std::vector<std::string>& legend) {
  std::vector<std::string> h = t.header;
  for (std::size_t j = 0; j < h.size(); ++j) {
    const auto dot = h[j].rfind('.');
    if (h[j].find(' ') != std::string::npos || dot == std::string::npos || dot + 1 >= h[j].size()) continue;
    const std::string s = h[j].substr(dot + 1);
    if (std::count(h.begin(), h.end(), s) || std::isdigit(static_cast<unsigned char>(s[0]))) continue;
    legend.push_back(s + " = " + h[j]);
    h[j] = s;
  }
  return h;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> w;
  std::string cur;
  for (char c : s) {
    if (c == ' ') {
      if (!cur.empty()) w.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) w.push_back(cur);
  return w;
}

/// Characters a column needs: its widest cell or the longest word of its header (headers wrap).
std::size_t column_chars(const Table& t, std::size_t j) {
  std::size_t n = 1;
  for (const auto& w : words(t.header[j])) n = std::max(n, w.size());
  for (const auto& r : t.rows)
    if (j < r.size()) n = std::max(n, r[j].size());
  return n;
}

/// A header cell wrapped into lines of at most `chars` characters (a nested tabular).
std::string tex_header(const std::string& h, std::size_t chars, bool right) {
  std::vector<std::string> lines;
  for (const auto& w : words(h)) {
    if (!lines.empty() && lines.back().size() + 1 + w.size() <= chars) lines.back() += " " + w;
    else lines.push_back(w);
  }
  if (lines.size() <= 1) return tex_escape(h);
  std::string o = std::string("\\begin{tabular}[b]{@{}") + (right ? "r" : "l") + "@{}}";
  for (std::size_t i = 0; i < lines.size(); ++i) o += (i ? "\\\\\\relax " : "") + tex_escape(lines[i]);  // [s] is no \\[len]
  return o + "\\end{tabular}";
}

/// Column index sets of the parts: key columns in each, the rest in groups of column_stride.
std::vector<std::vector<std::size_t>> tex_parts(const Table& t) {
  const std::size_t nc = t.header.size();
  const std::size_t k = std::min(t.key_columns, nc), stride = std::max<std::size_t>(1, t.column_stride);
  auto width = [&](std::size_t j) { return static_cast<double>(column_chars(t, j)) * kTexCharPt + kTexColSepPt; };
  double key_width = 0.0;
  std::vector<std::size_t> keys;
  for (std::size_t j = 0; j < k; ++j) {
    keys.push_back(j);
    key_width += width(j);
  }
  std::vector<std::vector<std::size_t>> parts;
  std::vector<std::size_t> cur = keys;
  double w = key_width;
  for (std::size_t g = k; g < nc; g += stride) {
    double gw = 0.0;
    for (std::size_t j = g; j < std::min(nc, g + stride); ++j) gw += width(j);
    if (cur.size() > keys.size() && w + gw > kTexTextWidthPt) {
      parts.push_back(cur);
      cur = keys;
      w = key_width;
    }
    for (std::size_t j = g; j < std::min(nc, g + stride); ++j) cur.push_back(j);
    w += gw;
  }
  parts.push_back(cur);
  return parts;
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

/// The LaTeX of one table: one float per part (tex_parts), notes as visible text under each.
std::string render_latex(const Table& t, std::ostringstream& os) {
  const auto parts = tex_parts(t);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const auto& cols = parts[p];
    os << "\\begin{table}[htbp]\n\\centering\n";
    std::string caption = t.title;
    if (parts.size() > 1) caption += " (part " + std::to_string(p + 1) + " of " + std::to_string(parts.size()) + ")";
    if (!caption.empty()) os << "\\caption{" << tex_escape(caption) << "}\n";
    os << "\\small\\setlength{\\tabcolsep}{4pt}\n\\begin{tabular}{";
    for (std::size_t j : cols) os << (is_numeric(t, j) ? "r" : "l");
    os << "}\n\\toprule\n";
    for (std::size_t c = 0; c < cols.size(); ++c)
      os << (c ? " & " : "") << tex_header(t.header[cols[c]], column_chars(t, cols[c]), is_numeric(t, cols[c]));
    os << " \\\\\n\\midrule\n";
    for (const auto& r : t.rows) {
      for (std::size_t c = 0; c < cols.size(); ++c)
        os << (c ? " & " : "") << (cols[c] < r.size() ? tex_escape(r[cols[c]]) : "");
      os << " \\\\\n";
    }
    os << "\\bottomrule\n\\end{tabular}\n";
    if (!t.notes.empty()) {
      os << "\\par\\smallskip\n{\\footnotesize\\raggedright\\sloppy\n";
      for (const auto& n : t.notes) os << tex_escape(n) << "\\par\n";
      os << "}\n";
    }
    os << "\\end{table}\n";
  }
  return os.str();
}

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
      os << "% liebench report table: \\input{} it into a document whose preamble has " << kLatexPackages << "\n";
      std::vector<std::string> legend;
      Table t_short = t;
      t_short.header = tex_short_headers(t, legend);
      if (!legend.empty()) {
        std::string l = "Columns: ";
        for (std::size_t i = 0; i < legend.size(); ++i) l += (i ? "; " : "") + legend[i];
        t_short.notes.insert(t_short.notes.begin(), l);
      }
      return render_latex(t_short, os);
    }
    case TableFormat::Csv: {
      for (std::size_t j = 0; j < nc; ++j)
        for (std::size_t i = 0; i < j; ++i)
          if (t.header[i] == t.header[j]) throw std::logic_error("render: CSV column '" + t.header[j] + "' twice");
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
  if (f == TableFormat::Csv && tables.size() > 1)
    throw std::logic_error("render: CSV holds one table; got " + std::to_string(tables.size()));
  std::string out;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (i) out += "\n";
    out += render(tables[i], f);
  }
  return out;
}

}  // namespace lie::io
