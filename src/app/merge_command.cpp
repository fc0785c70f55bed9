// `liebench merge PART.h5 ... --output FILE.h5 [--force]`: joins the part files of one study
// (`liebench run ... --part I/N`, or the per-layout jobs of a scaling study) into one file
// with the content of a single run: the same /parameters, /study, /runs, /references,
// /summary and /analysis; /provenance keeps one job group per part.
// The parts must come from the same resolved configuration, hold disjoint runs and together
// cover every run of the study.
#include <mpi.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>

#include "app/commands.hpp"
#include "core/error.hpp"
#include "core/quote.hpp"
#include "io/h5.hpp"
#include "io/provenance.hpp"
#include "io/safe_output.hpp"
#include "studies/interrupt.hpp"
#include "studies/merge.hpp"

#include "io/units.hpp"
#include "studies/output.hpp"
#include "studies/plan.hpp"
#include "studies/study.hpp"
#include "studies/summary.hpp"

namespace lie::studies {

namespace {

struct Part {
  std::string path;
  h5::File file;
  std::string kind, resolved;
  std::int64_t run_count = 0;
  std::map<std::int64_t, std::string> runs;  // run index -> group name
};

Part open_part(const std::string& path) {
  Part p;
  p.path = path;
  try {
    p.file = h5::File::open_read(path);
  } catch (const h5::Error& e) {
    throw UsageError(e.what());
  }
  const hid_t root = p.file.id();
  if (!h5::has_attr(root, "liebench_format") || !h5::exists(root, "study") || !h5::exists(root, "parameters"))
    throw UsageError(quote(path) + " is not a liebench study file");
  if (h5::attr_string(root, "liebench_format") != kFormat)
    throw UsageError(quote(path) + " has format " + quote(h5::attr_string(root, "liebench_format")) + "; this liebench reads " +
                     kFormat);
  h5::Handle st = h5::open_group(root, "study");
  p.kind = h5::attr_string(st, "kind");
  p.run_count = h5::attr_int(st, "run_count");
  h5::Handle pg = h5::open_group(root, "parameters");
  p.resolved = h5::attr_string(pg, "resolved_config");
  if (h5::exists(root, "runs")) {
    h5::Handle runs = h5::open_group(root, "runs");
    for (const auto& name : h5::list(runs)) {
      h5::Handle g = h5::open_group(runs, name);
      p.runs[h5::attr_int(g, "run_index")] = name;
    }
  }
  return p;
}

std::string first_difference(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  const std::size_t line_start = a.rfind('\n', i == 0 ? 0 : i - 1);
  const std::size_t s = line_start == std::string::npos ? 0 : line_start + 1;
  auto line_of = [&](const std::string& x) {
    const std::size_t e = x.find('\n', s);
    return x.substr(s, e == std::string::npos ? std::string::npos : e - s);
  };
  return quote(line_of(a)) + " vs " + quote(line_of(b));
}

int merge_main(const std::vector<std::string>& args) {
  std::vector<std::string> inputs;
  std::string output;
  bool force = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (rank == 0)
        std::cout << "usage: liebench merge PART.h5 ... --output FILE.h5 [--force]\n"
                     "  joins the parts of one study (run with --part I/N, or one job per scaling layout)\n";
      return 0;
    } else if (a == "--force") {
      force = true;
    } else if (a == "--output" || a == "-o") {
      if (i + 1 >= args.size()) throw UsageError("option --output needs a value");
      output = args[++i];
    } else if (a.rfind("--output=", 0) == 0) {
      output = a.substr(9);
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("`liebench merge` got unknown option " + quote(a) + "; run `liebench merge --help`");
    } else {
      inputs.push_back(a);
    }
  }
  if (inputs.empty()) throw UsageError("`liebench merge` needs part files: liebench merge A.h5 B.h5 --output ALL.h5");
  if (output.empty()) throw UsageError("`liebench merge` needs --output FILE.h5");
  for (const auto& in : inputs)
    if (in == output) throw UsageError("the output " + quote(output) + " is also an input; choose another --output");

  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return 0;
  merge_study_files(inputs, output, force);
  return 0;
}

}  // namespace

void merge_study_files(const std::vector<std::string>& inputs, const std::string& output, bool force) {
  // ---- read and check the parts
  std::vector<Part> parts;
  for (const auto& in : inputs) parts.push_back(open_part(in));
  const Part& p0 = parts.front();
  std::map<std::int64_t, std::size_t> owner;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const Part& p = parts[k];
    if (p.kind != p0.kind)
      throw UsageError(quote(p.path) + " is a " + p.kind + " study but " + quote(p0.path) + " is a " + p0.kind + " study");
    if (p.resolved != p0.resolved)
      throw UsageError(quote(p.path) + " and " + quote(p0.path) + " come from different configurations (" +
                       first_difference(p.resolved, p0.resolved) + "); only parts of one study can be merged");
    for (const auto& [idx, name] : p.runs) {
      auto [it, fresh] = owner.emplace(idx, k);
      if (!fresh)
        throw UsageError("run " + name + " is in both " + quote(parts[it->second].path) + " and " + quote(p.path) +
                         "; merge each part once");
    }
  }
  std::vector<std::string> missing;
  for (std::int64_t i = 0; i < p0.run_count; ++i)
    if (!owner.count(i)) missing.push_back(run_id(static_cast<std::size_t>(i), static_cast<std::size_t>(p0.run_count)));
  if (!missing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 8; ++i) list += (i ? ", " : "") + missing[i];
    if (missing.size() > 8) list += ", ... (" + std::to_string(missing.size()) + " in all)";
    throw UsageError("the parts do not cover the study: missing " + list + "; merge every part (--part 1/N ... N/N, "
                     "or every layout of scaling.layouts)");
  }
  const StudyEntry* kind = StudyRegistry::instance().find(p0.kind);
  if (!kind)
    throw UsageError(quote(p0.path) + " is a study of kind " + quote(p0.kind) + ", which this liebench does not know (" +
                     StudyRegistry::instance().names() + "); merge it with the liebench (and plugin) that wrote it");
  io::SafeOutput::check(output, force, MPI_COMM_SELF);

  // ---- write (a signal stops the merge and removes the temporary file)
  InterruptGuard guard;
  auto poll = [] {
    if (const int sig = pending_signal()) throw Interrupted(sig);
  };
  io::SafeOutput safe(output, force, MPI_COMM_SELF);
  {
    h5::File out = h5::File::create_serial(safe.temp_path());
    safe.arm();
    const hid_t src = p0.file.id(), dst = out.id();
    h5::attr(dst, "liebench_format", kFormat);
    for (const char* a : {"study", "title", "layout_documentation"})
      if (h5::has_attr(src, a)) h5::attr(dst, a, h5::attr_string(src, a));
    h5::attr(dst, "run_count", p0.run_count);
    for (const char* g : {"h5md", "parameters", "study"}) h5::copy(src, g, dst, g);
    // runs in index order
    for (const auto& [idx, k] : owner) {
      const std::string& name = parts[k].runs.at(idx);
      h5::copy(parts[k].file.id(), "runs/" + name, dst, "runs/" + name);
      poll();
    }
    // reference solutions (identical in every part that computed them)
    std::set<std::string> refs;
    for (const auto& p : parts) {
      if (!h5::exists(p.file.id(), "references")) continue;
      h5::Handle rg = h5::open_group(p.file.id(), "references");
      for (const auto& name : h5::list(rg))
        if (refs.insert(name).second) h5::copy(p.file.id(), "references/" + name, dst, "references/" + name);
    }
    // H5MD entry points of a simulate study
    for (const char* link : {"particles", "observables"}) {
      for (const auto& [idx, k] : owner) {
        const std::string target = "runs/" + parts[k].runs.at(idx) + "/" + link;
        if (h5::exists(parts[k].file.id(), link) && h5::exists(dst, target)) {
          h5::hard_link(dst, target, link);
          break;
        }
      }
    }
    // summary and analysis
    std::vector<Row> rows;
    for (const auto& p : parts) {
      auto r = Summary::read(p.file.id()).to_rows();
      rows.insert(rows.end(), r.begin(), r.end());
    }
    h5::Handle st = h5::open_group(src, "study");
    const auto key_columns = h5::attr_strings(st, "key_columns");
    const Summary summary(std::move(rows), key_columns);
    summary.write(out, dst, io::Units::from_file(src));
    if (kind->analysis) {  // the kind's tables derived from the whole summary (observed orders)
      std::map<std::string, std::string> params;
      h5::Handle pg = h5::open_group(src, "parameters");
      for (const auto& a : h5::attr_names(pg)) params[a] = h5::attr_text(pg, a);
      kind->analysis(out, summary, key_columns, params);
    }
    // provenance: one job group per part, ordered by the first run of the part
    std::vector<std::pair<std::int64_t, std::size_t>> order;
    for (std::size_t k = 0; k < parts.size(); ++k)
      order.emplace_back(parts[k].runs.empty() ? p0.run_count + static_cast<std::int64_t>(k) : parts[k].runs.begin()->first,
                         k);
    std::sort(order.begin(), order.end());
    int job = 0;
    std::vector<std::string> sources;
    for (const auto& [first, k] : order) {
      if (!h5::exists(parts[k].file.id(), "provenance")) continue;
      h5::Handle pg = h5::open_group(parts[k].file.id(), "provenance");
      for (const auto& name : h5::list(pg)) {
        const std::string dst_name = "provenance/job_" + std::to_string(job++);
        h5::copy(parts[k].file.id(), "provenance/" + name, dst, dst_name);
        h5::Handle jg = h5::open_group(dst, dst_name);
        h5::attr(jg, "merged_from", parts[k].path);
      }
      sources.push_back(parts[k].path);
    }
    h5::Handle prov = h5::create_group(dst, "provenance");
    h5::attr(prov, "merged_from", sources);
    h5::attr(prov, "merged_at", io::utc_now());
    h5::attr(prov, "merged_by", io::code_version());
    h5::attr(dst, "runs_in_file", static_cast<std::int64_t>(summary.rows()));
    poll();
    out.close();
  }
  safe.commit();
  std::cerr << "liebench: merged " << parts.size() << " file(s), " << owner.size() << " runs -> " << output << "\n";
}

LIEBENCH_REGISTER(CommandEntry,
                  CommandEntry{"merge", "merge PART.h5 ... --output FILE.h5 [--force]",
                               "join the part files of one study (--part I/N, or one job per scaling layout) into one "
                               "file with the content of a single run",
                               merge_main})

}  // namespace lie::studies
