#pragma once
// Truncated Bernoulli series for dexpinv on any Lie algebra that supplies a bracket
// ([P] eq. (8), [K] 2.7):
//   dexpinv_u(v) ~ sum_{k=0}^{q} B_k / k!  ad_u^k v,     B_1 = -1/2.
// With q commutators the truncation error is O(|u|^{q+1}) (O(|u|^{q+2}) when q+1 is odd
// and > 1, because B_{2j+1} = 0 for j >= 1).
#include <array>
#include <stdexcept>

namespace lie {

/// B_k / k! for k = 0..16.
inline constexpr std::array<double, 17> kBernoulliOverFactorial = {
    1.0,                               // B0
    -0.5,                              // B1
    1.0 / 12.0,                        // B2/2!  = (1/6)/2
    0.0,                               //
    -1.0 / 720.0,                      // B4/4!  = (-1/30)/24
    0.0,                               //
    1.0 / 30240.0,                     // B6/6!  = (1/42)/720
    0.0,                               //
    -1.0 / 1209600.0,                  // B8/8!  = (-1/30)/40320
    0.0,                               //
    1.0 / 47900160.0,                  // B10/10! = (5/66)/3628800
    0.0,                               //
    -691.0 / 1307674368000.0,          // B12/12!
    0.0,                               //
    1.0 / 74724249600.0,               // B14/14! = (7/6)/14!
    0.0,                               //
    -3617.0 / 10670622842880000.0,     // B16/16! = (-3617/510)/16!
};
inline constexpr int kMaxDexpinvTerms = 16;

/// out = sum_{k=0}^{terms} B_k/k! ad_u^k v   (Dim = algebra dimension; out must not alias u or v)
template <int Dim, class Bracket>
inline void dexpinv_series(const double* u, const double* v, double* out, int terms, Bracket&& bracket) {
  if (terms < 0 || terms > kMaxDexpinvTerms) throw std::invalid_argument("dexpinv_series: terms must be in [0, 16]");
  double adk[Dim], tmp[Dim];
  for (int i = 0; i < Dim; ++i) {
    adk[i] = v[i];
    out[i] = v[i];
  }
  for (int k = 1; k <= terms; ++k) {
    bracket(u, adk, tmp);
    for (int i = 0; i < Dim; ++i) adk[i] = tmp[i];
    const double c = kBernoulliOverFactorial[k];
    if (c != 0.0)
      for (int i = 0; i < Dim; ++i) out[i] += c * adk[i];
  }
}

}  // namespace lie
