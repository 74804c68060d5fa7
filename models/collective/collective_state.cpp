#include "models/collective/collective_state.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "models/collective/ring_order.h"

namespace pf::models::collective {

void CollectiveState::arrive_early(const network::Tag& tag, int src) {
  for (Early& e : early_) {
    if (e.phase == tag.phase && e.channel == tag.channel && e.src == src) {
      ++e.count;
      return;
    }
  }
  early_.push_back({tag.phase, tag.channel, src, 1});
}

bool CollectiveState::start(const Request& request, Algo algo, std::uint64_t cookie, const Group& group,
                            int channels, const CollectiveConfig& config, const StepCost* cost,
                            const SendContext& sent_by) {
  if (started_)
    throw SimulationError("collective " + std::to_string(key_.group) + "/" + std::to_string(key_.seq) +
                          " started twice on GPU " + std::to_string(sent_by.gpu));
  request_ = request;
  algo_ = algo;
  cookie_ = cookie;
  channels_ = channels;
  if (cost != nullptr) {
    cost_ = *cost;
    if (cost->floor > core::SimTime::zero()) not_before_ = sent_by.engine.now() + cost->floor;
  }
  const SendContext cx = with_cost(sent_by);
  build(group, channels, config, cx);
  for (const Early& e : early_) note(e.phase, e.channel, e.src, e.count);
  early_ = {};
  started_ = true;
  advance_all(cx);
  return complete();
}

// The largest pipelined piece, payload bytes: simulation.chunk_bytes on the
// wire. LL carries 8 bytes of data per 16-byte line (wire factor ~2-9), so a
// piece of chunk_bytes of payload would be several times that on the wire and
// fill a tree's pipeline for ~190 us where NCCL's LL latency is 15 us
// (tests/unit/collective/nccl_model_test.cpp: +7.5 % at 32 MiB in one server).
std::uint64_t CollectiveState::wire_piece_limit(const CollectiveConfig& config, std::uint64_t smallest) const {
  if (!cost_ || cost_->wire_factor <= 1.0) return config.pipeline_bytes;
  return std::max(smallest, static_cast<std::uint64_t>(static_cast<double>(config.pipeline_bytes) / cost_->wire_factor));
}

void CollectiveState::build(const Group& g, int channels, const CollectiveConfig& config, const SendContext& cx) {
  const int n = g.size();
  const std::uint64_t bytes = request_.bytes;
  const auto n32 = static_cast<std::uint32_t>(n);
  const std::uint64_t smallest = cost_ ? smallest_piece(cost_->proto, cost_->wire_factor) : kSmallestPiece;
  if (request_.op == Op::all_reduce && algo_ == Algo::hierarchical) {
    pattern_ = Pattern::hierarchical;
    const Group::Place p = g.place(cx.gpu);
    const int k = g.on_node(p.node);
    const int m = g.nodes();
    const auto k32 = static_cast<std::uint32_t>(k);
    const std::uint64_t shard = split(bytes, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(p.index));
    rings_.emplace_back(std::vector<RingSeat>{node_ring(g, cx.gpu)}, k, bytes, k32 - 1, 0);
    rings_.emplace_back(std::vector<RingSeat>{rail_ring(g, cx.gpu)}, m, shard, 2 * (static_cast<std::uint32_t>(m) - 1), 1,
                        false);
    rings_.emplace_back(std::vector<RingSeat>{node_ring(g, cx.gpu)}, k, bytes, k32 - 1, 2, false);
    rings_[0].start();
    return;
  }
  if ((request_.op == Op::all_gather || request_.op == Op::reduce_scatter) && algo_ == Algo::pat) {
    pattern_ = Pattern::rounds;
    rounds_ = RoundsRun(g.members(), g.member_index(cx.gpu), bytes, channels, request_.op == Op::reduce_scatter);
    return;
  }
  // NVLS-tree and CollNet run the tree's messages (nccl_cost.h: their bytes, NCCL's time).
  if (request_.op == Op::all_reduce && runs_as_tree(algo_)) {
    pattern_ = Pattern::tree;
    for (int t = 0; t < 2; ++t) {
      for (int c = 0; c < channels; ++c) {
        const std::uint64_t part = split(split(bytes, 2, static_cast<std::uint64_t>(t)), static_cast<std::uint64_t>(channels),
                                         static_cast<std::uint64_t>(c));
        trees_.emplace_back(g, t, c, cx.gpu, part, tree_piece(part, g, wire_piece_limit(config, smallest), smallest));
      }
    }
    unfinished_ = trees_.size();
    finished_.assign(trees_.size(), 0);
    return;
  }
  switch (request_.op) {
    case Op::all_reduce:
    case Op::all_gather:
    case Op::reduce_scatter: {
      pattern_ = Pattern::ring;
      std::vector<RingSeat> seats;
      for (int c = 0; c < channels; ++c) seats.push_back(channel_ring(g, c, cx.gpu));
      const std::uint32_t steps = request_.op == Op::all_reduce ? 2 * (n32 - 1) : n32 - 1;
      rings_.emplace_back(std::move(seats), n, bytes, steps, 0);
      rings_[0].start();
      return;
    }
    case Op::broadcast: {
      pattern_ = Pattern::chain;
      const int root = g.member(request_.root);
      for (int c = 0; c < channels; ++c) {
        const std::uint64_t part = split(bytes, static_cast<std::uint64_t>(channels), static_cast<std::uint64_t>(c));
        chains_.emplace_back(g, c, cx.gpu, root, part, pipeline_piece(part, n - 1, config.pipeline_bytes, smallest));
      }
      unfinished_ = chains_.size();
      finished_.assign(chains_.size(), 0);
      return;
    }
    default: build_exchange(g, cx); return;
  }
}

// A flex (DeepEP) token all-to-all's message to member `peer`: on another
// server, the share of it that still crosses (remote_dedup_share).
std::uint64_t CollectiveState::deduplicated(const Group& g, int my_node, int peer, std::uint64_t part) const {
  const int peer_node = g.place(g.member(peer)).node;
  if (peer_node == my_node) return part;
  const double share = remote_dedup_share(request_.dedup_top_k, request_.dedup_experts, g.size(), g.on_node(peer_node));
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(static_cast<double>(part) * share)));
}

// Direct patterns: every message goes out at once, completion counts arrivals.
void CollectiveState::build_exchange(const Group& g, const SendContext& cx) {
  pattern_ = Pattern::counted;
  const int n = g.size();
  const int me = g.member_index(cx.gpu);
  const std::uint64_t bytes = request_.bytes;
  switch (request_.op) {
    case Op::all_to_all: {
      // Peers in shifted order (me+1, me+2, ...), as NCCL schedules its
      // point-to-point rounds, so that no GPU is everyone's first target.
      expected_ = static_cast<std::uint32_t>(n - 1);
      cx.scratch.clear();
      const bool dedup = request_.dedup_top_k > 0;
      const int my_node = dedup ? g.place(cx.gpu).node : -1;
      for (int d = 1; d < n; ++d) {
        const int peer = (me + d) % n;
        std::uint64_t part = split(bytes, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(peer));
        if (dedup) part = deduplicated(g, my_node, peer, part);
        cx.scratch.push_back(cx.message(g.member(peer), part, 0, 0, Wait::first));
      }
      // A member is done when its peers' parts have arrived and its own
      // have left its port, as NCCL's grouped send/recv kernel returns only
      // once both sides of every pair are through. Counting arrivals alone
      // let a member whose peers all sent to it first finish while its own
      // sends still queued (the analytical network does not share a
      // receiver's port: 63.5 against 129 us for a 4 MiB dispatch over two
      // A100 servers, where the packet network takes 129).
      if (!cx.scratch.empty()) {
        send_pending_ = true;
        cx.notify_port_free(cx.net.send_all(cx.engine, cx.scratch), 0, 0);
      }
      return;
    }
    case Op::send_recv:
      expected_ = n > 1 ? 1 : 0;
      if (n > 1) cx.send(g.member((me + 1) % n), bytes, 0, 0, Wait::first);
      return;
    case Op::send:
      send_pending_ = true;
      cx.notify_port_free(cx.send(request_.peer, bytes, kPeerPhase, 0, Wait::first), kPeerPhase, 0);
      return;
    case Op::recv: expected_ = 1; return;
    default: throw SimulationError(std::string("collective: no direct pattern for ") + to_string(request_.op));
  }
}

void CollectiveState::note(std::uint8_t phase, std::uint8_t channel, int src, std::uint32_t count) {
  const auto bad = [&](const char* what) {
    return SimulationError(std::string("collective: message with ") + what + " (phase " + std::to_string(phase) +
                           ", channel " + std::to_string(channel) + ") for " + to_string(request_.op) + "/" +
                           to_string(algo_));
  };
  switch (pattern_) {
    case Pattern::ring: rings_[0].note(channel, count); return;
    case Pattern::hierarchical:
      if (phase >= rings_.size()) throw bad("an unknown phase");
      rings_[phase].note(channel, count);
      return;
    case Pattern::tree: {
      if (phase >= 4 || channel >= channels_) throw bad("an unknown tree or channel");
      TreeRun& run = trees_[static_cast<std::size_t>(phase / 2 * channels_ + channel)];
      if (phase % 2 == 0) run.note_up(src, count);
      else run.note_down(count);
      return;
    }
    case Pattern::chain:
      if (channel >= channels_) throw bad("an unknown channel");
      chains_[channel].note(count);
      return;
    case Pattern::rounds: rounds_.note(phase, channel, count); return;
    case Pattern::counted:
      received_ += count;
      if (received_ > expected_) throw bad("no receive waiting");
      return;
  }
}

void CollectiveState::settle_hierarchy(const SendContext& cx) {
  rings_[static_cast<std::size_t>(ring_phase_)].advance_all(cx);
  while (ring_phase_ + 1 < static_cast<int>(rings_.size()) && rings_[static_cast<std::size_t>(ring_phase_)].done()) {
    RingRun& next = rings_[static_cast<std::size_t>(++ring_phase_)];
    next.start();
    next.advance_all(cx);
  }
}

void CollectiveState::advance_one(std::uint8_t phase, std::uint8_t channel, const SendContext& cx) {
  switch (pattern_) {
    case Pattern::ring: rings_[0].advance(cx, channel); return;
    case Pattern::hierarchical: settle_hierarchy(cx); return;
    case Pattern::tree: {
      const std::size_t i = static_cast<std::size_t>(phase / 2 * channels_ + channel);
      trees_[i].advance(cx);
      if (!finished_[i] && trees_[i].done()) {
        finished_[i] = 1;
        --unfinished_;
      }
      return;
    }
    case Pattern::chain:
      chains_[channel].advance(cx);
      if (!finished_[channel] && chains_[channel].done()) {
        finished_[channel] = 1;
        --unfinished_;
      }
      return;
    case Pattern::rounds: rounds_.advance(cx, channel); return;
    case Pattern::counted: return;
  }
}

void CollectiveState::advance_all(const SendContext& cx) {
  switch (pattern_) {
    case Pattern::ring: rings_[0].advance_all(cx); return;
    case Pattern::hierarchical: settle_hierarchy(cx); return;
    case Pattern::tree:
      for (std::size_t i = 0; i < trees_.size(); ++i)
        advance_one(static_cast<std::uint8_t>(i / static_cast<std::size_t>(channels_) * 2),
                    static_cast<std::uint8_t>(i % static_cast<std::size_t>(channels_)), cx);
      return;
    case Pattern::chain:
      for (std::size_t c = 0; c < chains_.size(); ++c) advance_one(0, static_cast<std::uint8_t>(c), cx);
      return;
    case Pattern::rounds: rounds_.advance_all(cx); return;
    case Pattern::counted: return;
  }
}

bool CollectiveState::receive(const network::Tag& tag, int src, const SendContext& sent_by) {
  const SendContext cx = with_cost(sent_by);
  note(tag.phase, tag.channel, src, 1);
  advance_one(tag.phase, tag.channel, cx);
  return complete();
}

bool CollectiveState::port_free(std::uint8_t phase, std::uint8_t channel, const SendContext& sent_by) {
  const SendContext cx = with_cost(sent_by);
  switch (pattern_) {
    case Pattern::counted: send_pending_ = false; break;
    case Pattern::tree:
      if (phase >= 4 || channel >= channels_) throw SimulationError("collective: port event for an unknown tree run");
      trees_[static_cast<std::size_t>(phase / 2 * channels_ + channel)].port_free(phase % 2 == 0);
      advance_one(phase, channel, cx);
      break;
    default: break;
  }
  return complete();
}

bool CollectiveState::complete() const {
  switch (pattern_) {
    case Pattern::ring: return rings_[0].done();
    case Pattern::hierarchical: return ring_phase_ + 1 == static_cast<int>(rings_.size()) && rings_.back().done();
    case Pattern::tree:
    case Pattern::chain: return unfinished_ == 0;
    case Pattern::rounds: return rounds_.done();
    case Pattern::counted: return received_ == expected_ && !send_pending_;
  }
  return false;
}

}  // namespace pf::models::collective
