#pragma once
// The model concept: a mechanical system written as a vector field on a homogeneous space,
//   y' = psi_*(f(t, y))|_y,   f: M -> g   ([P] eq. (3)),
// on a product space (groups/space.hpp) whose state is a flat array of components that
// ranks and threads split. Integrators only call the methods below; they know nothing
// about pendulums or dipoles.
//
// Distributed models: each rank holds the components [global_offset, global_offset +
// local_components) of every block; vector_field() and observables() are collective calls
// (all ranks call them together) and may communicate through the Context.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "groups/space.hpp"
#include "io/config.hpp"
#include "parallel/context.hpp"

namespace lie {

/// Named scalar observables (energies, Casimirs, momenta, manifold errors), identical on all
/// ranks after Model::observables(). Names follow H5MD style, snake_case:
///   total_energy, kinetic_energy, potential_energy, casimir, linear_momentum_{x,y,z},
///   angular_momentum_{x,y,z}, unit_norm_error (max_i |1 - |q_i|^2|), tangency_error
///   (max_i |q_i . w_i|), orthogonality_error (max_i ||Q_i^T Q_i - I||_F).
class Observables {
 public:
  void set(const std::string& name, double value);
  double get(const std::string& name) const;  // throws if absent
  bool has(const std::string& name) const;
  const std::vector<std::pair<std::string, double>>& items() const { return items_; }
  void clear() { items_.clear(); }

 private:
  std::vector<std::pair<std::string, double>> items_;
};

/// A per-component field for trajectory output (H5MD /particles/<group>/<name>).
struct TrajectoryField {
  std::string name;       // "position", "direction", "angular_velocity", "orientation", ...
  int dim = 3;            // values per component
  std::string unit = "1";
  std::string description;
};

/// Which extra structure a model exposes, beyond f: M -> g (see methods needing it).
struct ModelCapabilities {
  bool exact_solution = false;          // exact_solution() is implemented
  bool cotangent_hamiltonian = false;   // implements CotangentHamiltonian (SLGI methods)
  bool sphere_lagrangian = false;       // implements SphereLagrangian (variational LGVI methods)
  bool rigid_bodies = false;            // implements RigidBodySystem (rigid-body splittings)
  bool vector_field_in_place = false;   // vector_field(t, y, xi) accepts xi == y (one size): the
                                        // fused RKMK stages then keep f in the stage point's array
};

class Model {
 public:
  virtual ~Model() = default;

  virtual std::string name() const = 0;
  /// Local part of the phase space (this rank's components).
  virtual const Space& space() const = 0;
  /// Number of components (links, bodies, ...) over all ranks, and this rank's first one.
  virtual std::size_t global_components() const = 0;
  virtual std::size_t global_offset() const { return 0; }
  /// Values per component in the state array (the flat state is components x this).
  virtual int state_dim_per_component() const = 0;

  /// Initial state (local part).
  virtual void initial_state(double* y) const = 0;
  /// f(t, y) in the algebra (local part). Collective.
  virtual void vector_field(double t, const double* y, double* xi) = 0;
  /// Energies, invariants and manifold errors at state y. Collective, same values on all ranks.
  virtual void observables(double t, const double* y, Observables& out) = 0;
  /// Names of the observables this model reports (in the order observables() sets them).
  virtual std::vector<std::string> observable_names() const = 0;

  virtual ModelCapabilities capabilities() const { return {}; }
  /// Exact solution at time t from the initial state (local part), if capabilities().exact_solution.
  virtual void exact_solution(double t, double* y) const;

  /// The vector field in ambient coordinates, F(y) = psi_*(f(y))|_y (classical baselines).
  virtual void ambient_field(double t, const double* y, double* dy);

  /// Distance used for global errors: Euclidean norm in the embedding space R^(state size)
  /// ([P] 5.3 measures accuracy "by means of the Euclidean norm of the ambient space").
  /// Models may override (e.g. to compare only positions). Collective.
  virtual double state_distance(const double* y1, const double* y2, const par::Context& ctx) const;

  /// Trajectory output (H5MD). Fills `out` with local_components x field.dim values.
  virtual std::vector<TrajectoryField> trajectory_fields() const { return {}; }
  virtual void trajectory_field(const std::string& name, const double* y, double* out) const {}
  /// H5MD particle group name ("pendulum", "bodies", ...).
  virtual std::string particle_group() const { return name(); }

  /// Number of vector-field evaluations so far (cost counter).
  std::uint64_t rhs_evaluations() const { return n_rhs_; }

 protected:
  std::uint64_t n_rhs_ = 0;

 private:
  std::vector<double> ambient_xi_;  // f(y) inside ambient_field()
};

/// A model's typed options (its parameters; the result of its parse function).
using ModelOptions = EntryOptions;
using ModelFactory = std::function<std::unique_ptr<Model>(const ModelOptions&, par::Context&)>;

struct ModelEntry {
  std::string name;
  std::string summary;
  std::string source;  // e.g. "[P] 5, [S], [D]"
  /// Builds the model from its options (std::any_cast to the model's Options).
  ModelFactory create;
  /// Reads the model's keys into its options, e.g. &FreeRigidBody::parse returning
  /// FreeRigidBody::Options: the only place a model sees the configuration (called at the plan,
  /// once per grid point). Null: the model reads no key (create gets empty options).
  std::function<ModelOptions(const Config&)> parse;
};
using ModelRegistry = Registry<ModelEntry>;

/// A model as a run uses it: its name, registry entry and parsed options (the model's part of
/// a typed run point).
struct ModelChoice {
  std::string name;
  const ModelEntry* entry = nullptr;
  ModelOptions options;
};
/// Reads key `model` and the model's keys (the edge; UsageError for a bad value).
ModelChoice parse_model(const Config& cfg);
/// Creates the model of `choice`.
std::unique_ptr<Model> make_model(const ModelChoice& choice, par::Context& ctx);
/// parse_model + make_model (command-line tools, tests of parsing).
std::unique_ptr<Model> make_model(const Config& cfg, par::Context& ctx);

}  // namespace lie
