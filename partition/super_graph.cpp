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

SuperGraph contract(const ClusterGraph& g, std::span<const double> vertex_events,
                    std::span<const double> link_weight) {
  SuperGraph sg;
  sg.servers = g.shape().nodes;
  const VertexId first_switch = g.first(VertexKind::leaf);  // leaves, spines, cores follow
  sg.supers = sg.servers + (g.vertex_count() - first_switch);
  sg.super_of.resize(static_cast<std::size_t>(g.vertex_count()));
  sg.weight.assign(static_cast<std::size_t>(sg.supers), 0.0);
  for (VertexId v = 0; v < g.vertex_count(); ++v) {
    const Vertex& vx = g.vertex(v);
    const std::int32_t s = is_switch(vx.kind) ? sg.servers + (v - first_switch) : vx.node;
    sg.super_of[static_cast<std::size_t>(v)] = s;
    sg.weight[static_cast<std::size_t>(s)] += vertex_events[static_cast<std::size_t>(v)];
  }

  // Each directed link adds its weight to both orientations of its super-edge.
  std::vector<HalfEdge> half;
  for (LinkId l = 0; l < g.link_count(); ++l) {
    const Link& link = g.link(l);
    const std::int32_t a = sg.super_of[static_cast<std::size_t>(link.src)];
    const std::int32_t b = sg.super_of[static_cast<std::size_t>(link.dst)];
    if (a == b) continue;
    const double w = link_weight[static_cast<std::size_t>(l)];
    half.push_back({a, b, w});
    half.push_back({b, a, w});
  }
  std::sort(half.begin(), half.end(),
            [](const HalfEdge& x, const HalfEdge& y) { return std::tie(x.from, x.to) < std::tie(y.from, y.to); });

  sg.xadj.assign(static_cast<std::size_t>(sg.supers) + 1, 0);
  for (std::size_t i = 0; i < half.size(); ++i) {
    const HalfEdge& e = half[i];
    if (i > 0 && half[i - 1].from == e.from && half[i - 1].to == e.to) {
      sg.adjwgt.back() += e.weight;  // parallel links between the same two supers
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
