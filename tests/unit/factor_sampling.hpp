#pragma once
// Random points of the manifold of every factor in factors.hpp (and of the ambient space
// around it), shared by test_groups_factors.cpp and test_space.cpp.
#include <algorithm>
#include <cmath>
#include <tuple>
#include <type_traits>

#include "groups/factors.hpp"
#include "groups_testing.hpp"

namespace lie::testing {

namespace fac = lie::factors;

template <class F>
using State = Eigen::Matrix<double, F::state_dim, 1>;
template <class F>
using Alg = Eigen::Matrix<double, F::alg_dim, 1>;

template <class F>
concept IsCompound = requires { typename F::Parts; };

template <class F, class Fn>
void for_parts(Fn&& fn) {
  if constexpr (IsCompound<F>) {
    [&]<class... Ps>(std::tuple<Ps...>*) {
      std::size_t i = 0;
      ((fn.template operator()<Ps>(F::alg_offsets[i], F::state_offsets[i]), ++i), ...);
    }(static_cast<typename F::Parts*>(nullptr));
  } else {
    fn.template operator()<F>(0, 0);
  }
}

inline void write_rotation(const Mat3& R, double* y) { fac::MapM3{y} = R; }

/// A random point of M (on_manifold) or of the ambient space around it.
template <class F>
State<F> random_state(Rng& rng, bool on_manifold = true) {
  State<F> y;
  for_parts<F>([&]<class P>(int, int s) {
    double* p = y.data() + s;
    if constexpr (std::is_same_v<P, fac::SO3Left> || std::is_same_v<P, fac::SO3Right>) {
      write_rotation(rng.rotation(), p);
      if (!on_manifold) fac::MapM3{p} += 0.1 * rng.matrix3();
    } else if constexpr (std::is_same_v<P, fac::TstarSO3RightTriv> || std::is_same_v<P, fac::TstarSO3LeftTriv>) {
      write_rotation(rng.rotation(), p);
      if (!on_manifold) fac::MapM3{p} += 0.1 * rng.matrix3();
      fac::Map3{p + 9} = rng.normal_vec<3>();
    } else if constexpr (std::is_same_v<P, fac::SE3OnTS2>) {
      const Vec3 q = rng.unit3();
      Vec3 w = rng.normal_vec<3>();
      w -= w.dot(q) * q;
      fac::Map3{p} = q;
      fac::Map3{p + 3} = w;
      if (!on_manifold) fac::Map6{p} += 0.3 * rng.normal_vec<6>();
    } else {
      for (int i = 0; i < P::state_dim; ++i) p[i] = rng.normal();
    }
  });
  return y;
}

/// Distance of y from M (0 for vector-space factors).
template <class F>
double manifold_defect(const State<F>& y) {
  double d = 0;
  for_parts<F>([&]<class P>(int, int s) {
    const double* p = y.data() + s;
    if constexpr (std::is_same_v<P, fac::SO3Left> || std::is_same_v<P, fac::SO3Right> ||
                  std::is_same_v<P, fac::TstarSO3RightTriv> || std::is_same_v<P, fac::TstarSO3LeftTriv>) {
      const Mat3 Q = fac::CMapM3(p);
      d = std::max({d, so3::orthogonality_error(Q), std::fabs(Q.determinant() - 1)});
    } else if constexpr (std::is_same_v<P, fac::SE3OnTS2>) {
      const Vec3 q = fac::CMap3(p), w = fac::CMap3(p + 3);
      d = std::max({d, std::fabs(q.norm() - 1), std::fabs(q.dot(w))});
    }
  });
  return d;
}
}  // namespace lie::testing
