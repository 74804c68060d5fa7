// Reads a SimAI/AICB workload text file (configs/workloads/simai/README.md)
// into models::workload::SimaiWorkload. Every malformed line is a
// pf::ConfigError "FILE:LINE: <what>: expected ..., found ..." (exit 2).
#pragma once

#include <string>

#include "models/workload/simai_workload.h"

namespace pf::io {

models::workload::SimaiWorkload read_simai_file(const std::string& path);
// The same from text (tests); `name` stands for the file in messages.
models::workload::SimaiWorkload parse_simai(const std::string& text, const std::string& name);

}  // namespace pf::io
