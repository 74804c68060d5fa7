#include "io/config/topology_parser.h"

#include "io/config/config_error.h"
#include "io/config/map_reader.h"

namespace pf::config {

namespace {

const EnumNames<models::TopologyKind> kKinds{{"rail_optimized", models::TopologyKind::rail_optimized},
                                              {"fat_tree", models::TopologyKind::fat_tree},
                                              {"single_switch", models::TopologyKind::single_switch}};
const EnumNames<models::Routing> kRoutings{{"ecmp", models::Routing::ecmp},
                                            {"single_path", models::Routing::single_path},
                                            {"adaptive", models::Routing::adaptive},
                                            {"ecmp_multi_qp", models::Routing::ecmp_multi_qp}};

}  // namespace

models::TopologySpec parse_topology(const ConfigNode& node) {
  MapReader r(node);
  models::TopologySpec t;
  t.kind = r.get_enum("kind", kKinds);
  t.nodes = static_cast<int>(r.get_int("nodes", 1, kIntMax));
  t.nodes_per_leaf = static_cast<int>(r.get_int_or("nodes_per_leaf", t.nodes_per_leaf, 1, kIntMax));
  // A ratio below 1 would mean more uplink than downlink bandwidth: not a taper.
  t.leaf_oversubscription = r.get_double_or("leaf_oversubscription", t.leaf_oversubscription, NumberRange::at_least(1));
  t.pod_nodes = static_cast<int>(r.get_int_or("pod_nodes", t.pod_nodes, 0, kIntMax));
  t.pod_oversubscription = r.get_double_or("pod_oversubscription", t.pod_oversubscription, NumberRange::at_least(1));
  t.link_latency_us = r.get_double_or("link_latency_us", t.link_latency_us, NumberRange::non_negative());
  t.switch_latency_us = r.get_double_or("switch_latency_us", t.switch_latency_us, NumberRange::non_negative());
  t.routing = r.get_enum_or("routing", t.routing, kRoutings);
  // 4 bits of a chunk's flow field carry its queue pair (models/network/message.h).
  t.qps_per_connection = static_cast<int>(r.get_int_or("qps_per_connection", t.qps_per_connection, 1, 16));
  r.finish();

  // A pod is a set of whole leaves fully meshed with its spines (a single
  // switch has neither, so its leaf and pod keys are ignored).
  if (t.kind != models::TopologyKind::single_switch && t.pod_nodes > 0 && t.pod_nodes % t.nodes_per_leaf != 0) {
    fail_expected(nearest_node(node, "pod_nodes"),
                  "0 or a multiple of nodes_per_leaf (" + std::to_string(t.nodes_per_leaf) + ")",
                  std::to_string(t.pod_nodes));
  }
  return t;
}

}  // namespace pf::config
