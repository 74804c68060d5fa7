// What one engine run did: one rank's figures (LpContext::local_stats()), or
// every rank's combined (combine(), which Engine::global_stats() applies).
#pragma once

#include <cstdint>
#include <span>

#include "core/statistics.h"

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

// One window of a window-mode run on one rank (EngineConfig::record_windows):
// what it committed and sent, and where its time went.
struct WindowRecord {
  std::uint32_t events = 0;        // committed in the window
  std::uint32_t remote_events = 0; // sent to LPs on other ranks
  std::uint32_t messages = 0;      // MPI messages posted at its end (one per destination rank)
  std::uint32_t busy_ns = 0;       // wall time committing its events
  std::uint32_t sync_ns = 0;       // wall time in the synchronisation after it (waiting included)
};

// Every rank's figures as one: counts summed, windows (the same rounds seen by
// every rank) and wall time the largest. Pure, so a runner may gather the
// per-rank figures however it likes and every rank gets the same answer.
EngineStats combine(std::span<const EngineStats> per_rank);

// The figures of one rank's run the report's `simulation` block does not
// carry, into the registry (simulation.remote_events, .mpi_messages,
// .queue_peak_bytes; summed over ranks).
void publish(const EngineStats& local, Statistics& out);

}  // namespace pf::core
