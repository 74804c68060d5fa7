#include "models/training/training_workload.h"

#include <cmath>

#include "models/memory/memory_plan.h"
#include "models/memory/plan_summary.h"
#include "models/workload/gpu_program.h"
#include "models/workload/rank_layout.h"
#include "models/workload/simai_program.h"
#include "models/workload/workload_plan.h"

namespace pf::models::training {

std::vector<std::uint32_t> first_replica_gpus(const ParallelismSpec& parallelism) {
  const workload::RankLayout layout(parallelism);
  std::vector<std::uint32_t> out;
  for (int g = 0; g < layout.world_size(); ++g)
    if (layout.coords(g).dp == 0) out.push_back(static_cast<std::uint32_t>(g));
  return out;
}

TrainingWorkload built_in_workload(const ExperimentSpec& e) {
  auto built = std::make_shared<workload::WorkloadPlan>(e);
  if (e.training.cpu_offload_layers > 0) {
    built->set_offload_bytes(std::llround(memory::offloaded_layer_bytes(*built, false)),
                             std::llround(memory::offloaded_layer_bytes(*built, true)));
  }
  std::shared_ptr<const workload::WorkloadPlan> plan = built;
  TrainingWorkload w;
  w.parallelism = e.parallelism;
  w.memory = memory::summarize_plan(e);
  w.program = [p = plan.get()](int gpu) { return ProgramSource(workload::GpuProgram(*p, gpu)); };
  w.keep_alive = plan;
  return w;
}

TrainingWorkload simai_workload(std::shared_ptr<const workload::SimaiWorkload> file, int gpus) {
  struct Held {
    std::shared_ptr<const workload::SimaiWorkload> file;
    workload::RankLayout layout;
  };
  TrainingWorkload w;
  w.parallelism = workload::simai_parallelism(*file, gpus);
  auto held = std::make_shared<const Held>(Held{file, workload::RankLayout(w.parallelism)});
  w.program = [h = held.get()](int gpu) { return ProgramSource(workload::SimaiProgram(*h->file, h->layout, gpu)); };
  w.keep_alive = held;
  return w;
}

}  // namespace pf::models::training
