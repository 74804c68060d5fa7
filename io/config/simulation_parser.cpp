#include "io/config/simulation_parser.h"

#include "io/config/map_reader.h"

namespace pf::config {

namespace {

const EnumNames<models::NetworkMode> kNetworks{{"packet", models::NetworkMode::packet},
                                                {"analytical", models::NetworkMode::analytical}};
const EnumNames<models::SyncMode> kSyncs{{"window", models::SyncMode::window},
                                          {"null_message", models::SyncMode::null_message}};
const EnumNames<models::PartitionStrategy> kPartitions{{"metis", models::PartitionStrategy::metis},
                                                        {"block", models::PartitionStrategy::block},
                                                        {"round_robin", models::PartitionStrategy::round_robin},
                                                        {"replicas", models::PartitionStrategy::replicas}};

const EnumNames<models::IntraServer> kIntraServer{{"analytical", models::IntraServer::analytical},
                                                  {"packet", models::IntraServer::packet}};

const EnumNames<models::InterServer> kInterServer{{"analytical", models::InterServer::analytical},
                                                  {"packet", models::InterServer::packet}};
const EnumNames<models::Lookahead> kLookahead{{"static", models::Lookahead::fixed},
                                              {"dynamic", models::Lookahead::dynamic}};
const EnumNames<models::Fold> kFold{{"auto", models::Fold::automatic}, {"off", models::Fold::off}};

const EnumNames<models::CollectiveModel> kCollectiveModels{{"nccl", models::CollectiveModel::nccl},
                                                            {"links", models::CollectiveModel::links}};
const EnumNames<models::NcclProtocol> kProtocols{{"auto", models::NcclProtocol::automatic},
                                                 {"ll", models::NcclProtocol::ll},
                                                 {"ll128", models::NcclProtocol::ll128},
                                                 {"simple", models::NcclProtocol::simple}};

}  // namespace

models::SimulationSpec parse_simulation(const ConfigNode& node) {
  MapReader r(node);
  models::SimulationSpec s;
  s.network = r.get_enum_or("network", s.network, kNetworks);
  s.chunk_bytes = r.get_int_or("chunk_bytes", s.chunk_bytes, 1, kInt64Max);
  s.sync = r.get_enum_or("sync", s.sync, kSyncs);
  s.partition = r.get_enum_or("partition", s.partition, kPartitions);
  s.seed = static_cast<std::uint64_t>(r.get_int_or("seed", static_cast<std::int64_t>(s.seed), 0, kInt64Max));
  s.intra_server = r.get_enum_or("intra_server", s.intra_server, kIntraServer);
  s.inter_server = r.get_enum_or("inter_server", s.inter_server, kInterServer);
  s.fold = r.get_enum_or("fold", s.fold, kFold);
  s.lookahead = r.get_enum_or("lookahead", s.lookahead, kLookahead);
  s.collective_model = r.get_enum_or("collective_model", s.collective_model, kCollectiveModels);
  s.nccl_proto = r.get_enum_or("nccl_proto", s.nccl_proto, kProtocols);
  s.uncertainty_samples = static_cast<int>(r.get_int_or("uncertainty_samples", s.uncertainty_samples, 0, 100000));
  s.uncertainty_seed = static_cast<std::uint64_t>(
      r.get_int_or("uncertainty_seed", static_cast<std::int64_t>(s.uncertainty_seed), 0, kInt64Max));
  s.uncertainty_model_error = r.get_bool_or("uncertainty_model_error", s.uncertainty_model_error);
  r.finish();
  return s;
}

}  // namespace pf::config
