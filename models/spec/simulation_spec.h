// How a run is simulated and what it writes (io/config/README.md: simulation, output).
#pragma once

#include <cstdint>
#include <string>

#include "partition/strategy.h"

namespace pf::models {

enum class NetworkMode { packet, analytical };
enum class SyncMode { window, null_message };
using PartitionStrategy = partition::Strategy;
// How `run` times collectives whose group sits inside one server (TP, and any
// group that fits a server): closed form over the NVSwitch, or message by
// message through the network model like every other collective.
enum class IntraServer { analytical, packet };
// How `run` times, with the analytical network, collectives whose group spans
// servers (DP, EP, CP groups across servers): closed form from the moment the
// last member joins (models/training/cross_server_collective.h), or message by
// message like packet mode does. Packet mode always simulates them message by
// message.
enum class InterServer { analytical, packet };
// Replica folding (models/training/replica_folding.h): simulate one
// data-parallel replica per class of equivalent ones and copy its figures to
// the rest (auto, where exact), or simulate every GPU (off).
enum class Fold { automatic, off };

// What a collective costs beyond its messages: NCCL's latencies and protocol
// overheads (models/collective/nccl_cost.h), or the links alone.
enum class CollectiveModel { nccl, links };
enum class NcclProtocol { automatic, ll, ll128, simple };
// How far a rank may run ahead (core/promise_board.h): each LP's fixed
// distance to the partition's cut, or that plus each GPU's promise of its
// next send (its kernel completions answered for by its program).
enum class Lookahead { fixed, dynamic };

struct SimulationSpec {
  NetworkMode network = NetworkMode::packet;
  std::int64_t chunk_bytes = 1 << 20;
  SyncMode sync = SyncMode::window;
  PartitionStrategy partition = PartitionStrategy::replicas;
  std::uint64_t seed = 1;
  IntraServer intra_server = IntraServer::analytical;
  InterServer inter_server = InterServer::analytical;
  Fold fold = Fold::automatic;
  Lookahead lookahead = Lookahead::dynamic;
  CollectiveModel collective_model = CollectiveModel::nccl;
  NcclProtocol nccl_proto = NcclProtocol::automatic;  // force NCCL's protocol (NCCL_PROTO)
  // `preflight run --uncertainty N`: re-simulate under N sampled parameter
  // sets (models/uncertainty/README.md); 0 = the single run only.
  int uncertainty_samples = 0;
  std::uint64_t uncertainty_seed = 1;
  // Include the model's own measured error in the band
  // (models/uncertainty/model_error.h); false = the cost-model priors only.
  bool uncertainty_model_error = true;
};

struct OutputSpec {
  std::string dir = "out";
  bool timeline = true;
  std::string timeline_gpus = "auto";   // auto | all | "0-63,512-575" | first_replica
};

}  // namespace pf::models
