// The cost-model parameters an uncertainty run samples, and their priors.
//
// A prior is a triangular distribution of a multiplier with mode 1 on
// [low, high]: the experiment's own value (the preset's, or the user's
// override) is the most likely, the range says how far the truth may lie.
// The hardware file's `uncertainty:` block states the range per parameter
// with its source (configs/hardware/*.yaml); where it is silent, the code
// default below applies, with its own source. A sampled value is clipped to
// the parameter's physical limits (an efficiency never above 1).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/spec/experiment_spec.h"

namespace pf::models::uncertainty {

struct Parameter {
  std::string_view key;      // the experiment key a sample overrides: "hardware.gpu.efficiency.gemm"
  std::string_view label;    // what it is, for the report: "large-GEMM rate"
  double min, max;           // physical limits of the value (inclusive)
  double low, high;          // default prior: multipliers of the nominal value
  std::string_view source;   // of the default range
  std::string_view measure;  // the measurement that would narrow it
  double (*nominal)(const ExperimentSpec&);
};

// Every sampled parameter, in report order.
std::span<const Parameter> parameters();
const Parameter* find_parameter(std::string_view key);

// One parameter's prior for one experiment.
struct Prior {
  const Parameter* parameter = nullptr;
  double nominal = 0;        // the experiment's value
  double low = 1, high = 1;  // multipliers
  std::string source;
  std::string measure;
  bool from_preset = false;  // stated by the hardware file (else the code default)
  bool measured = false;     // narrowed by measured data (the GPU's calibration tables)
  // The Latin-hypercube column the prior draws from: the parameter's place in
  // parameters(), so experiments sampled with one seed share every
  // parameter's draws (common random numbers across a sweep's variants).
  int column = 0;

  // The value at multiplier m, clipped to the physical limits.
  double value(double m) const;
};

// The priors that apply to `e`: the hardware file's over the code defaults.
// Parameters the experiment does not use are left out (a zero nominal value,
// such as no host overhead; the rate of an attention kernel it does not run).
// A GPU priced from measured tables (gpu.calibration) has its kernel-rate
// priors narrowed to the tables' held-out error (`kMeasuredRange`).
std::vector<Prior> priors_for(const ExperimentSpec& e);

// Kernel rates priced from a measured table: +-5 %, the order of the shipped
// tables' held-out median error (GH200 split half 2.9 %, H100 4.6 %, B200
// 4.9 %: models/compute/README.md).
inline constexpr double kMeasuredRange = 0.05;

}  // namespace pf::models::uncertainty
