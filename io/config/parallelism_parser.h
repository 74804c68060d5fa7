// The parallelism section (io/config/README.md): how the GPUs split the model.
// dp may be omitted and is then derived from the GPU count.
#pragma once

#include "io/config/config_node.h"
#include "models/spec/training_spec.h"

namespace pf::config {

// `gpu_count` is nodes * gpus_per_node from the topology and hardware; the
// product tp*pp*dp*cp must equal it.
models::ParallelismSpec parse_parallelism(const ConfigNode& node, int gpu_count);

const char* schedule_name(models::PipelineSchedule schedule);

}  // namespace pf::config
