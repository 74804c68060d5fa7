#include "models/network/network.h"

#include <algorithm>
#include <string>

#include "models/network/adaptive_routing.h"

namespace pf::models::network {

const char* to_string(NetworkMode mode) { return mode == NetworkMode::packet ? "packet" : "analytical"; }
const char* to_string(NvlinkFidelity fidelity) { return fidelity == NvlinkFidelity::coarse ? "coarse" : "fine"; }

Network::Network(const ClusterGraph& g, NetworkConfig config)
    : graph_(g), config_(config), ports_(g), nic_share_(g, config.active_gpus) {
  config_.chunk_bytes = std::clamp<std::uint64_t>(config_.chunk_bytes, 1, kMaxChunkBytes);
  adaptive_ = config_.mode == NetworkMode::packet && g.shape().routing == models::Routing::adaptive;
  if (config_.mode == NetworkMode::packet && g.shape().routing == models::Routing::ecmp_multi_qp)
    queue_pairs_ = std::clamp(g.shape().qps_per_connection, 1, kMaxQueuePairs);
  if (adaptive_ || queue_pairs_ > 1) {
    adaptive_piece_ = std::min<std::uint64_t>(config_.chunk_bytes, kChunkFieldMask);
    next_message_id_.assign(static_cast<std::size_t>(g.gpu_count()), 0);
  }
  mark_relayed_links();
  mark_delivering_links();
}

// A NIC with one GPU behind it and one uplink passes on, in arrival order,
// exactly what its GPU puts on the GPU-NIC link: the uplink's queue has no
// other input. So the chunk's turn on the uplink is known when it enters the
// GPU-NIC link, and the hop is taken there, in the same event (pass), with
// the times its own ChunkArrival at the NIC would have had; every link sees
// the same transmissions in the same order. The GPU and its NIC always share
// a rank (a server is never split), and the GPU's lookahead already covers
// both links (network_lookahead.h), so the event sent one link further from
// the GPU is as safe as the NIC's. Only upstream: the downstream NIC is fed
// by a leaf, which may be on another rank. Saves one event per chunk that
// leaves a server (a third of gpt3-175b-a100-1024's chunk events).
void Network::mark_relayed_links() {
  relayed_.assign(static_cast<std::size_t>(graph_.link_count()), 0);
  if (config_.mode != NetworkMode::packet) return;
  for (LinkId l = 0; l < graph_.link_count(); ++l) {
    const Link& link = graph_.link(l);
    if (graph_.vertex(link.src).kind == VertexKind::gpu && graph_.vertex(link.dst).kind == VertexKind::nic)
      relayed_[static_cast<std::size_t>(l)] = lone_gpu_link(link.dst) != kNoLink;
  }
}

LinkId Network::lone_gpu_link(VertexId nic) const {
  int uplinks = 0;
  LinkId to_gpu = kNoLink;
  for (LinkId out : graph_.out_links(nic)) {
    if (graph_.vertex(graph_.link(out).dst).kind != VertexKind::gpu) ++uplinks;
    else if (to_gpu == kNoLink) to_gpu = out;
    else return kNoLink;  // a second GPU
  }
  return uplinks == 1 ? to_gpu : kNoLink;
}

// The receiving side of the same NIC: its link to the GPU has no input but
// the leaf's link into it, and where it is no slower than that link it never
// queues (a chunk's head arrives after the previous chunk's tail has left, and
// serialisation rounds monotonically), so a chunk crosses it from head to
// tail with no wait. The leaf that puts the chunk on its link into the NIC
// therefore takes the NIC-GPU link too, in the same event, and sends the
// message's MessageDelivered to the GPU itself, at the time the NIC would
// have (later than its send to the NIC: the leaf's lookahead holds, and the
// GPU shares the NIC's rank). The NIC-GPU link's port and counters then live
// with the leaf (transmitter()). Single-path fabrics only: an adaptive or
// multi-QP message is reassembled at the NIC's rank, so there the NIC keeps
// its events.
void Network::mark_delivering_links() {
  down_of_.assign(static_cast<std::size_t>(graph_.link_count()), kNoLink);
  transmitter_.resize(static_cast<std::size_t>(graph_.link_count()));
  for (LinkId l = 0; l < graph_.link_count(); ++l) transmitter_[static_cast<std::size_t>(l)] = graph_.link(l).src;
  if (config_.mode != NetworkMode::packet || adaptive_ || queue_pairs_ > 1) return;
  for (LinkId l = 0; l < graph_.link_count(); ++l) {
    const Link& link = graph_.link(l);
    if (graph_.vertex(link.dst).kind != VertexKind::nic || graph_.vertex(link.src).kind == VertexKind::gpu) continue;
    const LinkId down = lone_gpu_link(link.dst);
    // No slower: serialisation is bytes x 1e12 / bandwidth, rounded, so no longer for any chunk.
    if (down == kNoLink || graph_.link(down).failed || graph_.link(down).bandwidth_Bps < link.bandwidth_Bps) continue;
    down_of_[static_cast<std::size_t>(l)] = down;
    transmitter_[static_cast<std::size_t>(down)] = link.src;
  }
}

core::SimTime Network::send_all(core::LpContext& engine, std::span<const Message> messages) {
  return config_.mode == NetworkMode::packet ? send_packets(engine, messages) : send_analytical(engine, messages);
}

std::uint64_t Network::piece_bytes(const Message& m) const {
  const bool same_server = graph_.node_of_gpu(m.src_gpu) == graph_.node_of_gpu(m.dst_gpu);
  if (same_server && config_.nvlink == NvlinkFidelity::coarse) return kMaxChunkBytes;
  return config_.chunk_bytes;
}

void Network::deliver_now(core::LpContext& engine, const Message& m) {
  // To itself: no link, but the software latency still applies.
  ChunkPayload p;
  p.src_gpu = m.src_gpu;
  p.dst_gpu = m.dst_gpu;
  p.flow = m.flow;
  p.size = kLastChunk;
  p.tag = m.tag;
  engine.send(engine.now() + m.delay, static_cast<core::LpId>(m.dst_gpu), MessageDelivered{p});
}

void Network::arrive_at_destination(core::LpContext& engine, const Link& link, const LinkPorts::Slot& s,
                                    const ChunkPayload& chunk) {
  const bool single = (chunk.size & kLastChunk) && !(chunk.size & kCountChunk);
  if (single || !multipath(chunk)) {
    // One path in FIFO order: the message's last chunk arrives last.
    if (chunk.size & kLastChunk)
      engine.send(s.end + link.latency, static_cast<core::LpId>(link.dst), MessageDelivered{chunk});
    return;
  }
  const std::uint32_t count = (chunk.size & kLastChunk) ? chunk.size & kChunkFieldMask : 0;
  core::SimTime complete;
  if (reassembly_.arrive(chunk.src_gpu, chunk.dst_gpu, message_id(chunk), count, s.end + link.latency, complete))
    engine.send(complete, static_cast<core::LpId>(link.dst), MessageDelivered{chunk});
}

LinkPorts::Slot Network::pass(core::LpContext& engine, LinkId l, core::SimTime head, const ChunkPayload& chunk) {
  const Link& link = graph_.link(l);
  const LinkPorts::Slot s = ports_.transmit(l, head, chunk.tail, chunk_bytes(chunk));
  if (link.dst == chunk.dst_gpu) {
    // The port into the destination GPU: only the message's end is an event.
    arrive_at_destination(engine, link, s, chunk);
    return s;
  }
  ChunkPayload next = chunk;
  next.tail = s.end + link.latency;
  const core::SimTime arrival = s.start + link.latency;
  if (const LinkId down = down_of_[static_cast<std::size_t>(l)];
      down != kNoLink && graph_.link(down).dst == chunk.dst_gpu) {  // mark_delivering_links
    const LinkPorts::Slot sd = ports_.transmit(down, arrival, next.tail, chunk_bytes(chunk));
    arrive_at_destination(engine, graph_.link(down), sd, next);
    return s;
  }
  if (relayed_[static_cast<std::size_t>(l)]) {  // its NIC's uplink next, in this event (mark_relayed_links)
    const LinkId up = next_hop(engine, link.dst, next, arrival);
    if (up != kNoLink) pass(engine, up, arrival, next);
    return s;
  }
  // More than one rank: a chunk whose arrival will send nothing bounds no
  // window (one rank has no windows, and skips the route it takes to know).
  if (engine.wants_promises() && arrives_silently(link.dst, next))
    engine.send_silent(arrival, static_cast<core::LpId>(link.dst), ChunkArrival{next});
  else
    engine.send(arrival, static_cast<core::LpId>(link.dst), ChunkArrival{next});
  return s;
}

// At the vertex before the destination GPU (an NVSwitch, or a leaf whose
// link into the NIC is a delivering one, mark_delivering_links), pass() puts
// a chunk on the last links and sends only the last chunk's MessageDelivered
// (arrive_at_destination). Every other chunk's arrival changes the ports'
// state and nothing else, so its time bounds nothing on other ranks: in
// gpt3-175b-a100-1024's data-parallel and pipeline transfers these are most
// of the chunk events next to a partition's cut. The receiving vertex takes
// the same route (next_hop), so the claim is checked there by the engine.
bool Network::arrives_silently(VertexId at, const ChunkPayload& chunk) const {
  if ((chunk.size & kLastChunk) || multipath(chunk)) return false;
  const LinkId l = next_link(graph_, at, chunk.src_gpu, chunk.dst_gpu, chunk.flow);
  if (l == kNoLink) return false;
  if (graph_.link(l).dst == chunk.dst_gpu) return true;
  const LinkId down = down_of_[static_cast<std::size_t>(l)];
  return down != kNoLink && graph_.link(down).dst == chunk.dst_gpu;
}

core::SimTime Network::send_packets(core::LpContext& engine, std::span<const Message> messages) {
  const core::SimTime now = engine.now();
  core::SimTime port_free = now;
  pending_.clear();
  for (const Message& m : messages) {
    if (m.src_gpu == m.dst_gpu) {
      deliver_now(engine, m);
      continue;
    }
    Path path;
    route(graph_, m.src_gpu, m.dst_gpu, m.flow, path);
    Pending p;
    p.ready = now + m.delay;
    p.chunk.tail = p.ready;  // the data is in the sender's memory already
    p.chunk.src_gpu = m.src_gpu;
    p.chunk.dst_gpu = m.dst_gpu;
    p.chunk.flow = m.flow;
    p.chunk.tag = m.tag;
    p.first = path.links[0];
    p.left = m.bytes;
    p.multipath = multipath(p.chunk);
    p.piece = p.multipath ? adaptive_piece_ : piece_bytes(m);
    if (p.multipath && m.bytes / p.piece >= kChunkFieldMask) {
      // Chunk counts travel in 30 bits (message.h).
      engine.fail("network: a " + std::to_string(m.bytes) + "-byte message is more than 2^30 chunks of " +
                  std::to_string(p.piece) + " bytes, which multipath routing cannot count: raise simulation.chunk_bytes");
      continue;
    }
    if (p.multipath) {
      std::uint32_t& id = next_message_id_[static_cast<std::size_t>(m.src_gpu)];
      p.chunk.flow = queue_pairs_ > 1 ? id & kMessageIdMask : id;
      ++id;
    }
    pending_.push_back(p);
  }
  // Round-robin over the messages, one chunk each per round. A zero-byte
  // message is one empty chunk: it still pays the path latency.
  for (Pending& p : pending_) p.total = p.chunks = p.left == 0 ? 1 : (p.left + p.piece - 1) / p.piece;
  for (bool more = !pending_.empty(); more;) {
    more = false;
    for (Pending& p : pending_) {
      if (p.chunks == 0) continue;
      // Multipath: the first chunk takes the remainder, so the last is a full
      // piece and its size field can carry the chunk count instead.
      const std::uint64_t bytes =
          p.multipath && p.chunks == p.total ? p.left - (p.total - 1) * p.piece : std::min(p.left, p.piece);
      p.left -= bytes;
      --p.chunks;
      const bool counted_last = p.multipath && p.chunks == 0 && p.total >= 2;
      p.chunk.size = counted_last ? static_cast<std::uint32_t>(p.total) | kCountChunk | kLastChunk
                                  : static_cast<std::uint32_t>(bytes) | (p.chunks == 0 ? kLastChunk : 0u);
      if (p.multipath && queue_pairs_ > 1) {  // chunk i on queue pair i mod Q
        const auto qp = static_cast<std::uint32_t>((p.total - 1 - p.chunks) % static_cast<std::uint64_t>(queue_pairs_));
        p.chunk.flow = (p.chunk.flow & kMessageIdMask) | (qp << kQueuePairShift);
      }
      port_free = std::max(port_free, pass(engine, p.first, p.ready, p.chunk).end);
      more = more || p.chunks > 0;
    }
  }
  return port_free;
}

core::SimTime Network::send_analytical(core::LpContext& engine, std::span<const Message> messages) {
  const core::SimTime now = engine.now();
  core::SimTime port_free = now;
  for (const Message& m : messages) {
    if (m.src_gpu == m.dst_gpu) {
      deliver_now(engine, m);
      continue;
    }
    Path path;
    route(graph_, m.src_gpu, m.dst_gpu, m.flow, path);
    const PathStats stats = path_stats(graph_, path);
    const double rate = std::min(stats.bottleneck_Bps, nic_share_.cap_Bps(m.src_gpu, m.dst_gpu));
    const core::SimTime serial =
        core::SimTime::from_ps(static_cast<std::int64_t>(static_cast<double>(m.bytes) * 1e12 / rate + 0.5));
    const LinkPorts::Slot s = ports_.hold(path.links[0], now + m.delay, serial, m.bytes);
    port_free = std::max(port_free, s.end);
    ChunkPayload p;
    p.src_gpu = m.src_gpu;
    p.dst_gpu = m.dst_gpu;
    p.flow = m.flow;
    p.size = kLastChunk;
    p.tag = m.tag;
    engine.send(s.end + stats.latency, static_cast<core::LpId>(m.dst_gpu), MessageDelivered{p});
  }
  return port_free;
}

void Network::forward(core::LpContext& engine, const ChunkArrival& arrival) {
  const ChunkPayload& chunk = arrival.chunk;
  const LinkId l = next_hop(engine, static_cast<VertexId>(engine.current_lp()), chunk, engine.now());
  if (l != kNoLink) pass(engine, l, engine.now(), chunk);
}

LinkId Network::next_hop(core::LpContext& engine, VertexId at, const ChunkPayload& chunk, core::SimTime now) {
  LinkId l;
  if (!multipath(chunk)) l = next_link(graph_, at, chunk.src_gpu, chunk.dst_gpu, chunk.flow);
  else if (adaptive_) l = adaptive_next_link(graph_, ports_, at, chunk.src_gpu, chunk.dst_gpu, now);
  else l = next_link(graph_, at, chunk.src_gpu, chunk.dst_gpu, queue_pair_flow(chunk));
  if (l == kNoLink)
    engine.fail("network: a chunk from GPU " + std::to_string(chunk.src_gpu) + " to GPU " +
                std::to_string(chunk.dst_gpu) + " reached vertex " + std::to_string(at) + ", which is off its path");
  return l;
}

void Network::publish(core::Statistics& out) const {
  if (config_.mode != NetworkMode::packet) return;
  std::int64_t bytes = 0, chunks = 0, peak = 0;
  for (int l = 0; l < graph_.link_count(); ++l) {
    const LinkCounters& c = counters(l);
    bytes += static_cast<std::int64_t>(c.bytes);
    chunks += static_cast<std::int64_t>(c.chunks);
    peak = std::max(peak, static_cast<std::int64_t>(c.peak_queue_bytes));
  }
  using M = core::Statistics::Merge;
  out.add({"network.link_bytes", "bytes on links", "bytes", "bytes carried over every directed link, each hop counted", M::sum}, bytes);
  out.add({"network.link_chunks", "chunks on links", "", "chunks carried over every directed link, each hop counted", M::sum}, chunks);
  out.add({"network.peak_link_queue_bytes", "deepest link queue", "bytes",
           "the largest backlog any chunk found arriving at a link, itself included", M::max}, peak);
}

}  // namespace pf::models::network
