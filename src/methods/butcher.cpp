#include "methods/butcher.hpp"

#include <cmath>
#include <map>
#include <stdexcept>

#include "core/error.hpp"

namespace lie {

namespace {

constexpr double R(double p, double q) { return p / q; }

std::map<std::string, ButcherTable> make_tables() {
  std::map<std::string, ButcherTable> t;
  t["euler"] = {"euler", 1, 1, 0, {0.0}, {1.0}, {}, {0.0}, "explicit Euler"};
  // Heun's method (explicit trapezoidal rule): the Lie-Euler-Heun method of [P] 5.3.
  t["heun2"] = {"heun2", 2, 2, 0, {0, 0, 1, 0}, {0.5, 0.5}, {}, {0, 1}, "Heun (1900)"};
  // Kutta's third-order method (Hairer-Norsett-Wanner I, Table 1.1).
  t["kutta3"] = {"kutta3", 3, 3, 0, {0, 0, 0, 0.5, 0, 0, -1, 2, 0}, {R(1, 6), R(2, 3), R(1, 6)}, {}, {0, 0.5, 1},
                 "Kutta (1901)"};
  // The classical fourth-order method ([K] Table 3.1).
  t["rk4"] = {"rk4", 4, 4, 0,
              {0, 0, 0, 0,  //
               0.5, 0, 0, 0,  //
               0, 0.5, 0, 0,  //
               0, 0, 1, 0},
              {R(1, 6), R(1, 3), R(1, 3), R(1, 6)}, {}, {0, 0.5, 0.5, 1}, "Kutta (1901); [K] Table 3.1"};
  // Dormand-Prince 5(4), FSAL ([P] ref. [14]).
  t["dopri5"] = {"dopri5", 7, 5, 4,
                 {0, 0, 0, 0, 0, 0, 0,  //
                  R(1, 5), 0, 0, 0, 0, 0, 0,  //
                  R(3, 40), R(9, 40), 0, 0, 0, 0, 0,  //
                  R(44, 45), R(-56, 15), R(32, 9), 0, 0, 0, 0,  //
                  R(19372, 6561), R(-25360, 2187), R(64448, 6561), R(-212, 729), 0, 0, 0,  //
                  R(9017, 3168), R(-355, 33), R(46732, 5247), R(49, 176), R(-5103, 18656), 0, 0,  //
                  R(35, 384), 0, R(500, 1113), R(125, 192), R(-2187, 6784), R(11, 84), 0},
                 {R(35, 384), 0, R(500, 1113), R(125, 192), R(-2187, 6784), R(11, 84), 0},
                 {R(5179, 57600), 0, R(7571, 16695), R(393, 640), R(-92097, 339200), R(187, 2100), R(1, 40)},
                 {0, R(1, 5), R(3, 10), R(4, 5), R(8, 9), 1, 1},
                 "Dormand & Prince, J. Comput. Appl. Math. 6 (1980) 19-26"};
  return t;
}

const std::map<std::string, ButcherTable>& tables() {
  static const std::map<std::string, ButcherTable> t = make_tables();
  return t;
}

}  // namespace

bool ButcherTable::fsal() const {
  if (stages < 2 || c.back() != 1.0) return false;
  for (int j = 0; j < stages; ++j)
    if (a(stages - 1, j) != b[static_cast<std::size_t>(j)]) return false;
  return true;
}

void ButcherTable::validate() const {
  const std::size_t s = static_cast<std::size_t>(stages);
  if (stages < 1) throw UsageError("Butcher table '" + name + "': needs at least one stage");
  if (A.size() != s * s)
    throw UsageError("Butcher table '" + name + "': A has " + std::to_string(A.size()) + " entries, expected " +
                     std::to_string(s * s) + " (stages x stages, row by row)");
  if (b.size() != s)
    throw UsageError("Butcher table '" + name + "': b has " + std::to_string(b.size()) + " entries, expected " +
                     std::to_string(s));
  if (!bhat.empty() && bhat.size() != s)
    throw UsageError("Butcher table '" + name + "': bhat has " + std::to_string(bhat.size()) +
                     " entries, expected " + std::to_string(s));
  if (c.size() != s)
    throw UsageError("Butcher table '" + name + "': c has " + std::to_string(c.size()) + " entries, expected " +
                     std::to_string(s));
  for (int i = 0; i < stages; ++i) {
    double row = 0.0;
    for (int j = 0; j < stages; ++j) {
      if (j >= i && a(i, j) != 0.0)
        throw UsageError("Butcher table '" + name + "': A(" + std::to_string(i + 1) + "," + std::to_string(j + 1) +
                         ") is nonzero; only explicit (strictly lower triangular) tables are supported");
      row += a(i, j);
    }
    if (std::fabs(row - c[static_cast<std::size_t>(i)]) > 1e-12)
      throw UsageError("Butcher table '" + name + "': c_" + std::to_string(i + 1) + " = " +
                       std::to_string(c[static_cast<std::size_t>(i)]) + " but row sum of A is " + std::to_string(row) +
                       " (need c_i = sum_j a_ij)");
  }
}

const ButcherTable& butcher_table(const std::string& name) {
  auto it = tables().find(name);
  if (it == tables().end()) throw std::out_of_range("no Butcher table named " + name);
  return it->second;
}

std::vector<std::string> butcher_table_names() {
  std::vector<std::string> out;
  for (const auto& [k, v] : tables()) out.push_back(k);
  return out;
}

}  // namespace lie
