// Presets loaded as `preflight collective` loads them, and one-rank runs.
#pragma once

#include <string>
#include <vector>

#include "core/communicator.h"
#include "io/config/cluster_loader.h"
#include "io/run/collective_bench.h"
#include "models/network/routing.h"

namespace pf::test {

// The preset as shipped (NCCL's costs, achievable link rates).
inline config::ClusterSpec nccl_preset(const std::string& hardware, const std::string& topology,
                                       const std::vector<std::string>& overrides) {
  const std::string root = PF_SOURCE_DIR;
  return config::load_cluster(root + "/configs/hardware/" + hardware + ".yaml",
                              root + "/configs/topology/" + topology + ".yaml", overrides);
}

// The preset's links alone, at line rate, with collectives that pay only
// their messages: what the network physics tests check closed forms against.
inline config::ClusterSpec preset(const std::string& hardware, const std::string& topology,
                                  const std::vector<std::string>& overrides) {
  std::vector<std::string> all{"simulation.collective_model=links", "hardware.node.nvlink_efficiency=1",
                               "hardware.node.nic_efficiency=1"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return nccl_preset(hardware, topology, all);
}

inline run::CollectiveBench bench(const config::ClusterSpec& s,
                                                 run::BenchOptions options = {}) {
  options.nccl = s.hardware.nccl;
  return run::CollectiveBench(s.hardware.node, s.topology, s.simulation, core::Communicator::local(),
                                             options);
}

inline double run_us(const run::CollectiveBench& b, models::collective::Op op,
                     models::collective::Algo algo, int gpus, std::uint64_t bytes) {
  run::BenchCase c;
  c.op = op;
  c.algo = algo;
  c.gpus = gpus;
  c.bytes = bytes;
  return b.run(c).time.us();
}

// The idle path between two GPUs: alpha (s) and beta's bandwidth (B/s).
struct AlphaBeta {
  double alpha_s;
  double bandwidth_Bps;
};
inline AlphaBeta alpha_beta(const models::network::ClusterGraph& g, int a, int b) {
  models::network::Path path;
  models::network::route(g, a, b, 0, path);
  const models::network::PathStats s = models::network::path_stats(g, path);
  return {s.latency.seconds(), s.bottleneck_Bps};
}

}  // namespace pf::test
