// Walking the schedule and the templates. Communication added around the
// templates is in gpu_program_comm.cpp, the end of the iteration in
// gpu_program_epilogue.cpp.
#include "models/workload/gpu_program.h"

#include <string>

#include "core/error.h"
#include "models/workload/activation_offload.h"

namespace pf::models::workload {

GpuProgram::GpuProgram(const WorkloadPlan& plan, int gpu)
    : plan_(&plan),
      gpu_(gpu),
      coords_(gpu >= 0 && gpu < plan.world_size() ? plan.layout().coords(gpu) : Coords{}),
      schedule_(plan.parallelism().pp, coords_.pp, plan.microbatches(), plan.chunks(),
                plan.training().overlap_moe_expert_parallel_comm),
      buckets_(plan.bucket_bytes()) {
  if (gpu < 0 || gpu >= plan.world_size()) {
    throw SimulationError("workload: GPU " + std::to_string(gpu) + " outside a plan of " +
                          std::to_string(plan.world_size()) + " GPUs");
  }
  const RankLayout& layout = plan.layout();
  for (int k = 0; k < kGroupKindCount; ++k) {
    groups_[static_cast<std::size_t>(k)] = layout.group_of(static_cast<GroupKind>(k), gpu);
  }
  int pp = plan.parallelism().pp;
  Coords prev = coords_, next = coords_;
  prev.pp = (coords_.pp + pp - 1) % pp;
  next.pp = (coords_.pp + 1) % pp;
  prev_pp_gpu_ = layout.rank(prev);
  next_pp_gpu_ = layout.rank(next);
  stage_ = stage_params(plan, coords_.pp);
  // Full and op-level selective recomputation re-run (part of) each layer's
  // forward as a unit before its backward; Megatron's selective does it inside.
  recompute_units_ = plan.training().recompute == Recompute::full ||
                     plan.training().recompute == Recompute::selective_op;
  overlap_grad_ = plan.training().overlap_grad_reduce;
  prefetch_ = plan.training().overlap_param_gather;
  zero_ = plan.parallelism().zero_stage;
  unit_ids_.assign(static_cast<std::size_t>(plan.max_unit_size()), kNoOp);
  if (plan.training().overlap_moe_expert_parallel_comm) parked_.unit_ids.assign(unit_ids_.size(), kNoOp);
  if (const int offloaded = plan.training().cpu_offload_layers; offloaded > 0) {
    if (plan.offload_bytes(false) < 0 || plan.offload_bytes(true) < 0)
      throw SimulationError("workload: activation offloading without the offloaded layers' sizes (WorkloadPlan::set_offload_bytes)");
    offload_sync_ = offload_sync_layers(plan.model().layers, offloaded);
  }
  for (auto& slot : param_ids_) slot.fill(kNoOp);
}

double GpuProgram::progress() const {
  if (section_ == Section::done) return 1;
  const double steps = schedule_.steps() + 1;
  if (section_ == Section::epilogue) return (steps - 1) / steps;
  // A combined step counts as its two steps, by how far its order has come.
  if (combined_) return (step_index_ - 1 + 2.0 * combined_pos_ / combined_positions()) / steps;
  const double within = in_step_ && unit_count_ > 0 ? static_cast<double>(unit_index_) / unit_count_ : 0;
  return (step_index_ + within) / steps;
}

bool GpuProgram::next(Op& op) {
  for (;;) {
    if (pop_reduce(op) || pop_gather(op)) return true;
    switch (section_) {
      case Section::steps:
        if (step_next(op)) return true;
        break;
      case Section::epilogue:
        if (epilogue_next(op)) return true;
        break;
      case Section::done:
        return false;
    }
  }
}

// Emits at most one op; returns false when it only moved the cursor.
bool GpuProgram::step_next(Op& op) {
  if (!in_step_) {
    if (step_index_ == schedule_.steps()) {
      section_ = Section::epilogue;
      return false;
    }
    // A combined step gathers no parameters: the first forward of every
    // chunk, the one that would, falls in the warm-up.
    if (schedule_.combined_with_next(step_index_) && !gathers_params(schedule_.step(step_index_)) &&
        !gathers_params(schedule_.step(step_index_ + 1))) {
      begin_combined();
    } else {
      begin_step();
    }
  }
  if (combined_) return combined_next(op);
  switch (advance(op, unit_count_, 0)) {
    case Advance::emitted: return true;
    case Advance::moved: return false;
    case Advance::reached: break;
  }
  end_step();
  return false;
}

GpuProgram::Advance GpuProgram::advance(Op& op, int stop_unit, int stop_op) {
  if (unit_ != nullptr) {
    if (unit_index_ == stop_unit && op_index_ >= stop_op) return Advance::reached;
    if (op_index_ < static_cast<int>(unit_->ops.size())) {
      emit_template(unit_->ops[static_cast<std::size_t>(op_index_)], op);
      ++op_index_;
      return Advance::emitted;
    }
    if (unit_->passes_input) input_id_ = unit_ids_[static_cast<std::size_t>(unit_->output_index())];
    const bool forward_layer = step_.forward && unit_layer_ >= 0 && unit_layer_ < plan_->model().layers;
    unit_ = nullptr;
    ++unit_index_;
    const bool copied = !offload_sync_.empty() && forward_layer && offload_after_forward(unit_layer_, op);
    return copied ? Advance::emitted : Advance::moved;
  }
  if (unit_index_ > stop_unit || (unit_index_ == stop_unit && stop_op == 0) || unit_index_ == unit_count_) {
    return Advance::reached;
  }
  StepUnit su = unit_at(unit_index_);
  if (su.kind == StepUnit::Kind::recv || su.kind == StepUnit::Kind::send) {
    emit_p2p(su, op);
    ++unit_index_;
    return Advance::emitted;
  }
  start_unit(su);
  const bool reloaded = !offload_sync_.empty() && !step_.forward && su.kind == StepUnit::Kind::layer &&
                        reload_before_backward(su.layer, op);
  return reloaded ? Advance::emitted : Advance::moved;
}

void GpuProgram::begin_step() {
  step_ = schedule_.step(step_index_);
  vstage_ = plan_->split().vstage(coords_.pp, step_.chunk);
  first_layer_ = plan_->split().first_layer(vstage_);
  layers_ = plan_->split().layer_count(vstage_);
  // Multi-token-prediction modules follow the head on the last virtual stage.
  mtp_units_ = vstage_ == plan_->vstages() - 1 ? plan_->model().mtp_layers : 0;
  const TrainingSpec& train = plan_->training();
  recomputed_layers_ = recompute_units_ ? train.recomputed_layers(layers_) : 0;
  recompute_group_ = train.recompute_group();
  unit_count_ = 2 + layers_ + (step_.forward ? 0 : recomputed_layers_) + mtp_units_;
  unit_index_ = 0;
  input_id_ = kNoOp;
  in_step_ = true;
  gather_step_ = gathers_params(step_);
  // ZeRO 0/1 reduce once per chunk, in its last micro-batch's backward; ZeRO
  // 2/3 hold only a gradient shard and reduce every micro-batch.
  reduce_step_ = !step_.forward && (zero_ >= 2 || step_.microbatch == plan_->microbatches() - 1);
  next_prefetched_ = false;
  for (auto& slot : param_ids_) slot.fill(kNoOp);
}

// ZeRO-3 gathers every layer's parameters; ZeRO 1-2 with overlap_param_gather
// at the first forward of each chunk.
bool GpuProgram::gathers_params(const ScheduleStep& s) const {
  const bool first_forward = s.forward && s.microbatch == 0;
  return zero_ == 3 || ((zero_ == 1 || zero_ == 2) && prefetch_ && first_forward);
}

void GpuProgram::end_step() {
  if (reduce_step_ && (overlap_grad_ || zero_ >= 2)) buckets_.flush_all();
  in_step_ = false;
  ++step_index_;
}

// Forward: embedding or recv, layers, head or send, MTP modules.
// Backward: MTP modules (last first), head or recv, layers (last first; the
// chunk's first recomputed_layers_ after their recomputation, a group of
// recompute_group_ at a time: the group's forwards in order, then its
// backwards last first), embedding or send. MTP modules are numbered as
// layers after the model's last one.
GpuProgram::StepUnit GpuProgram::unit_at(int u) const {
  using K = StepUnit::Kind;
  int last_vstage = plan_->vstages() - 1;
  int model_layers = plan_->model().layers;
  if (step_.forward && u >= unit_count_ - mtp_units_) return {K::mtp, model_layers + u - (unit_count_ - mtp_units_)};
  if (!step_.forward && u < mtp_units_) return {K::mtp, model_layers + mtp_units_ - 1 - u};
  int first = step_.forward ? 0 : mtp_units_;
  int last = step_.forward ? unit_count_ - 1 - mtp_units_ : unit_count_ - 1;
  if (u == first) {
    if (step_.forward) return {vstage_ == 0 ? K::embedding : K::recv, -1};
    return {vstage_ == last_vstage ? K::head : K::recv, -1};
  }
  if (u == last) {
    if (step_.forward) return {vstage_ == last_vstage ? K::head : K::send, -1};
    return {vstage_ == 0 ? K::embedding : K::send, -1};
  }
  int i = u - first - 1;
  if (step_.forward) return {K::layer, first_layer_ + i};
  const int kept = layers_ - recomputed_layers_;  // the chunk's last layers, backward first
  if (i < kept) return {K::layer, first_layer_ + layers_ - 1 - i};
  // Groups of recompute_group_ layers from the chunk's first, the last one
  // possibly shorter; the backward takes them last first.
  const int g = recompute_group_;
  const int tail = recomputed_layers_ - g * ((recomputed_layers_ - 1) / g);  // the last group's size
  int k = i - kept, start = recomputed_layers_ - tail, size = tail;
  if (k >= 2 * tail) {
    k -= 2 * tail;
    start -= (k / (2 * g) + 1) * g;
    size = g;
    k %= 2 * g;
  }
  if (k < size) return {K::recompute, first_layer_ + start + k};
  return {K::layer, first_layer_ + start + size - 1 - (k - size)};
}

const Unit& GpuProgram::template_of(const StepUnit& su, bool forward) const {
  using K = StepUnit::Kind;
  switch (su.kind) {
    case K::embedding: return plan_->unit(forward ? UnitId::embedding_fwd : UnitId::embedding_bwd);
    case K::head: return plan_->unit(forward ? UnitId::head_fwd : UnitId::head_bwd);
    case K::mtp: return plan_->unit(forward ? UnitId::mtp_fwd : UnitId::mtp_bwd);
    case K::recompute: return plan_->unit(plan_->layer_unit(su.layer, LayerPass::recompute));
    default: break;
  }
  return plan_->unit(plan_->layer_unit(su.layer, forward ? LayerPass::fwd : LayerPass::bwd));
}

// A layer's backward right after its recomputation (a group's last layer)
// reuses the parameters gathered for it; the group's other layers gather
// theirs again, as ZeRO-3 frees them after each forward.
bool GpuProgram::is_param_unit(const StepUnit& su) const {
  using K = StepUnit::Kind;
  if (su.kind == K::recv || su.kind == K::send) return false;
  const int j = su.layer - first_layer_;
  const bool right_after_recompute =
      j < recomputed_layers_ && ((j + 1) % recompute_group_ == 0 || j == recomputed_layers_ - 1);
  return !(su.kind == K::layer && !step_.forward && right_after_recompute);
}

void GpuProgram::start_unit(const StepUnit& su) {
  unit_ = &template_of(su, step_.forward);
  op_index_ = 0;
  unit_layer_ = su.layer;
  if (!is_param_unit(su)) return;
  param_ids_[0].fill(kNoOp);
  if (!gather_step_) return;
  if (next_prefetched_) {
    param_ids_[0] = param_ids_[1];
    param_ids_[1].fill(kNoOp);
    next_prefetched_ = false;
  } else {
    queue_gathers(*unit_, 0, su.layer);
  }
  if (!prefetch_) return;
  for (int u = unit_index_ + 1; u < unit_count_; ++u) {
    StepUnit nu = unit_at(u);
    if (!is_param_unit(nu)) continue;
    queue_gathers(template_of(nu, step_.forward), 1, nu.layer);
    next_prefetched_ = true;
    break;
  }
}

void GpuProgram::emit_template(const OpTemplate& t, Op& op) {
  begin_op(op, t.kind, t.phase);
  op.recompute = t.recompute;
  op.layer = unit_layer_;
  op.flops = t.flops;
  op.bytes = t.bytes;
  op.shape = t.shape;
  op.launches = t.launches;
  op.graphed = t.graphed;
  op.copy_engine = t.copy_engine;
  op.template_index = plan_->template_index(*unit_, op_index_);
  if (t.group != GroupKind::none) set_group(op, t.group);
  if (t.host_slot >= 0) pair_host_copy(t, op);
  if (op_index_ == 0 && offload_wait_ != kNoOp) {  // the compute stream waits for a host copy
    add_dep(op, offload_wait_);
    offload_wait_ = kNoOp;
  }
  for (const DepRef& d : t.deps) {
    switch (d.kind) {
      case DepKind::unit: add_dep(op, unit_ids_[d.index]); break;
      case DepKind::input: add_dep(op, input_id_); break;
      case DepKind::param:
        for (std::uint32_t id : param_ids_[0]) add_dep(op, id);
        break;
      case DepKind::none: break;
    }
  }
  unit_ids_[static_cast<std::size_t>(op_index_)] = op.id;
  if (op.stream == Stream::compute) last_compute_id_ = op.id;
  if (t.grad_elems > 0 && reduce_step_ && plan_->grad_group_size(t.grad_class) > 1) {
    buckets_.add(t.grad_class, t.grad_elems * plan_->grad_bytes(), op.id, overlap_grad_);
  }
}

void GpuProgram::emit_p2p(const StepUnit& su, Op& op) {
  bool send = su.kind == StepUnit::Kind::send;
  bool fwd = step_.forward;
  begin_op(op, send ? OpKind::pp_send : OpKind::pp_recv, fwd ? Phase::fwd : Phase::bwd);
  op.group = groups_[static_cast<std::size_t>(GroupKind::pp)];
  op.peer = (send == fwd) ? next_pp_gpu_ : prev_pp_gpu_;
  // The tag names the message: direction, micro-batch, receiving virtual stage.
  int receiver = send ? (fwd ? vstage_ + 1 : vstage_ - 1) : vstage_;
  op.seq = static_cast<std::uint32_t>((step_.microbatch * plan_->vstages() + receiver) * 2 + (fwd ? 0 : 1));
  op.bytes = static_cast<std::uint64_t>(plan_->p2p_bytes());
  if (send) {
    add_dep(op, input_id_);
  } else {
    input_id_ = op.id;
  }
}

void GpuProgram::begin_op(Op& op, OpKind kind, Phase phase) {
  reset(op);
  op.id = next_id_++;
  op.kind = kind;
  op.stream = stream_of(kind);
  op.phase = phase;
  if (section_ == Section::steps) {
    op.microbatch = step_.microbatch;
    op.chunk = static_cast<std::int16_t>(step_.chunk);
  }
}

void GpuProgram::set_group(Op& op, GroupKind kind) {
  op.group = groups_[static_cast<std::size_t>(kind)];
  op.seq = seq_[static_cast<std::size_t>(kind)]++;
}

void GpuProgram::add_dep(Op& op, std::uint32_t id) {
  if (id == kNoOp) return;
  for (int i = 0; i < op.dep_count; ++i) {
    if (op.deps[static_cast<std::size_t>(i)] == id) return;
  }
  if (op.dep_count == kMaxDeps) {
    throw SimulationError("workload: op " + std::to_string(op.id) + " needs more than 4 dependencies");
  }
  op.deps[op.dep_count++] = id;
}

}  // namespace pf::models::workload
