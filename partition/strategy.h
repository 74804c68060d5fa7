// The ways the partitioner spreads LPs over MPI ranks (partition.h).
#pragma once

namespace pf::partition {

enum class Strategy { metis, block, round_robin, replicas };

const char* to_string(Strategy strategy);

}  // namespace pf::partition
