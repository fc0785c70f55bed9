#pragma once
// Coordinate maps phi: g -> G of RKMK (key `coordinates`): the exponential (default), the
// Cayley map and canonical coordinates of the second kind ([P] 2.3: "one option is to use
// canonical coordinates of the second kind [45] ... a popular choice is the Cayley
// transformation [13]"). RKMK with any such map and the exact inverse of its right-trivialised
// differential keeps the order of its Butcher table (Iserles, Munthe-Kaas, Norsett & Zanna, Acta
// Numerica 9 (2000), sec. 8.3; Owren & Marthinsen, Numer. Math. 87 (2001)):
//   u_i = h sum_j a_ij k_j,  k_i = dphiinv_{u_i}( f(phi(u_i) . y_n) ),  y_{n+1} = phi(h sum_i b_i k_i) . y_n.
// The maps and their dphiinv are in so3.hpp and se3.hpp; chart<C> and dchartinv<C> select them,
// and every factor (factors.hpp) provides both for its acting group:
//   SO(3), SE(3) (and T*SO(3) ~ SE(3)): the maps of so3.hpp / se3.hpp;
//   R^n: all three maps are exp(a) = translation by a (for cay: the algebra element is nilpotent,
//        X^2 = 0 in the affine matrix representation, so (I - X/2)^-1 (I + X/2) = I + X), dphiinv = id;
//   opposite groups G^op (right actions y -> y g): phi^op(a) = phi(-a)^-1 and dphiinv^op_u =
//        dphiinv_{-u}, as exp's rule (factors.hpp); for exp and cay phi(-a)^-1 = phi(a), for the
//        second kind it is the product in the reverse order, i.e. the second kind of G^op.
#include <string>
#include <string_view>

#include "groups/se3.hpp"
#include "groups/so3.hpp"

namespace lie {

enum class Coordinates : int { Exp, Cayley, SecondKind };

/// The key values: exp | cayley | second_kind.
inline const char* coordinates_name(Coordinates c) {
  switch (c) {
    case Coordinates::Cayley:
      return "cayley";
    case Coordinates::SecondKind:
      return "second_kind";
    default:
      return "exp";
  }
}
/// The map of a key value; false for any other text.
inline bool coordinates_from_name(std::string_view s, Coordinates& out) {
  for (Coordinates c : {Coordinates::Exp, Coordinates::Cayley, Coordinates::SecondKind})
    if (s == coordinates_name(c)) {
      out = c;
      return true;
    }
  return false;
}

namespace so3 {
template <Coordinates C>
inline Mat3 chart(const Vec3& a) {
  if constexpr (C == Coordinates::Exp) return exp(a);
  else if constexpr (C == Coordinates::Cayley) return cay(a);
  else return second_kind(a);
}
template <Coordinates C>
inline Vec3 dchartinv(const Vec3& a, const Vec3& b) {
  if constexpr (C == Coordinates::Exp) return dexpinv(a, b);
  else if constexpr (C == Coordinates::Cayley) return dcayinv(a, b);
  else return dsecond_kindinv(a, b);
}
}  // namespace so3

namespace se3 {
template <Coordinates C>
inline Element chart(const Vec6& x) {
  if constexpr (C == Coordinates::Exp) return exp(x);
  else if constexpr (C == Coordinates::Cayley) return cay(x);
  else return second_kind(x);
}
template <Coordinates C>
inline Vec6 dchartinv(const Vec6& x, const Vec6& y) {
  if constexpr (C == Coordinates::Exp) return dexpinv(x, y);
  else if constexpr (C == Coordinates::Cayley) return dcayinv(x, y);
  else return dsecond_kindinv(x, y);
}
}  // namespace se3

}  // namespace lie
