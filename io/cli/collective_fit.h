// `preflight calibrate --nccl-tests`: fit a hardware file's collective
// figures to measured nccl-tests tables (models/collective/README.md).
//
// Three parameters, by coordinate descent on the mean |log(predicted /
// measured time)| over the tables' power-of-two sizes, each prediction a
// `preflight collective` run (analytical network) of the table's operation
// on its GPU count: hardware.nccl.latency_scale, the per-call
// gpu.efficiency.communication_overhead_us, and the achievable link fraction
// of the links the tables cross (node.nvlink_efficiency when every table
// fits one server, node.nic_efficiency otherwise).
#pragma once

#include <string>
#include <vector>

#include "io/cli/nccl_tests_log.h"
#include "models/spec/hardware_spec.h"
#include "models/spec/topology_spec.h"

namespace pf::cli {

struct CollectiveFit {
  models::HardwareSpec hardware;  // the input with the fitted figures
  bool across_servers = false;    // fitted nic_efficiency (else nvlink_efficiency)
  double error = 0;               // mean |log error| over the fitted tables
};

struct TableError {
  double mean_abs = 0;       // mean |predicted / measured - 1| of the time
  double median_signed = 0;  // + = predicted slower
  int rows = 0;
};

// The tables' rows at power-of-two sizes (nccl-tests' default -f 2 steps).
std::vector<NcclTestsTable> power_of_two_rows(std::vector<NcclTestsTable> tables);

TableError table_error(const models::HardwareSpec& hw, const models::TopologySpec& topo, const NcclTestsTable& t);

CollectiveFit fit_collectives(const models::HardwareSpec& start, const models::TopologySpec& topo,
                              const std::vector<NcclTestsTable>& tables);

// The topology the tables run on when none is given: one switch, enough servers.
models::TopologySpec bench_topology(const models::HardwareSpec& hw, const std::vector<NcclTestsTable>& tables);

}  // namespace pf::cli
