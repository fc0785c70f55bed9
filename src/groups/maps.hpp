#pragma once
// Eigen views over the flat state and algebra arrays: a component of a product space is a
// slice of a double array, viewed in place (no copies). Rotation matrices are stored row-major.
#include <Eigen/Core>

namespace lie {

using Vec3 = Eigen::Vector3d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

using CMap3 = Eigen::Map<const Vec3>;
using Map3 = Eigen::Map<Vec3>;
using CMap6 = Eigen::Map<const Vec6>;
using Map6 = Eigen::Map<Vec6>;
using CMapQ = Eigen::Map<const RowMat3>;  // a rotation matrix Q stored row-major (9 doubles)
using MapQ = Eigen::Map<RowMat3>;

}  // namespace lie
