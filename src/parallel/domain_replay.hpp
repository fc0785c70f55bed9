#pragma once
// The spatial decomposition's traffic replayed from the geometry alone (issue 28: "10^8 bodies
// on a simulated cluster, sampled compute where needed").
//
// A simulated cluster runs every rank in one process of this machine: 10^8 bodies of the real
// cutoff path need ~1 kB each (state, integrator stages, domain arrays, Verlet lists), 100 GB.
// DomainReplay holds none of it. Given each owned body's position as a function (the lattice
// start: site of Morton rank i, O(1)), it places the bodies exactly as SpatialDomains does --
// the same grids, splitters and owner sets (the shared functions of spatial_domains.hpp) -- and
// keeps only counts: per peer rank, the bodies sent and how many of them are homed there. One
// evaluate() then sends and receives the messages SpatialDomains::distribute() and collect()
// would, with the same sizes, peers, tags and order, from scratch buffers, and injects the pair
// and body work as simulated seconds from calibrated costs (SMPI build; nothing in the regular
// build). The counters are those of SpatialDomains::traffic() (test: the same per rank on
// lattices of 1-4 ranks; tests/mpi/test_domain_replay.cpp), list entries from the lattice's
// coordination (every site of a periodic simple cubic lattice has the same neighbours).
//
// What it is not: the forces, the integrator, a state. The simulated time of a replayed step
// is the real decomposition's communication plus modelled compute (scripts/smpi/README.md,
// "The cutoff path at 10^8 bodies" compares both where the real path fits).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "parallel/spatial_domains.hpp"

namespace lie::par {

class DomainReplay {
 public:
  /// position(i, q): the unwrapped position of owned body i (global index) into q[0..2].
  using Position = std::function<void(std::size_t, double*)>;

  /// Collective: the rebuild's placement (grids, splitters, owner sets, the all-to-all of counts).
  /// entries_per_home: the Verlet list length of every home body (lattice_list_entries).
  DomainReplay(const SpatialDomains::Options& options, Range owned, Context& ctx,
               const Position& position, std::size_t entries_per_home);

  /// Collective: one field evaluation's traffic (positions and payload out, 6 doubles per body;
  /// row sums back, `width` per home body), with pair_seconds_per_entry x this rank's list
  /// entries injected as compute between the two (SMPI build).
  void evaluate(int width, double pair_seconds_per_entry);

  const DomainTraffic& traffic() const { return traffic_; }
  const std::vector<std::uint64_t>& splitters() const { return split_; }

 private:
  void exchange(const std::vector<int>& to, const std::vector<std::size_t>& out_values, const std::vector<int>& from,
                const std::vector<std::size_t>& in_values, int tag);

  Context& ctx_;
  std::vector<std::uint64_t> split_;
  // per peer (increasing rank, self included): bodies I send / of them homed there
  std::vector<int> dest_;
  std::vector<std::size_t> dest_count_, dest_home_;
  // per peer I receive from: bodies / of them homed here
  std::vector<int> src_;
  std::vector<std::size_t> src_count_, src_home_;
  std::size_t home_ = 0, list_entries_ = 0;
  std::vector<double> out_buf_, in_buf_;
  std::vector<std::size_t> in_at_;  // offset of each peer's receive in in_buf_
  std::vector<std::size_t> out_values_, in_values_;
  std::vector<MPI_Request> requests_;
  DomainTraffic traffic_;
};

/// The Verlet list length of every site of an n[0] x n[1] x n[2] simple cubic lattice filling
/// the periodic box of `options` (spacing L / n per axis): the sites other than itself within
/// rc + skin by SpatialDomains::pair_r2's minimum-image expression, counted from site 0.
std::size_t lattice_list_entries(const SpatialDomains::Options& options, const std::size_t n[3]);

}  // namespace lie::par
