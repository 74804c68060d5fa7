// The experiment's link, switch and random-link faults, and the servers a
// hardware fault replaces whole, applied to the cluster graph
// (io/config/README.md, faults).
//
//   ClusterGraph g = build_experiment_cluster(experiment);   // faults applied
//
// - A degraded link or switch: the link (every link in and out of the switch)
//   runs at bandwidth_factor x its bandwidth; factors of several faults multiply.
// - A failed link or switch: the links are marked failed; routing.h routes
//   around them (ECMP over the surviving equal-cost branches). A fabric in
//   which some pair of GPUs has no path left is refused (pf::ConfigError
//   naming the fault and the cut-off pair).
// - random_links: round(fraction x cables) of the fabric's cables (NIC-leaf,
//   leaf-spine, spine-core; both directions) chosen by a hash of the seed.
// - A GPU fault with `hardware` that covers every GPU of a server also gives
//   that server the replacement's NVLink, PCIe and NIC figures; a partial
//   server keeps the cluster's links (only its GPUs compute differently).
#pragma once

#include <string>
#include <vector>

#include "models/spec/experiment_spec.h"
#include "models/network/topology.h"

namespace pf::models::network {

// What one fault touched, in the order of the experiment's faults.
struct FaultReach {
  int gpus = 0;           // GPUs it applies to
  int links = 0;          // directed links whose bandwidth or state it changed
  int failed_links = 0;   // ... of which it took down
  int servers = 0;        // servers given the replacement hardware's links
  std::vector<LinkId> link_ids;  // the links it changed, ascending
};

// Applies the faults to `g` (built from the experiment's node and `topology`)
// and checks the fabric is still connected.
std::vector<FaultReach> apply_faults(ClusterGraph& g, const std::vector<models::FaultSpec>& faults,
                                     const models::TopologySpec& topology);

// build_cluster(hardware.node, topology) with the experiment's faults applied.
ClusterGraph build_experiment_cluster(const models::ExperimentSpec& experiment);

// "leaf3" -> its vertex id; kNoLink-like -1 when no such vertex exists.
VertexId vertex_by_name(const ClusterGraph& g, const std::string& name);
// "leaf3", as /vertices prints it.
std::string vertex_name(const ClusterGraph& g, VertexId v);

}  // namespace pf::models::network
