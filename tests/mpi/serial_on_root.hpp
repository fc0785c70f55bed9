#pragma once
// The serial single-thread reference of an MPI layout test, computed once on rank 0 (one
// thread, MPI_COMM_SELF) and broadcast, instead of on every rank: under mpiexec -n 4 on two
// cores, four copies of the serial run were most of these tests' time.
#include <mpi.h>
#include <omp.h>

#include <string>
#include <utility>
#include <vector>

#include "models/model.hpp"
#include "parallel/context.hpp"

namespace lie::mpi_testing {

/// Rank 0's v on every rank of MPI_COMM_WORLD.
inline void broadcast(std::vector<double>& v) {
  unsigned long long n = v.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  v.resize(n);
  if (n > 0) MPI_Bcast(v.data(), static_cast<int>(n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

/// Rank 0's observables (names and values, in order) on every rank of MPI_COMM_WORLD.
inline void broadcast(Observables& obs) {
  std::string names;
  std::vector<double> values;
  for (const auto& [name, v] : obs.items()) names += name + "\n", values.push_back(v);
  names = par::broadcast_string(names, 0, MPI_COMM_WORLD);
  broadcast(values);
  obs.clear();
  std::size_t at = 0, k = 0;
  for (std::size_t nl = names.find('\n'); nl != std::string::npos; at = nl + 1, nl = names.find('\n', at))
    obs.set(names.substr(at, nl - at), values[k++]);
}

/// compute(self) on rank 0 with one thread, where self is a Context over MPI_COMM_SELF; the
/// other ranks get a default-constructed result, to be filled by the caller's broadcasts.
template <class Result, class Compute>
Result on_root(Compute&& compute) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Result r{};
  if (rank == 0) {
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    par::Context self(MPI_COMM_SELF, true);
    r = compute(self);
    omp_set_num_threads(threads);
  }
  return r;
}

}  // namespace lie::mpi_testing
