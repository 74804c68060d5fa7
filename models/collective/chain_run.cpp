#include "models/collective/chain_run.h"

#include "models/collective/ring_order.h"

namespace pf::models::collective {

ChainRun::ChainRun(const Group& g, int channel, int gpu, int root_gpu, std::uint64_t part, std::uint64_t piece)
    : channel_(static_cast<std::uint8_t>(channel)), part_(part), pieces_(piece_count(part, piece)) {
  if (g.size() == 1) return;
  const RingSeat seat = channel_ring(g, channel, gpu);
  prev_ = gpu == root_gpu ? -1 : seat.prev;
  next_ = seat.next == root_gpu ? -1 : seat.next;
}

void ChainRun::advance(const SendContext& cx) {
  // The root has every piece; the others forward what has arrived.
  const std::uint32_t have = prev_ < 0 ? pieces_ : received_;
  for (; sent_ < have; ++sent_) {
    // NCCL charges a broadcast its base and one hop: on the root's first piece.
    const Wait wait = sent_ == 0 && prev_ < 0 ? Wait::first : Wait::none;
    if (next_ >= 0) cx.send(next_, split(part_, pieces_, sent_), 0, channel_, wait);
  }
}

}  // namespace pf::models::collective
