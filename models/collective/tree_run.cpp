#include "models/collective/tree_run.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace pf::models::collective {

TreeRun::TreeRun(const Group& g, int tree, int channel, int gpu, std::uint64_t part, std::uint64_t piece)
    : tree_(tree), channel_(static_cast<std::uint8_t>(channel)), part_(part), pieces_(piece_count(part, piece)) {
  const Group::Place p = g.place(gpu);
  const int k = g.on_node(p.node);
  const auto chain_gpu = [&](int j, int e) { return g.gpu_at(j, (channel + e) % g.on_node(j)); };
  const int e = ((p.index - channel) % k + k) % k;  // position in this server's chain; 0 = the head
  if (e + 1 < k) child_[static_cast<std::size_t>(children_++)] = chain_gpu(p.node, e + 1);
  if (e > 0) {
    parent_ = chain_gpu(p.node, e - 1);
    return;
  }
  const int up = g.tree_parent(tree, p.node);
  if (up >= 0) parent_ = chain_gpu(up, 0);
  for (int j : g.tree_children(tree, p.node)) child_[static_cast<std::size_t>(children_++)] = chain_gpu(j, 0);
}

void TreeRun::note_up(int src, std::uint32_t count) {
  for (int i = 0; i < children_; ++i) {
    if (child_[static_cast<std::size_t>(i)] == src) {
      up_received_[static_cast<std::size_t>(i)] += count;
      return;
    }
  }
  throw SimulationError("tree collective: piece from GPU " + std::to_string(src) + ", which is not a child");
}

void TreeRun::note_down(std::uint32_t count) { down_received_ += count; }

void TreeRun::send_down(const SendContext& cx, std::uint32_t piece) {
  if (children_ == 0) return;
  cx.scratch.clear();
  for (int i = 0; i < children_; ++i)
    cx.scratch.push_back(cx.message(child_[static_cast<std::size_t>(i)], piece_bytes(piece), down_phase(), channel_,
                                    piece == 0 ? Wait::step : Wait::none));
  cx.notify_port_free(cx.net.send_all(cx.engine, cx.scratch), down_phase(), channel_);
  ++down_queued_;
}

void TreeRun::advance(const SendContext& cx) {
  // A piece is reduced here once every child has sent it.
  std::uint32_t reduced = pieces_;
  for (int i = 0; i < children_; ++i) reduced = std::min(reduced, up_received_[static_cast<std::size_t>(i)]);
  // The root turns reduced pieces around; the others pass them up and
  // forward what comes down.
  const std::uint32_t down_ready = parent_ < 0 ? reduced : down_received_;
  for (; parent_ >= 0 && up_sent_ < reduced && up_queued_ < kWindow; ++up_sent_) {
    // A leaf's first piece starts the collective: it pays NCCL's latency
    // (nccl_cost.h); later pieces and inner GPUs pay only their links.
    const Wait wait = up_sent_ > 0 ? Wait::none : children_ == 0 ? Wait::first : Wait::step;
    cx.notify_port_free(cx.send(parent_, piece_bytes(up_sent_), up_phase(), channel_, wait), up_phase(), channel_);
    ++up_queued_;
  }
  for (; down_sent_ < down_ready && down_queued_ < kWindow; ++down_sent_) send_down(cx, down_sent_);
}

bool TreeRun::done() const {
  if (parent_ < 0) return down_sent_ == pieces_;
  return up_sent_ == pieces_ && down_received_ == pieces_ && down_sent_ == pieces_;
}

}  // namespace pf::models::collective
