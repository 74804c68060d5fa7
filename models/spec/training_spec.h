// How the model is trained and split (SPEC section 3: parallelism, training).
#pragma once

#include <cstdint>
#include <vector>

#include "models/spec/hardware_spec.h"

namespace pf::models {

enum class PipelineSchedule { one_f_one_b, interleaved };
enum class Recompute { none, selective, full };

struct ParallelismSpec {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int cp = 1;
  int ep = 1;                           // carved out of dp
  bool sequence_parallel = false;
  PipelineSchedule pipeline_schedule = PipelineSchedule::one_f_one_b;
  int virtual_stages = 1;
  int zero_stage = 0;                   // 0..3
  std::vector<int> layers_per_stage;    // empty = spread evenly; else pp*virtual_stages entries
};

struct TrainingSpec {
  std::int64_t global_batch_size = 1;   // sequences
  std::int64_t micro_batch_size = 1;
  std::int64_t seq_length = 2048;
  Recompute recompute = Recompute::none;
  Dtype dtype = Dtype::bf16;
  bool overlap_grad_reduce = true;
  bool overlap_param_gather = true;
  double grad_bucket_mb = 25;
};

}  // namespace pf::models
