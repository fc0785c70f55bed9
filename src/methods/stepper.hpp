#pragma once
// Steppers (one step of a method) and the method registry.
//
// Kinds, as in Boost.Odeint: every Stepper does fixed steps; an embedded pair also returns a
// local error estimate from try_step(), which the step-size controller (controller.hpp)
// turns into accept/reject decisions. Steppers see a Model only through f, the action,
// dexpinv and the flat state arrays.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "io/config.hpp"
#include "models/model.hpp"
#include "parallel/context.hpp"

namespace lie {

/// Cost counters of a run (work-precision diagrams need these as much as wall time).
struct StepCounters {
  std::uint64_t steps = 0;      // accepted steps
  std::uint64_t rejected = 0;   // rejected trial steps (adaptive runs)
  std::uint64_t rhs = 0;        // evaluations of f
  std::uint64_t exp = 0;        // exponentials/actions of the product group (RKMK with key coordinates:
                                // actions of that map, cay or the second-kind product)
  std::uint64_t dexpinv = 0;    // dexpinv evaluations (with key coordinates: dcayinv / dpsiinv)
  std::uint64_t brackets = 0;   // explicit commutators (truncated dexpinv, Casas-Owren)
  std::uint64_t iterations = 0; // nonlinear iterations (implicit methods)
};

/// Weighted error norm for step-size control. The raw error vector e (algebra element
/// sigma - sigma~ for RKMK pairs, with ref = sigma; ambient state difference y - y~ for CF and
/// classical pairs, with ref = y_{n+1}) is scaled component-wise by atol + rtol |ref_i| and
/// reduced with the chosen norm over all ranks:
///   max: max_i |e_i|/sc_i      rms: sqrt(mean (e_i/sc_i)^2)      l2: sqrt(sum (e_i/sc_i)^2)
/// A step is accepted when the result is <= 1. With atol = tol, rtol = 0 and norm = l2 this
/// is e_{n+1} = ||sigma - sigma~|| < tol of [P] 4.1.
struct ErrorNorm {
  enum class Kind { Max, Rms, L2 };
  Kind kind = Kind::Rms;
  double atol = 1e-6;
  double rtol = 0.0;
  /// Collective. Returns +inf if any entry is not finite.
  double operator()(const double* e, const double* ref, std::size_t n, const par::Context& ctx) const;
  std::string describe() const;

 private:
  mutable std::vector<double> scaled_;  // e_i / (atol + rtol |ref_i|), reused across steps
};

struct MethodInfo {
  std::string name;         // registry key, e.g. "rkmk4"
  std::string family;       // rkmk | cf | classical | slgi | lgvi
  int order = 0;
  int embedded_order = 0;   // 0: no embedded estimator
  int stages = 0;           // vector-field evaluations per step (excluding FSAL reuse)
  int exps_per_step = 0;    // exponentials per step (product-group actions)
  bool is_explicit = true;
  bool lie_group = true;    // false: classical method on the embedding space
  std::string description;
  std::string source;       // citation, e.g. "[P] eq. (9)"
  std::string needs;        // "" (any model) | "cotangent_hamiltonian" | "sphere_lagrangian" | "rigid_bodies"
                            // | "base" (a composition: what its base method needs)
  bool coordinate_maps = false;  // reads key coordinates (RKMK from a Butcher table); others refuse it
  /// Phi_{-h} = Phi_h^{-1} (Hairer, Lubich & Wanner, GNI II.3): a symmetric method of order 2 is a
  /// base of the compositions (methods/composition.hpp).
  bool time_symmetric = false;
};

class Stepper {
 public:
  virtual ~Stepper() = default;
  virtual const MethodInfo& info() const = 0;
  /// Binds to a model and allocates work arrays. Must be called before stepping.
  virtual void bind(Model& model, par::Context& ctx) = 0;
  /// One step of size h from (t, y); y is overwritten with y(t + h).
  virtual void step(double t, double h, double* y) = 0;
  /// Embedded pairs: one trial step from (t, y) into y_new (y unchanged); returns the scaled
  /// error estimate (accept if <= 1). Collective.
  virtual double try_step(double t, double h, const double* y, double* y_new, const ErrorNorm& norm);
  /// Protocol of adaptive drivers: after try_step(), on acceptance copy y_new into y and call
  /// accept() (counts the step, keeps FSAL data); on rejection call nothing and retry from the
  /// same y with a smaller h.
  virtual void accept() { ++counters_.steps; }
  /// Adaptive drivers: counts a rejected trial step (nothing else changes).
  void count_rejected() { ++counters_.rejected; }
  /// The state was modified outside step()/try_step()/accept() (drops cached stage values,
  /// e.g. FSAL). Fixed-step callers that only call step() never need it.
  virtual void invalidate() {}
  /// Dense output ([P] 4 with output times): after try_step() from (t, y) with step h was
  /// accepted and before accept(), the continuous extension y(t + theta h), theta in [0, 1],
  /// into out (n local state entries); y_n = y is unchanged and the accepted step is not affected. Default: one step
  /// of the method itself of size theta h from y (order p, one extra step per sample); it
  /// overwrites cached stage data, so it returns true and the driver calls invalidate() after
  /// accept(). Overrides with a continuous extension of the stages return false. Collective.
  virtual bool dense_output(double t, double h, double theta, const double* y, double* out, std::size_t n);
  /// Order q of dense_output: |y(t + theta h) - out| = O(h^(q+1)) uniformly in theta.
  virtual int dense_order() const { return info().order; }
  /// Observables may change meaning after step (e.g. variational methods carry momenta).
  const StepCounters& counters() const { return counters_; }
  void reset_counters() { counters_ = {}; }
  /// Restart from a checkpoint: the counters of the run so far.
  void set_counters(const StepCounters& c) { counters_ = c; }
  /// Checkpoints: whether cached stage data (FSAL f(y_n), gradients) is valid for the current
  /// y, and rebuilding that cache from (t, y) without counting it, so that a restarted run
  /// evaluates (and counts) exactly what the uninterrupted run does.
  virtual bool cache_valid() const { return false; }
  virtual void rebuild_cache(double t, const double* y) { (void)t, (void)y; }
  /// Checkpoints: internal state beyond (t, y) and the counters on which the next steps depend,
  /// e.g. a warm-started solver's previous solution and Jacobian (SLGI). Contract:
  /// - resume_state() is collective and returns the same numbers on every rank (a checkpoint
  ///   stores rank 0's copy); empty: the stepper has none (has_resume_state() is false);
  /// - restore_resume_state(s, y) is called on every rank after bind(), invalidate() and
  ///   set_counters(), before the next step from the local state y it continues from, with
  ///   the s that resume_state() returned at that point of the uninterrupted run (also on
  ///   another number of ranks); the following steps are then bitwise those of the
  ///   uninterrupted run. It throws UsageError if s is not such a state (e.g. empty).
  virtual bool has_resume_state() const { return false; }
  virtual std::vector<double> resume_state() const { return {}; }
  virtual void restore_resume_state(const std::vector<double>& s, const double* y) { (void)s, (void)y; }

 protected:
  StepCounters counters_;
};

/// Continuous weights b_i(theta) of a Butcher table with a known dense output into w (theta h
/// sum_i b_i(theta) k_i approximates the solution at t + theta h); returns their order, or 0 if
/// the table has none. Dormand-Prince 5(4): the 4th-order dense output of Hairer, Norsett &
/// Wanner I, II.6 (p. 192), b_i(1) = b_i.
struct ButcherTable;
int dense_weights(const ButcherTable& table, double theta, double* w);

/// A method's typed options (its parse function's result; empty: the method has none).
using MethodOptions = EntryOptions;
using StepperFactory = std::function<std::unique_ptr<Stepper>(const MethodOptions&)>;

struct MethodEntry {
  std::string name;
  MethodInfo info;
  /// Builds the stepper from the typed options (options_as<T>; empty options: the defaults).
  StepperFactory create;
  /// Reads the method's keys (dexpinv, slgi.*, a user tableau, ...) into its typed options;
  /// the only place a method sees the configuration (called at the plan). Null: no keys.
  std::function<MethodOptions(const Config&)> parse = nullptr;
};
using MethodRegistry = Registry<MethodEntry>;

/// A method as an experiment names it (keys methods, reference.method, adaptive.compare_method):
/// "<method>", or "<method>:<tableau>" for a method built from a user tableau (rkmk_user,
/// classical_user): the tableau of that name, whose keys are in section [tableau.<tableau>]
/// (tableau.<tableau>.A, .b, ...; or the keys tableau.* when tableau.name = <tableau>). Several
/// user tableaus thus run side by side in one study, each under its own name. Likewise
/// "composition:<name>" (methods/composition.hpp): section [composition.<name>] or a shipped set.
struct MethodSpec {
  std::string method;   // registry key
  std::string tableau;  // the name after ':' (a tableau's or a composition's); "": none
  std::string base;     // a composition's base after '@' (composition:yoshida4@dlm); "": none
};
/// Splits at ':' and '@'; UsageError naming `what` for an empty or ill-formed tableau or base name.
MethodSpec parse_method_spec(const std::string& spec, const std::string& what = "method");
/// The registry entry of a method spec (UsageError naming `what`: unknown method, a tableau
/// name after a method that takes none).
const MethodEntry& method_entry(const std::string& spec, const std::string& what = "method");
/// The name results show for `spec` (tables, progress, failure messages, run log, /summary
/// column `method`): the spec itself, except that a bare rkmk_user / classical_user with
/// tableau.name set is "<method>:<tableau.name>", so that the tableau's name is never lost.
std::string method_display_name(const std::string& spec, const Config& cfg);

/// A method as a run uses it: the spec, its registry entry and its parsed options (the
/// method's part of a typed run point).
struct MethodChoice {
  std::string spec;                  // "rkmk4", "rkmk_user:rkmk38"
  const MethodEntry* entry = nullptr;
  MethodOptions options;
  const MethodInfo& info() const { return entry->info; }
};
/// Parses method spec `spec` with its keys from cfg (dexpinv terms, projection, theta,
/// iteration tolerances, user tableau): the edge. UsageError for a bad spec or value.
MethodChoice parse_method(const std::string& spec, const Config& cfg, const std::string& what = "method");
/// A method without options (its defaults), e.g. in tests: {spec, entry, {}}.
MethodChoice method_choice(const std::string& spec, MethodOptions options = {});

/// Creates the stepper of `method`. Checks that `model` provides what the method needs and
/// throws a UsageError naming both otherwise.
std::unique_ptr<Stepper> make_stepper(const MethodChoice& method, const Model& model);
/// parse_method + make_stepper (command-line tools, tests of parsing).
std::unique_ptr<Stepper> make_stepper(const std::string& spec, const Config& cfg, const Model& model);

/// Every registered method that runs on `model` with the keys of `cfg` (key methods = applicable,
/// issue 25): its parse, factory and bind accept it (a model it does not fit, a key it needs and
/// lacks, a rank layout it cannot run on: left out), in the registry's order (`liebench list
/// methods`); `embedded_only`: embedded pairs only. Methods that take a user-supplied name
/// (rkmk_user:<t>, classical_user:<t>, composition:<c>) are not among them: name them explicitly.
/// Collective (bind).
// <edge>
std::vector<std::string> applicable_methods(const Config& cfg, Model& model, par::Context& ctx, bool embedded_only);
// </edge>

}  // namespace lie
