// `preflight calibrate --nccl-tests`: fit a hardware file's collective
// figures to measured nccl-tests tables (models/collective/README.md).
//
// By coordinate descent on the mean |log(predicted / measured time)| over the
// tables' power-of-two sizes, each prediction a `preflight collective` run
// (analytical network) of the table's operation on its GPU count:
// hardware.nccl.latency_scale, the per-call
// gpu.efficiency.communication_overhead_us, the achievable link fraction of
// the links the tables cross (node.nvlink_efficiency when every table fits
// one server, node.nic_efficiency otherwise) and, where the tables have
// all-reduce at several GPU counts, hardware.nccl.local_pass_gbps (the
// per-call pass that makes bus bandwidth rise with the GPU count); with
// all-to-all or send/recv tables inside one server,
// hardware.nccl.p2p_nvlink_efficiency (and the link figure only if
// collective tables are given too). Where a
// table's host thread launched several GPUs (nccl-tests -g), the host's
// launch time per GPU is fitted too: a property of the measurement, printed,
// not written to the hardware file.
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
  bool fitted_local_pass = false; // the tables could say (all-reduce at more than one GPU count)
  bool fitted_link = true;        // collective tables (or tables across servers) fitted the link figure
  bool fitted_p2p = false;        // all-to-all / send-recv tables in one server fitted nccl.p2p_nvlink_efficiency
  double launch_us = 0;           // host time per GPU launch, fitted where a thread drove several GPUs
  bool fitted_launch = false;
  double error = 0;               // mean |log error| over the fitted tables
};

struct TableError {
  double mean_abs = 0;       // mean |predicted / measured - 1| of the time
  double median_signed = 0;  // + = predicted slower
  int rows = 0;
};

// The tables' rows at power-of-two sizes (nccl-tests' default -f 2 steps).
std::vector<NcclTestsTable> power_of_two_rows(std::vector<NcclTestsTable> tables);

// nccl-tests' time of one call: the simulated call plus the per-call
// overhead, or the host thread's launches of its GPUs where those are longer.
double nccl_tests_time_us(double call_us, int gpus_per_thread, double launch_us);

TableError table_error(const models::HardwareSpec& hw, const models::TopologySpec& topo, const NcclTestsTable& t,
                       double launch_us = 0);

CollectiveFit fit_collectives(const models::HardwareSpec& start, const models::TopologySpec& topo,
                              const std::vector<NcclTestsTable>& tables);

// The topology the tables run on when none is given: one switch, enough servers.
models::TopologySpec bench_topology(const models::HardwareSpec& hw, const std::vector<NcclTestsTable>& tables);

}  // namespace pf::cli
