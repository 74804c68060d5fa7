// Messages whose chunks may arrive out of order (adaptive routing sends each
// chunk of a message on its own path): the destination's last port counts a
// message's chunks and delivers it when the last of them has arrived, at the
// latest arrival. A flat open-addressing table (linear probing, backward-shift
// deletion) that grows by doubling: no allocation per chunk or per message
// once it has reached the number of messages in flight at this rank.
#pragma once

#include <cstdint>
#include <vector>

#include "core/sim_time.h"

namespace pf::models::network {

class Reassembly {
 public:
  Reassembly() : slots_(64) {}

  // One chunk of message `id` from `src` to `dst` has passed the destination
  // port, its tail arriving at `arrival`; `count` is the message's chunk count
  // when this chunk knows it (its last chunk), else 0. True, with the latest
  // arrival over the message's chunks in `complete_at`, when every chunk has
  // arrived (the entry is then gone).
  bool arrive(std::int32_t src, std::int32_t dst, std::uint32_t id, std::uint32_t count, core::SimTime arrival,
              core::SimTime& complete_at);

  std::size_t in_flight() const { return used_; }

 private:
  struct Slot {
    std::uint64_t key = 0;      // src << 32 | dst
    std::uint32_t id = 0;
    std::uint32_t arrived = 0;  // 0: the slot is empty
    std::uint32_t expected = 0; // 0 until the last chunk has arrived
    core::SimTime latest;
  };

  std::size_t home(std::uint64_t key, std::uint32_t id) const;
  void erase(std::size_t at);
  void grow();

  std::vector<Slot> slots_;  // size a power of two
  std::size_t used_ = 0;
};

}  // namespace pf::models::network
