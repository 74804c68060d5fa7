#include "models/network/link_ports.h"

#include <algorithm>

namespace pf::models::network {

LinkPorts::LinkPorts(const ClusterGraph& g)
    : free_at_(static_cast<std::size_t>(g.link_count())),
      ps_per_byte_(static_cast<std::size_t>(g.link_count())),
      counters_(static_cast<std::size_t>(g.link_count())) {
  for (LinkId l = 0; l < g.link_count(); ++l) {
    ps_per_byte_[static_cast<std::size_t>(l)] = 1e12 / g.link(l).bandwidth_Bps;
  }
}

void LinkPorts::count(LinkId l, core::SimTime at, core::SimTime busy, std::uint64_t bytes) {
  const auto i = static_cast<std::size_t>(l);
  LinkCounters& c = counters_[i];
  // Backlog in bytes: the port's remaining work when the chunk arrives.
  const std::int64_t backlog_ps = std::max<std::int64_t>(0, free_at_[i].ps - at.ps);
  const auto queued = static_cast<std::uint64_t>(static_cast<double>(backlog_ps) / ps_per_byte_[i]) + bytes;
  c.peak_queue_bytes = std::max(c.peak_queue_bytes, queued);
  c.busy_ps += busy.ps;
  c.bytes += bytes;
  ++c.chunks;
}

LinkPorts::Slot LinkPorts::transmit(LinkId l, core::SimTime head, core::SimTime tail, std::uint64_t bytes) {
  const auto i = static_cast<std::size_t>(l);
  const core::SimTime serial = serialisation(l, bytes);
  count(l, head, serial, bytes);
  Slot s;
  s.start = std::max(head, free_at_[i]);
  s.end = std::max(s.start + serial, tail);
  free_at_[i] = s.end;
  return s;
}

LinkPorts::Slot LinkPorts::hold(LinkId l, core::SimTime at, core::SimTime duration, std::uint64_t bytes) {
  const auto i = static_cast<std::size_t>(l);
  count(l, at, duration, bytes);
  Slot s;
  s.start = std::max(at, free_at_[i]);
  s.end = s.start + duration;
  free_at_[i] = s.end;
  return s;
}

}  // namespace pf::models::network
