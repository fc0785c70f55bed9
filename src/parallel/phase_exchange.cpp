#include "parallel/phase_exchange.hpp"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "parallel/context.hpp"

namespace lie::par {

namespace {

constexpr std::size_t kLine = 64;  // a flag per cache line; buffers start on a line
constexpr unsigned long long kAutoSegmentBytes = 4ull << 20;  // auto: the window up to 4 MiB per rank

std::size_t round_up(std::size_t bytes) { return (bytes + kLine - 1) / kLine * kLine; }

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins `spins` times, then yields the core between checks.
template <class Ready>
void wait_until(Ready ready, unsigned spins) {
  for (unsigned k = 0; !ready(); ++k) {
    if (k < spins)
      cpu_relax();
    else
      sched_yield();
  }
}

std::uint64_t load_acquire(std::uint64_t* p) { return std::atomic_ref<std::uint64_t>(*p).load(std::memory_order_acquire); }
void store_release(std::uint64_t* p, std::uint64_t v) {
  std::atomic_ref<std::uint64_t>(*p).store(v, std::memory_order_release);
}

}  // namespace

PhaseExchange::Transport PhaseExchange::transport_named(const std::string& name) {
  if (name == "auto") return Transport::automatic;
  if (name == "messages") return Transport::messages;
  if (name == "shared_memory") return Transport::shared_memory;
  throw std::invalid_argument("unknown transport '" + name + "': give auto, messages or shared_memory");
}

PhaseExchange::PhaseExchange(MPI_Comm comm, std::vector<const PairPlan::Phase*> phases, std::vector<int> tags,
                             Transport transport)
    : comm_(comm), phases_(std::move(phases)), tags_(std::move(tags)) {
  if (tags_.size() != phases_.size()) throw std::logic_error("PhaseExchange: one tag per phase");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &ranks_);
  transport_ = Transport::messages;
#ifdef SMPI_SAMPLE_FLOPS
  if (transport == Transport::shared_memory)
    throw std::invalid_argument("the shared-memory transport is not available in the SMPI build (its simulated "
                                "network must see the messages); use messages or auto");
#else
  int node_ranks = 1;
  if (transport != Transport::messages) {
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_ranks);
    MPI_Comm_free(&node);
    const bool one_node = node_ranks == ranks_;  // the same answer on every rank
    if (transport == Transport::shared_memory && !one_node)
      throw std::invalid_argument("the shared-memory transport needs every rank on one node (" +
                                  std::to_string(node_ranks) + " of " + std::to_string(ranks_) +
                                  " ranks share this one); use messages or auto");
    if (one_node && (ranks_ > 1 || transport == Transport::shared_memory)) transport_ = Transport::shared_memory;
  }
  const std::size_t P = phases_.size(), R = static_cast<std::size_t>(ranks_);
  // my segment: 2 P R flags, then per phase and receive the two buffers of the message
  std::size_t bytes = 2 * P * R * kLine;
  if (transport_ == Transport::shared_memory) {
    recv_offset_.assign(P, {});
    for (std::size_t p = 0; p < P; ++p)
      for (const PairPlan::Peer& peer : phases_[p]->recvs) {
        recv_offset_[p].push_back(bytes);
        if (peer.rank != rank_) bytes += 2 * round_up(peer.values * sizeof(double));
      }
  }
  if (transport_ == Transport::shared_memory && transport == Transport::automatic) {
    // auto: the window only where its segments are small (latency-bound rounds; large messages
    // go as fast by Open MPI's single-copy path, and the segments live in /dev/shm, which
    // containers keep small)
    unsigned long long largest = bytes;
    const unsigned long long mine = bytes;
    MPI_Allreduce(&mine, &largest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm_);
    if (largest > kAutoSegmentBytes) {
      transport_ = Transport::messages;
      recv_offset_.clear();
    }
  }
  if (transport_ == Transport::shared_memory) {
    // where my messages land: every receiver tells every sender (offset, values) per phase
    send_offset_.assign(P, {});
    std::vector<std::int64_t> tell(2 * R), told(2 * R);
    for (std::size_t p = 0; p < P; ++p) {
      std::fill(tell.begin(), tell.end(), -1);
      for (std::size_t k = 0; k < phases_[p]->recvs.size(); ++k) {
        const PairPlan::Peer& peer = phases_[p]->recvs[k];
        tell[2 * static_cast<std::size_t>(peer.rank)] = static_cast<std::int64_t>(recv_offset_[p][k]);
        tell[2 * static_cast<std::size_t>(peer.rank) + 1] = static_cast<std::int64_t>(peer.values);
      }
      MPI_Alltoall(tell.data(), 2, MPI_INT64_T, told.data(), 2, MPI_INT64_T, comm_);
      for (const PairPlan::Peer& peer : phases_[p]->sends) {
        const auto d = static_cast<std::size_t>(peer.rank);
        if (told[2 * d] < 0 || told[2 * d + 1] != static_cast<std::int64_t>(peer.values))
          throw std::logic_error("PhaseExchange: a send without its matching receive");
        send_offset_[p].push_back(static_cast<std::size_t>(told[2 * d]));
      }
    }
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");  // each segment on its own pages
    char* base = nullptr;
    MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, info, comm_, &base, &window_);
    MPI_Info_free(&info);
    segments_.assign(R, nullptr);
    for (int r = 0; r < ranks_; ++r) {
      MPI_Aint size = 0;
      int unit = 0;
      MPI_Win_shared_query(window_, r, &size, &unit, &segments_[static_cast<std::size_t>(r)]);
    }
    std::memset(base, 0, 2 * P * R * kLine);  // every flag 0: no round yet
    MPI_Win_lock_all(MPI_MODE_NOCHECK, window_);
    MPI_Barrier(comm_);  // nobody writes a flag before its owner has zeroed it
    sequence_.assign(P, 0);
    // ranks x threads above the cores of the node: yield at once instead of spinning
    spins_ = ranks_exceed_cores(node_ranks, std::max(1, omp_get_max_threads())) ? 16u : 1u << 14;
  }
#endif
}

PhaseExchange::~PhaseExchange() { free_window(); }

void PhaseExchange::free_window() noexcept {
#ifndef SMPI_SAMPLE_FLOPS
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (window_ != MPI_WIN_NULL && !finalized) {  // (after MPI_Finalize the window is gone with MPI)
    MPI_Win_unlock_all(window_);
    MPI_Win_free(&window_);
  }
#endif
  window_ = MPI_WIN_NULL;
}

PhaseExchange::PhaseExchange(PhaseExchange&& other) noexcept { *this = std::move(other); }

PhaseExchange& PhaseExchange::operator=(PhaseExchange&& other) noexcept {
  if (this != &other) {
    free_window();
    comm_ = other.comm_;
    rank_ = other.rank_;
    ranks_ = other.ranks_;
    phases_ = std::move(other.phases_);
    tags_ = std::move(other.tags_);
    transport_ = other.transport_;
    requests_ = std::move(other.requests_);
    window_ = std::exchange(other.window_, MPI_WIN_NULL);
    segments_ = std::move(other.segments_);
    sequence_ = std::move(other.sequence_);
    recv_offset_ = std::move(other.recv_offset_);
    send_offset_ = std::move(other.send_offset_);
    spins_ = other.spins_;
  }
  return *this;
}

std::uint64_t* PhaseExchange::flag(int owner, int kind, std::size_t phase, int rank) const {
  const std::size_t R = static_cast<std::size_t>(ranks_);
  const std::size_t slot = (static_cast<std::size_t>(kind) * phases_.size() + phase) * R + static_cast<std::size_t>(rank);
  return reinterpret_cast<std::uint64_t*>(segments_[static_cast<std::size_t>(owner)] + slot * kLine);
}

void PhaseExchange::swap_self(const PairPlan::Phase& phase, std::vector<std::vector<double>>& out,
                              std::vector<std::vector<double>>& in) const {
  for (std::size_t k = 0; k < phase.sends.size(); ++k) {
    if (phase.sends[k].rank != rank_) continue;
    const auto it = std::find_if(phase.recvs.begin(), phase.recvs.end(),
                                 [&](const PairPlan::Peer& p) { return p.rank == rank_; });
    std::swap(out[k], in[static_cast<std::size_t>(it - phase.recvs.begin())]);  // the same length
  }
}

void PhaseExchange::start(std::size_t index, std::vector<std::vector<double>>& out,
                          std::vector<std::vector<double>>& in) {
  const PairPlan::Phase& phase = *phases_.at(index);
  in.resize(phase.recvs.size());
  for (std::size_t k = 0; k < phase.recvs.size(); ++k) in[k].resize(phase.recvs[k].values);
  if (transport_ == Transport::messages) {
    const int tag = tags_[index];
    requests_.clear();
    for (std::size_t k = 0; k < phase.recvs.size(); ++k) {
      if (phase.recvs[k].rank == rank_) continue;
      requests_.emplace_back();
      MPI_Irecv(in[k].data(), static_cast<int>(in[k].size()), MPI_DOUBLE, phase.recvs[k].rank, tag, comm_,
                &requests_.back());
    }
    swap_self(phase, out, in);
    for (std::size_t k = 0; k < phase.sends.size(); ++k) {
      if (phase.sends[k].rank == rank_) continue;
      requests_.emplace_back();
      MPI_Isend(out[k].data(), static_cast<int>(out[k].size()), MPI_DOUBLE, phase.sends[k].rank, tag, comm_,
                &requests_.back());
    }
    return;
  }
  const std::uint64_t s = ++sequence_[index];
  const std::size_t parity = s & 1u;
  for (std::size_t k = 0; k < phase.sends.size(); ++k) {
    const int d = phase.sends[k].rank;
    if (d == rank_) continue;
    const std::size_t bytes = phase.sends[k].values * sizeof(double);
    std::uint64_t* consumed = flag(rank_, 1, index, d);
    if (s > 2) wait_until([&] { return load_acquire(consumed) >= s - 2; }, spins_);
    char* dst = segments_[static_cast<std::size_t>(d)] + send_offset_[index][k] + parity * round_up(bytes);
    std::memcpy(dst, out[k].data(), bytes);
    store_release(flag(d, 0, index, rank_), s);
  }
  swap_self(phase, out, in);
}

void PhaseExchange::finish(std::size_t index, std::vector<std::vector<double>>& in) {
  if (transport_ == Transport::messages) {
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    return;
  }
  const PairPlan::Phase& phase = *phases_.at(index);
  const std::uint64_t s = sequence_[index];
  const std::size_t parity = s & 1u;
  for (std::size_t k = 0; k < phase.recvs.size(); ++k) {
    const int r = phase.recvs[k].rank;
    if (r == rank_) continue;
    const std::size_t bytes = phase.recvs[k].values * sizeof(double);
    std::uint64_t* arrived = flag(rank_, 0, index, r);
    wait_until([&] { return load_acquire(arrived) >= s; }, spins_);
    const char* src = segments_[static_cast<std::size_t>(rank_)] + recv_offset_[index][k] + parity * round_up(bytes);
    std::memcpy(in[k].data(), src, bytes);
    store_release(flag(r, 1, index, rank_), s);
  }
}

}  // namespace lie::par
