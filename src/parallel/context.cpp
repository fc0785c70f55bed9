#include "parallel/context.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>

namespace lie::par {

int node_cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

bool ranks_exceed_cores(long node_ranks, long threads) { return node_ranks * threads > node_cores(); }

Range balanced_range(std::size_t n, int parts, int index) {
  const std::size_t p = static_cast<std::size_t>(parts), i = static_cast<std::size_t>(index);
  const std::size_t q = n / p, r = n % p;
  Range out;
  out.begin = i * q + std::min(i, r);
  out.end = out.begin + q + (i < r ? 1 : 0);
  return out;
}

Context::Context(MPI_Comm comm, bool deterministic) : comm_(comm), deterministic_(deterministic) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  threads_ = omp_get_max_threads();
}

void Context::allreduce(std::span<ExactSum> sums) const {
  const std::size_t k = sums.size();
  if (k == 0) return;
  std::vector<std::int64_t> words(k * ExactSum::kDigits);
  std::vector<double> nonfinite(k);
  for (std::size_t j = 0; j < k; ++j) {
    sums[j].normalize();
    std::copy_n(sums[j].words(), ExactSum::kDigits, words.begin() + j * ExactSum::kDigits);
    nonfinite[j] = sums[j].nonfinite();
  }
  if (size_ > 1) {
    MPI_Allreduce(MPI_IN_PLACE, words.data(), static_cast<int>(words.size()), MPI_INT64_T, MPI_SUM, comm_);
    MPI_Allreduce(MPI_IN_PLACE, nonfinite.data(), static_cast<int>(k), MPI_DOUBLE, MPI_SUM, comm_);
  }
  for (std::size_t j = 0; j < k; ++j) {
    std::copy_n(words.begin() + j * ExactSum::kDigits, ExactSum::kDigits, sums[j].words());
    sums[j].set_nonfinite(nonfinite[j]);
    sums[j].normalize();
  }
}

double Context::sum(std::span<const double> local_terms) const {
  if (deterministic_) {
    ExactSum s;
    for (double x : local_terms) s.add(x);
    allreduce(std::span<ExactSum>(&s, 1));
    return s.value();
  }
  double local = 0.0;
  for (double x : local_terms) local += x;
  double global = local;
  if (size_ > 1) MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm_);
  return global;
}

double Context::sum(double local) const { return sum(std::span<const double>(&local, 1)); }

double Context::max(double local) const {
  if (size_ == 1) return local;
  // MPI_MAX does not reliably propagate NaN: reduce a NaN flag alongside.
  double in[2] = {std::isnan(local) ? -INFINITY : local, std::isnan(local) ? 1.0 : 0.0}, out[2];
  MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, comm_);
  return out[1] > 0.0 ? std::numeric_limits<double>::quiet_NaN() : out[0];
}

double Context::min(double local) const {
  if (size_ == 1) return local;
  double in[2] = {std::isnan(local) ? INFINITY : local, std::isnan(local) ? 1.0 : 0.0}, out[2];
  MPI_Allreduce(&in[0], &out[0], 1, MPI_DOUBLE, MPI_MIN, comm_);
  MPI_Allreduce(&in[1], &out[1], 1, MPI_DOUBLE, MPI_MAX, comm_);
  return out[1] > 0.0 ? std::numeric_limits<double>::quiet_NaN() : out[0];
}

std::uint64_t Context::sum_u64(std::uint64_t local) const {
  std::uint64_t g = local;
  if (size_ > 1) MPI_Allreduce(&local, &g, 1, MPI_UINT64_T, MPI_SUM, comm_);
  return g;
}

double Context::sum_of_squares(const double* x, std::size_t n) const {
  if (deterministic_) {
    const int nt = n >= 4096 ? omp_get_max_threads() : 1;
    if (nt == 1) {  // no parallel region, no allocation: the same exact sum
      ExactSum s;
      for (std::size_t i = 0; i < n; ++i) s.add(x[i] * x[i]);
      allreduce(std::span<ExactSum>(&s, 1));
      return s.value();
    }
    std::vector<ExactSum> part(static_cast<std::size_t>(nt));
#pragma omp parallel num_threads(nt)
    {
      ExactSum& mine = part[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(static)
      for (std::size_t i = 0; i < n; ++i) mine.add(x[i] * x[i]);
    }
    for (int t = 1; t < nt; ++t) part[0].add(part[static_cast<std::size_t>(t)]);
    allreduce(std::span<ExactSum>(part.data(), 1));
    return part[0].value();
  }
  double local = 0.0;
#pragma omp parallel for reduction(+ : local) schedule(static) if (n >= 4096)
  for (std::size_t i = 0; i < n; ++i) local += x[i] * x[i];
  double g = local;
  if (size_ > 1) MPI_Allreduce(&local, &g, 1, MPI_DOUBLE, MPI_SUM, comm_);
  return g;
}

double Context::max_abs(const double* x, std::size_t n) const {
  double m = 0.0;
  int nan = 0;
#pragma omp parallel for reduction(max : m) reduction(| : nan) schedule(static) if (n >= 4096)
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(x[i])) nan = 1;
    else m = std::max(m, std::fabs(x[i]));
  }
  return max(nan ? std::numeric_limits<double>::quiet_NaN() : m);
}

std::string broadcast_string(const std::string& s, int root, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  unsigned long n = s.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG, root, comm);
  std::string out = rank == root ? s : std::string(n, '\0');
  if (n) MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, root, comm);
  return out;
}

void check_all(const Context& ctx, bool ok, const std::string& what) {
  int local_bad = ok ? 0 : 1, any_bad = local_bad;
  if (ctx.size() > 1) MPI_Allreduce(&local_bad, &any_bad, 1, MPI_INT, MPI_MAX, ctx.comm());
  if (any_bad) throw std::runtime_error(what);
}

}  // namespace lie::par
