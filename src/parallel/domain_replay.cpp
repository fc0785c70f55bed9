// The decomposition's traffic from the geometry: design in domain_replay.hpp.
#include "parallel/domain_replay.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

#include "parallel/timers.hpp"

namespace lie::par {

namespace {
constexpr int kTagPositions = 1742, kTagSums = 1743;
}

DomainReplay::DomainReplay(const SpatialDomains::Options& opt, Range owned, Context& ctx,
                           const Position& position, std::size_t entries_per_home)
    : ctx_(ctx) {
  const int P = ctx.size();
  const std::size_t nl = owned.size();
  auto wrapped = [&](std::size_t li, double* w) {
    position(owned.begin + li, w);
    for (int a = 0; a < 3; ++a) w[a] = opt.box.wrap(a, w[a]);
  };
  // SpatialDomains::rebuild, counting instead of listing
  double ext[6];
  std::fill(ext, ext + 6, -std::numeric_limits<double>::infinity());
  double w[3];
  for (std::size_t li = 0; li < nl; ++li) {
    wrapped(li, w);
    for (int a = 0; a < 3; ++a) ext[a] = std::max(ext[a], -w[a]), ext[3 + a] = std::max(ext[3 + a], w[a]);
  }
  DomainGrid list{}, domain{};
  make_domain_grids(opt, ext, ctx, list, domain);
  {
    std::vector<std::uint64_t> keys(nl);
    for (std::size_t li = 0; li < nl; ++li) {
      wrapped(li, w);
      keys[li] = cell_key(domain, w);
    }
    split_ = choose_splitters(std::move(keys), ctx);
  }
  const double reach = opt.cutoff + opt.skin, reach2 = reach * reach;
  // [2 r]: bodies to rank r, [2 r + 1]: of them homed there
  std::vector<std::uint64_t> send(2 * static_cast<std::size_t>(P), 0), recv(2 * static_cast<std::size_t>(P), 0);
  std::vector<int> owners;
  for (std::size_t li = 0; li < nl; ++li) {
    wrapped(li, w);
    body_owners(domain, split_, w, reach2, owners);
    ++send[2 * static_cast<std::size_t>(owners[0]) + 1];
    for (int r : owners) ++send[2 * static_cast<std::size_t>(r)];
  }
  if (P > 1)
    MPI_Alltoall(send.data(), 2, MPI_UINT64_T, recv.data(), 2, MPI_UINT64_T, ctx.comm());
  else
    recv = send;
  std::size_t received = 0;
  for (int r = 0; r < P; ++r) {
    const std::size_t rr = static_cast<std::size_t>(r);
    if (send[2 * rr] > 0) dest_.push_back(r), dest_count_.push_back(send[2 * rr]), dest_home_.push_back(send[2 * rr + 1]);
    if (recv[2 * rr] > 0) {
      src_.push_back(r), src_count_.push_back(recv[2 * rr]), src_home_.push_back(recv[2 * rr + 1]);
      home_ += recv[2 * rr + 1];
      received += recv[2 * rr];
    }
  }
  list_entries_ = home_ * entries_per_home;
  traffic_.home = home_;
  traffic_.ghosts = received - home_;
  traffic_.list_entries = list_entries_;
  traffic_.rebuilds = 1;
  // SpatialDomains's arrays by their sizes (build_lists' sum, sizes in place of capacities)
  std::size_t sent = 0, sent_home = 0;
  for (std::size_t k = 0; k < dest_.size(); ++k) sent += dest_count_[k], sent_home += dest_home_[k];
  traffic_.bytes_held = 4 * list_entries_ + 8 * (home_ + 1) + 8 * received + 24 * received + 4 * home_ + 48 * nl +
                        8 * nl + 24 * received + 4 * sent + 4 * sent_home + 4 * received + 4 * home_;
}

void DomainReplay::exchange(const std::vector<int>& to, const std::vector<std::size_t>& out_values,
                            const std::vector<int>& from, const std::vector<std::size_t>& in_values, int tag) {
  ScopedTimer timer(ctx_.timers(), "comm");
  const int me = ctx_.rank();
  // Buffers for the messages to and from other ranks only: a simulated cluster holds every
  // rank's buffers in one process (10^8 bodies: the self part alone would be 17 MB per rank).
  // Every receive has its own part of in_buf_; the sends read one block (their contents are
  // never read). The copy to itself, as SpatialDomains::exchange makes it, goes through one
  // scratch block shared by the ranks of this process (simulated ranks run one at a time
  // between MPI calls).
  in_at_.assign(from.size(), 0);
  std::size_t in_total = 0, out_max = 0, self = 0;
  for (std::size_t k = 0; k < from.size(); ++k)
    if (from[k] != me) in_at_[k] = in_total, in_total += in_values[k];
  for (std::size_t k = 0; k < to.size(); ++k)
    if (to[k] != me) out_max = std::max(out_max, out_values[k]);
    else self = out_values[k];
  in_buf_.resize(in_total);
  out_buf_.resize(out_max);
  exchange_phase(
      ctx_, tag, from, in_values, [&](std::size_t k) { return in_buf_.data() + in_at_[k]; }, to,
      [&](std::size_t k) { return std::pair<const double*, std::size_t>(out_buf_.data(), out_values[k]); }, requests_,
      traffic_.messages_per_evaluation, traffic_.bytes_per_evaluation);
  static std::vector<double> scratch;
  if (scratch.size() < 2 * self) scratch.resize(2 * self);
  std::copy(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(self),
            scratch.begin() + static_cast<std::ptrdiff_t>(self));
}

void DomainReplay::evaluate(int width, double pair_seconds_per_entry) {
  ++traffic_.evaluations;
  traffic_.messages_per_evaluation = traffic_.bytes_per_evaluation = 0;
  // needs_rebuild's reduction (the largest displacement), then the positions out
  double v[2] = {0.0, 0.0};
  if (ctx_.size() > 1) MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, ctx_.comm());
  out_values_.resize(dest_.size());
  in_values_.resize(src_.size());
  for (std::size_t k = 0; k < dest_.size(); ++k) out_values_[k] = 6 * dest_count_[k];
  for (std::size_t k = 0; k < src_.size(); ++k) in_values_[k] = 6 * src_count_[k];
  exchange(dest_, out_values_, src_, in_values_, kTagPositions);
#ifdef SMPI_SAMPLE_FLOPS
  smpi_execute_benched(pair_seconds_per_entry * static_cast<double>(list_entries_));
#else
  (void)pair_seconds_per_entry;
#endif
  // the rows back: to every source its homes, from every destination my bodies homed there
  const std::size_t w = static_cast<std::size_t>(width);
  out_values_.resize(src_.size());
  in_values_.resize(dest_.size());
  for (std::size_t k = 0; k < src_.size(); ++k) out_values_[k] = w * src_home_[k];
  for (std::size_t k = 0; k < dest_.size(); ++k) in_values_[k] = w * dest_home_[k];
  exchange(src_, out_values_, dest_, in_values_, kTagSums);
}

std::size_t lattice_list_entries(const SpatialDomains::Options& opt, const std::size_t n[3]) {
  const double reach = opt.cutoff + opt.skin, reach2 = reach * reach;
  double a[3], len[3], half[3];
  long m[3];
  for (int k = 0; k < 3; ++k) {
    a[k] = opt.box.length[static_cast<std::size_t>(k)] / static_cast<double>(n[k]);
    len[k] = opt.box.kernel_length(k);
    half[k] = opt.box.kernel_half(k);
    m[k] = std::min(static_cast<long>(std::ceil(reach / a[k])) + 1, static_cast<long>(n[k]));
  }
  auto site = [&](int k, long c) { return opt.box.wrap(k, (static_cast<double>(c) + 0.5) * a[k]); };
  std::set<std::tuple<long, long, long>> seen;
  std::size_t count = 0;
  for (long dz = -m[2]; dz <= m[2]; ++dz)
    for (long dy = -m[1]; dy <= m[1]; ++dy)
      for (long dx = -m[0]; dx <= m[0]; ++dx) {
        const long c[3] = {((dx % static_cast<long>(n[0])) + static_cast<long>(n[0])) % static_cast<long>(n[0]),
                           ((dy % static_cast<long>(n[1])) + static_cast<long>(n[1])) % static_cast<long>(n[1]),
                           ((dz % static_cast<long>(n[2])) + static_cast<long>(n[2])) % static_cast<long>(n[2])};
        if ((c[0] == 0 && c[1] == 0 && c[2] == 0) || !seen.emplace(c[0], c[1], c[2]).second) continue;
        double d2 = 0.0;  // SpatialDomains::pair_r2 between site 0 and site c
        for (int k = 0; k < 3; ++k) {
          double d = site(k, 0) - site(k, c[k]);
          d -= len[k] * ((d > half[k] ? 1.0 : 0.0) - (d < -half[k] ? 1.0 : 0.0));
          d2 += d * d;
        }
        if (d2 < reach2) ++count;
      }
  return count;
}

}  // namespace lie::par
