// The run report (io/report/README.md) as JSON: every key that README names, in the
// order it names them, then a few extensions (name, gpus, binding_gpu,
// p2p_wait_ms, bubble_ms, and memory.comm_buffers_gb inside `memory`). Times
// in milliseconds, memory in GiB (2^30 bytes), rates per second. `preflight
// run` writes it with --report-json, prints report_text() of it on rank 0 and
// stores it as the timeline's /summary.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "models/spec/experiment_spec.h"
#include "models/training/run_result.h"

namespace pf::report {

// Derived figures (io/report/README.md):
//   tokens_per_s            = tokens_per_iteration / step
//   model_tflops_per_gpu    = model_flops / step / gpus / 1e12   (hardware_* likewise)
//   mfu, hfu                = the two above / peak_tflops
// A zero step time, GPU count or peak gives 0 rather than inf/NaN, which JSON
// cannot hold. `oom` and `bottlenecks.longest_collective` are null when there
// is none (a plan that fits; a run without collectives).
nlohmann::ordered_json report_json(const models::training::RunResult& r, const models::ExperimentSpec& e,
                                   std::string_view version, std::string_view config_sha256);

}  // namespace pf::report
