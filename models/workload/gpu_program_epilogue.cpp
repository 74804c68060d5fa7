// The end of the iteration (Megatron's finalize_model_grads, then the
// optimizer): remaining gradient reduces, sequence-parallel norm gradients over
// tp, tied embedding gradients between the first and last stage, the optimizer
// step on this GPU's (ZeRO-sharded) parameters, and for ZeRO 1/2 without
// overlap the all-gather of the updated parameters.
#include "models/workload/gpu_program.h"

#include "models/workload/precision.h"

namespace pf::models::workload {
namespace {

std::int64_t shard(std::int64_t elems, int group, bool sharded) {
  return sharded ? (elems + group - 1) / group : elems;
}

}  // namespace

bool GpuProgram::epilogue_next(Op& op) {
  switch (epilogue_pos_++) {
    case 0:
      if (zero_ <= 1 && !overlap_grad_) buckets_.flush_all();
      return false;
    case 1: {
      std::int64_t synced = stage_.tp_synced(plan_->dims().sp, plan_->dims().tp > 1);
      if (synced == 0) return false;
      begin_op(op, OpKind::tp_all_reduce, Phase::opt);
      set_group(op, GroupKind::tp);
      op.bytes = static_cast<std::uint64_t>(synced * plan_->grad_bytes());
      add_dep(op, last_compute_id_);
      add_dep(op, last_reduce_[0]);
      sp_reduce_id_ = op.id;
      return true;
    }
    case 2:
      if (stage_.tied_embedding == 0) return false;
      begin_op(op, OpKind::embedding_grad_all_reduce, Phase::opt);
      set_group(op, GroupKind::embd);
      op.bytes = static_cast<std::uint64_t>(stage_.tied_embedding * plan_->grad_bytes());
      add_dep(op, last_compute_id_);
      add_dep(op, last_reduce_[0]);
      embedding_reduce_id_ = op.id;
      return true;
    case 3: {
      bool sharded = zero_ >= 1;
      std::int64_t elems = shard(stage_.dense, plan_->grad_group_size(ParamClass::dense), sharded) +
                           shard(stage_.expert, plan_->grad_group_size(ParamClass::expert), sharded);
      begin_op(op, OpKind::optimizer_step, Phase::opt);
      op.shape.rows = {elems, 1};
      // Adam: about a dozen FLOPs per element; reads the gradient, reads and
      // writes master weight and both moments, writes the 16-bit weight (and
      // reads it too when the master is kept as its remainders). Before it,
      // gradient clipping reads every gradient once for the global L2 norm
      // (Megatron clip_grads.py: multi_tensor_l2norm, then total_norm.item()).
      op.flops = 14.0 * static_cast<double>(elems);
      const TrainingSpec& train = plan_->training();
      const int weight_reads = train.optimizer_states.param_remainders ? 1 : 0;
      int per_elem = 2 * plan_->grad_bytes() + 2 * optimizer_bytes(train) + (1 + weight_reads) * plan_->param_bytes();
      op.bytes = static_cast<std::uint64_t>(elems * per_elem);
      // Follows the last backward op on the compute stream; waits for every
      // gradient collective (each group's collectives complete in order).
      add_dep(op, last_reduce_[0]);
      add_dep(op, last_reduce_[1]);
      add_dep(op, sp_reduce_id_);
      add_dep(op, embedding_reduce_id_);
      last_compute_id_ = op.id;
      return true;
    }
    case 4:
      if ((zero_ == 1 || zero_ == 2) && !prefetch_ && queue_next_epilogue_gathers()) epilogue_pos_ = 4;
      return false;
    default:
      section_ = Section::done;
      return false;
  }
}

// One parameter-holding piece of the stage per call, chunk by chunk in
// forward order (embedding, layers, head, MTP modules); false when all have
// been queued.
bool GpuProgram::queue_next_epilogue_gathers() {
  const LayerSplit& split = plan_->split();
  while (epilogue_chunk_ < plan_->chunks()) {
    int vstage = split.vstage(coords_.pp, epilogue_chunk_);
    int n = split.layer_count(vstage);
    bool last = vstage == plan_->vstages() - 1;
    int mtp = last ? plan_->model().mtp_layers : 0;
    int u = epilogue_unit_++;
    if (u > n + 1 + mtp) {
      ++epilogue_chunk_;
      epilogue_unit_ = 0;
      continue;
    }
    if (u == 0) {
      if (vstage != 0) continue;
      queue_gathers(plan_->unit(UnitId::embedding_fwd), 0, -1);
    } else if (u == n + 1) {
      if (!last) continue;
      queue_gathers(plan_->unit(UnitId::head_fwd), 0, -1);
    } else if (u > n + 1) {
      queue_gathers(plan_->unit(UnitId::mtp_fwd), 0, plan_->model().layers + u - n - 2);
    } else {
      int layer = split.first_layer(vstage) + u - 1;
      queue_gathers(plan_->unit(plan_->layer_unit(layer, LayerPass::fwd)), 0, layer);
    }
    return true;
  }
  return false;
}

}  // namespace pf::models::workload
