#pragma once
// The N-fold spherical pendulum [P] 5, [S], [D]: a chain of N massless rigid links of lengths
// L_i with point masses m_i, hanging from a fixed pivot at 0, gravity g along -e3.
// State (q_i, w_i) in (TS^2)^N (unit link direction, angular velocity with q_i.w_i = 0); the
// group SE(3)^N acts by the restricted Ad-action [P] 5.1 (factor se3_on_ts2), and
//   f(q, w) = (w_i, q_i x h_i)_{i=1..N} in se(3)^N,   h_i = w_i'            [P] 5.2
// where the angular accelerations solve R(q) w' = b ([P] 5.2, the 3N x 3N system).
//
// O(N) right-hand side (the tension route of /work/shared/notes/chain-tensions.md, derived
// again and checked against the dense R(q) w' = b in tests/unit/test_pendulum_rhs.cpp):
// with bob positions x_i = sum_{k<=i} L_k q_k and link tensions tau_i,
//   m_i x_i'' = -m_i g e3 - tau_i q_i + tau_{i+1} q_{i+1},   tau_{N+1} = 0,
// the constraints q_i.(x_i'' - x_{i-1}'') = -L_i |w_i x q_i|^2 give the symmetric positive
// definite tridiagonal system K tau = r,
//   K_11 = 1/m_1, K_ii = 1/m_{i-1} + 1/m_i, K_{i,i+1} = K_{i+1,i} = -(q_i.q_{i+1})/m_i,
//   r_1 = L_1 |w_1 x q_1|^2 - g e3.q_1,  r_i = L_i |w_i x q_i|^2,
// and then w_i' = q_i x (x_i'' - x_{i-1}'')/L_i:
//   w_1' = [-g q_1 x e3 + (tau_2/m_1) q_1 x q_2]/L_1,
//   w_i' = [(tau_{i+1}/m_i) q_i x q_{i+1} - (tau_{i-1}/m_{i-1}) q_{i-1} x q_i]/L_i.
// About 70 flops per link against ~9 N^3 for a dense factorisation of R(q).
//
// Distribution: the chain is split into B virtual blocks that depend only on N and the key
// nfold_pendulum.blocks (never on the number of ranks); ranks own contiguous ranges of whole
// blocks, OpenMP threads loop over a rank's blocks. K tau = r is solved by the partition
// method of parallel/tridiagonal.hpp (O(B) numbers gathered per evaluation, not O(N)), the
// neighbouring directions q by a halo exchange of one link. Reductions (energies, momenta)
// are exact sums, and bob positions are prefix sums over the same blocks: every result is
// bitwise identical for every ranks x threads layout with P <= B.
//
// Classical baselines (Model::ambient_field, key nfold_pendulum.classical_field):
//   paper (default): [P] 5.2's equations in the embedding space R^6N, for any q (|q_i| != 1
//     too, as RK stages leave the sphere):  q_i' = w_i x q_i,  R(q) w' = F(q, w) with exactly
//     [P]'s R(q) (R_ii = S_i L_i^2 I, R_ij = M_ij q^_i^T q^_j) and
//     F_i = sum_{j != i} M_ij |w_j|^2 q^_i q_j - S_i g L_i q^_i e3   (S_i = sum_{j>=i} m_j).
//     These are the equations [P]'s RK4 and ODE45 baselines (Figs 5-7) integrate, and for N = 2
//     [L] eqs. (31)-(32) (Example 1, its RK45 baseline; [L]'s e3 points along gravity).
//     O(N) solve (paper_accelerations): dotting row i with q_i gives q_i.w_i' = 0, so with
//     p_i = q_i x w_i' and Q_i = sum_{k>=i} m_k (E_k - g e3), E_k = sum_{j<=k} L_j (p_j + |w_j|^2 q_j),
//     row i reads q_i x Q_i = S_i L_i (1 - |q_i|^2) w_i'. Writing Q_i = tau_i q_i - S_i L_i d_i p_i,
//     d_i = (1 - |q_i|^2)/|q_i|^2, and z_i = tau_i q_i + p_i, the differences
//     (Q_i - Q_{i+1})/m_i - (Q_{i-1} - Q_i)/m_{i-1} = L_i (p_i + |w_i|^2 q_i)  (i = 1: second
//     term replaced by -g e3) form a block-tridiagonal 3x3 system in z_i, solved by block
//     elimination; then w_i' = -q_i x z_i / |q_i|^2. On |q_i| = 1 it is the tension system above.
//     It runs serially on the gathered chain (every rank the same arithmetic: bitwise equal on
//     every layout); checked against the dense R(q) solve off the sphere in tests.
//     With nfold_pendulum.solver = dense the same equations are solved densely (Cholesky; partial-
//     pivot LU where R(q) is not definite, which can happen far off the sphere).
//   lie_algebra: psi_*(f(y))|_y = (w_i x q_i, (q_i x h_i) x q_i), another extension of the field
//     off (TS^2)^N (agrees with paper's on it only), kept for comparison.
//
// Energies ([P] 5.2 Lagrangian; gravity along -e3):
//   T = 1/2 sum_i m_i |x_i'|^2 = 1/2 w^T R(q) w,   U = sum_i (sum_{j>=i} m_j) g L_i e3.q_i.
#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "models/sphere_lagrangian.hpp"
#include "parallel/block_layout.hpp"
#include "parallel/tridiagonal.hpp"

namespace lie {

struct NFoldPendulumParams {
  enum class Initial { Paper, Authors, Random, File, Custom };
  enum class Solver { Tridiagonal, Dense };
  enum class ClassicalField { Paper, LieAlgebra };
  std::size_t N = 2;  // with initial = File: 0 takes N from the dataset
  std::vector<double> mass = {1.0};    // one value for every link, or N values
  std::vector<double> length = {1.0};  // one value for every link, or N values
  double gravity = 9.81;
  Initial initial = Initial::Paper;
  std::uint64_t seed = 1;
  std::vector<double> q0, w0;                         // initial = Custom: 3 or 3N values each
  std::string file;                                   // initial = File: HDF5 file ...
  std::string dataset = "/runs/run_00000/final_state";  // ... and its [N][6] dataset of rows (q_i, w_i)
  std::size_t blocks = 0;  // virtual blocks; 0 = NFoldPendulum::default_blocks(N)
  Solver solver = Solver::Tridiagonal;
  ClassicalField classical_field = ClassicalField::Paper;
};

class NFoldPendulum final : public Model, public SphereLagrangian {
 public:
  /// Throws UsageError for inconsistent parameters (list lengths, blocks, ranks > blocks,
  /// dense solver on several ranks or large N). Collective only in the sense that every rank
  /// must construct it with the same parameters.
  NFoldPendulum(NFoldPendulumParams params, par::Context& ctx);
  using Options = NFoldPendulumParams;
  /// Reads the model's keys into its options: the entry's parse function (at the plan only).
  static Options parse(const Config& cfg);
  /// Builds the model from its options (ModelEntry::create).
  static std::unique_ptr<Model> create(const ModelOptions& options, par::Context& ctx);

  /// Default number of virtual blocks: min(256, ceil(N/16)).
  static std::size_t default_blocks(std::size_t N);
  /// The dense solver is O(N^3) per evaluation: refused above this N.
  static constexpr std::size_t kMaxDenseN = 2000;

  // ---- Model
  std::string name() const override { return "nfold_pendulum"; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return p_.N; }
  std::size_t global_offset() const override { return layout_.local_items().begin; }
  int state_dim_per_component() const override { return 6; }
  /// paper, random, or the rows read from the HDF5 file at construction (initial = file).
  void initial_state(double* y) const override;
  void vector_field(double t, const double* y, double* xi) override;
  void observables(double t, const double* y, Observables& out) override;
  std::vector<std::string> observable_names() const override;
  /// The classical methods' field (key nfold_pendulum.classical_field, see above). Collective.
  void ambient_field(double t, const double* y, double* dy) override;
  ModelCapabilities capabilities() const override;
  std::vector<TrajectoryField> trajectory_fields() const override;
  /// "position" and "velocity" (bob positions x_i and velocities x_i') are prefix sums over
  /// the chain: collective. "direction" (q_i) and "angular_velocity" (w_i) are local.
  void trajectory_field(const std::string& name, const double* y, double* out) const override;
  std::string particle_group() const override { return "pendulum"; }

  // ---- SphereLagrangian ([L] eq. (2)); global indices 0..N-1, all links on this rank
  std::size_t sphere_count() const override { return p_.N; }
  /// M_ij = (sum_{k >= max(i,j)} m_k) L_i L_j   ([P] 5.2)
  double inertia(std::size_t i, std::size_t j) const override;
  bool diagonal_inertia() const override { return p_.N == 1; }
  /// V(q) = sum_i (sum_{j>=i} m_j) g L_i e3.q_i
  double potential(const double* q) const override;
  void potential_gradient(const double* q, double* dVdq) const override;

  // ---- the chain
  const NFoldPendulumParams& params() const { return p_; }
  const par::BlockLayout& layout() const { return layout_; }
  std::size_t local_links() const { return layout_.local_size(); }
  double mass(std::size_t i) const { return mass_.at(i); }
  double length(std::size_t i) const { return length_.at(i); }
  /// sum_{j >= i} m_j (global index i).
  double suffix_mass(std::size_t i) const;

  /// Angular accelerations h_i = w_i' (3 per local link) by the O(N) tension route.
  /// Collective.
  void angular_accelerations(const double* y, double* h);
  /// The dense reference of [P] 5.2: R(q) (3N x 3N) and b, and the solution of R w' = b by
  /// Cholesky (O(N^3); LU if R(q) is not definite off the sphere); only with all links on one rank.
  Eigen::MatrixXd dense_matrix(const double* y) const;
  Eigen::VectorXd dense_rhs(const double* y) const;
  void angular_accelerations_dense(const double* y, double* h) const;
  /// [P] 5.2's w' = R(q)^-1 F(q, w) at any q (off the sphere too), by the O(N) block
  /// elimination above (3 per local link). Collective (gathers the chain on every rank).
  void paper_accelerations(const double* y, double* h);

 private:
  // A per-link parameter: one value for all links, or one per link (global index).
  struct PerLink {
    std::vector<double> values, inverses;
    double at(std::size_t i) const { return values.size() == 1 ? values[0] : values[i]; }
    double inv(std::size_t i) const { return inverses.size() == 1 ? inverses[0] : inverses[i]; }
  };
  void require_single_rank(const char* what) const;
  void exchange_halo(const double* y);  // neighbouring q of this rank's first and last link
  void algebra_from_accelerations(const double* y, const double* h, double* xi) const;
  // O(N) accelerations h and, if xi is not null, f = (w_i, q_i x h_i) in the same loop.
  void accelerations(const double* y, double* h, double* xi);
  // Bob positions X_i and velocities V_i (3 each per local link, either may be null), as
  // prefix sums over the virtual blocks in block order.
  void prefix_sums(const double* y, double* X, double* V) const;

  NFoldPendulumParams p_;
  par::Context* ctx_;
  par::BlockLayout layout_;
  par::PartitionedTridiagonal solver_;
  Space space_;
  PerLink mass_, length_;
  std::vector<double> suffix_mass_;  // only for a mass list (uniform: m (N - i))
  double halo_prev_[3] = {0, 0, 0}, halo_next_[3] = {0, 0, 0};
  std::vector<double> h_;
  std::vector<double> edge_q_;  // per local block: q of the links just before and just after it
  std::vector<double> file_state_;  // local rows read from p_.file (initial = File)
  std::vector<double> chain_, chain_h_;       // gathered chain and its w' (paper_accelerations)
  std::vector<Eigen::Matrix3d> elim_C_;       // block elimination: D'_i^-1 U_i
  std::vector<Eigen::Vector3d> elim_y_;       //                    D'_i^-1 r'_i
  bool threaded_ = false;
};

}  // namespace lie
