// One (tree, channel) of a double-binary-tree all-reduce at one GPU.
//
// The GPU's part of the buffer is cut into pipelined pieces. Going up, a GPU
// sends piece i to its parent once every child has sent it piece i (a leaf
// sends all its pieces at once: its port queues them); the root turns each
// fully reduced piece around and sends it to its children, and every GPU
// passes a piece from its parent on to its children as soon as it arrives.
// Up and down pieces stream concurrently, as NCCL's tree kernels do.
//
// Flow control: a GPU keeps at most kWindow pieces of one direction of one
// run in its port queue and queues the next when one has left (a PortFree
// event). Without it a leaf would queue its whole part at once and the other
// tree's pieces would wait behind it; NCCL bounds the same run-ahead with a
// fixed number of buffer slots per connection (NCCL_STEPS).
//
// Inside a server the tree is a chain (NCCL: "a chain of GPUs within a node,
// trees between nodes"): channel c's chain starts at the server's member c,
// which is also the GPU that talks to the other servers' trees.
#pragma once

#include <array>
#include <cstdint>

#include "models/collective/group.h"
#include "models/collective/send_context.h"

namespace pf::models::collective {

class TreeRun {
 public:
  static constexpr int kMaxChildren = 3;  // next GPU of the chain + two servers
  static constexpr std::uint32_t kWindow = 2;  // pieces per direction in the port queue

  TreeRun() = default;
  TreeRun(const Group& g, int tree, int channel, int gpu, std::uint64_t part, std::uint64_t piece);

  void note_up(int src, std::uint32_t count);  // pieces from a child
  void note_down(std::uint32_t count);         // pieces from the parent
  void port_free(bool up) { --(up ? up_queued_ : down_queued_); }
  void advance(const SendContext& cx);
  bool done() const;

  int parent() const { return parent_; }
  int children() const { return children_; }
  int child(int i) const { return child_[static_cast<std::size_t>(i)]; }
  std::uint8_t up_phase() const { return static_cast<std::uint8_t>(2 * tree_); }
  std::uint8_t down_phase() const { return static_cast<std::uint8_t>(2 * tree_ + 1); }

 private:
  std::uint64_t piece_bytes(std::uint32_t i) const { return split(part_, pieces_, i); }
  void send_down(const SendContext& cx, std::uint32_t piece);

  int tree_ = 0;
  std::uint8_t channel_ = 0;
  int parent_ = -1;
  std::array<int, kMaxChildren> child_{-1, -1, -1};
  int children_ = 0;
  std::uint64_t part_ = 0;
  std::uint32_t pieces_ = 1;
  std::array<std::uint32_t, kMaxChildren> up_received_{};
  std::uint32_t up_sent_ = 0;
  std::uint32_t down_received_ = 0;
  std::uint32_t down_sent_ = 0;
  std::uint32_t up_queued_ = 0;
  std::uint32_t down_queued_ = 0;
};

}  // namespace pf::models::collective
