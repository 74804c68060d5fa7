#include "partition/super_graph.h"

#include <algorithm>
#include <tuple>

namespace pf::partition {
namespace {

struct HalfEdge {
  std::int32_t from;
  std::int32_t to;
  double weight;
};

}  // namespace

SuperGraph contract(const LpGraph& g) {
  SuperGraph sg;
  sg.servers = g.groups;
  sg.super_of.resize(static_cast<std::size_t>(g.lp_count()));
  std::int32_t next_free = sg.servers;
  for (std::size_t v = 0; v < sg.super_of.size(); ++v) sg.super_of[v] = g.group[v] >= 0 ? g.group[v] : next_free++;
  sg.supers = next_free;
  sg.weight.assign(static_cast<std::size_t>(sg.supers), 0.0);
  for (std::size_t v = 0; v < sg.super_of.size(); ++v) sg.weight[static_cast<std::size_t>(sg.super_of[v])] += g.events[v];

  // Each directed edge adds its weight to both orientations of its super-edge.
  std::vector<HalfEdge> half;
  for (const LpEdge& e : g.edges) {
    const std::int32_t a = sg.super_of[static_cast<std::size_t>(e.src)];
    const std::int32_t b = sg.super_of[static_cast<std::size_t>(e.dst)];
    if (a == b) continue;
    const double w = e.weight;
    half.push_back({a, b, w});
    half.push_back({b, a, w});
  }
  std::sort(half.begin(), half.end(),
            [](const HalfEdge& x, const HalfEdge& y) { return std::tie(x.from, x.to) < std::tie(y.from, y.to); });

  sg.xadj.assign(static_cast<std::size_t>(sg.supers) + 1, 0);
  for (std::size_t i = 0; i < half.size(); ++i) {
    const HalfEdge& e = half[i];
    if (i > 0 && half[i - 1].from == e.from && half[i - 1].to == e.to) {
      sg.adjwgt.back() += e.weight;  // parallel edges between the same two supers
      continue;
    }
    sg.adjncy.push_back(e.to);
    sg.adjwgt.push_back(e.weight);
    ++sg.xadj[static_cast<std::size_t>(e.from) + 1];
  }
  for (std::size_t i = 0; i + 1 < sg.xadj.size(); ++i) sg.xadj[i + 1] += sg.xadj[i];
  return sg;
}

}  // namespace pf::partition
