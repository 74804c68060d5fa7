// Data-parallel communication the program adds around the templates: ZeRO
// parameter all-gathers and gradient-bucket reduces.
#include "models/workload/gpu_program.h"

#include "core/error.h"

namespace pf::models::workload {

void GpuProgram::queue_gathers(const Unit& u, int slot, int layer) {
  for (int c = 0; c < kParamClasses; ++c) {
    auto cls = static_cast<ParamClass>(c);
    std::int64_t elems = u.param_elems[static_cast<std::size_t>(c)];
    if (elems == 0 || plan_->grad_group_size(cls) < 2) continue;
    if (gather_count_ == kGatherQueue) throw SimulationError("workload: parameter gather queue overflow");
    gathers_[static_cast<std::size_t>((gather_head_ + gather_count_) % kGatherQueue)] = {cls, elems, slot, layer};
    ++gather_count_;
  }
}

bool GpuProgram::pop_gather(Op& op) {
  if (gather_count_ == 0) return false;
  PendingGather g = gathers_[static_cast<std::size_t>(gather_head_)];
  gather_head_ = (gather_head_ + 1) % kGatherQueue;
  --gather_count_;
  Phase phase = section_ == Section::steps ? (pass_.step.forward ? Phase::fwd : Phase::bwd) : Phase::opt;
  begin_op(op, OpKind::dp_param_all_gather, phase);
  set_group(op, plan_->grad_group(g.cls));
  op.layer = g.layer;
  // bytes: the gathered (full) parameters of the unit, as all-gather sizes are counted.
  op.bytes = static_cast<std::uint64_t>(g.elems * plan_->param_bytes());
  // Issued when the GPU reaches it: after the compute issued so far.
  add_dep(op, last_compute_id_);
  param_ids_[static_cast<std::size_t>(g.slot)][static_cast<std::size_t>(g.cls)] = op.id;
  return true;
}

bool GpuProgram::pop_reduce(Op& op) {
  ParamClass cls{};
  std::int64_t bytes = 0;
  std::uint32_t producer = kNoOp;
  if (!buckets_.pop(cls, bytes, producer)) return false;
  Phase phase = section_ == Section::steps ? Phase::bwd : Phase::opt;
  begin_op(op, plan_->grads_all_reduced() ? OpKind::dp_grad_all_reduce : OpKind::dp_grad_reduce_scatter, phase);
  set_group(op, plan_->grad_group(cls));
  op.bytes = static_cast<std::uint64_t>(bytes);
  add_dep(op, producer);
  add_dep(op, last_reduce_[static_cast<std::size_t>(cls)]);
  last_reduce_[static_cast<std::size_t>(cls)] = op.id;
  return true;
}

}  // namespace pf::models::workload
