// The network as the GPUs see it: send a message, get a delivery event.
//
// Packet mode. Every vertex of the cluster graph (GPU, NVSwitch, NIC, leaf,
// spine, core) is an LP; every directed link is a FIFO port owned by the LP it
// leaves (link_ports.h). A message is cut into chunk_bytes chunks (inside a
// server, with coarse NVLink fidelity, into one piece); the sender queues them
// all on its first port at once, and each chunk's head arriving at a vertex is
// one ChunkArrival event there: the vertex asks the routing for the next link
// (next_link, deterministic ECMP), queues the chunk on that port and
// sends it on. The port into the destination GPU sends no event per chunk: the
// last chunk's tail arriving is one MessageDelivered event at the GPU, which is all a
// receiver needs to know (chunks of one flow follow one path, in FIFO order).
//
// Analytical mode. No link events: the sender holds its own first port for
// bytes / bottleneck (so messages leaving one GPU port queue behind each
// other), and the delivery arrives path latency later. Receivers' ports and the
// fabric are treated as uncongested: concurrent flows from different GPUs do
// not share bandwidth, except that a NIC serving several of the run's GPUs
// gives each its share (nic_share.h). That is the alpha-beta model, exact on
// idle paths, optimistic under incast or oversubscription (use packet mode
// for those).
//
// Chunks issued together by send_all() are interleaved round-robin on shared
// ports, as a NIC serves its queue pairs in turn: an all-to-all's flows then
// progress side by side rather than one destination at a time.
//
// topology.routing: adaptive (packet mode, messages between servers): each
// switch picks the least-loaded equal-cost port per chunk
// (adaptive_routing.h), so a message's chunks may overtake each other; its
// destination port counts them and delivers the message at the latest
// arrival (reassembly.h).
//
// topology.routing: ecmp_multi_qp with qps_per_connection Q > 1 (packet
// mode, messages between servers): a message's chunks go round-robin over the
// connection's Q queue pairs, each hashed onto its own equal-cost path, as
// NCCL's IB transport posts successive sends on its QPs in turn
// (NCCL_IB_QPS_PER_CONNECTION, NCCL_IB_SPLIT_DATA_ON_QPS=0, the defaults 1
// and 0 in src/transport/net_ib.cc); chunks of different QPs may overtake each
// other and are reassembled like adaptive routing's. Q = 1 is plain ecmp.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/lp_context.h"
#include "core/statistics.h"
#include "models/network/link_ports.h"
#include "models/network/message.h"
#include "models/network/network_config.h"
#include "models/network/nic_share.h"
#include "models/network/reassembly.h"
#include "models/network/topology.h"
#include "models/network/routing.h"

namespace pf::models::network {

class Network {
 public:
  Network(const ClusterGraph& g, NetworkConfig config);

  const NetworkConfig& config() const { return config_; }
  const ClusterGraph& graph() const { return graph_; }

  // From the handler of GPU m.src_gpu. Returns when the message's last byte
  // leaves the sender's port (a sender's completion time for a p2p send).
  core::SimTime send(core::LpContext& engine, const Message& m) { return send_all(engine, {&m, 1}); }
  // Several messages issued at the same instant, interleaved chunk by chunk.
  core::SimTime send_all(core::LpContext& engine, std::span<const Message> messages);

  // A ChunkArrival at a NIC, NVSwitch or switch LP: forward the chunk.
  void forward(core::LpContext& engine, const ChunkArrival& arrival);

  // A MessageDelivered at a GPU LP: who sent what.
  static Delivery delivery(const MessageDelivered& d) { return {d.chunk.src_gpu, d.chunk.dst_gpu, d.chunk.tag}; }

  // The vertex whose LP puts chunks on link l, and so keeps its port and
  // counters: its source, or for a NIC's link to its GPU taken in the leaf's
  // event (mark_delivering_links), that leaf.
  VertexId transmitter(LinkId l) const { return transmitter_[static_cast<std::size_t>(l)]; }
  // Counters of the links this rank's LPs transmit on (others stay zero here).
  const LinkCounters& counters(LinkId l) const { return ports_.counters(l); }
  // Packet mode: the link counters of this rank's links, summed (every link's
  // counters move only on the rank that owns its source) into the registry:
  // network.link_bytes, .link_chunks, .peak_link_queue_bytes. Nothing in
  // analytical mode, which keeps no per-link counters.
  void publish(core::Statistics& out) const;
  const LinkPorts& ports() const { return ports_; }
  // Adaptive routing: messages whose chunks have partly arrived here.
  std::size_t messages_in_reassembly() const { return reassembly_.in_flight(); }

 private:
  struct Pending {  // one message being cut into chunks (send_all's scratch)
    ChunkPayload chunk;
    core::SimTime ready;       // when its first byte may leave (send time + Message::delay)
    LinkId first = kNoLink;
    std::uint64_t left = 0;    // bytes not yet cut
    std::uint64_t piece = 0;   // chunk size for this message
    std::uint64_t chunks = 0;  // chunks not yet sent
    std::uint64_t total = 0;   // chunks in all
    bool multipath = false;    // adaptive routing or multi-QP: chunks counted at the destination
  };

  core::SimTime send_packets(core::LpContext& engine, std::span<const Message> messages);
  core::SimTime send_analytical(core::LpContext& engine, std::span<const Message> messages);
  void deliver_now(core::LpContext& engine, const Message& m);
  // Puts one chunk on link l and schedules what happens at its far end.
  LinkPorts::Slot pass(core::LpContext& engine, LinkId l, core::SimTime head, const ChunkPayload& chunk);
  // The link a chunk at vertex `at` takes next (routing.h; adaptive routing
  // as of `now`); kNoLink, with the run stopped, when `at` is off its path.
  LinkId next_hop(core::LpContext& engine, VertexId at, const ChunkPayload& chunk, core::SimTime now);
  void mark_relayed_links();
  // A NIC's link to its GPU where it has exactly one GPU and one uplink; else kNoLink.
  LinkId lone_gpu_link(VertexId nic) const;
  void mark_delivering_links();
  // Whether handling `chunk`'s arrival at vertex `at` sends no event at all
  // (core::LpContext::send_silent): a chunk that is not its message's last,
  // on one path, whose next hop from `at` ends at its GPU without an event.
  bool arrives_silently(VertexId at, const ChunkPayload& chunk) const;
  std::uint64_t piece_bytes(const Message& m) const;
  // Adaptive routing or several queue pairs between servers: chunks take their own paths.
  bool multipath(const ChunkPayload& c) const {
    return (adaptive_ || queue_pairs_ > 1) && graph_.node_of_gpu(c.src_gpu) != graph_.node_of_gpu(c.dst_gpu);
  }
  // The ECMP flow a multi-QP chunk hashes: its connection and queue pair.
  static std::uint64_t queue_pair_flow(const ChunkPayload& c) {
    const std::uint64_t connection = (static_cast<std::uint64_t>(c.tag.group) << 8) | c.tag.channel;
    return (connection << 4 | (c.flow >> kQueuePairShift)) * 0x9E3779B97F4A7C15ull;
  }
  // The message id reassembly counts a multipath chunk under.
  std::uint32_t message_id(const ChunkPayload& c) const { return queue_pairs_ > 1 ? c.flow & kMessageIdMask : c.flow; }
  // Bytes a chunk carries on the wire.
  std::uint64_t chunk_bytes(const ChunkPayload& c) const {
    return (c.size & kCountChunk) && multipath(c) ? adaptive_piece_ : c.size & ~kLastChunk;
  }
  void arrive_at_destination(core::LpContext& engine, const Link& link, const LinkPorts::Slot& s,
                             const ChunkPayload& chunk);

  const ClusterGraph& graph_;
  NetworkConfig config_;
  LinkPorts ports_;
  NicShare nic_share_;  // analytical mode: a shared NIC's rate split among the run's GPUs behind it
  std::vector<Pending> pending_;
  bool adaptive_ = false;             // packet mode with topology.routing: adaptive
  int queue_pairs_ = 1;               // packet mode with topology.routing: ecmp_multi_qp
  std::uint64_t adaptive_piece_ = 0;  // chunk size of multipath messages (< kCountChunk)
  std::vector<std::uint32_t> next_message_id_;  // per sending GPU (multipath only)
  // Per link: a GPU's link into a NIC that only relays it (mark_relayed_links):
  // a chunk takes the NIC's uplink in the same event.
  std::vector<std::uint8_t> relayed_;
  // Per link: a leaf's link into such a NIC whose link to the GPU never
  // queues: that link (mark_delivering_links), taken in the leaf's event.
  std::vector<LinkId> down_of_;
  std::vector<VertexId> transmitter_;  // per link: the vertex whose LP puts chunks on it
  Reassembly reassembly_;
};

}  // namespace pf::models::network
