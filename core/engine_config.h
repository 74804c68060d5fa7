// How an engine run is configured: synchronisation mode, lookaheads, end
// time, progress callback. A plain struct in pf_core, so that a model can say
// what its LPs' lookaheads are (models/network/network_lookahead.h) without
// seeing the engine that runs it (core/engine.h).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/sim_time.h"

namespace pf::core {

enum class Sync { window, null_message };
inline const char* to_string(Sync sync) { return sync == Sync::window ? "window" : "null_message"; }

struct EngineConfig {
  SimTime lookahead;                  // global minimum; must be > 0 when ranks > 1
  SimTime end = SimTime::infinity();  // events at or after `end` are not committed
  Sync sync = Sync::window;
  // Optional per rank-pair lookahead (ranks*ranks, row = sender). Empty: every
  // pair uses `lookahead`. SimTime::infinity() marks pairs with no channel.
  std::vector<SimTime> channel_lookahead;
  // Optional per LP (lp_count entries): no event handled at this LP leads,
  // directly or through other LPs of its rank, to an event on another rank
  // sooner than this after it. Lets a window (or a null message's promise)
  // reach min over pending events of (time + its LP's lookahead) instead of
  // (earliest time + `lookahead`): LPs far from every cut link rarely bind.
  // Empty: every LP uses `lookahead`. Values are grouped into at most
  // kMaxLookaheadClasses classes, each rounded down (core/lookahead_queue.h).
  // The model vouches for the values; a remote send that breaks the promise
  // made from them is reported as a lookahead violation, never run.
  std::vector<SimTime> lp_lookahead;
  // Window mode on more than one rank: keep one WindowRecord per window
  // (Engine::windows(); 20 bytes each).
  bool record_windows = false;
  // Called on this rank every kProgressEvents committed events with the local
  // simulated time and committed count (for a progress line; may be empty).
  std::function<void(SimTime now, std::uint64_t committed)> progress;
};

}  // namespace pf::core
