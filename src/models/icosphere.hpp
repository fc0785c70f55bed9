#pragma once
// Subdivided icosahedron on the unit sphere: level 0 is the icosahedron (12 vertices, 20 faces);
// each level splits every triangle into four through its edge midpoints, pushed to the sphere.
// Level L has 10 4^L + 2 vertices and 20 4^L faces (level 3: 642 vertices, [L] Example 6's
// molecules; level 4: 5120 faces, the mesh of [L] Fig. 7). Vertex and face order are fixed by the
// construction (deterministic, no hashing): old vertices first, then new midpoints in the order
// the faces are visited.
#include <array>
#include <vector>

#include "groups/so3.hpp"

namespace lie {

struct Icosphere {
  std::vector<Vec3> vertices;                  // unit vectors
  std::vector<std::array<int, 3>> faces;       // counter-clockwise seen from outside
  /// Unique edges (a < b).
  std::vector<std::array<int, 2>> edges() const;
};

Icosphere make_icosphere(int level);

}  // namespace lie
