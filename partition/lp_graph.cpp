#include "partition/lp_graph.h"

#include <string>

#include "core/error.h"

namespace pf::partition {

void check(const LpGraph& g) {
  const auto n = static_cast<std::size_t>(g.lp_count());
  const auto fail = [](const std::string& what) { throw SimulationError("partition: LP graph: " + what); };
  if (g.placement_index.size() != n || g.events.size() != n) fail("per-LP arrays of different lengths");
  if (g.out_offset.size() != n + 1 || g.out_offset.front() != 0 ||
      g.out_offset.back() != static_cast<std::int32_t>(g.out_edges.size()))
    fail("out-edge offsets do not match the out-edge list");
  for (std::size_t v = 0; v < n; ++v) {
    if (g.group[v] < -1 || g.group[v] >= g.groups)
      fail("LP " + std::to_string(v) + " has group " + std::to_string(g.group[v]) + ", expected -1 .. " +
           std::to_string(g.groups - 1));
  }
  for (const LpEdge& e : g.edges) {
    if (e.src < 0 || e.dst < 0 || static_cast<std::size_t>(e.src) >= n || static_cast<std::size_t>(e.dst) >= n)
      fail("an edge " + std::to_string(e.src) + " -> " + std::to_string(e.dst) + " leaves the graph");
  }
  for (const std::int32_t e : g.out_edges) {
    if (e < 0 || e >= g.edge_count()) fail("out-edge index " + std::to_string(e) + " out of range");
  }
  if (!g.group_order.empty()) {
    std::vector<bool> seen(static_cast<std::size_t>(g.groups), false);
    if (g.group_order.size() != seen.size())
      fail("group order lists " + std::to_string(g.group_order.size()) + " groups, expected " + std::to_string(g.groups));
    for (const std::int32_t group : g.group_order) {
      if (group < 0 || group >= g.groups || seen[static_cast<std::size_t>(group)])
        fail("group order: group " + std::to_string(group) + " out of range or listed twice");
      seen[static_cast<std::size_t>(group)] = true;
    }
  }
}

}  // namespace pf::partition
