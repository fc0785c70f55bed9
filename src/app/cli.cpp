// liebench: the command-line front end (lie::liebench_main; src/app/main.cpp calls it).
//   liebench --help | --version
//   liebench list [groups|methods|controllers|models|studies|keys] [--markdown]
//   liebench run FILE.cfg [--key=value ...] [--output FILE.h5] [--force] [--part I/N]
//   liebench <command> ...   (report, merge, ...: registered commands, see `liebench --help`)
// Exit status (core/error.hpp, docs/failures.md "Exit status"): 0 success, 1 unexpected failure, 2 bad
// input (nothing written), 3 runs failed (file written, rows marked failed), 4 I/O error (no
// file written, an earlier one intact), 5 checkpointed, not finished (run the same command again), 128 + signal
// when a study was stopped by SIGTERM/SIGINT/... (no result file written, earlier file intact).
#include <mpi.h>
#include <omp.h>

#include <sched.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "app/commands.hpp"
#include "app/liebench_main.hpp"
#include "app/plugins.hpp"
#include "build_info.hpp"
#include "core/error.hpp"
#include "core/quote.hpp"
#include "git_version.hpp"
#include "groups/space.hpp"
#include "io/config.hpp"
#include "methods/controller.hpp"
#include "methods/stepper.hpp"
#include "models/model.hpp"
#include "parallel/context.hpp"
#include "studies/checkpoint.hpp"
#include "studies/interrupt.hpp"
#include "studies/run_log.hpp"
#include "studies/study.hpp"

namespace po = boost::program_options;
using namespace lie;

namespace {

// The key of the parallel layer's one option, read here where the Context is made (the parallel
// layer sits below the configuration's).
const bool kParallelKeys = declare_options({
    {"deterministic", OptionType::Bool, "true",
     "exact (order-independent) global sums: results bitwise identical for every ranks x threads layout", {}, "run"},
});

int g_rank = 0;

/// An exception's message as printed: one line, unprintable bytes escaped, at most 2000
/// characters (core/quote.hpp; the last guard for a message that echoes input without quote()).
std::string message(const std::exception& e) { return printable(e.what(), 2000); }

std::string version_text() {
  std::ostringstream os;
  os << "liebench " << LIEBENCH_VERSION << " (" << LIEBENCH_GIT_DESCRIBE << ")\n"
     << "  compiler: " << LIEBENCH_CXX_COMPILER << ", flags: " << LIEBENCH_CXX_FLAGS << " (" << LIEBENCH_BUILD_TYPE
     << ")\n"
     << "  MPI " << LIEBENCH_MPI_VERSION << ", OpenMP " << LIEBENCH_OPENMP_VERSION << ", HDF5 "
     << LIEBENCH_HDF5_VERSION << " (parallel), Eigen " << LIEBENCH_EIGEN_VERSION << ", Boost "
     << LIEBENCH_BOOST_VERSION << "\n";
  return os.str();
}

void print_usage(std::ostream& os) {
  os << "liebench -- benchmark suite for Lie group integrators on mechanical systems\n\n"
        "usage:\n"
        "  liebench run FILE.cfg [--key=value ...] [--output FILE.h5] [--force] [--part I/N]\n"
        "        run the experiment described by FILE.cfg; any key of the file can be given (and\n"
        "        overridden) on the command line; `liebench run --help` lists every key\n"
        "  liebench list [groups|methods|controllers|models|studies|keys] [--markdown]\n"
        "        what is registered (all of it without an argument)\n"
        "  liebench <command> ... --plugin=LIB.so[,LIB2.so]\n"
        "        load plugins (models, methods, studies built against LieBench::core) first; also the\n"
        "        experiment file's key `plugin` and LIEBENCH_PLUGINS=a.so:b.so (README: Extending)\n";
  for (const auto* c : CommandRegistry::instance().all()) os << "  liebench " << c->usage << "\n        " << c->summary << "\n";
  os << "  liebench --version\n\n"
        "Run in parallel with `mpirun -n P liebench run FILE.cfg` (OMP_NUM_THREADS threads per rank).\n"
        "Exit status: 0 success, 1 unexpected failure, 2 bad input (nothing written),\n"
        "3 runs failed (result file written, their rows marked failed; key failures = expected: 0),\n"
        "4 I/O error (no result file written, an earlier one kept), 5 checkpointed, not finished (run the same command again),\n"
        "128 + signal when SIGTERM/SIGINT stopped a study (no result file written, an earlier one kept).\n";
}

// ------------------------------------------------------------------ list
void list_groups(std::ostream& os, bool md) {
  if (md) os << "| factor | group | acts on | dim g | dim state |\n|---|---|---|---|---|\n";
  else os << "Lie groups and homogeneous-space factors (products of these form a model's phase space):\n";
  for (const auto& f : all_factors()) {
    if (md)
      os << "| `" << f.name << "` | " << f.group << " | " << f.manifold << " | " << f.alg_dim << " | " << f.state_dim
         << " |\n";
    else
      os << "  " << std::left << std::setw(18) << f.name << std::setw(28) << f.group << f.manifold << "\n";
  }
  if (!md)
    os << "Coordinate maps of RKMK on every factor (key coordinates, docs/methods.md): exp (default), cayley\n"
          "(Cayley map, exact dcayinv), second_kind (canonical coordinates of the second kind, exact dpsiinv).\n";
}

// A Markdown table cell: '|' would end the cell.
std::string md_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

void list_methods(std::ostream& os, bool md) {
  if (md)
    os << "| method | family | order | embedded | stages | exps/step | explicit | description | source |\n"
          "|---|---|---|---|---|---|---|---|---|\n";
  else
    os << "Methods:\n  " << std::left << std::setw(18) << "name" << std::setw(13) << "family" << std::setw(8)
       << "order" << std::setw(10) << "embedded" << std::setw(8) << "stages" << std::setw(11) << "exps/step"
       << std::setw(10) << "explicit" << "description\n";
  for (const auto* m : MethodRegistry::instance().all()) {
    const MethodInfo& i = m->info;
    // Methods built from a user tableau report the order computed from it at run time.
    // (a composition's from its coefficients)
    const bool user = i.order == 0;
    const std::string from = i.family == "composition" ? "coeffs" : "tableau";
    const std::string order = user ? from : std::to_string(i.order);
    const std::string emb = user && i.family != "composition" ? from : i.embedded_order ? std::to_string(i.embedded_order) : "-";
    const std::string stages = user ? "s" : std::to_string(i.stages);
    const std::string exps = user && i.lie_group ? "s" : std::to_string(i.exps_per_step);
    if (md)
      os << "| `" << i.name << "` | " << i.family << " | " << order << " | " << emb << " | " << stages << " | "
         << exps << " | " << (i.is_explicit ? "yes" : "no") << " | " << md_cell(i.description) << " | "
         << md_cell(i.source) << " |\n";
    else
      os << "  " << std::left << std::setw(18) << i.name << std::setw(13) << i.family << std::setw(8) << order
         << std::setw(10) << emb << std::setw(8) << stages << std::setw(11) << exps << std::setw(10)
         << (i.is_explicit ? "yes" : "no") << i.description << "  " << i.source << "\n";
  }
}

void list_controllers(std::ostream& os, bool md) {
  if (md) os << "| controller | rho of an accepted step (h_new = h clamp(safety rho)) | defaults | source |\n|---|---|---|---|\n";
  else os << "Step-size controllers (key `controller`, group [adaptive]):\n";
  for (const auto* c : ControllerRegistry::instance().all()) {
    if (md)
      os << "| `" << c->name << "` | " << md_cell(c->formula) << " | " << md_cell(c->description) << " | "
         << md_cell(c->source) << " |\n";
    else
      os << "  " << std::left << std::setw(6) << c->name << c->formula << "; " << c->description << "  " << c->source
         << "\n";
  }
}

void list_models(std::ostream& os, bool md) {
  if (md) os << "| model | description | source |\n|---|---|---|\n";
  else os << "Models:\n";
  for (const auto* m : ModelRegistry::instance().all()) {
    if (md) os << "| `" << m->name << "` | " << m->summary << " | " << m->source << " |\n";
    else os << "  " << std::left << std::setw(24) << m->name << m->summary << "  " << m->source << "\n";
  }
}

void list_studies(std::ostream& os, bool md) {
  if (md) os << "| study | description | report tables | checkpointed |\n|---|---|---|---|\n";
  else os << "Studies (key `study`):\n";
  for (const auto* s : StudyRegistry::instance().all()) {
    std::string tables;
    for (const auto& t : s->tables) tables += (tables.empty() ? "" : ", ") + t;
    if (md)
      os << "| `" << s->name << "` | " << s->summary << " | " << tables << " | "
         << (s->not_checkpointed.empty() ? "yes" : "no") << " |\n";
    else os << "  " << std::left << std::setw(14) << s->name << s->summary << "\n";
  }
}

int cmd_list(const std::vector<std::string>& args) {
  bool md = false;
  std::string what = "all";
  for (const auto& a : args) {
    if (a == "--markdown") md = true;
    else if (a == "groups" || a == "methods" || a == "controllers" || a == "models" || a == "studies" || a == "keys" ||
             a == "all")
      what = a;
    else
      throw UsageError("`liebench list` got " + quote(a) +
                       "; allowed: groups, methods, controllers, models, studies, keys, --markdown");
  }
  if (g_rank != 0) return 0;
  std::ostream& os = std::cout;
  if (what == "groups" || what == "all") list_groups(os, md);
  if (what == "all") os << "\n";
  if (what == "methods" || what == "all") list_methods(os, md);
  if (what == "all") os << "\n";
  if (what == "controllers" || what == "all") list_controllers(os, md);
  if (what == "all") os << "\n";
  if (what == "models" || what == "all") list_models(os, md);
  if (what == "all") os << "\n";
  if (what == "studies" || what == "all") list_studies(os, md);
  if (what == "keys") {
    if (md) os << OptionCatalog::instance().markdown();
    else os << OptionCatalog::instance().description();
  }
  return 0;
}

// ------------------------------------------------------------------ run
std::string translate_po_error(const po::error& e, const std::string& where) {
  if (auto* u = dynamic_cast<const po::unknown_option*>(&e)) {
    std::string key = u->get_option_name();  // "--bogus=1" -> "bogus"
    key = key.substr(std::min(key.find_first_not_of('-'), key.size()));
    key = key.substr(0, key.find('='));
    return OptionCatalog::instance().unknown_key_message(key, where);
  }
  if (auto* m = dynamic_cast<const po::multiple_occurrences*>(&e))
    return "key " + quote(m->get_option_name()) + " given more than once" + where;
  return std::string(e.what()) + where;
}

int cmd_run(int argc, char** argv) {
  po::options_description cli("liebench run options", 100, 50);
  cli.add_options()("help,h", "print every key with its default and exit")(
      "output,o", po::value<std::string>(), "result file (.h5); default results/<experiment name>.h5")(
      "force", po::bool_switch(), "overwrite an existing result file")(
      "quiet,q", po::bool_switch(), "no progress output")(
      "check", po::bool_switch(), "validate the experiment (keys, grid, models, methods, output path) and exit without "
                                  "running or writing anything")(
      "part", po::value<std::string>(), "run only part I of N of the study grid, as I/N (merge with `liebench merge`)")(
      "restart", po::value<std::string>(), "continue from this checkpoint (default: <output>.ckpt.h5 when present)");
  po::options_description keys = OptionCatalog::instance().description();
  po::options_description all;
  all.add(cli).add(keys);
  po::options_description pos_only;
  pos_only.add_options()("config", po::value<std::string>(), "experiment file");
  po::options_description parse_desc;
  parse_desc.add(all).add(pos_only);
  po::positional_options_description pos;
  pos.add("config", 1);

  po::variables_map vm;
  try {
    // No guessing of abbreviated keys (Boost's default): --meth=rk4 is an error naming `methods`.
    namespace cls = po::command_line_style;
    const int style = cls::default_style & ~cls::allow_guessing;
    po::store(po::command_line_parser(argc, argv).options(parse_desc).positional(pos).style(style).run(), vm);
  } catch (const po::error& e) {
    throw UsageError(translate_po_error(e, " on the command line"));
  }
  if (vm.count("help")) {
    if (g_rank == 0)
      std::cout << "usage: liebench run FILE.cfg [--key=value ...] [--output FILE.h5] [--force] [--part I/N]\n\n"
                << "The study kind is the key `study` (" << StudyRegistry::instance().names()
                << "); every key below can be set in the\n"
                   "experiment file (`key = value`, or `[section]` + `key = value` for `section.key`) and\n"
                   "overridden on the command line (`--key=value`). Lists are comma separated; a list of\n"
                   "methods, steps, dt or tol is a grid axis, and `grid` adds axes over any other key.\n\n"
                << cli << "\n"
                << keys << "\n";
    return 0;
  }
  if (!vm.count("config")) throw UsageError("`liebench run` needs an experiment file: liebench run FILE.cfg");
  const std::string file = vm["config"].as<std::string>();
  const std::string text = read_experiment_file(file);
  check_ini_text(text, file);
  try {
    std::istringstream in(text);
    po::store(po::parse_config_file(in, keys, false), vm);
  } catch (const po::error& e) {
    throw UsageError(translate_po_error(e, " in " + file));
  }
  po::notify(vm);

  std::string command_line;
  for (int i = 0; i < argc; ++i) {
    if (i) command_line += ' ';
    command_line += argv[i];
  }
  const Config cfg(vm, text, command_line, file);

  RunRequest req;
  if (vm.count("output")) {
    req.output = vm["output"].as<std::string>();
  } else {
    std::string base = file.substr(file.find_last_of('/') + 1);
    if (base.size() > 4 && base.substr(base.size() - 4) == ".cfg") base = base.substr(0, base.size() - 4);
    req.output = "results/" + base + ".h5";
  }
  req.force = vm["force"].as<bool>();
  req.progress = !vm["quiet"].as<bool>();
  if (vm.count("restart")) req.restart = vm["restart"].as<std::string>();
  if (vm.count("part")) {
    const std::string p = vm["part"].as<std::string>();
    const auto slash = p.find('/');
    if (slash == std::string::npos)
      throw UsageError("option --part has value " + quote(p) + "; expected I/N with 1 <= I <= N, e.g. --part 2/3");
    req.part_index = parse_int("part", p.substr(0, slash));
    req.part_count = parse_int("part", p.substr(slash + 1));
    if (req.part_count < 1 || req.part_index < 1 || req.part_index > req.part_count)
      throw UsageError("option --part has value " + quote(p) + "; expected I/N with 1 <= I <= N, e.g. --part 2/3");
    req.part_index -= 1;
  }
  par::Context ctx(MPI_COMM_WORLD, cfg.get_bool("deterministic", true));
  if (vm["check"].as<bool>()) {
    check_study(cfg, ctx, req);
    if (g_rank == 0) std::cerr << "liebench: " << file << " is valid (nothing was run or written)\n";
    return 0;
  }
  // The run log <output>.log (studies/run_log.hpp): started by the study once its input is
  // valid, closed here with how the job ended; bad input leaves an earlier log untouched.
  studies::RunLog log(req.output, g_rank, req.progress);
  try {
    run_study(cfg, ctx, req);
  } catch (const UsageError&) {
    log.discard();
    throw;
  } catch (const RunsFailed& e) {
    log.close(std::string("result written, runs failed: ") + e.what(), exit_status::runs_failed);
    throw;
  } catch (const IoError& e) {
    log.close(std::string("I/O error, no result written: ") + e.what(), exit_status::io_error);
    throw;
  } catch (const studies::Checkpointed& e) {
    log.close(std::string("checkpointed, not finished: ") + e.what(), exit_status::checkpointed);
    throw;
  } catch (const Stopped& e) {
    log.close(std::string("interrupted, no result written: ") + e.what(), 128 + e.signal());
    throw;
  } catch (const std::exception& e) {
    log.close(std::string("failure, no result written: ") + e.what(), exit_status::failure);
    throw;
  }
  log.close("finished, wrote " + req.output, exit_status::ok);
  return 0;
}

// ------------------------------------------------------------------ oversubscription
// More ranks x threads than cores: OpenMP threads that spin while they wait (libgomp's default)
// steal the cores of the other ranks and make runs 50-100x slower. libgomp reads
// OMP_WAIT_POLICY when it is loaded, before main, so the policy is chosen by re-executing
// liebench once with OMP_WAIT_POLICY=PASSIVE, before MPI_Init, from what the launcher says
// about the node (ranks per node) and the affinity mask. After MPI_Init the layout is checked
// again with the ranks that really share the node, and a remaining oversubscription (policy
// set by the user, or a launcher we do not know) gets one warning line.

long env_long(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  return end && *end == '\0' && x > 0 ? x : 0;
}

int affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

/// Threads per rank as libgomp will choose them: OMP_NUM_THREADS (first level) or the CPUs
/// this process may run on.
long planned_threads() {
  const long t = env_long("OMP_NUM_THREADS");
  return t > 0 ? t : std::max(1, affinity_cpus());
}

/// Ranks on this node according to the launcher (Open MPI, MPICH/Hydra, Slurm); 1 if unknown.
long launcher_local_ranks() {
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE"})
    if (const long n = env_long(v)) return n;
  return 1;
}

/// Started by mpirun/mpiexec (Open MPI, MPICH/Hydra) or srun (PMI, PMIx): the variables each
/// launcher sets in every rank (launcher_local_ranks above reads its ranks per node).
bool under_mpi_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

bool is_help(const std::string& cmd) { return cmd == "--help" || cmd == "-h" || cmd == "help"; }
bool is_version(const std::string& cmd) { return cmd == "--version" || cmd == "-V"; }

/// Whether this invocation initializes MPI: always under a launcher; otherwise only for `run`
/// and the commands that need it (CommandEntry::needs_mpi; a plugin's command, not loaded yet,
/// does). Usage, --help, --version, list, report, tableau and clean run without it.
bool mpi_needed(int argc, char** argv) {
  if (under_mpi_launcher()) return true;
  if (argc < 2) return false;
  const std::string cmd = argv[1];
  if (is_help(cmd) || is_version(cmd) || cmd == "list") return false;
  if (const CommandEntry* c = CommandRegistry::instance().find(cmd)) return c->needs_mpi;
  return true;
}

/// OMP_PROC_BIND set (and not false): libgomp has already bound this (initial) thread to its
/// first place before main, so sched_getaffinity() sees that one place, not the CPUs the
/// process may use, and a re-exec from this thread would confine the whole new process to it
/// (measured: a 1 rank x 2 threads run with --map-by slot:PE=2 and OMP_PROC_BIND=close lost all
/// of its thread speed-up). The user placed the threads: we only warn then.
bool threads_bound_by_user() {
  const char* b = std::getenv("OMP_PROC_BIND");
  return b && *b && std::string(b) != "false" && std::string(b) != "FALSE";
}

void passive_wait_if_oversubscribed(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("LIEBENCH_WAIT_POLICY_SET") || threads_bound_by_user()) return;
  const long threads = planned_threads();
  const int mask = affinity_cpus();
  const bool over = par::ranks_exceed_cores(launcher_local_ranks(), threads) || (mask > 0 && threads > mask);
  if (!over) return;
  setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  setenv("LIEBENCH_WAIT_POLICY_SET", "1", 1);  // once only, and tells the check below
  execv("/proc/self/exe", argv);  // only returns on failure: go on, the check below warns
}

/// Collective: per node, ranks (MPI_Comm_split_type SHARED) x threads against the cores.
void check_oversubscription() {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 1, local_rank = 0;
  MPI_Comm_size(node, &local);
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);
  const int threads = omp_get_max_threads(), cores = par::node_cores();
  const int mask = threads_bound_by_user() ? 0 : affinity_cpus();  // bound: the mask is one place
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const bool passive = policy && (std::string(policy) == "PASSIVE" || std::string(policy) == "passive");
  const int over = (par::ranks_exceed_cores(local, threads) || (mask > 0 && threads > mask)) && !passive ? 1 : 0;
  int any = over;
  MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any && g_rank == 0)
    std::cerr << "liebench: warning: " << local << " rank(s) x " << threads << " thread(s) on a node with " << cores
              << " cores (this rank may use " << mask << ") and OMP_WAIT_POLICY=" << (policy ? policy : "(unset)")
              << ": spinning threads can make runs 50-100x slower; set OMP_WAIT_POLICY=PASSIVE or use fewer "
                 "ranks/threads\n";
}

}  // namespace

int lie::liebench_main(int argc_in, char** argv_in) {
  // `liebench ... | head`: a closed pipe must not kill a run (and leave its temporary file);
  // writes to it then fail with EPIPE and the output is dropped.
  std::signal(SIGPIPE, SIG_IGN);
  passive_wait_if_oversubscribed(argv_in);
  const bool mpi = mpi_needed(argc_in, argv_in);
  if (mpi) {
    int provided = 0;
    MPI_Init_thread(&argc_in, &argv_in, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    check_oversubscription();
  }
  int status = 0;
  std::vector<std::string> args_kept;
  std::vector<char*> argv_kept;
  int argc = argc_in;
  char** argv = argv_in;
  try {
    if (!registration_problems().empty())
      throw std::logic_error("registration: " + registration_problems().front());
    // Plugins first: their keys, models and methods must be known before anything is parsed.
    args_kept = load_plugins(argc_in, argv_in);
    for (auto& a : args_kept) argv_kept.push_back(a.data());
    argv_kept.push_back(nullptr);
    argc = static_cast<int>(args_kept.size());
    argv = argv_kept.data();
    if (argc < 2) {
      if (g_rank == 0) print_usage(std::cerr);
      status = 2;
    } else {
      const std::string cmd = argv[1];
      std::vector<std::string> rest(argv + 2, argv + argc);
      if (is_help(cmd)) {
        if (g_rank == 0) print_usage(std::cout);
      } else if (is_version(cmd)) {
        if (g_rank == 0) std::cout << version_text();
      } else if (cmd == "list") {
        status = cmd_list(rest);
      } else if (cmd == "run") {
        status = cmd_run(argc - 1, argv + 1);
      } else if (const CommandEntry* c = CommandRegistry::instance().find(cmd)) {
        status = c->main(rest);
      } else {
        throw UsageError("unknown command " + quote(cmd) + "; run `liebench --help`");
      }
    }
  } catch (const UsageError& e) {
    if (g_rank == 0) std::cerr << "liebench: error: " << message(e) << "\n";
    status = exit_status::bad_input;
  } catch (const RunsFailed& e) {
    // Thrown on every rank together, after the file was written.
    if (g_rank == 0) std::cerr << "liebench: error: " << message(e) << "\n";
    status = exit_status::runs_failed;
  } catch (const IoError& e) {
    // Thrown on every rank together (h5::File::agree); rank 0 speaks for all.
    if (g_rank == 0) std::cerr << "liebench: I/O error: " << message(e) << "\n";
    status = exit_status::io_error;
  } catch (const studies::Checkpointed& e) {
    // A signal stopped a study after its checkpoint was written (every rank together).
    if (g_rank == 0) std::cerr << "liebench: " << message(e) << "\n";
    status = exit_status::checkpointed;
  } catch (const Stopped& e) {
    // A signal stopped a study: every rank got here together; 128 + signal as a shell would.
    if (g_rank == 0) std::cerr << "liebench: " << message(e) << "\n";
    status = 128 + e.signal();
  } catch (const std::exception& e) {
    std::cerr << "liebench: failure" << (g_rank ? " on rank " + std::to_string(g_rank) : std::string()) << ": "
              << message(e) << "\n";
    status = exit_status::failure;
  }
  int global = status;
  if (mpi) {
    MPI_Allreduce(&status, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
  }
  return global;
}

int lie::world_rank_or_0() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) return 0;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
