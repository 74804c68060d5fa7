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
  send_wait_mode_ = plan.training().pp_send_wait;
  if (send_wait_mode_ == PpSendWait::automatic)
    send_wait_mode_ = plan.chunks() > 1 ? PpSendWait::deferred : PpSendWait::blocking;
  pass_.unit_ids.assign(static_cast<std::size_t>(plan.max_unit_size()), kNoOp);
  if (plan.training().overlap_moe_expert_parallel_comm) parked_.unit_ids.assign(pass_.unit_ids.size(), kNoOp);
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
  const double within = in_step_ && pass_.unit_count > 0 ? static_cast<double>(pass_.unit_index) / pass_.unit_count : 0;
  return (step_index_ + within) / steps;
}

bool GpuProgram::next(Op& op) {
  if (!next_op(op)) return false;
  if (op.stream == Stream::compute) {  // the compute stream waits for pipeline sends
    // An op whose dependencies are full leaves the wait to the compute op
    // after it, which the stream runs after it anyway.
    for (std::uint32_t& send : send_wait_) {
      if (send == kNoOp || op.dep_count == kMaxDeps) continue;
      add_dep(op, send);
      send = kNoOp;
    }
  }
  return true;
}

bool GpuProgram::next_op(Op& op) {
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
      // The schedule ends by waiting for the sends still in flight (deferred);
      // the last of each direction stands in for any before it not yet
      // waited for (a communicator's operations complete in order).
      if (send_wait_mode_ == PpSendWait::deferred) send_wait_ = last_send_;
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
  switch (advance(op, pass_.unit_count, 0)) {
    case Advance::emitted: return true;
    case Advance::moved: return false;
    case Advance::reached: break;
  }
  end_step();
  return false;
}

GpuProgram::Advance GpuProgram::advance(Op& op, int stop_unit, int stop_op) {
  if (pass_.unit != nullptr) {
    if (pass_.unit_index == stop_unit && pass_.op_index >= stop_op) return Advance::reached;
    if (pass_.op_index < static_cast<int>(pass_.unit->ops.size())) {
      emit_template(pass_.unit->ops[static_cast<std::size_t>(pass_.op_index)], op);
      ++pass_.op_index;
      return Advance::emitted;
    }
    if (pass_.unit->passes_input) pass_.input_id = pass_.unit_ids[static_cast<std::size_t>(pass_.unit->output_index())];
    const bool forward_layer = pass_.step.forward && pass_.unit_layer >= 0 && pass_.unit_layer < plan_->model().layers;
    pass_.unit = nullptr;
    ++pass_.unit_index;
    const bool copied = !offload_sync_.empty() && forward_layer && offload_after_forward(pass_.unit_layer, op);
    return copied ? Advance::emitted : Advance::moved;
  }
  if (pass_.unit_index > stop_unit || (pass_.unit_index == stop_unit && stop_op == 0) || pass_.unit_index == pass_.unit_count) {
    return Advance::reached;
  }
  StepUnit su = unit_at(pass_.unit_index);
  if (su.kind == StepUnit::Kind::recv || su.kind == StepUnit::Kind::send) {
    emit_p2p(su, op);
    ++pass_.unit_index;
    return Advance::emitted;
  }
  start_unit(su);
  const bool reloaded = !offload_sync_.empty() && !pass_.step.forward && su.kind == StepUnit::Kind::layer &&
                        reload_before_backward(su.layer, op);
  return reloaded ? Advance::emitted : Advance::moved;
}

void GpuProgram::begin_step() {
  pass_.step = schedule_.step(step_index_);
  pass_.vstage = plan_->split().vstage(coords_.pp, pass_.step.chunk);
  pass_.first_layer = plan_->split().first_layer(pass_.vstage);
  pass_.layers = plan_->split().layer_count(pass_.vstage);
  // Multi-token-prediction modules follow the head on the last virtual stage.
  pass_.mtp_units = pass_.vstage == plan_->vstages() - 1 ? plan_->model().mtp_layers : 0;
  const TrainingSpec& train = plan_->training();
  pass_.recomputed_layers = recompute_units_ ? train.recomputed_layers(pass_.layers) : 0;
  recompute_group_ = train.recompute_group();
  pass_.unit_count = 2 + pass_.layers + (pass_.step.forward ? 0 : pass_.recomputed_layers) + pass_.mtp_units;
  pass_.unit_index = 0;
  pass_.input_id = kNoOp;
  in_step_ = true;
  pass_.gather_step = gathers_params(pass_.step);
  // ZeRO 0/1 reduce once per chunk, in its last micro-batch's backward; ZeRO
  // 2/3 hold only a gradient shard and reduce every micro-batch.
  pass_.reduce_step = !pass_.step.forward && (zero_ >= 2 || pass_.step.microbatch == plan_->microbatches() - 1);
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
  if (pass_.reduce_step && (overlap_grad_ || zero_ >= 2)) buckets_.flush_all();
  in_step_ = false;
  ++step_index_;
}

// Forward: embedding or recv, layers, head or send, MTP modules.
// Backward: MTP modules (last first), head or recv, layers (last first; the
// chunk's first pass_.recomputed_layers after their recomputation, a group of
// recompute_group_ at a time: the group's forwards in order, then its
// backwards last first), embedding or send. MTP modules are numbered as
// layers after the model's last one.
GpuProgram::StepUnit GpuProgram::unit_at(int u) const {
  using K = StepUnit::Kind;
  int last_vstage = plan_->vstages() - 1;
  int model_layers = plan_->model().layers;
  if (pass_.step.forward && u >= pass_.unit_count - pass_.mtp_units) return {K::mtp, model_layers + u - (pass_.unit_count - pass_.mtp_units)};
  if (!pass_.step.forward && u < pass_.mtp_units) return {K::mtp, model_layers + pass_.mtp_units - 1 - u};
  int first = pass_.step.forward ? 0 : pass_.mtp_units;
  int last = pass_.step.forward ? pass_.unit_count - 1 - pass_.mtp_units : pass_.unit_count - 1;
  if (u == first) {
    if (pass_.step.forward) return {pass_.vstage == 0 ? K::embedding : K::recv, -1};
    return {pass_.vstage == last_vstage ? K::head : K::recv, -1};
  }
  if (u == last) {
    if (pass_.step.forward) return {pass_.vstage == last_vstage ? K::head : K::send, -1};
    return {pass_.vstage == 0 ? K::embedding : K::send, -1};
  }
  int i = u - first - 1;
  if (pass_.step.forward) return {K::layer, pass_.first_layer + i};
  const int kept = pass_.layers - pass_.recomputed_layers;  // the chunk's last layers, backward first
  if (i < kept) return {K::layer, pass_.first_layer + pass_.layers - 1 - i};
  // Groups of recompute_group_ layers from the chunk's first, the last one
  // possibly shorter; the backward takes them last first.
  const int g = recompute_group_;
  const int tail = pass_.recomputed_layers - g * ((pass_.recomputed_layers - 1) / g);  // the last group's size
  int k = i - kept, start = pass_.recomputed_layers - tail, size = tail;
  if (k >= 2 * tail) {
    k -= 2 * tail;
    start -= (k / (2 * g) + 1) * g;
    size = g;
    k %= 2 * g;
  }
  if (k < size) return {K::recompute, pass_.first_layer + start + k};
  return {K::layer, pass_.first_layer + start + size - 1 - (k - size)};
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
  const int j = su.layer - pass_.first_layer;
  const bool right_after_recompute =
      j < pass_.recomputed_layers && ((j + 1) % recompute_group_ == 0 || j == pass_.recomputed_layers - 1);
  return !(su.kind == K::layer && !pass_.step.forward && right_after_recompute);
}

void GpuProgram::start_unit(const StepUnit& su) {
  pass_.unit = &template_of(su, pass_.step.forward);
  pass_.op_index = 0;
  pass_.unit_layer = su.layer;
  if (!is_param_unit(su)) return;
  param_ids_[0].fill(kNoOp);
  if (!pass_.gather_step) return;
  if (next_prefetched_) {
    param_ids_[0] = param_ids_[1];
    param_ids_[1].fill(kNoOp);
    next_prefetched_ = false;
  } else {
    queue_gathers(*pass_.unit, 0, su.layer);
  }
  if (!prefetch_) return;
  for (int u = pass_.unit_index + 1; u < pass_.unit_count; ++u) {
    StepUnit nu = unit_at(u);
    if (!is_param_unit(nu)) continue;
    queue_gathers(template_of(nu, pass_.step.forward), 1, nu.layer);
    next_prefetched_ = true;
    break;
  }
}

void GpuProgram::emit_template(const OpTemplate& t, Op& op) {
  begin_op(op, t.kind, t.phase);
  op.recompute = t.recompute;
  op.layer = pass_.unit_layer;
  op.flops = t.flops;
  op.bytes = t.bytes;
  op.shape = t.shape;
  op.launches = t.launches;
  op.inner_launches = t.inner_launches;
  op.graphed = t.graphed;
  op.copy_engine = t.copy_engine;
  op.template_index = plan_->template_index(*pass_.unit, pass_.op_index);
  if (t.group != GroupKind::none) set_group(op, t.group);
  if (t.host_slot >= 0) pair_host_copy(t, op);
  if (pass_.op_index == 0 && offload_wait_ != kNoOp) {  // the compute stream waits for a host copy
    add_dep(op, offload_wait_);
    offload_wait_ = kNoOp;
  }
  for (const DepRef& d : t.deps) {
    switch (d.kind) {
      case DepKind::unit: add_dep(op, pass_.unit_ids[d.index]); break;
      case DepKind::input: add_dep(op, pass_.input_id); break;
      case DepKind::param:
        for (std::uint32_t id : param_ids_[0]) add_dep(op, id);
        break;
      case DepKind::none: break;
    }
  }
  pass_.unit_ids[static_cast<std::size_t>(pass_.op_index)] = op.id;
  if (op.stream == Stream::compute) last_compute_id_ = op.id;
  if (t.grad_elems > 0 && pass_.reduce_step && plan_->grad_group_size(t.grad_class) > 1) {
    buckets_.add(t.grad_class, t.grad_elems * plan_->grad_bytes(), op.id, overlap_grad_);
  }
}

void GpuProgram::emit_p2p(const StepUnit& su, Op& op) {
  bool send = su.kind == StepUnit::Kind::send;
  bool fwd = pass_.step.forward;
  begin_op(op, send ? OpKind::pp_send : OpKind::pp_recv, fwd ? Phase::fwd : Phase::bwd);
  op.group = groups_[static_cast<std::size_t>(GroupKind::pp)];
  op.peer = (send == fwd) ? next_pp_gpu_ : prev_pp_gpu_;
  // The tag names the message: direction, micro-batch, receiving virtual stage.
  int receiver = send ? (fwd ? pass_.vstage + 1 : pass_.vstage - 1) : pass_.vstage;
  op.seq = static_cast<std::uint32_t>((pass_.step.microbatch * plan_->vstages() + receiver) * 2 + (fwd ? 0 : 1));
  op.bytes = static_cast<std::uint64_t>(plan_->p2p_bytes());
  if (send) {
    add_dep(op, pass_.input_id);
    hold_compute_for_send(op.id, fwd);
  } else {
    pass_.input_id = op.id;
  }
}

void GpuProgram::hold_compute_for_send(std::uint32_t send, bool forward) {
  const std::size_t dir = forward ? 0 : 1;
  switch (send_wait_mode_) {
    case PpSendWait::blocking: send_wait_[dir] = send; break;
    case PpSendWait::deferred:
      send_wait_[dir] = last_send_[dir];
      last_send_[dir] = send;
      break;
    case PpSendWait::automatic:
    case PpSendWait::background: break;
  }
}

void GpuProgram::begin_op(Op& op, OpKind kind, Phase phase) {
  reset(op);
  op.id = next_id_++;
  op.kind = kind;
  op.stream = stream_of(kind);
  op.phase = phase;
  if (section_ == Section::steps) {
    op.microbatch = pass_.step.microbatch;
    op.chunk = static_cast<std::int16_t>(pass_.step.chunk);
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
