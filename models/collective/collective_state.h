// One GPU's state in one collective, from the first message or start() to its
// completion: the runs of the chosen algorithm and their counters.
//
// Messages can arrive before this GPU has started the collective (a
// neighbour started earlier). They are counted per (phase, channel, source)
// and replayed when start() builds the runs, so no message is lost and no
// send goes out before the GPU itself has reached the collective.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/collective/algorithm_choice.h"
#include "models/collective/chain_run.h"
#include "models/collective/collective_types.h"
#include "models/collective/group.h"
#include "models/collective/ring_run.h"
#include "models/collective/rounds_run.h"
#include "models/collective/send_context.h"
#include "models/collective/tree_run.h"
#include "models/network/message.h"

namespace pf::models::collective {

// Tag phase of point-to-point messages: they match on (group, seq, peer).
inline constexpr std::uint8_t kPeerPhase = 0x80;

class CollectiveState {
 public:
  explicit CollectiveState(StateKey key) : key_(key) {}

  const StateKey& key() const { return key_; }
  bool started() const { return started_; }
  const Request& request() const { return request_; }
  Algo algo() const { return algo_; }
  std::uint64_t cookie() const { return cookie_; }
  // The earliest this GPU's part may complete: its start plus NCCL's
  // predicted time (StepCost::floor); zero without NCCL costs.
  core::SimTime not_before() const { return not_before_; }

  // Before start(): remember a message.
  void arrive_early(const network::Tag& tag, int src);
  // Builds the runs, replays early messages, sends what it can. True when
  // this GPU's part is already complete.
  // cost: what its messages pay beyond the links (nccl_cost.h); null for
  // the links alone.
  bool start(const Request& request, Algo algo, std::uint64_t cookie, const Group& group, int channels,
             const CollectiveConfig& config, const StepCost* cost, const SendContext& cx);
  // A message after start(). True when this GPU's part has completed.
  bool receive(const network::Tag& tag, int src, const SendContext& cx);
  // A message this GPU queued has left its port (a PortFree event). True when
  // this GPU's part has completed (a p2p send completes so).
  bool port_free(std::uint8_t phase, std::uint8_t channel, const SendContext& cx);

 private:
  struct Early {
    std::uint8_t phase;
    std::uint8_t channel;
    std::int32_t src;
    std::uint32_t count;
  };
  enum class Pattern : std::uint8_t { ring, hierarchical, tree, chain, rounds, counted };

  void build(const Group& group, int channels, const CollectiveConfig& config, const SendContext& cx);
  std::uint64_t wire_piece_limit(const CollectiveConfig& config, std::uint64_t smallest) const;
  void build_exchange(const Group& group, const SendContext& cx);
  std::uint64_t deduplicated(const Group& group, int my_node, int peer, std::uint64_t part) const;
  void note(std::uint8_t phase, std::uint8_t channel, int src, std::uint32_t count);
  void advance_all(const SendContext& cx);
  void advance_one(std::uint8_t phase, std::uint8_t channel, const SendContext& cx);
  void settle_hierarchy(const SendContext& cx);
  bool complete() const;
  SendContext with_cost(const SendContext& cx) const {
    SendContext c = cx;
    c.cost = cost_ ? &*cost_ : nullptr;
    return c;
  }

  StateKey key_;
  bool started_ = false;
  Request request_;
  Algo algo_ = Algo::ring;
  std::uint64_t cookie_ = 0;
  std::optional<StepCost> cost_;  // none: the links alone
  core::SimTime not_before_;
  Pattern pattern_ = Pattern::counted;
  std::vector<Early> early_;
  std::vector<RingRun> rings_;    // ring: 1; hierarchical: one per phase
  int ring_phase_ = 0;            // hierarchical: the phase now running
  std::vector<TreeRun> trees_;    // tree: [tree * channels + channel]
  std::vector<ChainRun> chains_;  // broadcast: one per channel
  RoundsRun rounds_;              // PAT
  int channels_ = 1;
  std::size_t unfinished_ = 0;    // tree and chain runs not yet done
  std::vector<char> finished_;    // per tree/chain run
  std::uint32_t received_ = 0;    // counted patterns: messages in
  std::uint32_t expected_ = 0;
  bool send_pending_ = false;     // Op::send and all-to-all: until the last send leaves the port
};

}  // namespace pf::models::collective
