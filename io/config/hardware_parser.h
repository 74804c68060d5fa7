// The hardware part (io/config/README.md, hardware): one GPU and the server
// that holds gpus_per_node of them.
#pragma once

#include "io/config/config_node.h"
#include "io/config/scalar_values.h"
#include "models/spec/hardware_spec.h"

namespace pf::config {

models::HardwareSpec parse_hardware(const ConfigNode& node);

// The dtype names used as keys of peak_tflops and by training.dtype.
const char* dtype_name(models::Dtype dtype);

// The names of the flash kernels a measured attention table can have timed
// (gpu.calibration_attention, calibrate --attention-kernel).
const EnumNames<models::AttentionKernel>& measured_attention_kernels();

}  // namespace pf::config
