// A GPU server as the cost, memory and network models need it (SPEC section 3,
// hardware file). Units follow the key names: bandwidths in GB/s unless the name
// says Gb/s (NICs are quoted in bits), latencies in microseconds.
#pragma once

#include <map>
#include <string>

namespace pf::models {

enum class Dtype { bf16, fp16, fp8, tf32, fp32 };

struct OpEfficiency {
  double gemm = 0.80;
  double attention = 0.65;
  double elementwise = 0.85;
  double communication_overhead_us = 5.0;   // fixed launch/sync cost per collective
  double overlap_slowdown = 1.0;            // compute slowdown while communication overlaps
};

struct GpuSpec {
  std::string name;
  std::map<Dtype, double> peak_tflops;      // dense tensor-core peaks
  double memory_gb = 0;                     // capacity, GiB as marketed ("80 GB")
  double memory_bandwidth_gbps = 0;         // GB/s
  OpEfficiency efficiency;
  std::string calibration;                  // path of a measured-kernel CSV, empty if none
};

struct NodeSpec {
  int gpus_per_node = 8;
  double nvlink_bandwidth_gbps = 0;         // GB/s per GPU per direction
  double nvlink_latency_us = 0;
  int nics_per_node = 8;
  double nic_bandwidth_gbps = 0;            // Gb/s per NIC (bits)
  double nic_latency_us = 0;
  double pcie_bandwidth_gbps = 0;           // GB/s
};

struct HardwareSpec {
  GpuSpec gpu;
  NodeSpec node;
};

}  // namespace pf::models
