#include "studies/checkpoint.hpp"

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <sstream>

#include "core/error.hpp"
#include "io/h5.hpp"
#include "io/safe_output.hpp"
#include "io/state_io.hpp"
#include "studies/interrupt.hpp"

namespace lie::studies {

namespace {

const bool kKeys = declare_options({
    {"checkpoint_every", OptionType::NonNegativeInt, "0",
     "write a checkpoint (<output>.ckpt.h5) every this many steps (adaptive: accepted steps); 0: off. Checkpoints "
     "are also written on SIGTERM, SIGUSR1 and SIGINT (then exit status 5)",
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
  if (v.size() != 7) throw std::runtime_error("counters have " + std::to_string(v.size()) + " values, expected 7");
  StepCounters c;
  std::uint64_t* f[] = {&c.steps, &c.rejected, &c.rhs, &c.exp, &c.dexpinv, &c.brackets, &c.iterations};
  for (int i = 0; i < 7; ++i) *f[i] = static_cast<std::uint64_t>(v[static_cast<std::size_t>(i)]);
  return c;
}

std::vector<std::int64_t> to_ints(const std::vector<double>& v) {
  return std::vector<std::int64_t>(v.begin(), v.end());
}

}  // namespace

Checkpointed::Checkpointed(const std::string& path, int signal)
    : std::runtime_error("stopped by " + signal_name(signal) + "; checkpoint written to " + path +
                         "; run the same command again (or add --restart " + path + ") to continue") {}

std::string checkpoint_path(const std::string& output) { return output + ".ckpt.h5"; }

Checkpointer::Checkpointer(const Config& cfg, const RunRequest& req, const StudyPlan& plan, par::Context& ctx)
    : cfg_(cfg), plan_(plan), ctx_(ctx), path_(checkpoint_path(req.output)), restart_(req.restart) {
  every_ = cfg.get_int("checkpoint_every");
  seconds_ = cfg.get_nonnegative("checkpoint_seconds");
  const std::string study = cfg.get_string("study");
  const bool covered = (study == "simulate" || study == "invariants") && plan.selected.size() == 1 &&
                       !cfg.get_bool("save_state", false) && req.part_count == 1;
  active_ = covered;
  if (!covered && (every_ > 0 || seconds_ > 0.0 || !restart_.empty()))
    throw UsageError("checkpoints (checkpoint_every, checkpoint_seconds, --restart) cover single-run studies "
                     "simulate and invariants without save_state so far (this study: " + study + " with " +
                     std::to_string(plan.selected.size()) + " runs); remove them or run one method per job");
  if (!restart_.empty() && !file_exists(restart_))
    throw UsageError("option --restart names '" + restart_ + "', which does not exist; give a checkpoint file (" +
                     path_ + ")");
  last_time_ = wall_now();
}

std::string Checkpointer::identity(const RunSpec& run, const Model& model) const {
  // The resolved keys of the run, without the checkpoint keys themselves.
  std::istringstream in(plan_.point_configs[run.point].resolved_text());
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("checkpoint_", 0) != 0) out += line + "\n";
  (void)model;
  return out;
}

std::optional<RunResume> Checkpointer::load(const RunSpec& run, const Model& model, TimeSeries& series) {
  const std::string path = restart_.empty() ? path_ : restart_;
  if (!active_ || !file_exists(path)) return std::nullopt;
  const io::StateRows layout = io::state_rows(model, ctx_);
  RunResume r;
  std::string problem;
  try {
    h5::File f = h5::File::open_read(path);
    const hid_t root = f.id();
    if (!h5::has_attr(root, "format") || h5::attr_string(root, "format") != kCheckpointFormat)
      throw UsageError("it is not a liebench checkpoint (format " +
                       (h5::has_attr(root, "format") ? h5::attr_string(root, "format") : std::string("missing")) +
                       ", expected " + kCheckpointFormat + ")");
    auto expect = [&](const std::string& what, const std::string& have, const std::string& want) {
      if (have != want)
        throw UsageError("it belongs to another run: " + what + " '" + have + "' (this run: '" + want + "')");
    };
    expect("study", h5::attr_string(root, "study"), cfg_.get_string("study"));
    expect("model", h5::attr_string(root, "model"), model.name());
    expect("method", h5::attr_string(root, "method"), run.method);
    expect("state rows (components)", std::to_string(h5::attr_int(root, "rows")), std::to_string(layout.global_rows));
    expect("values per component", std::to_string(h5::attr_int(root, "cols")), std::to_string(layout.cols));
    expect("run", h5::attr_string(root, "run_id"), run.id);
    if (h5::attr_string(root, "config") != identity(run, model))
      throw UsageError("it belongs to another experiment (its resolved keys differ from this run's)");
    r.t = h5::attr_double(root, "t");
    r.step = static_cast<std::uint64_t>(h5::attr_int(root, "step"));
    r.calls = static_cast<std::uint64_t>(h5::attr_int(root, "calls"));
    r.counters = counters_from(h5::attr_doubles(root, "counters"));
    r.cache_valid = h5::attr_int(root, "cache_valid") != 0;
    {
      h5::Handle g = h5::open_group(root, "series");
      series = TimeSeries{};
      series.step = to_ints(h5::read_doubles(g, "step"));
      series.time = h5::read_doubles(g, "time");
      if (h5::has_attr(g, "names")) series.names = h5::attr_strings(g, "names");
      const std::vector<double> values = h5::read_doubles(g, "values");
      const std::size_t m = series.step.size();
      if (series.time.size() != m || values.size() != m * series.names.size())
        throw UsageError("its time series are inconsistent");
      for (std::size_t i = 0; i < series.names.size(); ++i)
        series.values.emplace_back(values.begin() + static_cast<std::ptrdiff_t>(i * m),
                                   values.begin() + static_cast<std::ptrdiff_t>((i + 1) * m));
    }
    if (h5::exists(root, "adaptive")) {
      h5::Handle g = h5::open_group(root, "adaptive");
      AdaptiveState a;
      a.t = r.t;
      a.h = h5::attr_double(g, "h");
      a.samples = static_cast<std::uint64_t>(h5::attr_int(g, "samples"));
      const auto mem = h5::attr_doubles(g, "memory");
      if (mem.size() != 4) throw UsageError("its controller memory is incomplete");
      a.memory.err1 = mem[0];
      a.memory.err2 = mem[1];
      a.memory.h1 = mem[2];
      a.memory.filled = static_cast<int>(mem[3]);
      a.record.t = h5::read_doubles(g, "t");
      a.record.h = h5::read_doubles(g, "h");
      a.record.err = h5::read_doubles(g, "err");
      a.record.rejected_t = h5::read_doubles(g, "rejected_t");
      a.record.rejected_h = h5::read_doubles(g, "rejected_h");
      a.record.accepted = static_cast<std::uint64_t>(h5::attr_int(g, "accepted"));
      a.record.rejected = static_cast<std::uint64_t>(h5::attr_int(g, "rejected"));
      if (a.record.t.size() != a.record.accepted || a.record.rejected_t.size() != a.record.rejected)
        throw UsageError("its step record is inconsistent");
      r.adaptive = std::move(a);
    }
    f.close();
    r.y.resize(model.space().state_size());
  } catch (const std::exception& e) {
    problem = e.what();
  }
  // Every rank read the same file: agree before the (collective) state read.
  int bad = problem.empty() ? 0 : 1, any = bad;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, ctx_.comm());
  if (any) {
    if (problem.empty()) problem = "it could not be read on another rank";
    throw UsageError("checkpoint " + path + " is refused: " + problem + "; remove it (or pass --restart with the "
                     "right file) to start over");
  }
  try {
    io::read_state(path, "/state", model, ctx_, r.y.data());
  } catch (const std::exception& e) {
    throw UsageError("checkpoint " + path + " is refused: its state cannot be read (" + e.what() +
                     "); remove it to start over");
  }
  last_step_ = r.step;
  if (ctx_.rank() == 0)
    std::fprintf(stderr, "liebench: continuing %s from checkpoint %s at t = %.17g (step %llu)\n", run.id.c_str(),
                 path.c_str(), r.t, static_cast<unsigned long long>(r.step));
  return r;
}

void Checkpointer::safe_point(const RunSpec& run, const Model& model, const RunSnapshot& snap) {
  int flags[2] = {pending_signal(), seconds_ > 0.0 && wall_now() - last_time_ >= seconds_ ? 1 : 0};
  if (ctx_.size() > 1) MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, ctx_.comm());
  const bool by_steps = every_ > 0 && snap.step >= last_step_ + static_cast<std::uint64_t>(every_);
  if (!(flags[0] || flags[1] || by_steps)) return;
  write(run, model, snap);
  last_step_ = snap.step;
  last_time_ = wall_now();
  if (flags[0]) throw Checkpointed(path_, flags[0]);
}

void Checkpointer::write(const RunSpec& run, const Model& model, const RunSnapshot& snap) {
  io::SafeOutput safe(path_, true, ctx_.comm());
  {
    h5::File f = h5::File::create(safe.temp_path(), ctx_.comm());
    const hid_t root = f.id();
    const io::StateRows layout = io::state_rows(model, ctx_);
    h5::attr(root, "format", kCheckpointFormat);
    h5::attr(root, "study", cfg_.get_string("study"));
    h5::attr(root, "model", model.name());
    h5::attr(root, "method", run.method);
    h5::attr(root, "run_id", run.id);
    h5::attr(root, "rows", static_cast<std::int64_t>(layout.global_rows));
    h5::attr(root, "cols", static_cast<std::int64_t>(layout.cols));
    h5::attr(root, "config", identity(run, model));
    h5::attr(root, "t", snap.t);
    h5::attr(root, "step", static_cast<std::int64_t>(snap.step));
    h5::attr(root, "calls", static_cast<std::int64_t>(snap.calls));
    h5::attr(root, "counters", counters_vector(snap.counters));
    // The stepper's cache flag must agree on every rank (it follows the same steps).
    h5::attr(root, "cache_valid", static_cast<std::int64_t>(ctx_.min(snap.cache_valid ? 1.0 : 0.0) > 0.0 ? 1 : 0));
    io::write_state(f, root, "state", model, layout, snap.y);
    {
      h5::Handle g = h5::create_group(root, "series");
      const TimeSeries& s = *snap.series;
      h5::write_vector(f, g, "step", s.step);
      h5::write_vector(f, g, "time", s.time);
      std::vector<double> values;
      for (const auto& v : s.values) values.insert(values.end(), v.begin(), v.end());
      h5::write_vector(f, g, "values", values);
      if (!s.names.empty()) h5::attr(g, "names", s.names);
    }
    if (snap.adaptive) {
      const AdaptiveState& a = *snap.adaptive;
      h5::Handle g = h5::create_group(root, "adaptive");
      h5::attr(g, "h", a.h);
      h5::attr(g, "samples", static_cast<std::int64_t>(a.samples));
      h5::attr(g, "memory", std::vector<double>{a.memory.err1, a.memory.err2, a.memory.h1,
                                                static_cast<double>(a.memory.filled)});
      h5::write_vector(f, g, "t", a.record.t);
      h5::write_vector(f, g, "h", a.record.h);
      h5::write_vector(f, g, "err", a.record.err);
      h5::write_vector(f, g, "rejected_t", a.record.rejected_t);
      h5::write_vector(f, g, "rejected_h", a.record.rejected_h);
      h5::attr(g, "accepted", static_cast<std::int64_t>(a.record.accepted));
      h5::attr(g, "rejected", static_cast<std::int64_t>(a.record.rejected));
    }
    f.close();
  }
  safe.commit();
}

void Checkpointer::attach(const RunSpec& run, const Model& model, RunHooks& hooks,
                          std::function<void(double)> progress) {
  if (!active_) return;
  hooks.safe_point = [this, &run, &model](const RunSnapshot& snap) { safe_point(run, model, snap); };
  hooks.checkpoint = std::move(progress);
}

void Checkpointer::complete(const std::function<void()>& finish_output) {
  // An explicit --restart file other than <output>.ckpt.h5 stays (the user named it).
  auto remove_checkpoint = [this] {
    if (ctx_.rank() == 0) std::remove(path_.c_str());
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
