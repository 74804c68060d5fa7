// What one engine run did, summed over ranks by Engine::global_stats().
#pragma once

#include <cstdint>

namespace pf::core {

struct EngineStats {
  std::uint64_t committed_events = 0;  // handled events with time < end
  std::uint64_t remote_events = 0;     // events sent to an LP on another rank
  std::uint64_t windows = 0;           // window mode: synchronisation rounds
  std::uint64_t null_messages = 0;     // null-message mode: channel messages with no events
  std::uint64_t messages = 0;          // MPI messages carrying events or clocks
  std::uint64_t peak_pending = 0;      // largest pending-event count (per rank; summed globally)
  std::uint64_t queue_bytes = 0;       // memory held by the event queue at its peak
  double wall_s = 0;                   // run() wall-clock time (max over ranks)
};

}  // namespace pf::core
