// Event kinds derived from payload types, so no kind number is written by hand.
//
// A component declares one trivially copyable payload type per event it
// sends (an empty struct when the event carries nothing); the type is the
// event's identity:
//
//     struct ComputeDone { std::uint32_t op; std::uint32_t token; };
//     engine.send(at, lp, ComputeDone{op, token});       // kind = kind_of<ComputeDone>
//
//     using Events = core::EventSet<ComputeDone, ...>;    // a model's events
//     static_assert(Events::valid);
//     switch (event.kind) {                               // its dispatch
//       case core::kind_of<ComputeDone>: on_done(event.as<ComputeDone>()); break;
//       ...
//     }
//
// kind_of<T> is a 16-bit hash of T's fully qualified name, computed at compile
// time. Two payloads of one model that hashed alike would be two equal case
// labels of its switch, which the compiler rejects; EventSet<Ts...> states a
// model's payload set in one place and checks the same at compile time
// (instantiated by naming Events::valid). Dispatch stays a switch: a jump
// table, no virtual call. Kinds never leave the process: they are not written
// to reports or timelines, so renaming a type changes nothing a user sees.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "core/event.h"

namespace pf::core {

namespace detail {

// The compiler's spelling of T inside this function's signature: unique per
// type (GCC and Clang both accept __PRETTY_FUNCTION__ in constant expressions).
template <class T>
constexpr std::string_view spelled_type() {
  return __PRETTY_FUNCTION__;
}

// FNV-1a over the spelling, folded to 16 bits.
constexpr EventKind hash_kind(std::string_view s) {
  std::uint32_t h = 2166136261u;
  for (const char c : s) {
    h ^= static_cast<std::uint8_t>(c);
    h *= 16777619u;
  }
  return static_cast<EventKind>((h >> 16) ^ (h & 0xFFFFu));
}

// Kinds below this are left to the engine's own control records.
inline constexpr EventKind kFirstModelKind = 0x0100;

constexpr EventKind model_kind(EventKind h) {
  return h < kFirstModelKind ? static_cast<EventKind>(h + kFirstModelKind) : h;
}

template <EventKind... Ks>
constexpr bool all_distinct() {
  constexpr EventKind ks[] = {Ks...};
  for (std::size_t i = 0; i < sizeof...(Ks); ++i) {
    for (std::size_t j = i + 1; j < sizeof...(Ks); ++j) {
      if (ks[i] == ks[j]) return false;
    }
  }
  return true;
}

}  // namespace detail

template <class Payload>
inline constexpr EventKind kind_of = detail::model_kind(detail::hash_kind(detail::spelled_type<Payload>()));

// The payload types one model handles. Checks at compile time that each is a
// valid payload and that their kinds differ.
template <class... Payloads>
struct EventSet {
  static_assert(((std::is_trivially_copyable_v<Payloads> && sizeof(Payloads) <= Event::kPayloadBytes) && ...),
                "event payloads are trivially copyable and at most Event::kPayloadBytes");
  static_assert(detail::all_distinct<kind_of<Payloads>...>(),
                "two payload types of this event set hash to the same kind: rename one");

  static constexpr bool valid = true;  // naming it instantiates the checks above

  template <class T>
  static constexpr bool contains = (std::is_same_v<T, Payloads> || ...);

  // The set with more payload types (a model that also routes a component's events).
  template <class... More>
  using with = EventSet<Payloads..., More...>;
};

}  // namespace pf::core
