#include "models/network/nic_share.h"

#include <algorithm>
#include <limits>

namespace pf::models::network {

NicShare::NicShare(const ClusterGraph& g, int active_gpus) : graph_(g) {
  const int nics = g.count(VertexKind::nic);
  const int gpus = active_gpus > 0 ? std::min(active_gpus, g.gpu_count()) : g.gpu_count();
  std::vector<int> behind(static_cast<std::size_t>(nics), 0);
  for (int gpu = 0; gpu < gpus; ++gpu) ++behind[static_cast<std::size_t>(g.nic_of_gpu(gpu))];
  const double inf = std::numeric_limits<double>::infinity();
  up_Bps_.assign(static_cast<std::size_t>(nics), inf);
  down_Bps_.assign(static_cast<std::size_t>(nics), inf);
  for (int nic = 0; nic < nics; ++nic) {
    const int k = behind[static_cast<std::size_t>(nic)];
    if (k < 2) continue;
    shared_ = true;
    const LinkId up = g.nic_leaf_link(nic);
    up_Bps_[static_cast<std::size_t>(nic)] = g.link(up).bandwidth_Bps / k;
    down_Bps_[static_cast<std::size_t>(nic)] = g.link(ClusterGraph::reverse(up)).bandwidth_Bps / k;
  }
}

double NicShare::cap_Bps(int src_gpu, int dst_gpu) const {
  if (!shared_ || graph_.node_of_gpu(src_gpu) == graph_.node_of_gpu(dst_gpu))
    return std::numeric_limits<double>::infinity();
  return std::min(up_Bps_[static_cast<std::size_t>(graph_.nic_of_gpu(src_gpu))],
                  down_Bps_[static_cast<std::size_t>(graph_.nic_of_gpu(dst_gpu))]);
}

}  // namespace pf::models::network
