// One ring phase of a collective at one GPU, over one or more channels.
//
// All-reduce runs 2(n-1) steps (reduce-scatter then all-gather), all-gather
// and reduce-scatter n-1; each step passes one block (bytes / n, split over
// the channels) to the next GPU. A step's send waits for the previous step's
// block to arrive: at step s a GPU forwards (or reduces and forwards) what it
// received at step s-1. Steps therefore need no global barrier; each channel
// advances on its own messages, counted in arrival order.
#pragma once

#include <cstdint>
#include <vector>

#include "models/collective/ring_order.h"
#include "models/collective/send_context.h"

namespace pf::models::collective {

class RingRun {
 public:
  RingRun() = default;
  // seats: this GPU's place in each channel's ring. bytes: the buffer whose
  // n blocks circulate. steps: messages each GPU sends per channel.
  // initiator: the ring starts the collective (its first step pays NCCL's
  // base latency), rather than following an earlier phase.
  RingRun(std::vector<RingSeat> seats, int members, std::uint64_t bytes, std::uint32_t steps, std::uint8_t phase,
          bool initiator = true);

  void start() { started_ = true; }
  bool started() const { return started_; }
  // `count` messages of `channel` have arrived.
  void note(int channel, std::uint32_t count);
  // Sends every step of `channel` whose input is here (if started).
  void advance(const SendContext& cx, int channel);
  void advance_all(const SendContext& cx);
  bool done() const { return finished_ == channels_.size(); }
  std::size_t channels() const { return channels_.size(); }

 private:
  struct Channel {
    RingSeat seat;
    std::uint32_t sent = 0;
    std::uint32_t received = 0;
    bool complete = false;  // every step sent and received
  };
  void settle(Channel& c);
  std::uint64_t step_bytes(int channel, std::uint32_t step) const;

  std::vector<Channel> channels_;
  std::uint64_t bytes_ = 0;
  int members_ = 1;
  std::uint32_t steps_ = 0;
  std::uint8_t phase_ = 0;
  bool initiator_ = true;
  bool started_ = false;
  std::size_t finished_ = 0;
};

}  // namespace pf::models::collective
