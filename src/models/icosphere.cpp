#include "models/icosphere.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

namespace lie {

std::vector<std::array<int, 2>> Icosphere::edges() const {
  std::vector<std::array<int, 2>> e;
  e.reserve(faces.size() * 3);
  for (const auto& f : faces)
    for (int k = 0; k < 3; ++k) {
      const int a = f[static_cast<std::size_t>(k)], b = f[static_cast<std::size_t>((k + 1) % 3)];
      e.push_back({std::min(a, b), std::max(a, b)});
    }
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  return e;
}

Icosphere make_icosphere(int level) {
  if (level < 0 || level > 8) throw std::invalid_argument("icosphere level must be in [0, 8]");
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;  // golden ratio
  Icosphere s;
  const double v[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                           {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  for (const auto& p : v) s.vertices.push_back(Vec3(p[0], p[1], p[2]).normalized());
  s.faces = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
             {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
             {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (int l = 0; l < level; ++l) {
    std::map<std::pair<int, int>, int> mid;
    auto midpoint = [&](int a, int b) {
      const auto key = std::make_pair(std::min(a, b), std::max(a, b));
      const auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
      s.vertices.push_back((s.vertices[ua] + s.vertices[ub]).normalized());
      const int id = static_cast<int>(s.vertices.size() - 1);
      mid.emplace(key, id);
      return id;
    };
    std::vector<std::array<int, 3>> next;
    next.reserve(4 * s.faces.size());
    for (const auto& f : s.faces) {
      const int a = f[0], b = f[1], c = f[2];
      const int ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
      next.push_back({a, ab, ca});
      next.push_back({b, bc, ab});
      next.push_back({c, ca, bc});
      next.push_back({ab, bc, ca});
    }
    s.faces = std::move(next);
  }
  return s;
}

}  // namespace lie
