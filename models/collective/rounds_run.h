// PAT's all-gather and reduce-scatter at one GPU: log-depth rounds.
//
// NCCL's PAT (Parallel Aggregated Trees, NCCL 2.23 and later; one GPU per
// server) moves what a ring moves, (n - 1)/n of the buffer through each GPU's
// port, in ceil(log2 n) dependent rounds instead of n - 1 steps, so its
// latency grows with log n. Simulated as Bruck's exchange: in all-gather
// round k a GPU sends the min(2^k, n - 2^k) blocks it holds to the member
// 2^k before it and receives as many from the member 2^k after it; a
// reduce-scatter runs the same rounds largest first (recursive halving).
// Round k's send waits for round k - 1's receive. Every round's message is
// split over the channels (one per NIC rail), each channel advancing on its
// own messages. The bytes each round carries and the round count are what
// NCCL's model prices (nccl_tuning.h: PAT's log latency and 0.75 of the
// ring's bandwidth, applied as the call's wire factor and base latency).
#pragma once

#include <cstdint>
#include <vector>

#include "models/collective/send_context.h"

namespace pf::models::collective {

class RoundsRun {
 public:
  RoundsRun() = default;
  // members: the group's GPUs (outlives the run: the group table's);
  // me: this GPU's member index; halving: reduce-scatter's order (largest
  // round first).
  RoundsRun(const std::vector<int>& members, int me, std::uint64_t bytes, int channels, bool halving);

  // `count` messages of `round` on `channel` have arrived.
  void note(int round, int channel, std::uint32_t count);
  // Sends every round of `channel` whose input is here.
  void advance(const SendContext& cx, int channel);
  void advance_all(const SendContext& cx);
  bool done() const { return finished_ == channels_.size(); }
  int rounds() const { return rounds_; }

 private:
  struct Channel {
    int sent = 0;               // rounds sent
    std::uint32_t received = 0; // bit k: round k's message is here
    bool complete = false;
  };
  int distance(int round) const;        // 2^k, largest first when halving
  std::uint64_t round_bytes(int round, int channel) const;
  void settle(Channel& c);

  const std::vector<int>* members_ = nullptr;
  std::uint32_t all_rounds_ = 0;  // the received mask of a finished channel
  int me_ = 0;
  int rounds_ = 0;
  std::uint64_t bytes_ = 0;
  bool halving_ = false;
  std::vector<Channel> channels_;
  std::size_t finished_ = 0;
};

}  // namespace pf::models::collective
