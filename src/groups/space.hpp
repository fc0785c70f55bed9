#pragma once
// The product homogeneous space of a model: a runtime list of blocks, each block being
// `count` copies of one factor (factors.hpp). State and algebra are flat contiguous arrays
// (component i of block b starts at state_offset + i*state_dim); integrators only see
// these arrays, so threads and MPI ranks split them by components.
//
// On a distributed run the Space describes the *local* components of a rank only; every
// operation here is component-wise and needs no communication.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "groups/factors.hpp"

namespace lie {

enum class FactorKind : int {
#define LIEBENCH_ENUM(id, type) id,
  LIEBENCH_FACTORS(LIEBENCH_ENUM)
#undef LIEBENCH_ENUM
};

struct FactorInfo {
  FactorKind kind;
  const char* name;
  const char* group;
  const char* manifold;
  int alg_dim;
  int state_dim;
};
const std::vector<FactorInfo>& all_factors();
const FactorInfo& factor_info(FactorKind kind);

struct Block {
  FactorKind kind;
  std::size_t count = 0;
  std::size_t state_offset = 0;
  std::size_t alg_offset = 0;
  int state_dim = 0;
  int alg_dim = 0;
  std::string label;  // e.g. "links", "bodies"
};

/// dexpinv selector: kExactDexpinv uses the closed form of each factor; q >= 0 uses the
/// Bernoulli series with q commutators ([P] eq. (8)).
inline constexpr int kExactDexpinv = -1;

class Space {
 public:
  Space() = default;
  /// Appends `count` copies of a factor. Returns the block index.
  std::size_t add(FactorKind kind, std::size_t count, std::string label = {});

  std::size_t state_size() const { return state_size_; }
  std::size_t alg_size() const { return alg_size_; }
  const std::vector<Block>& blocks() const { return blocks_; }
  std::string describe() const;  // e.g. "(SE(3) on TS^2)^1001"

  /// out = psi(exp(xi), y); out may alias y.
  void exp_act(const double* xi, const double* y, double* out) const;
  /// out = psi_*(xi)|_y in ambient coordinates.
  void generator(const double* xi, const double* y, double* out) const;
  /// out = [a, b] component-wise.
  void bracket(const double* a, const double* b, double* out) const;
  /// out = dexpinv_u(v); terms = kExactDexpinv or the number of commutators. out must not alias u, v.
  void dexpinv(const double* u, const double* v, double* out, int terms = kExactDexpinv) const;
  /// out = dexp_u(v) (exact).
  void dexp(const double* u, const double* v, double* out) const;
  /// out = psi(phi(xi), y) for the coordinate map c (coordinates.hpp); out may alias y. For
  /// Coordinates::Exp this is exp_act (the same bits).
  void chart_act(Coordinates c, const double* xi, const double* y, double* out) const;
  /// out = dphiinv_u(v) of the map c (exact); for Coordinates::Exp this is dexpinv(u, v, out, terms),
  /// the other maps take terms = kExactDexpinv only.
  void dchartinv(Coordinates c, const double* u, const double* v, double* out, int terms = kExactDexpinv) const;
  /// Projects every component onto its manifold (|q| = 1, q.w = 0, Q^T Q = I).
  void project(double* y) const;

  /// One fused pass of an RKMK stage for tables whose A has only a sub-diagonal (euler, heun2,
  /// rk4): per component, with k the stage derivative of [P] eq. (6),
  ///   k = f                                  (first stage: u = 0, dexpinv_0 = identity)
  ///   k = dexpinv_u(f)                       (later stages; `terms` as in dexpinv())
  ///   sigma = 0.0 + ck k (first) | sigma + ck k (later; unchanged if ck == 0)
  ///   last stage:  y_out = exp_act(sigma, y) (y_out may alias y)
  ///   otherwise:   u = 0.0 + cu k (0.0 if cu == 0),  y_out = exp_act(u, y)
  /// These are the operations of the stage-by-stage path (combine(), exp_act(), dexpinv()) in
  /// the same order, so both give the same bits; one pass over memory instead of four.
  struct RkmkStage {
    const double* f = nullptr;  // f(y_stage) of this stage
    double* u = nullptr;        // in: u of this stage (not read if first); out: u of the next
    double* sigma = nullptr;
    const double* y = nullptr;  // y_n
    double* y_out = nullptr;    // next stage point, or y_{n+1} if last
    double ck = 0.0, cu = 0.0;  // h b_i and h a_{i+1,i}
    bool first = false, last = false;
    int terms = kExactDexpinv;
    /// u and sigma are the caller's own scratch, read and written by these passes only (zeroed
    /// or unread before a step's first stage): a batch kernel may keep them in its own layout
    /// between passes (se3_ts2_batch: its structure-of-arrays tiles, no transposes). The values
    /// and the bits of y_out do not change; u and sigma are then not per-component arrays, and
    /// the last stage may leave them unwritten (nothing reads them after it).
    bool scratch_tiled = false;
  };
  void rkmk_stage(const RkmkStage& s) const;

  /// Minimum number of components in a block before an OpenMP team is used.
  static constexpr std::size_t kOmpMinComponents = 256;

 private:
  std::vector<Block> blocks_;
  std::size_t state_size_ = 0;
  std::size_t alg_size_ = 0;
};

}  // namespace lie
