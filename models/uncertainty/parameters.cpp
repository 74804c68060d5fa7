#include "models/uncertainty/parameters.h"

#include <algorithm>
#include <array>
#include <limits>

namespace pf::models::uncertainty {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The default ranges and why (models/uncertainty/README.md has the long form).
// "[judgement]" marks a range for which no measurement was found: it says how
// far the project believes the value may be off, and is the first thing a
// user's own measurement should replace.
constexpr std::array kParameters{
    Parameter{"hardware.gpu.sustained_clock", "sustained SM clock", 1e-3, 1.0, 0.96, 1.07,
              "a clock known within a few percent, as Hopper's 0.86 (H800 GEMMs beside NCCL, deepseek-ai/DeepGEMM#120) "
              "to 0.95 (TOP500 H100/H200 HPL) is -4 % .. +7 % around 0.89 (the Hopper presets state their own range)",
              "the SM clock under training load (nvidia-smi --query-gpu=clocks.sm,power.draw during a 10-minute "
              "GEMM loop)",
              [](const ExperimentSpec& e) { return e.hardware.gpu.sustained_clock; }},
    Parameter{"hardware.gpu.efficiency.gemm", "large-GEMM rate", 1e-3, 1.0, 0.85, 1.03,
              "MAMF is a best-shape search (S. Bekman, ml-engineering); random vs predictable data moves an A100 "
              "8192^3 GEMM 257 -> 295 TFLOP/s through power (H. He, thonking.ai, 2024); the shipped tables' "
              "held-out p90 GEMM error 13-19 %",
              "cuBLAS GEMM times at this model's shapes (preflight calibrate --data)",
              [](const ExperimentSpec& e) { return e.hardware.gpu.efficiency.gemm; }},
    Parameter{"hardware.gpu.efficiency.attention", "fused-attention rate", 1e-3, 1.0, 0.80, 1.10,
              "FlashAttention-3 paper: forward ~75 % of peak, backward markedly lower; cuDNN 631 vs FA3 632 TFLOP/s "
              "forward (pytorch/pytorch#142132): the fwd+bwd mix at this sequence length is the unknown",
              "attention forward and backward kernel times at this sequence length and head size",
              [](const ExperimentSpec& e) { return e.hardware.gpu.efficiency.attention; }},
    Parameter{"hardware.gpu.efficiency.attention_flash2", "FlashAttention-2 rate", 1e-3, 1.0, 0.85, 1.18,
              "the shipped GH200 SDPA table: kernels >= 1 ms at a median 28.8 % of peak, the best 34 % (x1.18)",
              "SDPA flash-backend kernel times at this sequence length and head size",
              [](const ExperimentSpec& e) { return e.hardware.gpu.efficiency.attention_flash2; }},
    Parameter{"hardware.gpu.efficiency.attention_flash_triton", "Triton FlashAttention rate", 1e-3, 1.0, 0.90, 1.30,
              "fitted on llm-foundry's measured MPT sequence sweeps (A100, H100): their 8k-65k-token runs within "
              "-4.4 .. +10.4 % (x0.90 .. x1.10); the rate is one figure per GPU for every head size and mask, where "
              "the kernel benchmark's A100 Triton/FlashAttention-2 ratio moves from 0.43 (head dim 128) to 0.56 (64)",
              "the Triton attention kernel's forward and backward times at this sequence length and head size",
              [](const ExperimentSpec& e) { return e.hardware.gpu.efficiency.attention_flash_triton; }},
    Parameter{"hardware.gpu.efficiency.elementwise", "memory-bound kernel rate", 1e-3, 1.0, 0.80, 1.08,
              "[judgement] streaming copies run near 90 % of HBM bandwidth, normalisations and reductions lower; "
              "0.68-0.92 of HBM around the presets' 0.85",
              "norm, activation and optimizer kernel times (nsys) against their bytes",
              [](const ExperimentSpec& e) { return e.hardware.gpu.efficiency.elementwise; }},
    Parameter{"hardware.gpu.efficiency.overlap_slowdown", "compute slowdown beside NCCL", 1.0, kInf, 1.0, 1.08,
              "beyond the SMs NCCL's channels hold (overlap_sm_cost: 10-16 % of the SMs for 11-18 channels on "
              "A100/H100), HBM and L2 traffic: up to the 18.9 % average slowdown measured on A100/H100 "
              "(arXiv 2507.03114), i.e. x1.0 .. x1.08 more",
              "a GEMM timed alone and beside a running all-reduce",
              [](const ExperimentSpec& e) { return e.hardware.gpu.efficiency.overlap_slowdown; }},
    Parameter{"hardware.gpu.efficiency.communication_overhead_us", "per-collective overhead", 0.0, kInf, 0.5, 2.0,
              "[judgement] a few us of launch and proxy handshake per NCCL call; the A100 preset's 30 us is a "
              "fit to one machine's nccl-tests tables",
              "nccl-tests at 8 B - 64 KiB on this system (preflight calibrate --nccl-tests)",
              [](const ExperimentSpec& e) { return e.hardware.gpu.efficiency.communication_overhead_us; }},
    Parameter{"hardware.nccl.latency_scale", "NCCL latencies", 1e-3, kInf, 0.75, 1.5,
              "the A100 fit to vTrain's tables is 0.832; Bekman's 8-GPU table runs 10-34 % slower than that fit "
              "at 16-256 MiB (models/collective/README.md)",
              "nccl-tests all_reduce_perf and reduce_scatter_perf, 1 KiB - 64 MiB (preflight calibrate --nccl-tests)",
              [](const ExperimentSpec& e) { return e.hardware.nccl.latency_scale; }},
    Parameter{"hardware.node.nvlink_efficiency", "achievable NVLink bandwidth", 1e-3, 1.0, 0.90, 1.05,
              "NCCL's 370.8 of 450 GB/s on H100 (SM90_NVLINK_BW) against 0.916 fitted on measured A100 tables "
              "(with their per-call pass over the buffer, nccl.local_pass_gbps)",
              "nccl-tests all_reduce_perf inside one server at 256 MiB - 1 GiB",
              [](const ExperimentSpec& e) { return e.hardware.node.nvlink_efficiency; }},
    Parameter{"hardware.node.nic_efficiency", "achievable NIC bandwidth", 1e-3, 1.0, 0.92, 1.02,
              "46-48 of 50 GB/s per NDR NIC (NVIDIA/nccl-tests#290, #267) around the presets' 0.96",
              "nccl-tests all_reduce_perf across two servers at 1 GiB",
              [](const ExperimentSpec& e) { return e.hardware.node.nic_efficiency; }},
    Parameter{"training.host_overhead_us", "host time per issued kernel", 0.0, kInf, 0.505, 1.65,
              "27.8 us (an autograd step of plain torch modules per kernel, configs/calibration/h200/measured/host.csv "
              "scaled to a DGX H100's Xeon by TransformerEngine#2053) .. 91 us (what Megatron-Bridge's measured "
              "Qwen3-30B-A3B on 8 B200 at micro-batch 4 would need if its whole gap were host) around eager's "
              "55 us (calibrated on the same tables' host-bound micro-batch-1 run, "
              "tests/validation/host_calibration_check.py)",
              "a PyTorch profiler trace of one step (CPU launch time per kernel)",
              [](const ExperimentSpec& e) { return e.training.host_overhead_us; }},
    Parameter{"hardware.gpu.speed_spread", "part-to-part GPU speed spread", 0.0, 0.5, 0.83, 1.25,
              "Sinha et al. SC'22: 8 % average variation between the GPUs of one cluster, read as 5.4 to 7.8 "
              "standard deviations: sigma 1.0-1.5 % around the presets' 1.2 %",
              "the step time of each GPU of the allocation running the same kernels alone (a burn-in GEMM loop)",
              [](const ExperimentSpec& e) { return e.hardware.gpu.speed_spread; }},
    Parameter{"hardware.gpu.speed_fluctuation", "one GPU's speed swings within a run", 0.0, 0.5, 0.8, 1.2,
              "decoder layers back to back on one H200: 1.19, 1.48 and 1.78 % spread of 0.1-s windows "
              "(configs/calibration/h200/measured/layer_sustained.csv) around the presets' 1.5 %",
              "the per-iteration time of one GPU running the plan's layers back to back (CUDA events, 0.1-s windows)",
              [](const ExperimentSpec& e) { return e.hardware.gpu.speed_fluctuation; }},
};

// Whether the experiment runs kernels priced by the parameter at all.
bool used(const Parameter& p, const ExperimentSpec& e) {
  if (p.key == "hardware.gpu.efficiency.attention") return e.training.attention == AttentionKernel::flash;
  if (p.key == "hardware.gpu.efficiency.attention_flash2") return e.training.attention == AttentionKernel::flash2;
  if (p.key == "hardware.gpu.efficiency.attention_flash_triton") {
    return e.training.attention == AttentionKernel::flash_triton;
  }
  return true;
}

bool kernel_rate(std::string_view key) {
  return key == "hardware.gpu.efficiency.gemm" || key == "hardware.gpu.efficiency.attention" ||
         key == "hardware.gpu.efficiency.attention_flash2" || key == "hardware.gpu.efficiency.attention_flash_triton" ||
         key == "hardware.gpu.efficiency.elementwise";
}

}  // namespace

std::span<const Parameter> parameters() { return kParameters; }

const Parameter* find_parameter(std::string_view key) {
  for (const Parameter& p : kParameters) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

double Prior::value(double m) const { return std::clamp(nominal * m, parameter->min, parameter->max); }

std::vector<Prior> priors_for(const ExperimentSpec& e) {
  std::vector<Prior> out;
  const bool calibrated = !e.hardware.gpu.calibration.empty();
  for (const Parameter& p : kParameters) {
    Prior prior;
    prior.parameter = &p;
    prior.column = static_cast<int>(&p - kParameters.data());
    prior.nominal = p.nominal(e);
    if (!(prior.nominal > 0) || !used(p, e)) continue;
    prior.low = p.low;
    prior.high = p.high;
    prior.source = std::string(p.source);
    prior.measure = std::string(p.measure);
    for (const PriorSpec& s : e.hardware.priors) {
      if ("hardware." + s.key != p.key) continue;
      prior.low = s.low;
      prior.high = s.high;
      if (!s.source.empty()) prior.source = s.source;
      if (!s.measure.empty()) prior.measure = s.measure;
      prior.from_preset = true;
    }
    if (calibrated && kernel_rate(p.key)) {
      prior.low = std::max(prior.low, 1 - kMeasuredRange);
      prior.high = std::min(prior.high, 1 + kMeasuredRange);
      prior.measured = true;
    }
    out.push_back(std::move(prior));
  }
  return out;
}

}  // namespace pf::models::uncertainty
