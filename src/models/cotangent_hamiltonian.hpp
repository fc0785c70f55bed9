#pragma once
// Extra structure of a canonical Hamiltonian system on a cotangent bundle T*G, right
// trivialised as the semidirect product G x| g* ([P] 3.1, eq. (11)), for the symplectic Lie
// group integrators of [P] 3.2 (methods `slgi`, `slgi_kk`).
//
// The base group is G = SO(3)^r x R^t (r rotations, t translation coordinates; a product of
// SO(3)'s and R^3's covers T*SO(3) and the quadratic formulation T*(SO(3) x R^3) of the heavy
// top, [P] 3.4). Points of T*G are pairs (g, mu) in flat arrays:
//   g  = r row-major 3x3 rotation matrices Q_1..Q_r, then the t coordinates q,
//   mu = r spatial (right-trivialised) momenta pi_1..pi_r in so(3)* ~ R^3, then the t momenta p,
// with g* identified with g ~ R^(3r + t) by the dot product, so that
//   Ad*_Q nu = Q^T nu,  ad*_xi nu = nu x xi,  dexp*_xi nu = J_l(xi)^T nu   on the SO(3) factors,
// and all of them trivial on R^t. The group product is (g1, mu1)(g2, mu2) = (g1 g2, mu1 + g1 mu2).
//
// A model provides, besides the usual Model interface:
//   * the map between its state array and (g, mu) (a permutation of the same numbers), and
//   * f(g, mu) = (dH/dmu, -R_g^* dH/dg) of [P] eq. (14): f1 in g, f2 in g*, where R_g^* dH/dg is
//     the right-trivialised derivative, <R_g^* dH/dg, eta> = d/de H(exp(e eta) g, mu) at e = 0
//     (exp(e eta) g = (exp(e eta_rot) Q, q + e eta_trans)).
// The Hamiltonian vector field is then (g', mu') = (f1 g, f2 - ad*_{f1} mu) ([P] eq. (12)).
//
// A model exposing it sets ModelCapabilities::cotangent_hamiltonian and derives from this class
// (the stepper finds it with dynamic_cast). Arrays are local (this rank's components).
#include <cstddef>

namespace lie {

/// G = SO(3)^rotations x R^translations (local part).
struct CotangentGroup {
  std::size_t rotations = 0;
  std::size_t translations = 0;
  std::size_t group_size() const { return 9 * rotations + translations; }  // doubles in g
  std::size_t algebra_size() const { return 3 * rotations + translations; }  // dim g = dim g*
};

class CotangentHamiltonian {
 public:
  virtual ~CotangentHamiltonian() = default;
  virtual CotangentGroup cotangent_group() const = 0;
  /// Model state -> (g, mu).
  virtual void split_state(const double* y, double* g, double* mu) const = 0;
  /// (g, mu) -> model state.
  virtual void join_state(const double* g, const double* mu, double* y) const = 0;
  /// f1 = dH/dmu (in g), f2 = -R_g^* dH/dg (in g*), [P] eq. (14). Collective.
  virtual void hamiltonian_map(double t, const double* g, const double* mu, double* f1, double* f2) = 0;
  /// H(g, mu) (same value on all ranks). Collective.
  virtual double hamiltonian(const double* g, const double* mu) = 0;
};

}  // namespace lie
