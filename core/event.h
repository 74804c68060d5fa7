// The one record the engine moves: a timestamped message to a logical process.
//
// Events are flat, fixed-size and trivially copyable (STYLE 7): they travel
// between MPI ranks as raw bytes and live in a pooled store, never on the heap
// one by one. A model's message type is copied into `payload`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/sim_time.h"

namespace pf::core {

using LpId = std::uint32_t;
using EventKind = std::uint16_t;

// Largest LP count: LP ids occupy the top bits of the 64-bit tie-break key.
inline constexpr int kLpIdBits = 24;
inline constexpr std::uint64_t kMaxLps = std::uint64_t{1} << kLpIdBits;
inline constexpr int kSeqBits = 64 - kLpIdBits;  // 2^40 sends per LP

struct alignas(8) Event {
  static constexpr std::size_t kPayloadBytes = 32;

  SimTime time;          // when it happens at `dst`
  LpId dst = 0;          // receiving LP
  LpId src = 0;          // sending LP
  std::uint64_t seq = 0; // the sender's send count: (time, src, seq) is a total order
  EventKind kind = 0;    // the payload type's kind_of<T> (event_kind.h): the model's switch key
  std::uint8_t flags = 0;  // kQuietEvent, kSilentEvent (core/promise_board.h); in padding: the size stays one line
  std::array<std::byte, kPayloadBytes> payload{};

  template <class T>
  T as() const {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= kPayloadBytes,
                  "event payloads are trivially copyable and at most Event::kPayloadBytes");
    T value;
    std::memcpy(&value, payload.data(), sizeof(T));
    return value;
  }

  template <class T>
  void set(const T& value) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= kPayloadBytes,
                  "event payloads are trivially copyable and at most Event::kPayloadBytes");
    std::memcpy(payload.data(), &value, sizeof(T));
    // A reused slot keeps no bytes of the event before it.
    if constexpr (sizeof(T) < kPayloadBytes) std::memset(payload.data() + sizeof(T), 0, kPayloadBytes - sizeof(T));
  }

  // The tie-break key after time. Independent of which rank holds which LP, so
  // every rank count commits the same events in the same order.
  std::uint64_t tie_key() const { return (std::uint64_t{src} << kSeqBits) | seq; }
};

// An LP's event to itself whose consequences the LP bounds with its promise
// (LpContext::send_quiet, core/promise_board.h) instead of the event's own time.
inline constexpr std::uint8_t kQuietEvent = 1;
// An event whose handling sends nothing at all (LpContext::send_silent): it
// bounds no window, whichever rank sent it (core/promise_board.h).
inline constexpr std::uint8_t kSilentEvent = 2;
// Whether an event with these flags is left out of a window's bound (quiet:
// its LP's promise stands for it; silent: nothing needs to).
inline constexpr bool outside_bound(std::uint8_t flags) { return (flags & (kQuietEvent | kSilentEvent)) != 0; }

static_assert(std::is_trivially_copyable_v<Event>);
static_assert(sizeof(Event) == 64, "one cache line per event");

// A payload-free message, for models whose events carry nothing but their kind.
struct NoPayload {};

}  // namespace pf::core
