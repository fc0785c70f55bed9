#pragma once
// Loops over independent items that use an OpenMP team only when the caller decided so, once
// (at construction or bind(), from the problem size and the number of threads). The serial
// branch enters no parallel region: `#pragma omp parallel for if (false)` still starts a team
// of one thread in libgomp, which cost about 0.3-1 us per loop and dominated the steps of
// small systems (issue 16). Both branches give the same bits: every item is computed by the
// same code whichever thread runs it (static schedule, no reductions here).
#include <omp.h>

#include <cstddef>

namespace lie::par {

/// Whether a loop over n items should use an OpenMP team: n >= min_items and more than one
/// thread available. Decide once, outside the step loop.
inline bool use_threads(std::size_t n, std::size_t min_items) { return n >= min_items && omp_get_max_threads() > 1; }

/// body(i) for i in [0, n), on an OpenMP team (static schedule) when `threaded`.
template <class Index, class Body>
inline void for_each_index(Index n, bool threaded, Body&& body) {
  if (threaded) {
#pragma omp parallel for schedule(static)
    for (Index i = 0; i < n; ++i) body(i);
  } else {
    for (Index i = 0; i < n; ++i) body(i);
  }
}

}  // namespace lie::par
