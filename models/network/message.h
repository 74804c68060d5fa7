// What the network carries: messages from one GPU to another, cut into chunks
// in packet mode. Chunks and deliveries are engine events whose payload is one
// flat 32-byte record (STYLE 7): no pointers, no allocation per event.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/event.h"
#include "core/event_kind.h"
#include "core/sim_time.h"

namespace pf::models::network {

// The sender's label for a message, handed back to the receiver untouched.
// The collective layer uses it as (group, sequence, phase, channel).
struct Tag {
  std::uint32_t group = 0;
  std::uint16_t seq = 0;
  std::uint8_t phase = 0;
  std::uint8_t channel = 0;
};

// What a GPU asks the network to carry.
struct Message {
  int src_gpu = 0;
  int dst_gpu = 0;
  std::uint64_t bytes = 0;
  Tag tag;
  std::uint32_t flow = 0;  // ECMP flow id: a flow's chunks follow one path, in order (unused by adaptive routing)
  core::SimTime delay;     // the message is ready to leave this long after it is sent (software latency)
};

// Chunk sizes travel in 31 bits; the top bit marks the last chunk of a message.
inline constexpr std::uint32_t kLastChunk = 1u << 31;
// Adaptive routing (adaptive_routing.h): the last chunk of a message of n >= 2
// chunks carries kLastChunk | kCountChunk | n, and is a full chunk_bytes piece
// (the message's first chunk takes the remainder); every chunk's `flow` is the
// message's id at its sender. The destination reassembles them (reassembly.h).
inline constexpr std::uint32_t kCountChunk = 1u << 30;
inline constexpr std::uint32_t kChunkFieldMask = kCountChunk - 1;
// topology.routing: ecmp_multi_qp: multipath chunks as above, but each keeps
// to the ECMP path of its queue pair, carried in the flow's top 4 bits (the
// low 28 bits are the message id); the path hashes the connection, (tag.group,
// tag.channel) as the collective layer opens one per channel, and the queue pair.
inline constexpr int kQueuePairShift = 28;
inline constexpr std::uint32_t kMessageIdMask = (1u << kQueuePairShift) - 1;
inline constexpr int kMaxQueuePairs = 16;
inline constexpr std::uint64_t kMaxChunkBytes = std::uint64_t{1} << 30;

// What a chunk or a delivery carries.
struct ChunkPayload {
  core::SimTime tail;      // ChunkArrival: when the chunk's last byte reaches this vertex
  std::int32_t src_gpu = 0;
  std::int32_t dst_gpu = 0;
  std::uint32_t flow = 0;
  std::uint32_t size = 0;  // bytes | kLastChunk
  Tag tag;
};
static_assert(std::is_trivially_copyable_v<ChunkPayload>);
static_assert(sizeof(ChunkPayload) == core::Event::kPayloadBytes, "a chunk fills an event payload exactly");

// The network's two events; each kind is its payload's type (core/event_kind.h).
struct ChunkArrival {  // a chunk's head reaches a NIC or switch
  ChunkPayload chunk;
};
struct MessageDelivered {  // a whole message has reached its GPU
  ChunkPayload chunk;
};
using NetworkEvents = core::EventSet<ChunkArrival, MessageDelivered>;

// A message that has fully arrived, as the receiving GPU sees it.
struct Delivery {
  int src_gpu = 0;
  int dst_gpu = 0;
  Tag tag;
};

}  // namespace pf::models::network
