// `liebench report FILE.h5 [--format md|tex|csv] [--table NAME] [--output FILE]`: regenerates
// the tables of a study from its result file alone (/summary, /study, /parameters; the
// scaling table also reads the per-rank timings of the runs).
#include <mpi.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "app/commands.hpp"
#include "core/error.hpp"
#include "core/quote.hpp"
#include "io/safe_output.hpp"
#include "report/tables.hpp"

namespace lie::studies {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

int report_main(const std::vector<std::string>& args) {
  std::string file, format = "md", table, output;
  bool force = false, list_tables = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const std::string& opt) -> std::string {
      const auto eq = a.find('=');
      if (eq != std::string::npos) return a.substr(eq + 1);
      if (i + 1 >= args.size()) throw UsageError("option " + opt + " needs a value");
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      if (world_rank_or_0() == 0)
        std::cout << "usage: liebench report FILE.h5 [--format md|tex|csv] [--table NAME] [--output FILE [--force]]\n"
                     "       liebench report FILE.h5 --list-tables\n"
                     "  regenerates the tables of a study from its result file alone\n"
                     "  --table: " << join(all_table_names()) << " (default: the study's own tables)\n"
                     "  --format: md (Markdown, default); tex (LaTeX tables to \\input into a document with\n"
                     "            \\usepackage{booktabs}; wide tables split into parts that fit the page);\n"
                     "            csv (one table per file, one row per run: with several tables choose one with --table)\n"
                     "  --list-tables: print the study's own tables, one name a line\n"
                     "  --output: write to FILE (written whole, then renamed); an existing FILE is replaced only\n"
                     "            with --force and only if it is a regular file other than the input\n";
      return 0;
    } else if (a.rfind("--format", 0) == 0) {
      format = value("--format");
    } else if (a.rfind("--table", 0) == 0) {
      table = value("--table");
    } else if (a.rfind("--output", 0) == 0 || a == "-o") {
      output = value("--output");
    } else if (a == "--force") {
      force = true;
    } else if (a == "--list-tables") {
      list_tables = true;
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("`liebench report` got unknown option " + quote(a) + "; run `liebench report --help`");
    } else if (file.empty()) {
      file = a;
    } else {
      throw UsageError("`liebench report` takes one file, got " + quote(file) + " and " + quote(a));
    }
  }
  if (file.empty()) throw UsageError("`liebench report` needs a result file: liebench report FILE.h5");
  const io::TableFormat fmt = io::parse_table_format(format);
  if (!table.empty()) find_table(table);  // UsageError naming the tables there are
  if (world_rank_or_0() != 0) return 0;
  StudyFile f = load_study_file(file, false);
  std::vector<std::string> tables = table.empty() ? default_tables(f.kind) : std::vector<std::string>{table};
  if (std::any_of(tables.begin(), tables.end(), [](const std::string& t) { return find_table(t).needs_timings; }))
    f = load_study_file(file, true);
  if (tables.empty()) throw UsageError("study kind " + quote(f.kind) + " has no default table; choose one with --table");
  if (list_tables) {
    for (const auto& t : tables) std::cout << t << "\n";
    return 0;
  }
  if (fmt == io::TableFormat::Csv && tables.size() > 1)
    throw UsageError("--format csv writes one table per file and " + quote(file) + " has " + std::to_string(tables.size()) +
                     " (" + join(tables) + "); choose one with --table");
  std::vector<io::Table> out;
  for (const auto& t : tables) {
    try {
      auto part = build_table(f, t, fmt);
      out.insert(out.end(), part.begin(), part.end());
    } catch (const UsageError& e) {
      const bool vowel = !f.kind.empty() && std::string("aeiou").find(f.kind[0]) != std::string::npos;
      throw UsageError(std::string(e.what()) + "; " + quote(file) + " is " + (vowel ? "an " : "a ") + f.kind +
                       " study (its tables: " +
                       join(default_tables(f.kind)) + ")");
    }
  }
  std::string text;
  if (fmt == io::TableFormat::Markdown && !f.title.empty()) text += "# " + f.title + "\n\n";
  text += io::render(out, fmt);
  if (output.empty()) {
    std::cout << text;
  } else {
    io::write_text_file(output, text, force, {file});
  }
  return 0;
}

}  // namespace

LIEBENCH_REGISTER(CommandEntry,
                  CommandEntry{"report", "report FILE.h5 [--format md|tex|csv] [--table NAME] [--output FILE [--force]]",
                               "the tables of a study (its kind's, or any kind's with --table; `liebench list studies`) "
                               "from its result file alone",
                               report_main, /*needs_mpi=*/false})

}  // namespace lie::studies
