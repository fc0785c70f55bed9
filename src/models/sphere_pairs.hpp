#pragma once
// Distributed all-pairs machinery of the particle systems on (S^2)^n with diagonal inertia and a
// pair potential ([L] 3.5 Examples 5 and 6), following the design of the dipolar model
// (dipolar.hpp, dipolar_kernel.hpp):
//   - rank k owns the contiguous balanced range of spheres par::balanced_range(n, P, k);
//   - every evaluation allgathers q_j of all spheres (AllGather);
//   - the gradient dV/dq_i of each local sphere is an ordered row sum over *all* partners
//     j != i in global index order (ordered_row: lane j mod kLanes, lanes combined by a fixed
//     tree), so it is a function of the global state only, bitwise identical for every
//     ranks x threads layout; energies are exact sums (par::ExactSum).
//
// Lagrangian [L] eq. (2) with M_ij = M_ii delta_ij: state (q_i, w_i) in TS^2 (factor se3_on_ts2,
// 6 doubles per sphere), Lie group form f_i = (w_i, dV/dq_i / M_ii) as in spring_pendula.hpp, i.e.
//   q_i' = w_i x q_i,  M_ii w_i' = -q_i x dV/dq_i          ([L] eqs. (9)-(10) with M_ij = 0, i != j).
// The explicit variational integrator (lgvi_explicit, [L] (29)-(30)) runs distributed through
// SphereLagrangian::local_potential_gradient.
#include <cstddef>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "models/sphere_lagrangian.hpp"

namespace lie::pairs {

inline constexpr int kLanes = 16;

/// Allgather of `width` doubles per sphere over the balanced ranges of ctx.
class AllGather {
 public:
  AllGather(std::size_t n, int width, const par::Context& ctx);
  const par::Range& range() const { return range_; }
  double* local() { return send_.data(); }  // width x local spheres, filled by the caller
  const double* all() const { return recv_.data(); }  // width x n after gather()
  void gather();  // collective

 private:
  const par::Context& ctx_;
  par::Range range_;
  std::vector<int> counts_, displs_;
  std::vector<double> send_, recv_;
};

/// out[k] = sum over j in [0, n), j != gi, of term(j)[k], k < K, accumulated in lane j mod kLanes
/// and combined by a fixed pairwise tree: the order depends on (n, gi) only.
template <int K, class Term>
inline void ordered_row(std::size_t n, std::size_t gi, Term&& term, double (&out)[K]) {
  double acc[K][kLanes] = {};
  for (std::size_t jb = 0; jb < n; jb += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const std::size_t j = jb + static_cast<std::size_t>(l);
      if (j >= n || j == gi) continue;
      double t[K];
      term(j, t);
      for (int k = 0; k < K; ++k) acc[k][l] += t[k];
    }
  for (int k = 0; k < K; ++k) {
    for (int w = kLanes / 2; w >= 1; w /= 2)
      for (int l = 0; l < w; ++l) acc[k][l] = acc[k][2 * l] + acc[k][2 * l + 1];
    out[k] = acc[k][0];
  }
}

}  // namespace lie::pairs

namespace lie {

/// Base of the pair models on (S^2)^n: distribution, vector field, observables and the
/// SphereLagrangian interface; a model supplies the pair row of its potential.
class SpherePairModel : public Model, public SphereLagrangian {
 public:
  /// n spheres of inertia M_ii = inertia each; ctx must outlive the model.
  SpherePairModel(std::size_t n, double inertia, par::Context& ctx);

  // Model
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return n_; }
  std::size_t global_offset() const override { return range_.begin; }
  int state_dim_per_component() const override { return 6; }
  void initial_state(double* y) const override;
  void vector_field(double t, const double* y, double* xi) override;
  void observables(double t, const double* y, Observables& out) override;
  std::vector<std::string> observable_names() const override;
  ModelCapabilities capabilities() const override;

  // SphereLagrangian (potential and potential_gradient: all n spheres given, serial)
  std::size_t sphere_count() const override { return n_; }
  double inertia(std::size_t i, std::size_t j) const override { return i == j ? inertia_ : 0.0; }
  bool diagonal_inertia() const override { return true; }
  double potential(const double* q) const override;
  void potential_gradient(const double* q, double* dVdq) const override;
  bool distributed_gradient() const override { return true; }
  void local_potential_gradient(const double* q_local, double* dVdq_local) override;

  /// Pair row of sphere gi against all others, q_all = 3n doubles:
  ///   grad = dV/dq_gi, energy = 1/2 sum_{j != gi} V_{gi j} (so that V = sum_i energy_i).
  virtual void pair_row(std::size_t gi, const double* q_all, double grad[3], double& energy) const = 0;

  /// True if V(R q_1, ..., R q_n) = V(q) for every rotation R: the total angular momentum
  /// sum_i M_ii q_i x q_i' is then conserved and reported (angular_momentum_{x,y,z}).
  virtual bool rotation_invariant() const { return false; }

  std::size_t local_spheres() const { return range_.size(); }
  std::size_t n_spheres() const { return n_; }

 protected:
  /// Global initial state (q_i, w_i) of every sphere, 6n doubles; set by the derived class.
  std::vector<double> y0_all_;

 private:
  // dV/dq (3 per local sphere) and the local energy rows from the gathered q.
  void local_rows(const double* q_local, double* grad, par::ExactSum* energy);

  std::size_t n_;
  double inertia_;
  par::Context& ctx_;
  par::Range range_;
  Space space_;
  pairs::AllGather gather_;
  std::vector<double> grad_;
};

}  // namespace lie
