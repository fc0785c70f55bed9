// Spatial decomposition for short-range pair sums: design, layout independence and the
// traffic counters in spatial_domains.hpp.
#include "parallel/spatial_domains.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace lie::par {

namespace {

constexpr int kMortonBits = 21;  // per axis: 3 x 21 bits in one 64-bit key
constexpr std::int64_t kMaxCells = std::int64_t{1} << kMortonBits;
constexpr int kTagCodes = 1731, kTagPositions = 1732, kTagSums = 1733;

// The 21 low bits of v spread to every third bit (Morton interleaving).
std::uint64_t spread3(std::uint64_t v) {
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}

// The inverse of spread3: every third bit of v gathered into the 21 low bits.
std::uint64_t compact3(std::uint64_t v) {
  v &= 0x1249249249249249ULL;
  v = (v ^ (v >> 2)) & 0x10c30c30c30c30c3ULL;
  v = (v ^ (v >> 4)) & 0x100f00f00f00f00fULL;
  v = (v ^ (v >> 8)) & 0x1f0000ff0000ffULL;
  v = (v ^ (v >> 16)) & 0x1f00000000ffffULL;
  v = (v ^ (v >> 32)) & 0x1fffff;
  return v;
}

}  // namespace

void morton_cell(std::uint64_t key, std::uint64_t& cx, std::uint64_t& cy, std::uint64_t& cz) {
  cx = compact3(key), cy = compact3(key >> 1), cz = compact3(key >> 2);
}

std::uint64_t morton_key(std::uint64_t cx, std::uint64_t cy, std::uint64_t cz) {
  return spread3(cx) | spread3(cy) << 1 | spread3(cz) << 2;
}

SpatialDomains::SpatialDomains(const Options& options, std::size_t n, Range owned, Context& ctx)
    : opt_(options), n_(n), owned_(owned), ctx_(ctx) {
  if (!(opt_.cutoff > 0.0) || !(opt_.skin >= 0.0) || !std::isfinite(opt_.cutoff + opt_.skin))
    throw UsageError("spatial domains need a cutoff > 0 and a skin >= 0 (got cutoff " + std::to_string(opt_.cutoff) +
                     ", skin " + std::to_string(opt_.skin) + ")");
  if (n_ >= (std::size_t{1} << 52)) throw UsageError("spatial domains: more than 2^52 bodies");
  for (int a = 0; a < 3; ++a) {
    len_[a] = opt_.box.kernel_length(a);
    half_[a] = opt_.box.kernel_half(a);
  }
  wrapped_.resize(3 * owned_.size());
}

// ---------------------------------------------------------------------------------------------
// The grid: cells of side >= rc + skin; periodic axes [0, L), open axes the bodies' extent.

void make_domain_grids(const SpatialDomains::Options& opt, double ext[6], Context& ctx, DomainGrid& list,
                       DomainGrid& domain) {
  const double side = opt.cutoff + opt.skin;
  // open axes: the extent of all bodies (max of hi and of -lo in one reduction)
  if (ctx.size() > 1) MPI_Allreduce(MPI_IN_PLACE, ext, 6, MPI_DOUBLE, MPI_MAX, ctx.comm());
  for (int a = 0; a < 3; ++a) {
    const std::size_t ax = static_cast<std::size_t>(a);
    const bool periodic = opt.box.periodic[ax];
    const double lo = periodic ? 0.0 : (std::isfinite(ext[a]) ? -ext[a] : 0.0);
    const double extent = periodic ? opt.box.length[ax] : std::max(0.0, ext[3 + a] - lo);
    // cells of side extent / nc >= rc + skin (the rounding of extent / nc checked), at most 2^21
    std::int64_t nc = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(extent / side)));
    nc = std::min(nc, kMaxCells);
    while (nc > 1 && extent / static_cast<double>(nc) < side) --nc;
    std::int64_t pow2 = 1;  // the domain cells: the largest power of two <= nc
    while (2 * pow2 <= nc) pow2 *= 2;
    for (DomainGrid* g : {&list, &domain}) {
      const std::int64_t cells = g == &list ? nc : pow2;
      g->periodic[a] = periodic;
      g->origin[a] = lo;
      g->cells[a] = cells;
      g->side[a] = extent > 0.0 ? extent / static_cast<double>(cells) : 0.0;
      g->inv_side[a] = extent > 0.0 ? static_cast<double>(cells) / extent : 0.0;
    }
  }
}

std::int64_t DomainGrid::coord(int axis, double w) const {
  const std::int64_t c = static_cast<std::int64_t>(std::floor((w - origin[axis]) * inv_side[axis]));
  return std::clamp<std::int64_t>(c, 0, cells[axis] - 1);  // open axes: beyond the extent, clamped
}

int DomainGrid::neighbours(int axis, std::int64_t c, double w, std::int64_t* out, double* gap) const {
  const std::int64_t nc = cells[axis];
  const double in = w - (origin[axis] + static_cast<double>(c) * side[axis]);  // from the cell's lower face
  int m = 0;
  for (std::int64_t d = -1; d <= 1; ++d) {
    std::int64_t v = c + d;
    if (periodic[axis]) {
      v = ((v % nc) + nc) % nc;
    } else if (v < 0 || v >= nc) {
      continue;
    }
    // clamped bodies (open axes) may lie outside their cell: distance 0 then
    const double g = d < 0 ? std::max(0.0, in) : d > 0 ? std::max(0.0, side[axis] - in) : 0.0;
    const int k = static_cast<int>(std::find(out, out + m, v) - out);
    if (k == m) {
      out[m] = v, gap[m] = g;
      ++m;
    } else {
      gap[k] = std::min(gap[k], g);
    }
  }
  return m;
}

std::uint64_t cell_key(const DomainGrid& g, const double* w) {
  return morton_key(static_cast<std::uint64_t>(g.coord(0, w[0])), static_cast<std::uint64_t>(g.coord(1, w[1])),
                    static_cast<std::uint64_t>(g.coord(2, w[2])));
}

int domain_owner(const std::vector<std::uint64_t>& split, std::uint64_t key) {
  return static_cast<int>(std::upper_bound(split.begin(), split.end(), key) - split.begin());
}

// Splitters from a regular sample of every rank's sorted keys (at most kSample per rank).
std::vector<std::uint64_t> choose_splitters(std::vector<std::uint64_t> sorted, Context& ctx) {
  const int P = ctx.size();
  std::vector<std::uint64_t> split;
  if (P == 1) return split;
  constexpr std::size_t kSample = 32;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t s = std::min(kSample, sorted.size());
  std::vector<std::uint64_t> mine(s);
  for (std::size_t k = 0; k < s; ++k) mine[k] = sorted[(2 * k + 1) * sorted.size() / (2 * s)];
  std::vector<int> counts(static_cast<std::size_t>(P)), displs(static_cast<std::size_t>(P));
  const int ms = static_cast<int>(s);
  MPI_Allgather(&ms, 1, MPI_INT, counts.data(), 1, MPI_INT, ctx.comm());
  int total = 0;
  for (int r = 0; r < P; ++r) displs[static_cast<std::size_t>(r)] = total, total += counts[static_cast<std::size_t>(r)];
  std::vector<std::uint64_t> all(static_cast<std::size_t>(total));
  MPI_Allgatherv(mine.data(), ms, MPI_UINT64_T, all.data(), counts.data(), displs.data(), MPI_UINT64_T, ctx.comm());
  std::sort(all.begin(), all.end());
  split.resize(static_cast<std::size_t>(P - 1));
  for (int r = 1; r < P; ++r)
    split[static_cast<std::size_t>(r - 1)] =
        all.empty() ? 0 : all[static_cast<std::size_t>(r) * all.size() / static_cast<std::size_t>(P)];
  return split;
}

void body_owners(const DomainGrid& g, const std::vector<std::uint64_t>& split, const double* w, double reach2,
                 std::vector<int>& owners) {
  std::int64_t xs[3], ys[3], zs[3];
  double gx[3], gy[3], gz[3];
  const int nx = g.neighbours(0, g.coord(0, w[0]), w[0], xs, gx), ny = g.neighbours(1, g.coord(1, w[1]), w[1], ys, gy),
            nz = g.neighbours(2, g.coord(2, w[2]), w[2], zs, gz);
  owners.assign(1, domain_owner(split, cell_key(g, w)));
  if (split.empty()) return;
  for (int c = 0; c < nz; ++c)
    for (int b = 0; b < ny; ++b)
      for (int a = 0; a < nx; ++a) {
        if (!(gx[a] * gx[a] + gy[b] * gy[b] + gz[c] * gz[c] < reach2)) continue;
        const int r = domain_owner(split, morton_key(static_cast<std::uint64_t>(xs[a]), static_cast<std::uint64_t>(ys[b]),
                                                     static_cast<std::uint64_t>(zs[c])));
        if (std::find(owners.begin(), owners.end(), r) == owners.end()) owners.push_back(r);
      }
}

// ---------------------------------------------------------------------------------------------

namespace {
// The position of rank r in a peer list (peers.size() if absent).
std::size_t index_of(const std::vector<int>& peers, int r) {
  return static_cast<std::size_t>(std::find(peers.begin(), peers.end(), r) - peers.begin());
}
}  // namespace

bool SpatialDomains::needs_rebuild(const double* q, std::size_t stride) const {
  // [max squared displacement since the last rebuild, a body with a position the grid cannot hold]
  double v[2] = {built_ ? 0.0 : std::numeric_limits<double>::infinity(), 0.0};
  const double huge = 1e15 * (opt_.cutoff + opt_.skin);
  for (std::size_t i = 0; i < owned_.size(); ++i) {
    const double* qi = q + stride * i;
    if (!(std::fabs(qi[0]) + std::fabs(qi[1]) + std::fabs(qi[2]) < huge)) v[1] = 1.0;
    if (built_) {
      const double dx = qi[0] - q_ref_[3 * i], dy = qi[1] - q_ref_[3 * i + 1], dz = qi[2] - q_ref_[3 * i + 2];
      v[0] = std::max(v[0], dx * dx + dy * dy + dz * dz);
    }
  }
  if (ctx_.size() > 1) MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, ctx_.comm());
  if (v[1] > 0.0) {
    double first = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < owned_.size() && !std::isfinite(first); ++i) {
      const double* qi = q + stride * i;
      if (!(std::fabs(qi[0]) + std::fabs(qi[1]) + std::fabs(qi[2]) < huge))
        first = static_cast<double>(owned_.begin + i);
    }
    first = ctx_.min(first);
    throw NumericalError("body " + std::to_string(static_cast<std::size_t>(first)) +
                         " has a non-finite or huge position; the cutoff path cannot bin it");
  }
  const double half_skin = 0.5 * opt_.skin;
  return !built_ || v[0] > half_skin * half_skin;
}

void SpatialDomains::rebuild(const double* q, std::size_t stride) {
  const int P = ctx_.size();
  const std::size_t nl = owned_.size();
  double ext[6];
  std::fill(ext, ext + 6, -std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < nl; ++i)
    for (int a = 0; a < 3; ++a) {
      const double w = wrapped_[3 * i + static_cast<std::size_t>(a)];
      ext[a] = std::max(ext[a], -w);
      ext[3 + a] = std::max(ext[3 + a], w);
    }
  make_domain_grids(opt_, ext, ctx_, list_grid_, domain_grid_);
  key_.resize(nl);
  for (std::size_t i = 0; i < nl; ++i) key_[i] = cell_key(domain_grid_, &wrapped_[3 * i]);
  split_ = choose_splitters(key_, ctx_);

  // Owned side: every body to the owner of its domain cell and of each of the 26 around it
  // closer than rc + skin.
  const double reach = opt_.cutoff + opt_.skin, reach2 = reach * reach;
  std::vector<std::vector<std::uint32_t>> to(static_cast<std::size_t>(P)), homed(static_cast<std::size_t>(P));
  std::vector<int> owners;
  for (std::size_t i = 0; i < nl; ++i) {
    body_owners(domain_grid_, split_, &wrapped_[3 * i], reach2, owners);
    const int home = owners[0];
    for (int r : owners) {
      to[static_cast<std::size_t>(r)].push_back(static_cast<std::uint32_t>(i));
      if (r == home) homed[static_cast<std::size_t>(r)].push_back(static_cast<std::uint32_t>(i));
    }
  }
  dest_.clear();
  dest_bodies_.clear();
  home_bodies_.clear();
  std::vector<int> send_counts(static_cast<std::size_t>(P)), recv_counts(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) {
    const std::size_t rr = static_cast<std::size_t>(r);
    send_counts[rr] = static_cast<int>(to[rr].size());
    if (to[rr].empty()) continue;
    dest_.push_back(r);
    dest_bodies_.push_back(std::move(to[rr]));
    home_bodies_.push_back(std::move(homed[rr]));
  }
  // The receivers learn the counts (an all-to-all of one int per rank pair, at rebuilds only).
  if (P > 1)
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, ctx_.comm());
  else
    recv_counts = send_counts;
  src_.clear();
  std::vector<std::size_t> in_values;
  for (int r = 0; r < P; ++r)
    if (recv_counts[static_cast<std::size_t>(r)] > 0) {
      src_.push_back(r);
      in_values.push_back(static_cast<std::size_t>(recv_counts[static_cast<std::size_t>(r)]));
    }
  // Codes 2 index + home (exact in a double below 2^53).
  out_.resize(dest_.size());
  for (std::size_t k = 0; k < dest_.size(); ++k) {
    out_[k].resize(dest_bodies_[k].size());
    std::size_t h = 0;
    for (std::size_t e = 0; e < dest_bodies_[k].size(); ++e) {
      const std::uint32_t i = dest_bodies_[k][e];
      const bool is_home = h < home_bodies_[k].size() && home_bodies_[k][h] == i;
      if (is_home) ++h;
      out_[k][e] = static_cast<double>(2 * (owned_.begin + i) + (is_home ? 1 : 0));
    }
  }
  traffic_.messages_per_rebuild = traffic_.bytes_per_rebuild = 0;
  exchange(out_, dest_, in_, src_, in_values, kTagCodes, true);

  // Domain side: the received bodies in global index order.
  struct Entry {
    std::uint64_t index;
    std::uint32_t src, pos;
    bool home;
  };
  std::vector<Entry> entries;
  for (std::size_t k = 0; k < src_.size(); ++k)
    for (std::size_t e = 0; e < in_[k].size(); ++e) {
      const std::uint64_t code = static_cast<std::uint64_t>(in_[k][e]);
      entries.push_back({code / 2, static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(e), (code & 1) != 0});
    }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.index < b.index; });
  const std::size_t nd = entries.size();
  index_.resize(nd);
  for (auto* v : {&x_, &y_, &z_, &pl_[0], &pl_[1], &pl_[2]}) v->assign(nd, 0.0);
  src_slots_.assign(src_.size(), {});
  src_homes_.assign(src_.size(), {});
  for (std::size_t k = 0; k < src_.size(); ++k) src_slots_[k].resize(in_[k].size());
  home_.clear();
  for (std::size_t s = 0; s < nd; ++s) {
    index_[s] = entries[s].index;
    src_slots_[entries[s].src][entries[s].pos] = static_cast<std::uint32_t>(s);
    if (entries[s].home) home_.push_back(static_cast<std::uint32_t>(s));
  }
  home_of_slot_.assign(nd, kNotHome);
  for (std::size_t h = 0; h < home_.size(); ++h) home_of_slot_[home_[h]] = static_cast<std::uint32_t>(h);
  // the rows a source gets back: its home bodies in the order it sent them
  for (std::size_t k = 0; k < src_.size(); ++k)
    for (std::size_t e = 0; e < in_[k].size(); ++e)
      if ((static_cast<std::uint64_t>(in_[k][e]) & 1) != 0) src_homes_[k].push_back(home_of_slot_[src_slots_[k][e]]);

  q_ref_.resize(3 * nl);
  for (std::size_t i = 0; i < nl; ++i)
    for (int a = 0; a < 3; ++a) q_ref_[3 * i + static_cast<std::size_t>(a)] = q[stride * i + static_cast<std::size_t>(a)];
  built_ = true;
  ++traffic_.rebuilds;
}

namespace {
// Sorts v, the concatenation of the increasing runs [runs[r], runs[r + 1]) (runs.back() ==
// v.size()), by merging neighbouring runs level by level (tmp: scratch). A list row is one run
// per cell, so this replaces a general sort of ~75 entries (std::sort: about a third of a list
// build at N = 262144) by a few merges whose choice of the smaller head compiles without a branch.
void merge_runs(std::vector<std::uint32_t>& v, std::vector<std::uint32_t>& runs, std::vector<std::uint32_t>& tmp) {
  tmp.resize(v.size());
  while (runs.size() > 2) {
    std::size_t out_runs = 0;
    std::size_t r = 0;
    for (; r + 2 < runs.size(); r += 2) {  // runs r and r + 1 into tmp
      const std::uint32_t* __restrict a = v.data() + runs[r];
      const std::uint32_t* __restrict b = v.data() + runs[r + 1];
      const std::uint32_t* const ae = b;
      const std::uint32_t* const be = v.data() + runs[r + 2];
      std::uint32_t* __restrict o = tmp.data() + runs[r];
      while (a != ae && b != be) {
        const bool take_b = *b < *a;
        *o++ = take_b ? *b : *a;
        b += take_b;
        a += !take_b;
      }
      o = std::copy(a, ae, o);
      std::copy(b, be, o);
      runs[out_runs++] = runs[r];
    }
    if (r + 1 < runs.size()) {  // an odd run left: copied as it is
      std::copy(v.data() + runs[r], v.data() + runs[r + 1], tmp.data() + runs[r]);
      runs[out_runs++] = runs[r];
    }
    runs[out_runs++] = static_cast<std::uint32_t>(v.size());
    runs.resize(out_runs);
    v.swap(tmp);
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LIEBENCH_LIST_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LIEBENCH_LIST_CLONES
#endif
// r2[k] = SpatialDomains::minimum_image_r2(xi - ox[k], yi - oy[k], zi - oz[k]) for k < n: the list
// builder's candidate test across vector lanes (subtractions, selects and products, no fma and no
// contraction: every clone computes pair_r2's bits).
LIEBENCH_LIST_CLONES
void candidate_r2(double xi, double yi, double zi, const double* __restrict ox, const double* __restrict oy,
                  const double* __restrict oz, std::size_t n, const double* len, const double* half,
                  double* __restrict r2) {
  const double l[3] = {len[0], len[1], len[2]}, h[3] = {half[0], half[1], half[2]};
#pragma omp simd
  for (std::size_t k = 0; k < n; ++k) r2[k] = SpatialDomains::minimum_image_r2(xi - ox[k], yi - oy[k], zi - oz[k], l, h);
}
}  // namespace

// Verlet lists of the home bodies: every domain body within rc + skin (at the rebuild), by slot
// (= global index order). Cells over the domain bodies, sorted by (key, slot).
void SpatialDomains::build_lists() {
  const std::size_t nd = index_.size(), nh = home_.size();
  const DomainGrid& g = list_grid_;
  const double reach = opt_.cutoff + opt_.skin, reach2 = reach * reach;
  // Cells of the domain bodies: a dense table (cell -> its bodies, increasing slot, by a counting
  // sort) where the grid has at most kDenseCellsPerBody cells per body, else the bodies sorted
  // by (Morton key, slot) and every cell found by binary search (a sparse cloud on open axes).
  // Either way each cell's bodies are visited in increasing slot order, from copies of their
  // coordinates in that order, so that a candidate's test reads consecutive memory; the test is
  // pair_r2's expression on the same values, so both ways give the same lists.
  constexpr std::size_t kDenseCellsPerBody = 8;
  const std::size_t ncells = static_cast<std::size_t>(g.cells[0]) * static_cast<std::size_t>(g.cells[1]) *
                             static_cast<std::size_t>(g.cells[2]);
  const bool dense = ncells <= kDenseCellsPerBody * nd + 4096;
  auto dense_cell = [&](std::int64_t cx, std::int64_t cy, std::int64_t cz) {  // x fastest
    return static_cast<std::size_t>(cx + g.cells[0] * (cy + g.cells[1] * cz));
  };
  std::vector<std::uint32_t> order(nd);
  std::vector<std::uint32_t> start;      // dense: cell c holds order[start[c] .. start[c + 1])
  std::vector<std::uint64_t> sorted_keys;  // sparse: the Morton keys in the order of `order`
  if (dense) {
    std::vector<std::uint32_t> cell(nd);
    start.assign(ncells + 1, 0);
    for (std::size_t s = 0; s < nd; ++s) {
      cell[s] = static_cast<std::uint32_t>(dense_cell(g.coord(0, x_[s]), g.coord(1, y_[s]), g.coord(2, z_[s])));
      ++start[cell[s] + 1];
    }
    for (std::size_t c = 0; c < ncells; ++c) start[c + 1] += start[c];
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    for (std::size_t s = 0; s < nd; ++s) order[fill[cell[s]]++] = static_cast<std::uint32_t>(s);
  } else {
    std::vector<std::uint64_t> keys(nd);
    for (std::size_t s = 0; s < nd; ++s) {
      const double w[3] = {x_[s], y_[s], z_[s]};
      keys[s] = cell_key(g, w);
    }
    for (std::size_t s = 0; s < nd; ++s) order[s] = static_cast<std::uint32_t>(s);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return keys[a] < keys[b] || (keys[a] == keys[b] && a < b);
    });
    sorted_keys.resize(nd);
    for (std::size_t k = 0; k < nd; ++k) sorted_keys[k] = keys[order[k]];
  }
  std::vector<double> ox(nd), oy(nd), oz(nd);
  for (std::size_t k = 0; k < nd; ++k) ox[k] = x_[order[k]], oy[k] = y_[order[k]], oz[k] = z_[order[k]];

  const int T = omp_get_max_threads();
  std::vector<std::vector<std::uint32_t>> buf(static_cast<std::size_t>(T));
  std::vector<std::size_t> count(nh + 1, 0);
#pragma omp parallel num_threads(T)
  {
    std::vector<std::uint32_t>& out = buf[static_cast<std::size_t>(omp_get_thread_num())];
    out.clear();
    std::vector<std::uint32_t> row, runs, scratch;  // runs: where each cell's partners start in row
    std::vector<double> r2;  // one cell's candidates
#pragma omp for schedule(static)
    for (std::size_t h = 0; h < nh; ++h) {
      const std::uint32_t si = home_[h];
      const double xi = x_[si], yi = y_[si], zi = z_[si];
      std::int64_t xs[3], ys[3], zs[3];
      double gx[3], gy[3], gz[3];
      const int nx = g.neighbours(0, g.coord(0, xi), xi, xs, gx), ny = g.neighbours(1, g.coord(1, yi), yi, ys, gy),
                nz = g.neighbours(2, g.coord(2, zi), zi, zs, gz);
      row.clear();
      runs.clear();
      for (int c = 0; c < nz; ++c)
        for (int b = 0; b < ny; ++b)
          for (int a = 0; a < nx; ++a) {
            // a cell whose nearest point is beyond reach holds no partner (the gaps are lower
            // bounds of the axis distances; the margin covers their rounding): skipped
            if (gx[a] * gx[a] + gy[b] * gy[b] + gz[c] * gz[c] > reach2 * (1.0 + 1e-9)) continue;
            std::size_t k0, k1;
            if (dense) {
              const std::size_t cell = dense_cell(xs[a], ys[b], zs[c]);
              k0 = start[cell], k1 = start[cell + 1];
            } else {
              const std::uint64_t key = morton_key(static_cast<std::uint64_t>(xs[a]), static_cast<std::uint64_t>(ys[b]),
                                                   static_cast<std::uint64_t>(zs[c]));
              const auto range = std::equal_range(sorted_keys.begin(), sorted_keys.end(), key);
              k0 = static_cast<std::size_t>(range.first - sorted_keys.begin());
              k1 = static_cast<std::size_t>(range.second - sorted_keys.begin());
            }
            // the candidates' r2 = pair_r2(si, order[k]) in vectors, then branch-free: every
            // candidate written, the position advanced for those within reach
            const std::size_t nc = k1 - k0;
            if (r2.size() < nc) r2.resize(nc);
            candidate_r2(xi, yi, zi, ox.data() + k0, oy.data() + k0, oz.data() + k0, nc, len_, half_, r2.data());
            const std::size_t m0 = row.size();
            std::size_t m = m0;
            row.resize(m + nc);
            std::uint32_t* __restrict out_row = row.data();
            const std::uint32_t* __restrict cand = order.data() + k0;
            for (std::size_t k = 0; k < nc; ++k) {
              out_row[m] = cand[k];
              m += (r2[k] < reach2) & (cand[k] != si);
            }
            row.resize(m);
            if (m > m0) runs.push_back(static_cast<std::uint32_t>(m0));  // this cell's partners: one run
          }
      runs.push_back(static_cast<std::uint32_t>(row.size()));
      merge_runs(row, runs, scratch);  // every cell's partners are in increasing slot order
      count[h + 1] = row.size();
      out.insert(out.end(), row.begin(), row.end());
    }
  }
  nbr_begin_.resize(nh + 1);
  nbr_begin_[0] = 0;
  for (std::size_t h = 0; h < nh; ++h) nbr_begin_[h + 1] = nbr_begin_[h] + count[h + 1];
  nbr_.assign(nbr_begin_[nh] + kPairRowPad, 0);  // the pad: pair rows read whole vector blocks
  std::size_t at = 0;  // static schedule: the threads' chunks are consecutive, in thread order
  for (const auto& b : buf) {
    std::copy(b.begin(), b.end(), nbr_.begin() + static_cast<std::ptrdiff_t>(at));
    at += b.size();
  }
  build_pair_rows();

  traffic_.home = nh;
  traffic_.ghosts = nd - nh;
  traffic_.list_entries = nbr_begin_[nh];
  traffic_.pair_terms = 0;
  std::size_t bytes = home_of_slot_.capacity() * 4;
  for (const PairPart& p : parts_) {
    traffic_.pair_terms += p.pairs;
    bytes += p.rows.capacity() * sizeof(PairRow) + p.foreign.capacity() * 4;
  }
  bytes += nbr_.capacity() * 4 + nbr_begin_.capacity() * 8 + index_.capacity() * 8 +
                      (x_.capacity() + y_.capacity() + z_.capacity()) * 8 + home_.capacity() * 4 +
                      (wrapped_.capacity() + q_ref_.capacity()) * 8 + key_.capacity() * 8;
  for (const auto& p : pl_) bytes += p.capacity() * 8;
  for (const auto& v : dest_bodies_) bytes += v.capacity() * 4;
  for (const auto& v : home_bodies_) bytes += v.capacity() * 4;
  for (const auto& v : src_slots_) bytes += v.capacity() * 4;
  for (const auto& v : src_homes_) bytes += v.capacity() * 4;
  traffic_.bytes_held = bytes;
}

// The pair rows of each part (spatial_domains.hpp: pair_parts): the own rows are the tails j > i
// of the home bodies' Verlet lists (no copy); a pair (j, i), j < i, of an own body i whose lower
// body j is not the part's (a ghost, another part's home) goes into j's foreign row. Own and
// foreign rows are then merged by slot. The homes run in increasing slot order, so every
// foreign row receives its entries in increasing order.
void SpatialDomains::build_pair_rows() {  // after rebuild(): home_of_slot_ is current
  const std::size_t nd = index_.size(), nh = home_.size();
  const int T = std::max(1, omp_get_max_threads());
  const std::size_t P = static_cast<std::size_t>(T);
  parts_.resize(P);
#pragma omp parallel for num_threads(T) schedule(static, 1) if (T > 1)
  for (std::size_t p = 0; p < P; ++p) {
    PairPart& part = parts_[p];
    const std::uint32_t h0 = static_cast<std::uint32_t>(nh * p / P), h1 = static_cast<std::uint32_t>(nh * (p + 1) / P);
    part.home_begin = h0, part.home_end = h1, part.trash = static_cast<std::uint32_t>(nh + p);
    const auto own = [&](std::uint32_t s) { return home_of_slot_[s] - h0 < h1 - h0; };  // unsigned: kNotHome fails
    // the foreign pairs (j, si): j < si from an own home's list, j not the part's, homes in order
    auto for_each_foreign = [&](auto&& f) {
      for (std::uint32_t h = h0; h < h1; ++h) {
        const std::uint32_t si = home_[h];
        for (const std::uint32_t* it = list_begin(h); it != list_end(h) && *it < si; ++it)
          if (!own(*it)) f(*it, si);
      }
    };
    // foreign rows by counting sort on the lower slot
    std::vector<std::uint32_t> count(nd + 1, 0);
    std::size_t foreign = 0;
    for_each_foreign([&](std::uint32_t j, std::uint32_t) { ++count[j + 1], ++foreign; });
    for (std::size_t s = 0; s < nd; ++s) count[s + 1] += count[s];
    part.foreign.assign(foreign + kPairRowPad, 0);
    std::vector<std::uint32_t> fill(count.begin(), count.end() - 1);
    for_each_foreign([&](std::uint32_t j, std::uint32_t si) { part.foreign[fill[j]++] = si; });
    // merge the own rows (homes h0..h1, increasing slot) with the foreign rows (increasing slot)
    part.rows.clear();
    part.pairs = part.longest = 0;
    std::uint32_t h = h0;
    const std::uint32_t* F = part.foreign.data();
    auto add = [&](const PairRow& r) {
      const std::size_t len = static_cast<std::size_t>(r.end - r.begin);
      if (len == 0) return;
      part.rows.push_back(r);
      part.pairs += len;
      part.longest = std::max(part.longest, len);
    };
    auto own_row = [&](std::uint32_t hh) {
      const std::uint32_t si = home_[hh];
      return PairRow{si, hh, std::upper_bound(list_begin(hh), list_end(hh), si), list_end(hh)};
    };
    for (std::size_t s = 0; s < nd; ++s) {
      if (count[s + 1] == count[s]) continue;
      for (; h < h1 && home_[h] < s; ++h) add(own_row(h));
      add(PairRow{static_cast<std::uint32_t>(s), part.trash, F + count[s], F + count[s + 1]});
    }
    for (; h < h1; ++h) add(own_row(h));
  }
}

// ---------------------------------------------------------------------------------------------

void SpatialDomains::exchange(const std::vector<std::vector<double>>& out, const std::vector<int>& to,
                              std::vector<std::vector<double>>& in, const std::vector<int>& from,
                              const std::vector<std::size_t>& in_values, int tag, bool count_as_rebuild) {
  ScopedTimer timer(ctx_.timers(), "comm");
  const int me = ctx_.rank();
  in.resize(from.size());
  for (std::size_t k = 0; k < from.size(); ++k) in[k].resize(in_values[k]);
  std::uint64_t& messages = count_as_rebuild ? traffic_.messages_per_rebuild : traffic_.messages_per_evaluation;
  std::uint64_t& bytes = count_as_rebuild ? traffic_.bytes_per_rebuild : traffic_.bytes_per_evaluation;
  exchange_phase(
      ctx_, tag, from, in_values, [&](std::size_t k) { return in[k].data(); }, to,
      [&](std::size_t k) { return std::pair<const double*, std::size_t>(out[k].data(), out[k].size()); }, requests_,
      messages, bytes);
  const std::size_t self_to = index_of(to, me), self_from = index_of(from, me);
  if (self_to < to.size()) std::copy(out[self_to].begin(), out[self_to].end(), in[self_from].begin());
}

void SpatialDomains::distribute(const double* q, std::size_t stride, const double* payload) {
  const std::size_t nl = owned_.size();
  for (std::size_t i = 0; i < nl; ++i)
    for (int a = 0; a < 3; ++a)
      wrapped_[3 * i + static_cast<std::size_t>(a)] = opt_.box.wrap(a, q[stride * i + static_cast<std::size_t>(a)]);
  const bool rebuilt = needs_rebuild(q, stride);
  if (rebuilt) rebuild(q, stride);
  ++traffic_.evaluations;
  traffic_.messages_per_evaluation = traffic_.bytes_per_evaluation = 0;
  // This rank's own entries go straight from the owned bodies to their slots (the message to
  // self had been packed, copied and unpacked: with collect's, about a third of a one-rank
  // evaluation's time outside the pair rows, N = 4096 in a periodic box); the same values in the
  // same slots.
  const std::size_t self_to = index_of(dest_, ctx_.rank()), self_from = index_of(src_, ctx_.rank());
  out_.resize(dest_.size());
  for (std::size_t k = 0; k < dest_.size(); ++k) {
    if (k == self_to) {
      out_[k].clear();
      continue;
    }
    out_[k].resize(6 * dest_bodies_[k].size());
    double* o = out_[k].data();
    for (const std::uint32_t i : dest_bodies_[k]) {
      for (int a = 0; a < 3; ++a) *o++ = wrapped_[3 * i + static_cast<std::size_t>(a)];
      for (int a = 0; a < 3; ++a) *o++ = payload[3 * i + static_cast<std::size_t>(a)];
    }
  }
  in_values_.resize(src_.size());
  for (std::size_t k = 0; k < src_.size(); ++k) in_values_[k] = k == self_from ? 0 : 6 * src_slots_[k].size();
  exchange(out_, dest_, in_, src_, in_values_, kTagPositions, false);
  auto to_slot = [&](std::size_t s, const double* w, const double* mu) {  // a body's wrapped q and mu
    x_[s] = w[0], y_[s] = w[1], z_[s] = w[2];
    pl_[0][s] = mu[0], pl_[1][s] = mu[1], pl_[2][s] = mu[2];
  };
  if (self_to < dest_.size()) {  // dest_bodies_[self_to][m] lands in slot src_slots_[self_from][m]
    const std::vector<std::uint32_t>& bodies = dest_bodies_[self_to];
    const std::vector<std::uint32_t>& slots = src_slots_[self_from];
    for (std::size_t m = 0; m < bodies.size(); ++m) to_slot(slots[m], &wrapped_[3 * bodies[m]], payload + 3 * bodies[m]);
  }
  for (std::size_t k = 0; k < src_.size(); ++k) {
    if (k == self_from) continue;
    const double* v = in_[k].data();
    for (const std::uint32_t s : src_slots_[k]) {
      to_slot(s, v, v + 3);
      v += 6;
    }
  }
  if (rebuilt) build_lists();
}

void SpatialDomains::collect(const double* home_sums, int width, double* owned_out) {
  const std::size_t w = static_cast<std::size_t>(width);
  // the reverse pattern: to every source its home rows, from every destination my bodies' rows;
  // this rank's own rows straight from home_sums (as distribute), fixed-width row copies
  const std::size_t self_src = index_of(src_, ctx_.rank()), self_dest = index_of(dest_, ctx_.rank());
  auto copy_row = [w](const double* from, double* to) {
    if (w == 7) {  // the dipolar model's rows: an inline copy, not a library call per row
      for (std::size_t f = 0; f < 7; ++f) to[f] = from[f];
    } else {
      std::copy(from, from + w, to);
    }
  };
  out_.resize(src_.size());
  for (std::size_t k = 0; k < src_.size(); ++k) {
    if (k == self_src) {
      out_[k].clear();
      continue;
    }
    out_[k].resize(w * src_homes_[k].size());
    double* o = out_[k].data();
    for (const std::uint32_t h : src_homes_[k]) {
      copy_row(home_sums + w * h, o);
      o += w;
    }
  }
  in_values_.resize(dest_.size());
  for (std::size_t k = 0; k < dest_.size(); ++k) in_values_[k] = k == self_dest ? 0 : w * home_bodies_[k].size();
  exchange(out_, src_, in_, dest_, in_values_, kTagSums, false);
  if (self_src < src_.size()) {  // row src_homes_[self_src][m] belongs to body home_bodies_[self_dest][m]
    const std::vector<std::uint32_t>& homes = src_homes_[self_src];
    const std::vector<std::uint32_t>& bodies = home_bodies_[self_dest];
    for (std::size_t m = 0; m < homes.size(); ++m) copy_row(home_sums + w * homes[m], owned_out + w * bodies[m]);
  }
  for (std::size_t k = 0; k < dest_.size(); ++k) {
    if (k == self_dest) continue;
    const double* v = in_[k].data();
    for (const std::uint32_t i : home_bodies_[k]) {
      copy_row(v, owned_out + w * i);
      v += w;
    }
  }
}

}  // namespace lie::par
