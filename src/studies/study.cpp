#include "studies/study.hpp"

#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "core/quote.hpp"
#include "io/safe_output.hpp"
#include "studies/checkpoint.hpp"
#include "studies/grid_driver.hpp"
#include "studies/interrupt.hpp"
#include "studies/merge.hpp"

namespace lie {

// The configuration enters the studies here (run_study, check_study): these functions read the
// keys that decide how a study is run (study, ranks_per_run, the model size, the checkpoint
// keys) and hand the configuration to the plan (checked_plan); the runs get the typed plan.
// <edge>

namespace {
const bool kStudyKeys = declare_options({
    {"study", OptionType::String, "simulate", "study kind (`liebench list studies`)", {}, "run"},
    {"ranks_per_run", OptionType::NonNegativeInt, "0",
     "ranks that integrate one grid point together (0: all ranks run every point). With P ranks and k = "
     "ranks_per_run < P, P/k groups of k ranks run disjoint parts of the grid concurrently and rank 0 merges "
     "them: the file is the one a single job writes (small models, many grid points)",
     {}, "run"},
});

/// The parts of a study split over rank groups, named after the final file (same directory, so
/// that nothing is ever written under the final name until the merged file is complete) and
/// after rank 0's host and pid (`owner`), so that parts left by a killed job can be told stale.
std::string group_part_path(const std::string& output, int group, int groups, const std::string& owner) {
  return output + ".group" + std::to_string(group + 1) + "of" + std::to_string(groups) + "." + owner + ".part";
}

/// Validates a study that runs in rank groups of k ranks: the output on all ranks, the study
/// (models, methods, grid) within each group, where it will run; the first failing rank's
/// UsageError is thrown on every rank. Collective.
void validate_in_groups(const StudyEntry& e, const Config& cfg, par::Context& ctx, const RunRequest& req, int k) {
  const int P = ctx.size();
  if (P % k != 0)
    throw UsageError("key 'ranks_per_run' has value " + quote(std::to_string(k)) + " but the job has " + std::to_string(P) +
                     " ranks; ranks_per_run must divide the number of ranks (or be 0)");
  if (req.part_count > 1)
    throw UsageError("key 'ranks_per_run' cannot be combined with --part (both split the grid); use one of them");
  if (e.shape.layouts)
    throw UsageError("key 'ranks_per_run' cannot be used with study = " + e.name + " (it times the whole job's layout)");
  MPI_Comm gcomm = MPI_COMM_NULL;
  MPI_Comm_split(ctx.comm(), ctx.rank() / k, ctx.rank(), &gcomm);
  std::string problem;
  try {
    par::Context gctx(gcomm, ctx.deterministic());
    studies::checked_plan(e, cfg, gctx, RunRequest{});
  } catch (const UsageError& ex) {
    problem = ex.what();
  }
  MPI_Comm_free(&gcomm);
  const int bad = problem.empty() ? 0 : 1;
  int who = bad ? ctx.rank() : P, first = P;
  MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, ctx.comm());
  if (first != P) throw UsageError(par::broadcast_string(problem, first, ctx.comm()));
  io::SafeOutput::check(req.output, req.force, ctx.comm());  // after the configuration's errors
}

void run_in_rank_groups(const StudyEntry& e, const Config& cfg, par::Context& ctx, const RunRequest& req, int k) {
  const int P = ctx.size();
  validate_in_groups(e, cfg, ctx, req, k);
  const int groups = P / k, group = ctx.rank() / k;
  MPI_Comm gcomm = MPI_COMM_NULL;
  MPI_Comm_split(ctx.comm(), group, ctx.rank(), &gcomm);
  const std::string owner =
      par::broadcast_string(io::host_tag() + "." + std::to_string(static_cast<long>(::getpid())), 0, ctx.comm());
  std::vector<std::string> parts;
  for (int g = 0; g < groups; ++g) parts.push_back(group_part_path(req.output, g, groups, owner));

  RunRequest sub = req;
  sub.output = parts[static_cast<std::size_t>(group)];
  sub.force = true;  // the part names belong to this job
  sub.part_index = group;
  sub.part_count = groups;
  sub.rank_group = true;
  sub.progress = req.progress && ctx.rank() == 0;
  std::exception_ptr failure;
  int interrupted = 0;
  std::string runs_failed;  // the group's part was written but some of its runs failed
  {
    par::Context gctx(gcomm, ctx.deterministic());
    try {
      studies::run_grid(e, studies::checked_plan(e, cfg, gctx, sub), gctx, sub);
    } catch (const RunsFailed& ex) {
      runs_failed = ex.what();
    } catch (const studies::Interrupted& ex) {
      interrupted = ex.signal();
      failure = std::current_exception();
    } catch (...) {
      failure = std::current_exception();
    }
  }
  MPI_Comm_free(&gcomm);
  // Every group reports; if any failed, all parts are removed and every rank fails.
  int status[2] = {failure ? 1 : 0, interrupted}, any[2] = {0, 0};
  MPI_Allreduce(status, any, 2, MPI_INT, MPI_MAX, ctx.comm());
  auto remove_parts = [&] {
    if (ctx.rank() == 0)
      for (const auto& p : parts) std::remove(p.c_str());
  };
  if (any[0]) {
    remove_parts();
    ctx.barrier();
    if (failure) std::rethrow_exception(failure);
    if (any[1]) throw studies::Interrupted(any[1]);
    throw std::runtime_error("a rank group of the study failed (see the messages of the other ranks)");
  }
  // Rank 0 merges the parts into the final file (atomically), then removes them.
  std::string merge_error;
  if (ctx.rank() == 0) {
    try {
      studies::merge_study_files(parts, req.output, req.force);
    } catch (const std::exception& ex) {
      merge_error = ex.what();
    }
    remove_parts();
  }
  int merge_failed = merge_error.empty() ? 0 : 1;
  MPI_Bcast(&merge_failed, 1, MPI_INT, 0, ctx.comm());
  if (merge_failed) throw IoError(ctx.rank() == 0 ? "merging the rank groups failed: " + merge_error
                                                  : "merging the rank groups failed on rank 0");
  // Failed runs of any group: the merged file is written; every rank fails with the first
  // group's message (key `failures = expected` never gets here).
  const int has = runs_failed.empty() ? 0 : 1;
  int who = has ? ctx.rank() : P, first = P;
  MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, ctx.comm());
  if (first < P)
    throw RunsFailed(par::broadcast_string(runs_failed, first, ctx.comm()) + " (rank group " +
                     std::to_string(first / k + 1) + " of " + std::to_string(groups) + "; merged into " + req.output +
                     ")");
}

/// Bytes of memory the machine can give this job: MemAvailable (else physical pages) of each
/// node, summed over the nodes. Collective.
double job_memory_bytes(par::Context& ctx) {
  double mine = 0.0;
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0.0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") mine = kb * 1024.0;
  if (mine <= 0.0) mine = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(ctx.comm(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_rank = 0;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_free(&node);
  double contribution = node_rank == 0 ? mine : 0.0, total = 0.0;
  MPI_Allreduce(&contribution, &total, 1, MPI_DOUBLE, MPI_SUM, ctx.comm());
  return total;
}

/// Refuses, before any model is built, a model size `<model>.N` whose state alone (a lower
/// bound: 6 doubles per component, the state and one stage copy) exceeds the memory of the
/// job's nodes (UsageError naming the key). (Step counts beyond 2^62: make_plan.)
/// TODO(lead): a per-model memory hook (bytes per component, from the model) would make the
/// estimate sharp.
void check_sizes(const Config& cfg, par::Context& ctx) {
  const std::string size_key = cfg.get_string("model") + ".N";
  if (!OptionCatalog::instance().find(size_key) || !cfg.has(size_key)) return;
  const double n = parse_double(size_key, cfg.get_string(size_key));
  constexpr double kBytesPerComponent = 2 * 6 * sizeof(double);
  const double need = n * kBytesPerComponent, have = job_memory_bytes(ctx);
  if (have > 0.0 && need > have) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.3g GB for the state alone; the job's node(s) have %.3g GB available", need / 1e9,
                  have / 1e9);
    throw UsageError("key " + quote(size_key) + " has value " + quote(cfg.get_string(size_key)) + ": at least " + buf +
                     "; use a smaller " + size_key + " or more nodes");
  }
}

/// The checkpoint keys and --restart where checkpoints are not written (scaling, save_state,
/// ranks_per_run): one line, before anything runs.
void check_checkpoint_keys(const Config& cfg, const RunRequest& req, bool rank_groups) {
  const bool asked = cfg.get_int("checkpoint_every") > 0 || cfg.get_nonnegative("checkpoint_seconds") > 0.0 ||
                     !req.restart.empty();
  if (!asked) return;
  RunRequest r = req;
  r.rank_group = rank_groups;
  const std::string why = studies::checkpoint_unsupported(cfg.get_string("study"), cfg.get_bool("save_state", false), r);
  if (!why.empty()) throw UsageError("checkpoint_every, checkpoint_seconds and --restart cannot be used here: " + why);
}

}  // namespace

void run_study(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  const std::string kind = cfg.get_string("study");
  const StudyEntry& e = StudyRegistry::instance().get(kind, "study (key 'study')");
  check_sizes(cfg, ctx);
  const long k = cfg.get_int("ranks_per_run", 0);
  check_checkpoint_keys(cfg, req, k > 0 && k < ctx.size());
  if (k > 0 && k < ctx.size()) {
    run_in_rank_groups(e, cfg, ctx, req, static_cast<int>(k));
    return;
  }
  // The configuration's errors come before the output's ("output exists" is the last thing to fix):
  // the study's whole check runs first; then the driver checks the output before creating a file.
  const studies::StudyPlan plan = studies::checked_plan(e, cfg, ctx, req);
  studies::run_grid(e, plan, ctx, req);
}

void check_study(const Config& cfg, par::Context& ctx, const RunRequest& req) {
  const std::string kind = cfg.get_string("study");
  const StudyEntry& e = StudyRegistry::instance().get(kind, "study (key 'study')");
  check_sizes(cfg, ctx);
  const long k = cfg.get_int("ranks_per_run", 0);
  check_checkpoint_keys(cfg, req, k > 0 && k < ctx.size());
  if (k > 0 && k < ctx.size()) {
    validate_in_groups(e, cfg, ctx, req, static_cast<int>(k));
    return;
  }
  studies::checked_plan(e, cfg, ctx, req);  // (with the part: --part I/N is checked too)
  io::SafeOutput::check(req.output, req.force, ctx.comm());
}

// </edge>

}  // namespace lie
