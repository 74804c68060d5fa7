// The LP model of a training iteration: the cluster graph's vertices are the
// LPs (GPU g is LP g); GPU LPs run their programs (gpu_executor.h), every
// other vertex forwards network chunks. The engine calls on_event for every
// event of this rank's LPs and finished() to learn when this rank's GPUs are
// all done (the end of the iteration is not known in advance).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/lp_context.h"
#include "core/statistics.h"
#include "models/collective/collective_engine.h"
#include "models/network/network.h"
#include "models/training/gpu_executor.h"

namespace pf::models::training {

class TrainingModel final : public core::PromiseSource {
 public:
  // `local_gpus`: the GPUs this rank simulates, ascending; `record(gpu)`:
  // whether a GPU's ops become timeline rows.
  TrainingModel(network::Network& net, ExecutionShared shared,
                const std::function<ProgramSource(int gpu)>& program, const std::vector<int>& local_gpus,
                const std::vector<bool>& record, int gpu_count);
  // The engine keeps a pointer to it (LpContext::set_promise_source).
  TrainingModel(const TrainingModel&) = delete;
  TrainingModel& operator=(const TrainingModel&) = delete;

  // Schedules every local GPU's start at time zero.
  void seed(core::LpContext& engine);
  void on_event(core::LpContext& engine, const core::Event& event);
  bool finished() const { return unfinished_ == 0; }
  // A GPU's current promise, where its last one was deferred (core::PromiseSource).
  core::SimTime current_promise(core::LpId lp) override;
  // The local GPUs' mean program progress, 0..1 (for the progress line's ETA).
  double progress() const;

  const std::vector<GpuExecutor>& gpus() const { return gpus_; }
  std::vector<ExecutedOp>& records() { return records_; }
  // Op counts over this rank's GPUs into the registry (training.compute_ops,
  // .collective_ops, .p2p_ops; summed over ranks: the same on any rank count).
  void publish(core::Statistics& out) const;

 private:
  GpuExecutor& executor(core::LpId lp) { return gpus_[static_cast<std::size_t>(slot_[lp])]; }
  void handle(core::LpContext& engine, const core::Event& event);
  void delivered(core::LpContext& engine, const collective::Completion& c);
  void note_finished(const GpuExecutor& gpu, bool was_finished);

  network::Network& net_;
  ExecutionShared shared_;
  std::vector<GpuExecutor> gpus_;
  std::vector<std::int32_t> slot_;  // gpu -> index in gpus_, -1 when another rank owns it
  std::vector<ExecutedOp> records_;
  std::size_t unfinished_ = 0;
};

}  // namespace pf::models::training
