// Generates every GPU's program of an experiment, as the training simulation
// will, and prints the cost: ops, wall time, time per 1,000 GPUs, bytes per
// live program and peak memory.
//   workload_bench configs/examples/llama3-405b-h100-16384.yaml [--set KEY=VALUE]...
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "io/config/experiment_loader.h"
#include "models/workload/gpu_program.h"
#include "models/workload/workload_plan.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: workload_bench EXPERIMENT.yaml [--set KEY=VALUE]...\n");
    return 2;
  }
  std::vector<std::string> overrides;
  for (int i = 2; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--set") overrides.emplace_back(argv[i + 1]);
  try {
    const pf::models::ExperimentSpec e = pf::config::load_experiment(argv[1], overrides);
    const auto start = std::chrono::steady_clock::now();
    const pf::models::workload::WorkloadPlan plan(e);
    std::uint64_t ops = 0;
    pf::models::workload::Op op;
    for (int gpu = 0; gpu < e.gpu_count(); ++gpu) {
      pf::models::workload::GpuProgram program(plan, gpu);
      while (program.next(op)) ++ops;
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("experiment: %s\ngpus: %d\nops: %llu\nops_per_gpu: %.0f\nwall_s: %.3f\nops_per_s: %.3g\n"
                "s_per_1000_gpus: %.4f\nbytes_per_program: %zu\npeak_memory_mb: %.1f\n",
                e.name.c_str(), e.gpu_count(), static_cast<unsigned long long>(ops),
                static_cast<double>(ops) / e.gpu_count(), wall, static_cast<double>(ops) / wall,
                wall * 1000.0 / e.gpu_count(), sizeof(pf::models::workload::GpuProgram),
                static_cast<double>(usage.ru_maxrss) / 1024.0);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "workload_bench: %s\n", ex.what());
    return 2;
  }
  return 0;
}
