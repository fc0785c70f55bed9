// liebench_steps: a fixed number of steps (or an adaptive run) of one method on the N-fold
// pendulum chain or the dipolar particles, over all ranks of MPI_COMM_WORLD, and a one-line
// rank-0 summary of key=value pairs. Built twice from this one source: against libliebench and
// Open MPI (the regular build), and from the compute core alone with SimGrid's smpicxx (the SMPI
// variant, scripts/smpi/build.sh), where MPI_Wtime is the simulated clock. No HDF5, no I/O layer:
// only the compute core's API (models, methods, the step loop, the context's reductions).
//   mpirun -n 2 build/liebench_steps --model=chain --N=1000000 --steps=10 [--dt=1e-4] [--method=rkmk4]
//   smpirun -np 64 -platform P.xml build-smpi/liebench_steps --model=particles --N=4000 --steps=2
//   liebench_steps --model=particles --N=100 --method=rkmk54 --tol=1e-6 --t_final=0.1   (adaptive)
//   smpirun -np 1024 ... liebench_steps --model=box --lattice=128 --method=dlm --steps=2
// --model=box (issue 28): dipolar LJ spheres on a simple cubic lattice of --lattice=n (n^3
// sites) or nx,ny,nz sites at density 0.8 in a periodic box, rc = 2.5, skin 0.3
// (experiments/scaling/dipolar_box_N1M.cfg's physics), on the cutoff path's spatial
// decomposition; the line adds its traffic (max and mean over ranks, parallel/spatial_domains.hpp:
// DomainTraffic): domain_bytes_held, domain_bytes_eval and domain_messages_eval (sent per
// evaluation, the last one), domain_rebuilds, domain_home_max, domain_ghosts_max,
// domain_entries_max and domain_entries_sum (Verlet list entries).
// --replay=yes --entry_ns=E --body_ns=B (with --model=box --method=dlm): the decomposition
// replayed from the lattice geometry (parallel/domain_replay.hpp), E ns per list entry and B ns
// per body-step injected as compute (scripts/smpi/calibrate.sh --box-only): no state, so
// energy0, energy and state_hash are na; the line ends with replay=1 entry_ns= body_ns=.
// --h0 (adaptive): the first trial step (key h0; 0, the default: h0_fraction t_final).
// --observables=no: no energy at the start and the end (energy0=na energy=na), so no field
// evaluation outside the stepping loop; for simulated runs whose pair work is modelled
// (LIEBENCH_SMPI_MODEL_PAIRS=1: their forces are zero, their energy meaningless).
// --blocks (chain): the virtual blocks that fix the arithmetic (nfold_pendulum.blocks; 0: the
// model's default, at most 256): bitwise equal results need ranks <= blocks, so runs on up to
// 1024 ranks give --blocks=1024 on every layout. --initial: the model's initial-state choice
// (chain: paper (default), authors, random; particles: random (default), random2d; `liebench run
// --help`); a state read from a file needs the I/O layer, which this program does not use.
// Keys printed: build, ranks, threads, model, N, method, steps (accepted), rejected, rhs (field
// evaluations), seconds (stepping loop, max over ranks; simulated seconds in the SMPI build),
// s_per_step, comm_seconds (the model's "comm" timer, max over ranks; simulated seconds in the
// SMPI build, whose par::Timers read MPI_Wtime), cpu_seconds (the
// stepping loop's CPU time of the calling thread, max over ranks: the clock SMPI measures
// compute bursts with, so on a loaded machine the regular build's cpu_seconds, not its
// seconds, is what the simulated seconds on 1 rank reproduce; "na" in the SMPI build), energy0, energy
// (total_energy at the start and the end, %.17g), state_hash: a 64-bit hash of the bits of the
// final state that does not depend on the layout (the sum mod 2^64 of one hash per global
// component row, io::state_rows), so equal hashes on any ranks x threads mean equal bits.
// Then the per-phase seconds of the stepping loop (par::Timers, parallel/timers.hpp; each the
// max over ranks of that rank's total, so they need not add up; simulated seconds in the SMPI
// build): t_rhs (field evaluations, incl. their communication), t_comm (communication inside
// the field: the chain's halo exchange and the gather of its tridiagonal block records, the
// particles' gather of positions and dipoles; = comm_seconds; under SMPI it includes the wait
// for the slowest rank), t_halo (the chain's halo exchange of one link direction with each
// neighbour, a part of t_comm; 0 for the particles), t_solve (the chain: the reduced
// tridiagonal system of blocks - 1 separators, solved redundantly on every rank; 0 for the
// particles), t_comm_min (the min over ranks of the comm time: the rank that reaches the
// collectives last waits least, so this is about the cost of the communication itself and
// t_comm - t_comm_min the wait for slower ranks). seconds - t_rhs is roughly the method's own
// algebra (stage combinations, exp, dexpinv).
// Bad arguments: one line on stderr naming the value, exit 2.
#include <mpi.h>
#include <omp.h>

#include <time.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/numeric.hpp"
#include "core/quote.hpp"
#include "io/config.hpp"
#include "models/state_rows.hpp"
#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/dipolar.hpp"
#include "models/model.hpp"
#include "parallel/context.hpp"
#include "parallel/domain_replay.hpp"
#include "parallel/block_layout.hpp"

#ifdef LIEBENCH_SMPI  // set by CMakeLists.txt in the SMPI variant
constexpr const char* kBuild = "smpi";
#else
constexpr const char* kBuild = "regular";
#endif

using namespace lie;

namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// FNV-1a over the bytes of one row, mixed with the row's global index; rows are added mod 2^64,
// so the result is the same for every split of the rows over ranks.
std::uint64_t state_hash(const Model& model, const par::Context& ctx, const double* y) {
  const io::StateRows layout = io::state_rows(model, ctx);
  const std::vector<double> rows = io::pack_rows(model, layout, y);
  std::uint64_t local = 0;
  if (!layout.replicated || ctx.is_root()) {
    for (std::size_t i = 0; i < layout.local_rows; ++i) {
      std::uint64_t h = 0xcbf29ce484222325ULL;
      const auto* bytes = reinterpret_cast<const unsigned char*>(rows.data() + i * layout.cols);
      for (std::size_t b = 0; b < layout.cols * sizeof(double); ++b) h = (h ^ bytes[b]) * 0x100000001b3ULL;
      local += splitmix64(h ^ splitmix64(layout.row_offset + i));
    }
  }
  return ctx.sum_u64(local);
}

}  // namespace

// --model=box: rc and the Verlet skin (the real path's Config and the replay)
constexpr double kBoxCutoff = 2.5, kBoxSkin = 0.3;

// The decomposition's traffic on the summary line (max and mean over ranks; collective).
std::string traffic_text(par::Context& ctx, const par::DomainTraffic& tr) {
  char text[512];
  const double P = ctx.size();
  std::snprintf(text, sizeof text,
                " domain_bytes_held_max=%.0f domain_bytes_held_mean=%.0f domain_bytes_eval_max=%.0f"
                " domain_bytes_eval_mean=%.0f domain_messages_eval_max=%.0f domain_messages_eval_mean=%.2f"
                " domain_rebuilds=%llu domain_home_max=%.0f domain_ghosts_max=%.0f domain_entries_max=%.0f"
                " domain_entries_sum=%.0f",
                ctx.max(static_cast<double>(tr.bytes_held)), ctx.sum(static_cast<double>(tr.bytes_held)) / P,
                ctx.max(static_cast<double>(tr.bytes_per_evaluation)),
                ctx.sum(static_cast<double>(tr.bytes_per_evaluation)) / P,
                ctx.max(static_cast<double>(tr.messages_per_evaluation)),
                ctx.sum(static_cast<double>(tr.messages_per_evaluation)) / P,
                static_cast<unsigned long long>(tr.rebuilds), ctx.max(static_cast<double>(tr.home)),
                ctx.max(static_cast<double>(tr.ghosts)), ctx.max(static_cast<double>(tr.list_entries)),
                ctx.sum(static_cast<double>(tr.list_entries)));
  return text;
}

// --replay=yes: the box's decomposition replayed from the lattice geometry
// (parallel/domain_replay.hpp) for simulated clusters beyond this machine's memory: the same
// placement, messages and traffic counters as the real cutoff path, no state. dlm's field
// evaluations (one at the start, one per step) each inject entry_ns per Verlet list entry of
// the rank's home bodies, and every step body_ns per owned body (the rest of a step: the
// splitting's kicks and rotations, the dipoles, the torques), both measured on the real path by
// scripts/smpi/calibrate.sh. The line says replay=1, energy and state_hash na.
void run_box_replay(par::Context& ctx, std::map<std::string, std::string>& opt, const std::array<std::size_t, 3>& lat,
                    const std::array<double, 3>& lengths) {
  if (opt["method"] != "dlm")
    throw UsageError("argument --method has value " + quote(opt["method"]) + "; --replay=yes replays dlm (one field evaluation per step)");
  if (opt["entry_ns"].empty() || opt["body_ns"].empty())
    throw UsageError("argument --replay=yes needs --entry_ns and --body_ns (nanoseconds per Verlet list entry and per "
                     "body: scripts/smpi/calibration.env BOX_ENTRY_NS, BOX_BODY_NS)");
  const double entry_ns = parse_double("entry_ns", opt["entry_ns"]), body_ns = parse_double("body_ns", opt["body_ns"]);
  if (!(entry_ns >= 0) || !(body_ns >= 0))
    throw UsageError("arguments --entry_ns and --body_ns are " + quote(opt["entry_ns"]) + " and " + quote(opt["body_ns"]) +
                     "; --replay=yes needs both, nanoseconds >= 0 (scripts/smpi/calibration.env: BOX_ENTRY_NS, BOX_BODY_NS)");
  const long steps = parse_int("steps", opt["steps"]);
  if (steps < 1) throw UsageError("argument --steps has value " + opt["steps"] + "; expected an integer >= 1");
  const std::size_t N = lat[0] * lat[1] * lat[2];
  par::SpatialDomains::Options o;
  o.cutoff = kBoxCutoff;  // the real box's physics (run_steps' Config for --model=box)
  o.skin = kBoxSkin;
  o.box.length = lengths;
  o.box.periodic = {true, true, true};
  const LatticeSites sites(lat, o.box.length);
  const par::Range owned = par::balanced_range(N, ctx.size(), ctx.rank());
  const std::size_t n[3] = {lat[0], lat[1], lat[2]};
  par::DomainReplay replay(o, owned, ctx, [&](std::size_t i, double* q) { sites.position(i, q); },
                           par::lattice_list_entries(o, n));
  ctx.timers().clear();
  ctx.timers().enable();  // the per-phase seconds below
  ctx.barrier();
  const double t0 = MPI_Wtime();
  for (long e = 0; e <= steps; ++e) {
    if (e > 0) {
#ifdef SMPI_SAMPLE_FLOPS
      smpi_execute_benched(1e-9 * body_ns * static_cast<double>(owned.size()));
#endif
    }
    par::ScopedTimer timer(ctx.timers(), "rhs");
    replay.evaluate(7, 1e-9 * entry_ns);
  }
  ctx.barrier();
  const double seconds = ctx.max(MPI_Wtime() - t0);
  const double t_rhs = ctx.max(ctx.timers().get("rhs")), t_comm = ctx.max(ctx.timers().get("comm")),
               t_comm_min = ctx.min(ctx.timers().get("comm"));
  const std::string traffic = traffic_text(ctx, replay.traffic());
  if (ctx.is_root())
    std::printf("build=%s ranks=%d threads=%d model=box N=%zu method=dlm dt=%s tol=none steps=%ld rejected=0 rhs=%ld"
                " seconds=%.9g s_per_step=%.9g comm_seconds=%.9g cpu_seconds=na energy0=na energy=na state_hash=na"
                " t_rhs=%.9g t_comm=%.9g t_halo=0 t_solve=0 t_comm_min=%.9g%s replay=1 entry_ns=%s body_ns=%s\n",
                kBuild, ctx.size(), ctx.threads(), N, opt["dt"].c_str(), steps, steps + 1, seconds,
                seconds / static_cast<double>(steps), t_comm, t_rhs, t_comm, t_comm_min, traffic.c_str(),
                opt["entry_ns"].c_str(), opt["body_ns"].c_str());
}

void run_steps(par::Context& ctx, std::map<std::string, std::string>& opt, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto eq = a.find('=');
    if (a.rfind("--", 0) != 0 || eq == std::string::npos || !opt.count(a.substr(2, eq - 2)))
      throw UsageError("unknown argument " + quote(a) + "; expected --KEY=VALUE with KEY one of model, N, steps, dt, "
                       "method, tol, t_final, h0, blocks, initial, observables, lattice, replay, entry_ns, body_ns");
    opt[a.substr(2, eq - 2)] = a.substr(eq + 1);
  }
  const bool chain = opt["model"] == "chain";
  if (opt["observables"] != "yes" && opt["observables"] != "no")
    throw UsageError("argument --observables has value " + quote(opt["observables"]) + "; expected yes or no");
  // no: energy0 = energy = na, and no field evaluations outside the stepping loop (a simulated
  // run whose pair work is modelled has no meaningful energy: LIEBENCH_SMPI_MODEL_PAIRS)
  const bool with_observables = opt["observables"] == "yes";
  const bool box = opt["model"] == "box";
  if (!chain && !box && opt["model"] != "particles")
    throw UsageError("argument --model has value " + quote(opt["model"]) + "; expected chain, particles or box");
  // Step sizes: the chain as bench_pendulum_chain (1e-4), the particles as [K]'s runs (0.01),
  // the box as its scaling deck (0.002).
  if (opt["dt"].empty()) opt["dt"] = chain ? "1e-4" : box ? "0.002" : "0.01";
  // --lattice=n (a cube of n^3 sites) or nx,ny,nz; the box's sides n_a / cbrt(0.8) (density 0.8)
  std::array<std::size_t, 3> lat{};
  std::array<double, 3> lengths{};
  std::string L[3], n[3];
  {
    std::vector<std::string> parts;
    std::string part;
    for (char c : opt["lattice"] + ",") {
      if (c == ',') parts.push_back(part), part.clear();
      else part += c;
    }
    if (parts.size() == 1) parts = {parts[0], parts[0], parts[0]};
    if (parts.size() != 3)
      throw UsageError("argument --lattice has value " + quote(opt["lattice"]) + "; expected n or nx,ny,nz (integers >= 5)");
    for (int a = 0; a < 3; ++a) {
      const long v = parse_int("lattice", parts[static_cast<std::size_t>(a)]);
      if (box && v < 5) throw UsageError("argument --lattice has value " + opt["lattice"] + "; expected integers >= 5");
      lat[static_cast<std::size_t>(a)] = static_cast<std::size_t>(std::max(1L, v));
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", static_cast<double>(v) / std::cbrt(0.8));
      L[a] = text, n[a] = std::to_string(v);
      lengths[static_cast<std::size_t>(a)] = std::stod(L[a]);
    }
  }
  if (box) opt["N"] = std::to_string(lat[0] * lat[1] * lat[2]);
  const long N = parse_int("N", opt["N"]);
  if (N < 2) throw UsageError("argument --N has value " + opt["N"] + "; expected an integer >= 2");
  const Config cfg = box ? Config::from_pairs({{"model", "dipolar"}, {"dipolar.initial", "lattice"},
                                               {"dipolar.lattice", n[0] + "," + n[1] + "," + n[2]},
                                               {"dipolar.box", L[0] + "," + L[1] + "," + L[2]}, {"dipolar.cutoff", num(kBoxCutoff)},
                                               {"dipolar.skin", num(kBoxSkin)}, {"dipolar.lj_attraction", "true"}})
                     : chain ? Config::from_pairs({{"model", "nfold_pendulum"},
                                                 {"nfold_pendulum.N", opt["N"]},
                                                 {"nfold_pendulum.initial", opt["initial"].empty() ? "paper" : opt["initial"]},
                                                 {"nfold_pendulum.blocks", opt["blocks"]},
                                                 {"h0", opt["h0"]}})
                           : Config::from_pairs({{"model", "dipolar"},
                                                 {"dipolar.N", opt["N"]},
                                                 {"dipolar.initial", opt["initial"].empty() ? "random" : opt["initial"]},
                                                 {"h0", opt["h0"]}});
  if (opt["replay"] != "no") {
    if (opt["replay"] != "yes")
      throw UsageError("argument --replay has value " + quote(opt["replay"]) + "; expected yes or no");
    if (!box) throw UsageError("argument --replay=yes needs --model=box (got --model=" + opt["model"] + ")");
    run_box_replay(ctx, opt, lat, lengths);
    return;
  }
  auto model = make_model(cfg, ctx);
  auto stepper = make_stepper(opt["method"], cfg, *model);
  stepper->bind(*model, ctx);
  std::vector<double> y(model->space().state_size());
  model->initial_state(y.data());
  Observables start, end;
  if (with_observables) model->observables(0.0, y.data(), start);

  const double dt = parse_double("dt", opt["dt"]);
  if (!(dt > 0)) throw UsageError("argument --dt has value " + opt["dt"] + "; expected a step > 0");
  const long steps = parse_int("steps", opt["steps"]);
  if (steps < 1) throw UsageError("argument --steps has value " + opt["steps"] + "; expected an integer >= 1");
  std::uint64_t accepted = static_cast<std::uint64_t>(steps), rejected = 0;
  double t_end = dt * static_cast<double>(steps);
  ctx.timers().clear();
  ctx.timers().enable();  // the per-phase seconds below
  ctx.barrier();
  const double t0 = MPI_Wtime(), cpu0 = thread_cpu_seconds();
  if (opt["tol"].empty()) {
    FixedStepOptions fo;
    fo.h = dt;
    fo.steps = static_cast<std::uint64_t>(steps);
    integrate_fixed(*stepper, y.data(), fo, nullptr);
  } else {
    // Adaptive: the error norm of every trial step is a global reduction ([P] 4).
    if (!opt["t_final"].empty()) t_end = parse_double("t_final", opt["t_final"]);
    const AdaptiveOptions ao =
        adaptive_options(cfg, stepper->info(), 0.0, t_end, parse_double("tol", opt["tol"]));
    const AdaptiveRecord rec = integrate_adaptive(*stepper, ctx, y.data(), ao, nullptr, y.size());
    accepted = rec.accepted;
    rejected = rec.rejected;
  }
  const double cpu = thread_cpu_seconds() - cpu0;
  ctx.barrier();
  const double seconds = ctx.max(MPI_Wtime() - t0);
  const double cpu_max = ctx.max(cpu);
  // Per-phase seconds of the stepping loop, max over ranks (par::Timers: the simulated clock
  // in the SMPI build). The same phases in the same order on every rank (collective max).
  std::string phases;
  for (const char* phase : {"rhs", "comm", "halo", "solve"}) {
    char text[64];
    std::snprintf(text, sizeof text, " t_%s=%.9g", phase, ctx.max(ctx.timers().get(phase)));
    phases += text;
  }
  {
    char text[64];
    std::snprintf(text, sizeof text, " t_comm_min=%.9g", ctx.min(ctx.timers().get("comm")));
    phases += text;
  }
  const double comm_s = ctx.max(ctx.timers().get("comm"));
  char comm_text[32] = "na", cpu_text[32] = "na";
  std::snprintf(comm_text, sizeof comm_text, "%.9g", comm_s);
  if (std::string(kBuild) == "regular") std::snprintf(cpu_text, sizeof cpu_text, "%.9g", cpu_max);
  if (with_observables) model->observables(t_end, y.data(), end);
  char energy_text[80] = "energy0=na energy=na";
  if (with_observables)
    std::snprintf(energy_text, sizeof energy_text, "energy0=%.17g energy=%.17g", start.get("total_energy"),
                  end.get("total_energy"));
  const std::uint64_t hash = state_hash(*model, ctx, y.data());
  // field evaluations of one rank (every rank evaluates the field at every stage)
  const std::uint64_t rhs = ctx.sum_u64(stepper->counters().rhs) / static_cast<std::uint64_t>(ctx.size());
  std::string traffic;
  if (const auto* d = dynamic_cast<const Dipolar*>(model.get()); d != nullptr && d->domains() != nullptr)
    traffic = traffic_text(ctx, d->domains()->traffic());
  if (ctx.is_root())
    std::printf("build=%s ranks=%d threads=%d model=%s N=%ld method=%s dt=%s tol=%s steps=%" PRIu64
                " rejected=%" PRIu64 " rhs=%" PRIu64
                " seconds=%.9g s_per_step=%.9g comm_seconds=%s cpu_seconds=%s %s state_hash=%016" PRIx64
                "%s%s\n",
                kBuild, ctx.size(), ctx.threads(), opt["model"].c_str(), N, opt["method"].c_str(), opt["dt"].c_str(),
                opt["tol"].empty() ? "none" : opt["tol"].c_str(), accepted, rejected,
                rhs,
                seconds, seconds / static_cast<double>(accepted + rejected), comm_text, cpu_text, energy_text, hash,
                phases.c_str(), traffic.c_str());
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int status = 0;
  {
    par::Context ctx(MPI_COMM_WORLD);
    std::map<std::string, std::string> opt = {{"model", "chain"}, {"N", "1000"},  {"steps", "10"},
                                              {"dt", ""},         {"method", "rkmk4"}, {"tol", ""},
                                              {"t_final", ""},    {"blocks", "0"},
                                              {"initial", ""},    {"h0", "0"},
                                              {"observables", "yes"}, {"lattice", "32"},
                                              {"replay", "no"},   {"entry_ns", ""},
                                              {"body_ns", ""}};
    try {
      run_steps(ctx, opt, argc, argv);
    } catch (const UsageError& e) {
      if (ctx.is_root()) std::fprintf(stderr, "liebench_steps: %s\n", e.what());
      status = 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "liebench_steps: rank %d failed: %s\n", ctx.rank(), e.what());
      status = 1;
    }
  }
  MPI_Finalize();
  return status;
}
