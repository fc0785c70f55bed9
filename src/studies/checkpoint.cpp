#include "studies/checkpoint.hpp"

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/error.hpp"
#include "core/quote.hpp"
#include "io/h5.hpp"
#include "io/safe_output.hpp"
#include "io/seal.hpp"
#include "studies/state_file.hpp"
#include "studies/interrupt.hpp"
#include "studies/output.hpp"

namespace lie::studies {

namespace {

const bool kKeys = declare_options({
    {"checkpoint_every", OptionType::NonNegativeInt, "0",
     "write a checkpoint (<output>.ckpt.h5) every this many steps of a run (adaptive: accepted steps); 0: off. "
     "Checkpoints are also written on SIGTERM, SIGUSR1 and SIGINT (then exit status 5)",
     {}, "checkpoint"},
    {"checkpoint_seconds", OptionType::NonNegativeReal, "0",
     "write a checkpoint every this many seconds of wall time; 0: off", {}, "checkpoint"},
});

double wall_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool file_exists(const std::string& p) { return ::access(p.c_str(), F_OK) == 0; }

std::vector<std::int64_t> counters_vector(const StepCounters& c) {
  return {static_cast<std::int64_t>(c.steps),   static_cast<std::int64_t>(c.rejected),
          static_cast<std::int64_t>(c.rhs),     static_cast<std::int64_t>(c.exp),
          static_cast<std::int64_t>(c.dexpinv), static_cast<std::int64_t>(c.brackets),
          static_cast<std::int64_t>(c.iterations)};
}

StepCounters counters_from(const std::vector<double>& v) {
  if (v.size() != 7) throw UsageError("its counters have " + std::to_string(v.size()) + " values, expected 7");
  StepCounters c;
  std::uint64_t* f[] = {&c.steps, &c.rejected, &c.rhs, &c.exp, &c.dexpinv, &c.brackets, &c.iterations};
  for (int i = 0; i < 7; ++i) *f[i] = static_cast<std::uint64_t>(v[static_cast<std::size_t>(i)]);
  return c;
}

std::vector<std::int64_t> to_ints(const std::vector<double>& v) {
  return std::vector<std::int64_t>(v.begin(), v.end());
}

/// FNV-1a over bytes, continued from `h`: the checksums that tell a corrupt checkpoint (HDF5
/// does not checksum raw data) from a good one.
std::uint64_t fnv(const void* data, std::size_t n, std::uint64_t h = 1469598103934665603ULL) {
  const auto* b = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}
template <class T>
std::uint64_t fnv(const std::vector<T>& v, std::uint64_t h) {
  const std::uint64_t n = v.size();
  return fnv(v.data(), v.size() * sizeof(T), fnv(&n, sizeof n, h));
}

/// Checksum of a checkpoint's attributes, summed over (object, name, value) as they are written
/// and again as they are read, in any order: HDF5 checksums no attribute in the file format
/// liebench writes, and without it one flipped byte in the model's name read as "another run:
/// model ''" and one in a counter as a wrong number. Integer vectors count as the doubles they
/// are read back as (h5::attr_doubles).
class AttrSum {
 public:
  void add(const std::string& obj, const std::string& name, const void* data, std::size_t n) {
    sum_ += fnv(data, n, fnv(name.data(), name.size(), fnv(obj.data(), obj.size() + 1)));
  }
  void add(const std::string& obj, const std::string& name, const std::string& v) {
    add(obj, name, v.data(), v.size());
  }
  void add(const std::string& obj, const std::string& name, std::int64_t v) { add(obj, name, &v, sizeof v); }
  void add(const std::string& obj, const std::string& name, double v) { add(obj, name, &v, sizeof v); }
  void add(const std::string& obj, const std::string& name, const std::vector<double>& v) {
    add(obj, name, v.data(), v.size() * sizeof(double));
  }
  void add(const std::string& obj, const std::string& name, const std::vector<std::int64_t>& v) {
    add(obj, name, std::vector<double>(v.begin(), v.end()));
  }
  void add(const std::string& obj, const std::string& name, const std::vector<std::string>& v) {
    std::string joined;
    for (const auto& x : v) joined += x + '\0';
    add(obj, name, joined);
  }
  std::int64_t value() const { return static_cast<std::int64_t>(sum_); }

  /// h5::attr that adds to the sum.
  template <class T>
  void put(hid_t g, const std::string& obj, const std::string& name, const T& v) {
    h5::attr(g, name, v);
    add(obj, name, v);
  }
  /// The attribute read back (h5::attr_string, attr_int, ...), added to the sum.
  template <class T>
  T got(const std::string& obj, const std::string& name, T v) {
    add(obj, name, v);
    return v;
  }

 private:
  std::uint64_t sum_ = 0;
};

void write_series(const h5::File& f, hid_t parent, const TimeSeries& s, AttrSum& sum, const std::string& obj) {
  h5::Handle g = h5::create_group(parent, "series");
  h5::write_vector(f, g, "step", s.step);
  h5::write_vector(f, g, "time", s.time);
  std::vector<double> values;
  for (const auto& v : s.values) values.insert(values.end(), v.begin(), v.end());
  h5::write_vector(f, g, "values", values);
  if (!s.names.empty()) sum.put(g, obj + "/series", "names", s.names);
}

TimeSeries read_series(hid_t parent, AttrSum& sum, const std::string& obj) {
  h5::Handle g = h5::open_group(parent, "series");
  TimeSeries series;
  series.step = to_ints(h5::read_doubles(g, "step"));
  series.time = h5::read_doubles(g, "time");
  if (h5::has_attr(g, "names")) series.names = sum.got(obj + "/series", "names", h5::attr_strings(g, "names"));
  const std::vector<double> values = h5::read_doubles(g, "values");
  const std::size_t m = series.step.size();
  if (series.time.size() != m || values.size() != m * series.names.size())
    throw UsageError("its time series are inconsistent");
  for (std::size_t i = 0; i < series.names.size(); ++i)
    series.values.emplace_back(values.begin() + static_cast<std::ptrdiff_t>(i * m),
                               values.begin() + static_cast<std::ptrdiff_t>((i + 1) * m));
  return series;
}

void write_record(const h5::File& f, hid_t g, const AdaptiveRecord& a, AttrSum& sum, const std::string& obj) {
  h5::write_vector(f, g, "t", a.t);
  h5::write_vector(f, g, "h", a.h);
  h5::write_vector(f, g, "err", a.err);
  h5::write_vector(f, g, "rejected_t", a.rejected_t);
  h5::write_vector(f, g, "rejected_h", a.rejected_h);
  sum.put(g, obj, "accepted", static_cast<std::int64_t>(a.accepted));
  sum.put(g, obj, "rejected", static_cast<std::int64_t>(a.rejected));
}

AdaptiveRecord read_record(hid_t g, AttrSum& sum, const std::string& obj) {
  AdaptiveRecord a;
  a.t = h5::read_doubles(g, "t");
  a.h = h5::read_doubles(g, "h");
  a.err = h5::read_doubles(g, "err");
  a.rejected_t = h5::read_doubles(g, "rejected_t");
  a.rejected_h = h5::read_doubles(g, "rejected_h");
  a.accepted = static_cast<std::uint64_t>(sum.got(obj, "accepted", h5::attr_int(g, "accepted")));
  a.rejected = static_cast<std::uint64_t>(sum.got(obj, "rejected", h5::attr_int(g, "rejected")));
  if (a.t.size() != a.accepted || a.h.size() != a.accepted || a.err.size() != a.accepted ||
      a.rejected_t.size() != a.rejected)
    throw UsageError("its step record is inconsistent");
  return a;
}

/// Checksum of a state that does not depend on the layout: the sum over global rows of a hash
/// of (row index, row values), each rank adding its own rows (rank 0 alone for replicated
/// models). Collective.
std::int64_t state_checksum(const Model& model, const par::Context& ctx, const double* y) {
  const io::StateRows layout = io::state_rows(model, ctx);
  const std::vector<double> rows = io::pack_rows(model, layout, y);
  std::uint64_t sum = 0;
  if (!layout.replicated || ctx.rank() == 0)
    for (std::size_t r = 0; r < layout.local_rows; ++r) {
      const std::uint64_t index = layout.row_offset + r;
      sum += fnv(rows.data() + r * layout.cols, layout.cols * sizeof(double), fnv(&index, sizeof index));
    }
  std::uint64_t total = sum;
  MPI_Allreduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, ctx.comm());
  return static_cast<std::int64_t>(total);
}

/// Checksum of the replicated numbers of an execution (scalars, time series, step record).
std::int64_t data_checksum(const std::vector<double>& scalars, const TimeSeries& s, const AdaptiveRecord* a) {
  std::uint64_t h = fnv(s.step, fnv(s.time, fnv(scalars, 0)));
  for (const auto& v : s.values) h = fnv(v, h);
  if (a) h = fnv(a->rejected_h, fnv(a->rejected_t, fnv(a->err, fnv(a->h, fnv(a->t, h)))));
  return static_cast<std::int64_t>(h);
}

/// RunResult::metrics as "name=value" lines (%.17g: read back bit for bit); "" for none.
std::string metrics_text(const std::map<std::string, double>& metrics) {
  std::string s;
  char b[64];
  for (const auto& [k, v] : metrics) {
    std::snprintf(b, sizeof b, "%.17g", v);
    s += k + "=" + b + "\n";
  }
  return s;
}

std::map<std::string, double> metrics_from(const std::string& text) {
  std::map<std::string, double> m;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) throw UsageError("its metrics are malformed");
    m[line.substr(0, eq)] = std::strtod(line.c_str() + eq + 1, nullptr);
  }
  return m;
}

std::vector<double> finished_scalars(const RunResult& r) {
  std::vector<double> v;
  for (auto c : counters_vector(r.counters)) v.push_back(static_cast<double>(c));
  for (char ch : r.status) v.push_back(ch);
  for (char ch : metrics_text(r.metrics)) v.push_back(ch);  // none in executions without metrics
  return v;
}

std::vector<double> current_scalars(double t, std::uint64_t step, std::uint64_t calls, const StepCounters& c,
                                    const AdaptiveState* a, const std::vector<double>* stepper_state) {
  std::vector<double> v = {t, static_cast<double>(step), static_cast<double>(calls)};
  for (auto x : counters_vector(c)) v.push_back(static_cast<double>(x));
  if (a) v.insert(v.end(), {a->h, static_cast<double>(a->samples), a->memory.err1, a->memory.err2, a->memory.h1,
                            static_cast<double>(a->memory.filled), a->memory.rejected ? 1.0 : 0.0});
  if (stepper_state) {  // Stepper::resume_state(), with its length
    v.push_back(static_cast<double>(stepper_state->size()));
    v.insert(v.end(), stepper_state->begin(), stepper_state->end());
  }
  return v;
}

/// Rank 0's wall time and phase timings as text ("name=seconds" lines), the same on every rank
/// (attributes are written collectively with one value).
std::string timing_text(const RunResult& r, const par::Context& ctx) {
  std::string s;
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", r.wall);
  s += std::string("wall=") + b + "\n";
  for (const auto& [k, v] : r.phases) {
    std::snprintf(b, sizeof b, "%.17g", v);
    s += k + "=" + b + "\n";
  }
  return par::broadcast_string(s, 0, ctx.comm());
}

void apply_timing_text(const std::string& text, RunResult& r) {
  std::istringstream in(text);
  std::string line;
  r.phases.clear();
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const double v = std::strtod(line.c_str() + eq + 1, nullptr);
    if (line.compare(0, eq, "wall") == 0) r.wall = v;
    else r.phases[line.substr(0, eq)] = v;
  }
}

/// The first line of `want` not in `have` (or the other way round), for the refusal message; ""
/// if there is none. A key this liebench has and the checkpoint lacks is no difference when it
/// has its default value (a key added to the suite since the checkpoint was written: the run it
/// holds ran as with the default).
std::string first_difference(const std::string& have, const std::string& want) {
  auto lines = [](const std::string& t) {
    std::map<std::string, std::string> m;
    std::istringstream in(t);
    std::string line;
    while (std::getline(in, line)) {
      const auto eq = line.find(" = ");
      m[line.substr(0, eq)] = eq == std::string::npos ? "" : line.substr(eq + 3);
    }
    return m;
  };
  const auto a = lines(have), b = lines(want);
  for (const auto& [k, v] : b) {
    auto it = a.find(k);
    if (it == a.end()) {
      const OptionSpec* spec = OptionCatalog::instance().find(k);
      if (spec && !spec->default_value.empty() && spec->default_value == v) continue;
      return "key " + quote(k) + " is not in the checkpoint";
    }
    if (it->second != v) return k + " = " + it->second + " there, " + v + " here";
  }
  for (const auto& [k, v] : a)
    if (!b.count(k)) return "key " + quote(k) + " is only in the checkpoint";
  return "";
}

}  // namespace

Checkpointed::Checkpointed(const std::string& path, int signal)
    : std::runtime_error("stopped by " + signal_name(signal) + "; checkpoint written to " + path +
                         "; run the same command again (or add --restart " + path + ") to continue") {}

std::string checkpoint_path(const std::string& output) { return output + ".ckpt.h5"; }

std::string checkpoint_unsupported(const std::string& study, bool save_state, const RunRequest& req) {
  const StudyEntry* kind = StudyRegistry::instance().find(study);
  if (!kind) return "study = " + study + " is not checkpointed";
  if (!kind->not_checkpointed.empty()) return kind->not_checkpointed;
  if (save_state)
    return "runs with save_state = true (trajectories) are not checkpointed yet; run without save_state or without "
           "checkpoints";
  if (req.rank_group)
    return "jobs with ranks_per_run are not checkpointed (use --part, one part per job, for long grids)";
  return "";
}

Checkpointer::Checkpointer(const RunRequest& req, const StudyPlan& plan, par::Context& ctx)
    : plan_(plan), ctx_(ctx), path_(checkpoint_path(req.output)), restart_(req.restart) {
  every_ = plan.settings.checkpoint_every;
  seconds_ = plan.settings.checkpoint_seconds;
  const std::string why = checkpoint_unsupported(plan.kind, plan.settings.save_state, req);
  active_ = why.empty();
  if (!active_ && (every_ > 0 || seconds_ > 0.0 || !restart_.empty()))
    throw UsageError("checkpoint_every, checkpoint_seconds and --restart cannot be used here: " + why);
  if (!restart_.empty() && !file_exists(restart_))
    throw UsageError("option --restart names " + quote(restart_) + ", which does not exist; give a checkpoint file (" +
                     path_ + ")");
  last_time_ = wall_now();
  if (!active_) return;
  io::check_replaceable(path_, "checkpoint", "remove it or choose another --output", ctx_.comm());
  // Checkpoint temporaries left by a SIGKILL while one was written (their process is gone).
  if (ctx_.rank() == 0)
    for (const auto& p : io::remove_stale_temporaries(path_))
      std::fprintf(stderr, "liebench: removed %s, left by a killed run (its process is gone)\n", p.c_str());
  const std::string from = restart_.empty() ? path_ : restart_;
  if (file_exists(from)) load(from);
}

std::string Checkpointer::identity() const {
  // The resolved keys of the study, without the checkpoint keys themselves and the progress
  // interval (they do not change a result), and the part.
  std::istringstream in(plan_.settings.resolved_text);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("checkpoint_", 0) != 0 && line.rfind("progress_interval ", 0) != 0) out += line + "\n";
  out += "(part) = " + std::to_string(plan_.part_index + 1) + "/" + std::to_string(plan_.part_count) + "\n";
  return out;
}

const Model& Checkpointer::model_for(std::size_t point) {
  auto it = models_.find(point);
  if (it == models_.end()) it = models_.emplace(point, make_model(plan_.point(point).model, ctx_)).first;
  return *it->second;
}

void Checkpointer::load(const std::string& path) {
  std::string problem;
  // From the moment the file is known as a checkpoint of this version, anything that does not
  // read back is damage ("corrupt ... remove it"), not another run: a checksum over every
  // attribute (AttrSum) and one over every number (data_checksum, state_checksum) are compared
  // before the study's identity is.
  bool corrupt = false;
  struct StateToRead {
    std::string dataset, label;
    std::size_t point;
    std::vector<double>* y;
    std::int64_t checksum;
  };
  std::vector<StateToRead> states;
  // The seal first (io/seal.hpp; rank 0 reads the file once): a checkpoint of this version
  // whose bytes changed is refused before HDF5 parses any of them (HDF5 1.10 follows a damaged
  // heap reference into a segfault). An unsealed file is one of an earlier version.
  std::string seal_problem;
  int sealed = 0;
  if (ctx_.rank() == 0) {
    const io::SealCheck seal = io::check_seal(path);
    sealed = seal.state == io::SealCheck::State::sealed ? 1 : 0;
    if (seal.state == io::SealCheck::State::broken) seal_problem = seal.problem;
  }
  if (ctx_.size() > 1) {
    seal_problem = par::broadcast_string(seal_problem, 0, ctx_.comm());
    MPI_Bcast(&sealed, 1, MPI_INT, 0, ctx_.comm());
  }
  try {
    corrupt = true;  // (a file HDF5 cannot open: truncated, overwritten, not HDF5)
    if (!seal_problem.empty()) throw UsageError(seal_problem);
    h5::File f = h5::File::open_read(path);
    const hid_t root = f.id();
    corrupt = false;
    const std::string format = h5::has_attr(root, "format") ? h5::attr_string(root, "format") : "";
    const bool legacy = format == kCheckpointFormatWithoutAttributeSum;
    if (format != kCheckpointFormat && format != kCheckpointFormatWithoutSeal && !legacy)
      throw UsageError("it is not a liebench checkpoint of this version (format " +
                       (format.empty() ? std::string("missing") : quote(format)) + ", expected " + kCheckpointFormat +
                       ")");
    corrupt = true;
    if (format == kCheckpointFormat && !sealed) throw UsageError("its seal (the first " + std::to_string(io::kSealBytes) + " bytes) is missing");
    AttrSum sum;
    sum.add("/", "format", format);
    const std::string study = sum.got("/", "study", h5::attr_string(root, "study"));
    const std::string model = sum.got("/", "model", h5::attr_string(root, "model"));
    const std::string have = sum.got("/", "config", h5::attr_string(root, "config"));
    const std::int64_t done = sum.got("/", "finished", h5::attr_int(root, "finished"));
    std::vector<std::pair<std::string, std::size_t>> points;  // (label, grid point), checked below
    for (std::int64_t i = 0; i < done; ++i) {
      char name[40];
      std::snprintf(name, sizeof name, "finished/e_%05lld", static_cast<long long>(i));
      if (!h5::exists(root, name)) throw UsageError(std::string("it lacks ") + name);
      h5::Handle g = h5::open_group(root, name);
      Finished e;
      const std::string label = sum.got(name, "label", h5::attr_string(g, "label"));
      e.point = static_cast<std::size_t>(sum.got(name, "point", h5::attr_int(g, "point")));
      points.emplace_back(label, e.point);
      e.result.status = sum.got(name, "status", h5::attr_string(g, "status"));
      e.result.counters = counters_from(sum.got(name, "counters", h5::attr_doubles(g, "counters")));
      apply_timing_text(sum.got(name, "timings", h5::attr_string(g, "timings")), e.result);
      if (h5::has_attr(g, "metrics"))
        e.result.metrics = metrics_from(sum.got(name, "metrics", h5::attr_string(g, "metrics")));
      e.result.series = read_series(g, sum, name);
      if (h5::exists(g, "adaptive")) {
        h5::Handle a = h5::open_group(g, "adaptive");
        e.result.adaptive = read_record(a, sum, std::string(name) + "/adaptive");
      }
      const AdaptiveRecord* record = e.result.adaptive ? &*e.result.adaptive : nullptr;
      if (sum.got(name, "data_checksum", h5::attr_int(g, "data_checksum")) !=
          data_checksum(finished_scalars(e.result), e.result.series, record))
        throw UsageError("the data of " + label + " do not match their checksum");
      order_.push_back(label);
      auto& slot = finished_[label];
      slot = std::move(e);
      states.push_back({std::string("/") + name + "/state", label, slot.point, &slot.result.y,
                        sum.got(name, "state_checksum", h5::attr_int(g, "state_checksum"))});
    }
    if (h5::exists(root, "current")) {
      const std::string name = "current";
      h5::Handle g = h5::open_group(root, name);
      RunResume r;
      resume_label_ = sum.got(name, "label", h5::attr_string(g, "label"));
      const auto point = static_cast<std::size_t>(sum.got(name, "point", h5::attr_int(g, "point")));
      points.emplace_back(resume_label_, point);
      r.t = sum.got(name, "t", h5::attr_double(g, "t"));
      r.step = static_cast<std::uint64_t>(sum.got(name, "step", h5::attr_int(g, "step")));
      r.calls = static_cast<std::uint64_t>(sum.got(name, "calls", h5::attr_int(g, "calls")));
      r.counters = counters_from(sum.got(name, "counters", h5::attr_doubles(g, "counters")));
      r.cache_valid = sum.got(name, "cache_valid", h5::attr_int(g, "cache_valid")) != 0;
      resume_series_ = read_series(g, sum, name);
      // The stepper's internal state (every rank reads rank 0's copy); absent in checkpoints
      // of earlier versions, refused in execute() for a stepper that has one.
      if (h5::exists(g, "stepper_state")) r.stepper_state = h5::read_doubles(g, "stepper_state");
      if (h5::exists(g, "adaptive")) {
        const std::string an = name + "/adaptive";
        h5::Handle ag = h5::open_group(g, "adaptive");
        AdaptiveState a;
        a.t = r.t;
        a.h = sum.got(an, "h", h5::attr_double(ag, "h"));
        a.samples = static_cast<std::uint64_t>(sum.got(an, "samples", h5::attr_int(ag, "samples")));
        const auto mem = sum.got(an, "memory", h5::attr_doubles(ag, "memory"));
        // 4 values: written before the rejection flag (a continued run then caps no step)
        if (mem.size() != 4 && mem.size() != 5) throw UsageError("its controller memory is incomplete");
        a.memory.err1 = mem[0];
        a.memory.err2 = mem[1];
        a.memory.h1 = mem[2];
        a.memory.filled = static_cast<int>(mem[3]);
        a.memory.rejected = mem.size() == 5 && mem[4] != 0.0;
        a.record = read_record(ag, sum, an);
        r.adaptive = std::move(a);
      }
      const AdaptiveState* a = r.adaptive ? &*r.adaptive : nullptr;
      const std::vector<double>* ss = r.stepper_state ? &*r.stepper_state : nullptr;
      if (sum.got(name, "data_checksum", h5::attr_int(g, "data_checksum")) !=
          data_checksum(current_scalars(r.t, r.step, r.calls, r.counters, a, ss), resume_series_,
                        a ? &a->record : nullptr))
        throw UsageError("the data of " + resume_label_ + " do not match their checksum");
      resume_ = std::move(r);
      states.push_back({"/current/state", resume_label_, point, &resume_->y,
                        sum.got(name, "state_checksum", h5::attr_int(g, "state_checksum"))});
    }
    if (!legacy &&
        (!h5::has_attr(root, "attributes_checksum") || h5::attr_int(root, "attributes_checksum") != sum.value()))
      throw UsageError("its attributes do not match their checksum");
    f.close();
    // Intact: is it this run's?
    corrupt = false;
    auto expect = [&](const std::string& what, const std::string& in_file, const std::string& want) {
      if (in_file != want)
        throw UsageError("it belongs to another run: " + what + " " + quote(in_file) + " (this run: " + quote(want) +
                         ")");
    };
    expect("study", study, plan_.kind);
    expect("model", model, plan_.settings.model);
    const std::string why = first_difference(have, identity());
    if (!why.empty()) throw UsageError("it belongs to another experiment (" + why + ")");
    for (const auto& [label, point] : points)
      if (point >= plan_.points()) throw UsageError("execution " + label + " names an unknown grid point");
  } catch (const std::exception& e) {
    problem = e.what();
  }
  // Every rank read the same file: agree before the (collective) state reads.
  int flags[2] = {problem.empty() ? 0 : 1, corrupt && !problem.empty() ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, ctx_.comm());
  if (flags[0]) {
    if (problem.empty()) problem = "it could not be read on another rank";
    if (flags[1])
      throw UsageError("corrupt checkpoint " + path + " is refused: " + problem + "; remove it to start over");
    throw UsageError("checkpoint " + path + " is refused: " + problem + "; remove it (or pass --restart with the "
                     "right file) to start over");
  }
  for (const auto& s : states) {
    const Model& model = model_for(s.point);
    s.y->resize(model.space().state_size());
    try {
      io::read_state(path, s.dataset, model, ctx_, s.y->data());
    } catch (const std::exception& e) {
      throw UsageError("corrupt checkpoint " + path + " is refused: the state of " + s.label + " cannot be read (" +
                       e.what() + "); remove it to start over");
    }
    if (state_checksum(model, ctx_, s.y->data()) != s.checksum)
      throw UsageError("corrupt checkpoint " + path + " is refused: the state of " + s.label +
                       " does not match its checksum; remove it to start over");
  }
  if (ctx_.rank() == 0) {
    if (resume_)
      std::fprintf(stderr, "liebench: continuing from checkpoint %s: %zu finished, %s at t = %.17g (step %llu)\n",
                   path.c_str(), order_.size(), resume_label_.c_str(), resume_->t,
                   static_cast<unsigned long long>(resume_->step));
    else
      std::fprintf(stderr, "liebench: continuing from checkpoint %s: %zu finished\n", path.c_str(), order_.size());
  }
}

void Checkpointer::attach(StudyOutput& out) {
  if (active_) out.set_stop_check([this] { between_runs(); });
}

RunResult Checkpointer::execute(const std::string& label, std::size_t point, Model& model, Stepper& stepper,
                                const Integration& integ, const Sampling& sampling, RunHooks hooks,
                                const std::function<void(double)>& progress) {
  if (!active_) return execute_run(model, stepper, ctx_, integ, sampling, hooks);
  if (auto it = finished_.find(label); it != finished_.end()) {
    if (it->second.point != point)
      throw UsageError("checkpoint " + path_ + " is refused: its execution " + label + " has another grid point");
    progress(1.0);
    return it->second.result;  // replayed: the numbers the result file gets, bit for bit
  }
  hooks.safe_point = [this](const RunSnapshot& snap) { safe_point(snap); };
  hooks.checkpoint = progress;
  current_ = Current{label, point};
  const bool resuming = resume_ && resume_label_ == label;
  if (resuming && !resume_->stepper_state && stepper.has_resume_state())
    throw UsageError("checkpoint " + path_ + " is refused: it lacks the internal state of method '" + stepper.info().name +
                     "' (" + label + "), without which the run would not continue bit for bit; remove it to start over");
  last_step_ = resuming ? resume_->step : 0;
  RunResult res = execute_run(model, stepper, ctx_, integ, sampling, hooks, nullptr, resuming ? &*resume_ : nullptr,
                              resuming ? &resume_series_ : nullptr);
  if (resuming) resume_.reset();
  current_ = Current{};
  keep(label, point, res);
  return res;
}

RunResult Checkpointer::execute_whole(const std::string& label, std::size_t point,
                                      const std::function<RunResult()>& compute,
                                      const std::function<void(double)>& progress) {
  if (!active_) return compute();
  if (auto it = finished_.find(label); it != finished_.end()) {
    if (it->second.point != point)
      throw UsageError("checkpoint " + path_ + " is refused: its execution " + label + " has another grid point");
    progress(1.0);
    return it->second.result;  // replayed
  }
  RunResult res = compute();
  keep(label, point, res);
  if (every_ > 0) {
    write(nullptr);
    last_time_ = wall_now();
  }
  return res;
}

void Checkpointer::keep(const std::string& label, std::size_t point, const RunResult& res) {
  Finished e;
  e.point = point;
  e.result = res;
  // Replays see rank 0's timings (the only per-rank numbers; not part of the results).
  apply_timing_text(timing_text(res, ctx_), e.result);
  order_.push_back(label);
  finished_[label] = std::move(e);
  model_for(point);
}

void Checkpointer::safe_point(const RunSnapshot& snap) {
  int flags[2] = {pending_signal(), seconds_ > 0.0 && wall_now() - last_time_ >= seconds_ ? 1 : 0};
  if (ctx_.size() > 1) MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, ctx_.comm());
  const bool by_steps = every_ > 0 && snap.step >= last_step_ + static_cast<std::uint64_t>(every_);
  if (!(flags[0] || flags[1] || by_steps)) return;
  write(&snap);
  last_step_ = snap.step;
  last_time_ = wall_now();
  if (flags[0]) throw Checkpointed(path_, flags[0]);
}

void Checkpointer::between_runs() {
  int flags[2] = {pending_signal(), seconds_ > 0.0 && wall_now() - last_time_ >= seconds_ ? 1 : 0};
  if (ctx_.size() > 1) MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, ctx_.comm());
  if (!(flags[0] || flags[1])) return;
  write(nullptr);
  last_time_ = wall_now();
  if (flags[0]) throw Checkpointed(path_, flags[0]);
}

void Checkpointer::write(const RunSnapshot* snap) {
  io::SafeOutput safe(path_, true, ctx_.comm());
  h5::File f = h5::File::create(safe.temp_path(), ctx_.comm(), io::kSealBytes);
  try {
    const hid_t root = f.id();
    AttrSum sum;
    sum.put(root, "/", "format", std::string(kCheckpointFormat));
    sum.put(root, "/", "study", plan_.kind);
    sum.put(root, "/", "model", plan_.settings.model);
    sum.put(root, "/", "config", identity());
    sum.put(root, "/", "finished", static_cast<std::int64_t>(order_.size()));
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const Finished& e = finished_.at(order_[i]);
      char name[40];
      std::snprintf(name, sizeof name, "finished/e_%05zu", i);
      h5::Handle g = h5::create_group(root, name);
      sum.put(g, name, "label", order_[i]);
      sum.put(g, name, "point", static_cast<std::int64_t>(e.point));
      sum.put(g, name, "status", e.result.status);
      sum.put(g, name, "counters", counters_vector(e.result.counters));
      sum.put(g, name, "timings", timing_text(e.result, ctx_));
      if (!e.result.metrics.empty())
        sum.put(g, name, "metrics", par::broadcast_string(metrics_text(e.result.metrics), 0, ctx_.comm()));
      const Model& model = model_for(e.point);
      io::write_state(f, g, "state", model, io::state_rows(model, ctx_), e.result.y.data());
      sum.put(g, name, "state_checksum", state_checksum(model, ctx_, e.result.y.data()));
      const AdaptiveRecord* record = e.result.adaptive ? &*e.result.adaptive : nullptr;
      sum.put(g, name, "data_checksum", data_checksum(finished_scalars(e.result), e.result.series, record));
      write_series(f, g, e.result.series, sum, name);
      if (e.result.adaptive) {
        h5::Handle a = h5::create_group(g, "adaptive");
        write_record(f, a, *e.result.adaptive, sum, std::string(name) + "/adaptive");
      }
    }
    if (snap) {
      const std::string name = "current";
      h5::Handle g = h5::create_group(root, name);
      sum.put(g, name, "label", current_.label);
      sum.put(g, name, "point", static_cast<std::int64_t>(current_.point));
      sum.put(g, name, "t", snap->t);
      sum.put(g, name, "step", static_cast<std::int64_t>(snap->step));
      sum.put(g, name, "calls", static_cast<std::int64_t>(snap->calls));
      sum.put(g, name, "counters", counters_vector(snap->counters));
      // The stepper's cache flag must agree on every rank (it follows the same steps).
      sum.put(g, name, "cache_valid",
              static_cast<std::int64_t>(ctx_.min(snap->cache_valid ? 1.0 : 0.0) > 0.0 ? 1 : 0));
      const Model& model = model_for(current_.point);
      io::write_state(f, g, "state", model, io::state_rows(model, ctx_), snap->y);
      sum.put(g, name, "state_checksum", state_checksum(model, ctx_, snap->y));
      // The stepper's internal state (warm starts): rank 0's copy (identical on every rank).
      std::vector<double> stepper_state = snap->stepper ? snap->stepper->resume_state() : std::vector<double>{};
      std::uint64_t n = stepper_state.size();
      MPI_Bcast(&n, 1, MPI_UINT64_T, 0, ctx_.comm());
      stepper_state.resize(n);
      MPI_Bcast(stepper_state.data(), static_cast<int>(n), MPI_DOUBLE, 0, ctx_.comm());
      h5::write_vector(f, g, "stepper_state", stepper_state);
      const AdaptiveState* ad = snap->adaptive;
      sum.put(g, name, "data_checksum",
              data_checksum(current_scalars(snap->t, snap->step, snap->calls, snap->counters, ad, &stepper_state),
                            *snap->series, ad ? &ad->record : nullptr));
      write_series(f, g, *snap->series, sum, name);
      if (snap->adaptive) {
        const std::string an = name + "/adaptive";
        const AdaptiveState& a = *snap->adaptive;
        h5::Handle ag = h5::create_group(g, "adaptive");
        sum.put(ag, an, "h", a.h);
        sum.put(ag, an, "samples", static_cast<std::int64_t>(a.samples));
        sum.put(ag, an, "memory", std::vector<double>{a.memory.err1, a.memory.err2, a.memory.h1,
                                                      static_cast<double>(a.memory.filled),
                                                      a.memory.rejected ? 1.0 : 0.0});
        write_record(f, ag, a.record, sum, an);
      }
    }
    h5::attr(root, "attributes_checksum", sum.value());
    f.close();
    // the seal over every byte, by rank 0 once the file is complete (io/seal.hpp)
    std::string seal_error;
    if (ctx_.rank() == 0) {
      try {
        io::seal_file(safe.temp_path());
      } catch (const std::exception& e) {
        seal_error = e.what();
      }
    }
    f.agree(seal_error);
  } catch (const IoError& e) {
    // An I/O error (a full disk; thrown on every rank together, h5::File::agree): as
    // StudyOutput's destructor does, point the temporary's descriptors to memory and close it
    // there, so that no HDF5 file is left half closed (HDF5 1.10 then crashed in MPI_Finalize,
    // issue 29); `safe` removes the temporary file. An earlier checkpoint stays.
    safe.detach();
    f.close_quietly();
    std::string why = e.what();
    if (why.find("full disk") == std::string::npos) why += "; a write error or a full disk";
    throw IoError("cannot write the checkpoint " + quote(path_) + " (" + why + "); an earlier checkpoint there is kept");
  } catch (...) {
    safe.detach();
    f.close_quietly();
    throw;
  }
  safe.commit();
}

void Checkpointer::complete(const std::function<void()>& finish_output) {
  // An explicit --restart file other than <output>.ckpt.h5 stays (the user named it).
  auto remove_checkpoint = [this] {
    if (active_ && ctx_.rank() == 0) std::remove(path_.c_str());
  };
  try {
    finish_output();
  } catch (const RunsFailed&) {
    remove_checkpoint();
    throw;
  }
  remove_checkpoint();
}

}  // namespace lie::studies
