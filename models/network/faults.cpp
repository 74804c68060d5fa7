#include "models/network/faults.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

#include "core/error.h"

#include "core/mix64.h"

namespace pf::models::network {
namespace {

using models::FaultSpec;
using models::FaultTarget;

[[noreturn]] void fail(const FaultSpec& f, const std::string& message) { throw ConfigError(f.origin + ": " + message); }

struct LinkEffect {
  double factor = 1.0;
  bool failed = false;
};

// Changes one directed link; counts it in `reach`.
void affect(ClusterGraph& g, LinkId l, const LinkEffect& e, FaultReach& reach) {
  const Link& link = g.link(l);
  if (e.factor != 1.0) g.set_link_figures(l, link.bandwidth_Bps * e.factor, link.latency);
  if (e.failed) {
    g.fail_link(l);
    ++reach.failed_links;
  }
  ++reach.links;
  reach.link_ids.push_back(l);
}

VertexId named_vertex(const ClusterGraph& g, const FaultSpec& f, const std::string& name) {
  const VertexId v = vertex_by_name(g, name);
  if (v < 0) fail(f, "no vertex '" + name + "' in this cluster (it has " + std::to_string(g.count(VertexKind::leaf)) +
                         " leaves, " + std::to_string(g.count(VertexKind::spine)) + " spines, " +
                         std::to_string(g.count(VertexKind::core)) + " cores)");
  return v;
}

void apply_link(ClusterGraph& g, const FaultSpec& f, FaultReach& reach) {
  const VertexId a = named_vertex(g, f, f.src);
  const VertexId b = named_vertex(g, f, f.dst);
  const LinkId l = g.find_link(a, b);
  if (l == kNoLink) fail(f, "no link " + f.src + "->" + f.dst + " in this cluster: the two are not cabled together");
  const LinkEffect e{f.bandwidth_factor, f.failed};
  affect(g, l, e, reach);
  if (f.both_directions) affect(g, ClusterGraph::reverse(l), e, reach);
}

void apply_switch(ClusterGraph& g, const FaultSpec& f, FaultReach& reach) {
  const VertexId v = named_vertex(g, f, f.src);
  if (!is_switch(g.vertex(v).kind) && g.vertex(v).kind != VertexKind::nvswitch)
    fail(f, "'" + f.src + "' is not a switch");
  const LinkEffect e{f.bandwidth_factor, f.failed};
  const std::vector<LinkId> out(g.out_links(v).begin(), g.out_links(v).end());
  for (LinkId l : out) {
    affect(g, l, e, reach);
    affect(g, ClusterGraph::reverse(l), e, reach);
  }
}

// The fabric's cables (their up-pointing link ids): NIC-leaf, leaf-spine, spine-core.
std::vector<LinkId> fabric_cables(const ClusterGraph& g) {
  std::vector<LinkId> out;
  for (LinkId l = 0; l < g.link_count(); l += 2) {
    const LinkClass c = g.link(l).cls;
    if (c == LinkClass::nic_to_leaf || c == LinkClass::leaf_to_spine || c == LinkClass::spine_to_core) out.push_back(l);
  }
  return out;
}

void apply_random_links(ClusterGraph& g, const FaultSpec& f, FaultReach& reach) {
  std::vector<LinkId> cables = fabric_cables(g);
  const auto take = static_cast<std::size_t>(std::llround(f.fraction * static_cast<double>(cables.size())));
  if (take == 0)
    fail(f, "fraction " + std::to_string(f.fraction) + " of " + std::to_string(cables.size()) +
                " fabric cables rounds to none");
  std::vector<std::pair<std::uint64_t, LinkId>> keyed;
  keyed.reserve(cables.size());
  for (LinkId l : cables) keyed.emplace_back(core::mix64(f.seed ^ core::mix64(static_cast<std::uint64_t>(l))), l);
  std::partial_sort(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(take), keyed.end());
  const LinkEffect e{f.bandwidth_factor, f.failed};
  for (std::size_t i = 0; i < take; ++i) {
    affect(g, keyed[i].second, e, reach);
    affect(g, ClusterGraph::reverse(keyed[i].second), e, reach);
  }
}

// The links of server `node` (NVLink, GPU-NIC attach, NIC-leaf, both directions).
std::vector<LinkId> server_links(const ClusterGraph& g, int node) {
  std::vector<LinkId> out;
  const ClusterShape& s = g.shape();
  for (int q = 0; q < s.gpus_per_node; ++q) {
    const int gpu = node * s.gpus_per_node + q;
    if (s.has_nvswitch) out.push_back(g.gpu_nvswitch_link(gpu));
    out.push_back(g.gpu_nic_link(gpu));
  }
  for (int i = 0; i < s.nics_per_node; ++i) out.push_back(g.nic_leaf_link(node * s.nics_per_node + i));
  return out;
}

// Servers wholly inside a hardware fault take the replacement's link figures:
// the same topology built from its node gives the same link ids.
void apply_server_hardware(ClusterGraph& g, const models::TopologySpec& topology, const FaultSpec& f, FaultReach& reach) {
  const ClusterShape& s = g.shape();
  std::map<int, int> per_node;
  for (int gpu : f.gpus) ++per_node[gpu / s.gpus_per_node];
  std::vector<int> whole;
  for (const auto& [node, count] : per_node)
    if (count == s.gpus_per_node) whole.push_back(node);
  if (whole.empty()) return;
  const ClusterGraph replacement = build_cluster(f.hardware->node, topology);
  for (int node : whole) {
    for (LinkId up : server_links(g, node)) {
      for (LinkId l : {up, ClusterGraph::reverse(up)}) {
        g.set_link_figures(l, replacement.link(l).bandwidth_Bps, replacement.link(l).latency);
        ++reach.links;
        reach.link_ids.push_back(l);
      }
    }
    ++reach.servers;
  }
}

std::string link_name(const ClusterGraph& g, LinkId l) {
  return vertex_name(g, g.link(l).src) + "->" + vertex_name(g, g.link(l).dst);
}

// Every GPU keeps its own hops (NVLink, NIC, leaf port), and every pair of
// leaves keeps a branch whose spine (and core) links are all up.
void check_connected(const ClusterGraph& g) {
  const ClusterShape& s = g.shape();
  const auto refuse = [&](const std::string& what, LinkId l) {
    throw ConfigError("faults: the fabric is disconnected: " + what + " (link " + link_name(g, l) + " failed)");
  };
  for (int gpu = 0; gpu < s.gpus(); ++gpu) {
    std::vector<LinkId> own;
    if (s.has_nvswitch) own.push_back(g.gpu_nvswitch_link(gpu));
    if (s.nodes > 1) {
      own.push_back(g.gpu_nic_link(gpu));
      own.push_back(g.nic_leaf_link(g.nic_of_gpu(gpu)));
    }
    for (LinkId up : own)
      for (LinkId l : {up, ClusterGraph::reverse(up)})
        if (g.link_failed(l)) refuse("gpu" + std::to_string(gpu) + " is cut off", l);
  }
  if (s.spines_per_pod == 0) return;
  const int k_count = s.spines_per_pod;
  const int c_count = std::max(1, s.spine_uplinks);
  // core_ok[(sp * pods + dp) * k + k']: some core joins spine k of pod sp to spine k of pod dp.
  std::vector<char> core_ok(static_cast<std::size_t>(s.pods) * s.pods * k_count, 1);
  if (s.spine_uplinks > 0) {
    for (int sp = 0; sp < s.pods; ++sp)
      for (int dp = 0; dp < s.pods; ++dp)
        for (int k = 0; k < k_count; ++k) {
          bool ok = false;
          for (int c = 0; c < c_count && !ok; ++c)
            ok = !g.link_failed(g.spine_core_link(g.spine_of(sp, k), c)) &&
                 !g.link_failed(ClusterGraph::reverse(g.spine_core_link(g.spine_of(dp, k), c)));
          core_ok[(static_cast<std::size_t>(sp) * s.pods + dp) * k_count + k] = ok;
        }
  }
  for (int sl = 0; sl < s.leaves; ++sl) {
    for (int dl = 0; dl < s.leaves; ++dl) {
      if (sl == dl) continue;
      const int sp = g.pod_of_leaf(sl), dp = g.pod_of_leaf(dl);
      bool ok = false;
      for (int k = 0; k < k_count && !ok; ++k)
        ok = !g.link_failed(g.leaf_spine_link(sl, k)) && !g.link_failed(ClusterGraph::reverse(g.leaf_spine_link(dl, k))) &&
             (sp == dp || core_ok[(static_cast<std::size_t>(sp) * s.pods + dp) * k_count + k]);
      if (!ok)
        throw ConfigError("faults: the fabric is disconnected: no path is left from leaf" + std::to_string(sl) +
                          " to leaf" + std::to_string(dl) + " (every spine" + (sp == dp ? "" : " or core") +
                          " branch between them has a failed link)");
    }
  }
}

}  // namespace

VertexId vertex_by_name(const ClusterGraph& g, const std::string& name) {
  for (int k = 0; k < kVertexKinds; ++k) {
    const auto kind = static_cast<VertexKind>(k);
    const std::string prefix = to_string(kind);
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    int index = -1;
    const char* begin = name.data() + prefix.size();
    const char* end = name.data() + name.size();
    const auto [ptr, ec] = std::from_chars(begin, end, index);
    if (ec != std::errc() || ptr != end || index < 0 || index >= g.count(kind)) continue;
    return g.vertex_of(kind, index);
  }
  return -1;
}

std::string vertex_name(const ClusterGraph& g, VertexId v) {
  return std::string(to_string(g.vertex(v).kind)) + std::to_string(g.vertex(v).index);
}

std::vector<FaultReach> apply_faults(ClusterGraph& g, const std::vector<FaultSpec>& faults,
                                     const models::TopologySpec& topology) {
  std::vector<FaultReach> reach(faults.size());
  // Replacement servers first, so a link fault on one of them degrades its new figures.
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const FaultSpec& f = faults[i];
    if (f.target != FaultTarget::gpus) continue;
    reach[i].gpus = static_cast<int>(f.gpus.size());
    if (f.hardware) apply_server_hardware(g, topology, f, reach[i]);
  }
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const FaultSpec& f = faults[i];
    switch (f.target) {
      case FaultTarget::gpus: break;
      case FaultTarget::link: apply_link(g, f, reach[i]); break;
      case FaultTarget::switch_vertex: apply_switch(g, f, reach[i]); break;
      case FaultTarget::random_links: apply_random_links(g, f, reach[i]); break;
    }
  }
  for (std::size_t i = 0; i < faults.size(); ++i) {
    FaultReach& r = reach[i];
    std::sort(r.link_ids.begin(), r.link_ids.end());
    r.link_ids.erase(std::unique(r.link_ids.begin(), r.link_ids.end()), r.link_ids.end());
    r.links = static_cast<int>(r.link_ids.size());
    r.failed_links = faults[i].failed ? r.links : 0;   // what this fault took down (another may have too)
  }
  if (g.has_failed_links()) check_connected(g);
  return reach;
}

ClusterGraph build_experiment_cluster(const models::ExperimentSpec& e) {
  ClusterGraph g = build_cluster(e.hardware.node, e.topology);
  if (!e.faults.empty()) apply_faults(g, e.faults, e.topology);
  return g;
}

}  // namespace pf::models::network
