// One channel of a broadcast at one GPU: a pipelined chain along the channel's
// ring, starting at the root (NCCL broadcasts with its ring algorithm the same
// way: each GPU forwards every piece to the next as it arrives).
#pragma once

#include <cstdint>

#include "models/collective/group.h"
#include "models/collective/send_context.h"

namespace pf::models::collective {

class ChainRun {
 public:
  ChainRun() = default;
  ChainRun(const Group& g, int channel, int gpu, int root_gpu, std::uint64_t part, std::uint64_t piece);

  void note(std::uint32_t count) { received_ += count; }
  void advance(const SendContext& cx);
  bool done() const { return (prev_ < 0 || received_ == pieces_) && sent_ == pieces_; }

 private:
  std::uint8_t channel_ = 0;
  int prev_ = -1;  // -1 at the root
  int next_ = -1;  // -1 at the end of the chain
  std::uint64_t part_ = 0;
  std::uint32_t pieces_ = 1;
  std::uint32_t received_ = 0;
  std::uint32_t sent_ = 0;
};

}  // namespace pf::models::collective
