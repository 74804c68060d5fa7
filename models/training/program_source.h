// Where a GPU's ops come from: the built-in generator (models/workload's
// GpuProgram) or an imported SimAI/AICB workload (SimaiProgram). Both follow
// op.h's contract; the executor pulls from either through this one cursor.
#pragma once

#include <variant>

#include "models/workload/gpu_program.h"
#include "models/workload/simai_program.h"

namespace pf::models::training {

class ProgramSource {
 public:
  explicit ProgramSource(workload::GpuProgram p) : program_(std::move(p)) {}
  explicit ProgramSource(workload::SimaiProgram p) : program_(std::move(p)) {}

  bool next(workload::Op& op) {
    return std::visit([&op](auto& p) { return p.next(op); }, program_);
  }
  double progress() const {
    return std::visit([](const auto& p) { return p.progress(); }, program_);
  }
  int gpu() const {
    return std::visit([](const auto& p) { return p.gpu(); }, program_);
  }

 private:
  std::variant<workload::GpuProgram, workload::SimaiProgram> program_;
};

}  // namespace pf::models::training
