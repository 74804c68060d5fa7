// The collective layer's own event: a GPU learns that a message it queued has
// left its port. Its kind is its payload's type, PortFree (core/event_kind.h).
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/event.h"

namespace pf::models::collective {

// Which collective a GPU-side state belongs to. A send and a receive between
// the same two GPUs with the same tag are different states.
enum class Role : std::uint8_t { collective, send, recv };

struct StateKey {
  std::uint32_t group = 0;
  std::uint16_t seq = 0;
  Role role = Role::collective;
  std::int32_t peer = -1;  // the other GPU of a send/recv; -1 for collectives
  friend bool operator==(const StateKey&, const StateKey&) = default;
};

struct PortFree {
  StateKey key;
  std::uint8_t phase = 0;    // the run whose message left
  std::uint8_t channel = 0;
};
static_assert(std::is_trivially_copyable_v<PortFree> && sizeof(PortFree) <= core::Event::kPayloadBytes);

}  // namespace pf::models::collective
