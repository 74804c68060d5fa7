// The report's `faults` and `fault_baseline` blocks (io/report/README.md,
// faults): each fault of the experiment with what it touched and where it
// bit, and, with `preflight run --baseline`, the same experiment's step time
// without faults.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "models/spec/experiment_spec.h"
#include "models/training/run_result.h"

namespace pf::report {

// One entry per fault, in the experiment's order.
nlohmann::ordered_json faults_json(const models::training::RunResult& r, const models::ExperimentSpec& e);

// What the fault does, in words: "compute x1.25, jitter lognormal sigma 0.05", "bandwidth x0.5", "failed".
std::string fault_effect(const models::FaultSpec& f);

// Adds `fault_baseline` (step time, binding GPU and tokens/s of the fault-free
// run, and what the faults added) to a faulted run's report.
void add_fault_baseline(nlohmann::ordered_json& report, const models::training::RunResult& baseline);

}  // namespace pf::report
