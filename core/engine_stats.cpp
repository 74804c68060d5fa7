#include "core/engine_stats.h"

#include <algorithm>

namespace pf::core {

EngineStats combine(std::span<const EngineStats> per_rank) {
  EngineStats g;
  for (const EngineStats& s : per_rank) {
    g.committed_events += s.committed_events;
    g.remote_events += s.remote_events;
    g.windows = std::max(g.windows, s.windows);
    g.null_messages += s.null_messages;
    g.messages += s.messages;
    g.peak_pending += s.peak_pending;
    g.queue_bytes += s.queue_bytes;
    g.wall_s = std::max(g.wall_s, s.wall_s);
  }
  return g;
}

void publish(const EngineStats& local, Statistics& out) {
  using M = Statistics::Merge;
  out.add({"simulation.remote_events", "remote events", "events", "events sent to an LP on another rank", M::sum},
          static_cast<std::int64_t>(local.remote_events));
  out.add({"simulation.mpi_messages", "MPI messages", "", "MPI messages carrying events or channel clocks", M::sum},
          static_cast<std::int64_t>(local.messages));
  out.add({"simulation.queue_peak_bytes", "event queue memory", "bytes",
           "memory held by the pending-event queues at their peak, summed over ranks", M::sum},
          static_cast<std::int64_t>(local.queue_bytes));
}

}  // namespace pf::core
