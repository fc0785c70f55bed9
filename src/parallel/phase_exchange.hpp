#pragma once
// The rounds of point-to-point messages of a PairPlan (its phases), by MPI messages or through
// an MPI-3 shared-memory window when every rank of the communicator is on one node (issue 27;
// auto: also only where every rank's segment stays within 4 MiB, see Transport).
//
// Why: [K]'s N = 100 on two ranks exchanges 2400-2800 bytes each way twice per evaluation. On
// this VM (Open MPI 4.1, vader) an Isend/Irecv round of 2400 bytes each way takes 2.2 us, 8 bytes
// 0.5 us; the same round through a shared window (one copy in, a flag, one copy out) 0.44 us --
// measured in one sitting, 2 x 10^4 rounds. An evaluation takes about 16 us there, so the two
// rounds were a fifth of it.
//
// Shared memory (MPI_Win_allocate_shared, one segment per rank). Every message has two buffers
// in its RECEIVER's segment (double buffering by the parity of the round's sequence number) and
// two flags on their own cache lines: arrived[phase][sender] in the receiver's segment (the
// sender's last round written there) and consumed[phase][receiver] in the sender's segment (the
// receiver's last round read). A round of phase p with sequence number s (the count of rounds of
// p so far, the same on every rank: every rank runs every round):
//   send to d:     wait until consumed[p][d] >= s - 2 (the buffer of parity s is free), copy the
//                  message into d's buffer of parity s, store arrived[p][me] = s in d's segment
//                  (release);
//   receive from r: wait until arrived[p][r] >= s (acquire), copy the buffer out, store
//                  consumed[p][me] = s in r's segment (release).
// The release/acquire pair on a lock-free std::atomic_ref (address-free, [atomics.lockfree])
// orders the copies across the processes, as MPI_Win_sync would; the window is in one
// MPI_Win_lock_all epoch for its whole life (the unified memory model of MPI-3 shared windows).
// Waiting spins briefly, then yields the core (ranks x threads above the cores, as in the tests,
// stay fast). The payload is the same doubles either way: the transport never changes a bit.
//
// Messages: Irecv / Isend per peer, one Waitall per round (tag per phase). A message to self is
// never sent: out's and in's buffers change places (the same length by construction).
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "parallel/pair_plan.hpp"

namespace lie::par {

class PhaseExchange {
 public:
  /// automatic: shared_memory when the communicator has 2 or more ranks, all on one node, and
  /// every rank's segment (its messages' buffers, twice) is at most 4 MiB (and the build is not
  /// SimGrid's SMPI, whose simulated network must see the messages); else messages.
  enum class Transport { automatic, messages, shared_memory };

  /// The transport of a configuration value: auto, messages or shared_memory (std::invalid_argument otherwise).
  static Transport transport_named(const std::string& name);

  PhaseExchange() = default;
  /// Collective over `comm`: the phases this exchange runs (round r of run(r, ...) is
  /// phases[r]; they must outlive it) and one MPI tag per phase. shared_memory where the ranks
  /// are not all on one node (or in the SMPI build) throws std::invalid_argument on every rank.
  PhaseExchange(MPI_Comm comm, std::vector<const PairPlan::Phase*> phases, std::vector<int> tags,
                Transport transport = Transport::automatic);
  ~PhaseExchange();  // collective where a window exists (MPI_Win_free)
  PhaseExchange(const PhaseExchange&) = delete;
  PhaseExchange& operator=(const PhaseExchange&) = delete;
  PhaseExchange(PhaseExchange&& other) noexcept;
  PhaseExchange& operator=(PhaseExchange&& other) noexcept;

  /// The transport in use (messages or shared_memory, never automatic).
  Transport transport() const { return transport_; }
  /// One round of phase `index`: out[k] goes to phases[index]->sends[k].rank, in[k] (resized)
  /// comes from recvs[k].rank. out[k] must hold sends[k].values doubles.
  void run(std::size_t index, std::vector<std::vector<double>>& out, std::vector<std::vector<double>>& in) {
    start(index, out, in);
    finish(index, in);
  }
  /// run() in two halves, so that work that needs no received value can go between them: start
  /// sends (messages: posts the receives and sends; window: copies out, releases the flags) and
  /// moves a message to self; finish receives. One round in flight at a time; out[k] must not be
  /// written before finish returns (messages: the sends may still read it).
  void start(std::size_t index, std::vector<std::vector<double>>& out, std::vector<std::vector<double>>& in);
  void finish(std::size_t index, std::vector<std::vector<double>>& in);

 private:
  void swap_self(const PairPlan::Phase& phase, std::vector<std::vector<double>>& out,
                 std::vector<std::vector<double>>& in) const;
  void free_window() noexcept;
  // flag of (phase, rank) in the segment of `owner`: arrived (kind 0) or consumed (kind 1)
  std::uint64_t* flag(int owner, int kind, std::size_t phase, int rank) const;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, ranks_ = 1;
  std::vector<const PairPlan::Phase*> phases_;
  std::vector<int> tags_;
  Transport transport_ = Transport::messages;
  std::vector<MPI_Request> requests_;
  // shared memory
  MPI_Win window_ = MPI_WIN_NULL;
  std::vector<char*> segments_;  // base of every rank's segment, mapped here
  std::vector<std::uint64_t> sequence_;  // rounds run so far, per phase
  unsigned spins_ = 1u << 14;            // spins before yielding (16 where ranks x threads exceed the cores)
  // per phase and recvs[k]: byte offset of the two buffers in my segment; per phase and
  // sends[k]: byte offset of the two buffers in the receiver's segment
  std::vector<std::vector<std::size_t>> recv_offset_, send_offset_;
};

}  // namespace lie::par
