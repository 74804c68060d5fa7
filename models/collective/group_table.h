// Every communication group of a run, by dense index, with the alpha-beta
// figures of its links for the automatic algorithm choice. Every MPI rank
// builds the same table in the same order, so an index names the same group
// everywhere and can travel in a message tag.
#pragma once

#include <vector>

#include "models/collective/collective_types.h"
#include "models/collective/group.h"
#include "models/network/topology.h"

namespace pf::models::collective {

// Idle-path figures between members (from network::path_stats).
struct GroupLinks {
  double intra_latency_s = 0;  // two members on one server (NVLink); 0 if no server holds two
  double intra_Bps = 0;
  double inter_latency_s = 0;  // same-index members of two servers; 0 with one server
  double inter_Bps = 0;
  int rails = 1;               // distinct NICs among the members of the fullest server
};

class GroupTable {
 public:
  explicit GroupTable(const network::ClusterGraph& g) : graph_(g) {}

  GroupIndex add(std::vector<int> members);
  const Group& group(GroupIndex i) const { return groups_[i]; }
  const GroupLinks& links(GroupIndex i) const { return links_[i]; }
  std::size_t size() const { return groups_.size(); }
  const network::ClusterGraph& graph() const { return graph_; }

 private:
  const network::ClusterGraph& graph_;
  std::vector<Group> groups_;
  std::vector<GroupLinks> links_;
};

GroupLinks measure_links(const network::ClusterGraph& g, const Group& group);

}  // namespace pf::models::collective
