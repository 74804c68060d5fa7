// A GPU server as the cost, memory and network models need it (io/config/README.md,
// hardware). Units follow the key names: bandwidths in GB/s unless the name
// says Gb/s (NICs are quoted in bits), latencies in microseconds.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pf::models {

enum class Dtype { bf16, fp16, fp8, tf32, fp32 };

// The attention kernel: fused FlashAttention/cuDNN (current Megatron-Core:
// Transformer Engine's cuDNN fused attention, FlashAttention-3 class on Hopper),
// FlashAttention-2 (PyTorch SDPA's flash backend and the flash-attn 2 package:
// what torchtitan and llm-foundry's attn_impl: flash run; same work and memory as flash, its own
// efficiency, gpu.efficiency.attention_flash2), the Triton FlashAttention of
// MPT / llm-foundry's attn_impl: triton (same work and memory again,
// gpu.efficiency.attention_flash_triton), or the unfused path of Megatron
// before FlashAttention (2022 and earlier): batched QK^T and PV GEMMs with the
// s x s scores materialised between them.
enum class AttentionKernel { flash, flash2, flash_triton, unfused };

// A flash kernel's rate by head dimension, relative to its rate at 128 (the
// head dimension efficiency.attention is quoted at). Kernels are built for
// head dimensions 64, 128, 192 and 256; another one runs as the next built
// size up, so its rate is that size's times head_dim / padded (96 runs as
// 128 at 0.75). Unmeasured (the default): no dependence at all
// (models/compute/README.md, "Attention by head dimension").
struct HeadDimRates {
  bool measured = false;
  double hd64 = 1.0, hd192 = 1.0, hd256 = 1.0;
};

struct OpEfficiency {
  double gemm = 0.80;
  double gemm_fp8 = 0;                      // large fp8 GEMMs, fraction of the fp8 peak; 0 = as `gemm`
  double attention = 0.65;
  double attention_flash2 = 0;              // FlashAttention-2 kernels (training.attention: flash2); 0 = as `attention`
  double attention_flash_triton = 0;        // Triton FlashAttention (training.attention: flash_triton); 0 = as `attention_flash2`
  // The attention rates are long-sequence rates; each query
  // tile of a flash kernel also does this many key columns' worth of fixed
  // work, and causal masks cost whole tiles (models/compute/attention_tiles.h).
  // 0 = no shape dependence.
  double attention_kv_overhead = 0;
  // Per head dimension: the fused kernel's (cuDNN, FlashAttention-3) and
  // FlashAttention-2's (Triton FlashAttention uses FlashAttention-2's).
  HeadDimRates attention_head_dim;
  HeadDimRates attention_flash2_head_dim;
  // A flash kernel's backward runs at this fraction of its forward's rate
  // (per FLOP; the backward does 2.5x the forward's FLOPs). Measured on an
  // H200: cuDNN fused attention 0.814, FlashAttention-2 0.816
  // (configs/calibration/h200); 1 = as fast as the forward.
  double attention_backward = 1.0;
  double elementwise = 0.85;
  double communication_overhead_us = 5.0;   // fixed launch/sync cost per collective
  // Compute beside running NCCL kernels: each NCCL channel is one thread
  // block on one SM, so while collectives with c channels in all run, a
  // kernel progresses at 1 - overlap_sm_cost * c / sm_count (SMs lost per
  // channel; 0 switches the channel model off), and `overlap_slowdown`
  // divides that rate once more (a fixed extra factor, 1 = none).
  double overlap_sm_cost = 1.0;
  double overlap_slowdown = 1.0;
};

// Parameters of the shape-aware GEMM model (models/compute/gemm_model.h). The
// large, 16-byte-aligned GEMM efficiency is OpEfficiency::gemm; these describe
// how smaller, skinnier and misaligned GEMMs fall short of it. Code defaults
// are the fit on the measured GH200 table (models/compute/README.md).
struct GemmModelSpec {
  double memory_efficiency = 0.90;          // fraction of HBM bandwidth a memory-bound aligned GEMM streams at
  double unaligned_efficiency = 0.22;       // fraction of peak when N or K is 4- or 8-byte but not 16-byte aligned
  double unaligned_memory_efficiency = 1.0; // ... and of HBM bandwidth
  double odd_efficiency = 0.14;             // fraction of peak when N or K is only 2-byte aligned (odd, 16-bit)
  double odd_memory_efficiency = 0.30;      // ... and of HBM bandwidth
  double k_overhead = 88;                   // K-equivalent elements of prologue/epilogue per output tile
  double tile_exponent = 0.19;              // a tile of area A runs at (A / (256·128))^exponent of the large rate
  double fixed_us = 0;                      // per-kernel time not covered by the above, microseconds
};

struct GpuSpec {
  std::string name;
  int sm_count = 0;                         // streaming multiprocessors; 0 = no wave quantisation (plain roofline)
  GemmModelSpec gemm_model;
  std::map<Dtype, double> peak_tflops;      // dense tensor-core peaks
  double memory_gb = 0;                     // capacity, GiB as marketed ("80 GB")
  double memory_bandwidth_gbps = 0;         // GB/s
  OpEfficiency efficiency;
  // SM clock the GPU sustains under continuous tensor-core load, as a fraction
  // of the clock its peaks and efficiencies were measured at (short kernel
  // benchmarks run before the power limit pulls the clock down). Scales the
  // modelled compute rates, not HBM bandwidth (models/compute/README.md).
  double sustained_clock = 1.0;
  // Power: sustained_clock holds at the part's rated board power (tdp_w). A
  // lower enforced limit (nvidia-smi -pl; power_limit_w, 0 = at TDP) lowers
  // the SM clock further as (limit / tdp)^(1 / clock_power_exponent)
  // (models/compute/power_limit.h).
  double tdp_w = 0;                         // rated board power, W; 0 = not stated
  double power_limit_w = 0;                 // enforced power limit, W; 0 = the TDP
  double clock_power_exponent = 3.3;        // power ∝ clock^exponent under tensor-core load
  // Relative spread (sigma) of the sustained speed of GPUs of this SKU, part
  // to part: a synchronous job runs at its slowest GPU's pace
  // (models/compute/gpu_variability.h). 0 = every part alike.
  double speed_spread = 0;
  // Relative spread (sigma) of one part's speed over time (its power and
  // clock control hunting between a step's GEMM-, attention- and
  // memory-bound phases): GPUs that wait for each other within a layer or a
  // micro-batch run at the pace of whichever is slowest at the moment
  // (models/compute/gpu_variability.h). 0 = steady.
  double speed_fluctuation = 0;
  std::string calibration;                  // path of a measured-kernel CSV, empty if none
  // The flash kernel the calibration's attention tables measured (flash,
  // flash2 or flash_triton): another kernel is priced from them by the ratio
  // of the two kernels' efficiencies (models/compute/CALIBRATION.md).
  AttentionKernel calibration_attention = AttentionKernel::flash;
};

struct NodeSpec {
  int gpus_per_node = 8;
  double nvlink_bandwidth_gbps = 0;         // GB/s per GPU per direction (line rate)
  double nvlink_efficiency = 1.0;           // achievable fraction of it (the simulated link runs at the product)
  double nvlink_latency_us = 0;
  int nics_per_node = 8;
  double nic_bandwidth_gbps = 0;            // Gb/s per NIC (bits, line rate)
  double nic_efficiency = 1.0;              // achievable fraction of it
  double nic_latency_us = 0;
  double pcie_bandwidth_gbps = 0;           // GB/s
  // What one GPU's copy engines move between its memory and the host's, per
  // direction, GB/s (achievable: cudaMemcpyAsync of pinned buffers, as
  // nvbandwidth's host_to_device_memcpy_ce measures it); 0 = pcie_bandwidth_gbps.
  // Activation offloading (training.cpu_offload_layers) runs at it.
  double host_link_gbps = 0;
  double host_link() const { return host_link_gbps > 0 ? host_link_gbps : pcie_bandwidth_gbps; }
  // Host memory per GPU, GiB (the server's DRAM over its GPUs): what
  // offloaded activations may occupy. 0 = not stated, not checked.
  double host_memory_gb = 0;
  // The server's host CPU: how much longer than on the x86 hosts
  // training.host_overhead_us describes it takes to issue one kernel
  // (models/compute/README.md, "The host"; Grace-hosted presets 1.14-1.27).
  double host_overhead_scale = 1.0;
};

// NCCL's view of the GPU (models/collective/nccl_tuning.h): the generation
// selects its per-architecture bandwidth caps and NVLink figures.
enum class NcclGeneration { volta, ampere, hopper, blackwell };

struct NcclSpec {
  NcclGeneration generation = NcclGeneration::ampere;
  double latency_scale = 1.0;               // multiplies NCCL's base and per-step latencies (calibrated)
  // NVLink SHARP (NCCL's NVLS algorithm): the server's NVSwitches reduce and
  // multicast (third-generation NVSwitch and later: HGX H100/H200/B200, NVL72).
  bool nvls = false;
  // CollNet: the fabric's switches reduce (InfiniBand SHARP, with NCCL's
  // SHARP plugin and NCCL_COLLNET_ENABLE=1; NCCL's default is off).
  bool collnet = false;
  // PAT for all-gather / reduce-scatter with one GPU per server
  // (NCCL_PAT_ENABLE, on by default where NCCL can run it).
  bool pat = true;
  // An all-reduce's pass over its whole buffer beyond NCCL's model, GB/s:
  // each call also costs bytes / this, whatever the group's size (a GPU reads
  // its input and writes its output in its own memory once per call, while
  // the link traffic grows as 2(n - 1)/n). 0 = none, NCCL's model alone.
  // Measured where bus bandwidth rises with the GPU count (A100: 197 GB/s
  // on 2 GPUs, 229 on 8; models/collective/README.md, "Checks").
  double local_pass_gbps = 0;
  // NCCL's point-to-point transfers (send/recv, hence the all-to-all) inside
  // one NVLink domain reach this fraction of the collectives' NVLink
  // bandwidth (node.nvlink_bandwidth_gbps x nvlink_efficiency): they run
  // NCCL's p2p protocol over its p2p channels, not the ring's pipelined
  // chunks. 1 = the same rate. Measured on OpenXLA's all-to-all tables
  // (models/collective/README.md, "Point to point").
  double p2p_nvlink_efficiency = 1.0;
};

// A prior on one cost-model parameter (models/uncertainty/README.md): the
// value is taken as this file's value times a multiplier drawn from a
// triangular distribution with mode 1 on [low, high], so the file's value is
// the most likely one. `key` names the parameter under the experiment
// ("hardware.gpu.efficiency.gemm"), `source` where the range comes from,
// `measure` the measurement that would narrow it.
struct PriorSpec {
  std::string key;
  double low = 1.0;
  double high = 1.0;
  std::string source;
  std::string measure;
};

struct HardwareSpec {
  GpuSpec gpu;
  NodeSpec node;
  NcclSpec nccl;
  std::vector<PriorSpec> priors;  // the file's `uncertainty:` block, in file order
};

}  // namespace pf::models
