// Activation offloading in the op stream (activation_offload.h): the copies
// and the compute stream's waits, where Transformer Engine's
// AsyncDoubleBufferGroupOffloadHandler puts them. Each copy moves one layer's
// saved tensors (WorkloadPlan::offload_bytes) on the copy stream, after the
// compute issued before it; the wait is a dependency of the next unit's first op.
#include "models/workload/gpu_program.h"

#include <string>

#include "core/error.h"

namespace pf::models::workload {

void GpuProgram::emit_copy(OpKind kind, int group, Op& op) {
  begin_op(op, kind, kind == OpKind::offload_d2h ? Phase::fwd : Phase::bwd);
  op.layer = group;
  op.bytes = static_cast<std::uint64_t>(plan_->offload_bytes(layer_is_moe(plan_->model(), group)));
  add_dep(op, last_compute_id_);  // the copy stream waits for the compute stream
  last_copy_ = op.id;
}

// At the end of layer k's forward (TE's on_group_commit_forward): layer 0
// starts group 0's copy; at layer w[c] the compute stream waits for group c's
// copy, frees it and starts group c + 1's.
bool GpuProgram::offload_after_forward(int layer, Op& op) {
  const int groups = static_cast<int>(offload_sync_.size());
  if (layer == 0) {
    offload_count_ = 0;
    emit_copy(OpKind::offload_d2h, 0, op);
    return true;  // w[0] >= 1: no wait at layer 0
  }
  if (offload_count_ >= groups || offload_sync_[static_cast<std::size_t>(offload_count_)] != layer) return false;
  offload_wait_ = last_copy_;
  if (++offload_count_ == groups) return false;
  emit_copy(OpKind::offload_d2h, offload_count_, op);
  return true;
}

// At the start of layer k's backward (on_group_commit_backward, the groups
// counted down from N): at layer w[c - 1] the compute stream waits for the
// reload issued before and group c - 1's reload starts; layer 0's backward
// waits for the last reload.
bool GpuProgram::reload_before_backward(int layer, Op& op) {
  if (layer == static_cast<int>(plan_->model().layers) - 1) {
    offload_count_ = static_cast<int>(offload_sync_.size());
    last_copy_ = kNoOp;
  }
  bool emitted = false;
  if (offload_count_ > 0 && offload_sync_[static_cast<std::size_t>(offload_count_ - 1)] == layer) {
    offload_wait_ = last_copy_;
    emit_copy(OpKind::reload_h2d, offload_count_ - 1, op);
    --offload_count_;
    emitted = true;
  }
  if (layer == 0) offload_wait_ = last_copy_;
  return emitted;
}

// A tensor comes back only after it has gone: a reload waits for the
// offload of the same layer's tensor in the same micro-batch (Megatron-Core
// waits on the offload's event before the reload's copy).
void GpuProgram::pair_host_copy(const OpTemplate& t, Op& op) {
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(pass_.unit_layer)) << 32) |
                            (static_cast<std::uint64_t>(static_cast<std::uint32_t>(pass_.step.microbatch)) << 8) |
                            static_cast<std::uint64_t>(t.host_slot);
  if (t.kind == OpKind::offload_d2h) {
    offloaded_.push_back({key, op.id});
    return;
  }
  for (std::size_t i = 0; i < offloaded_.size(); ++i) {
    if (offloaded_[i].key != key) continue;
    add_dep(op, offloaded_[i].id);
    offloaded_[i] = offloaded_.back();
    offloaded_.pop_back();
    return;
  }
  throw SimulationError("workload: GPU " + std::to_string(gpu_) + " reloads layer " + std::to_string(pass_.unit_layer) +
                        " micro-batch " + std::to_string(pass_.step.microbatch) + " before offloading it");
}

}  // namespace pf::models::workload
