#include "models/workload/simai_program.h"

#include <string>

#include "core/error.h"

namespace pf::models::workload {
namespace {

OpKind comm_kind(Collective c) {
  switch (c) {
    case Collective::all_reduce: return OpKind::imported_all_reduce;
    case Collective::all_gather: return OpKind::imported_all_gather;
    case Collective::reduce_scatter: return OpKind::imported_reduce_scatter;
    default: return OpKind::imported_all_to_all;
  }
}

// Steps of one line. Forward: receive, compute, collective(s), send.
// Backward: receive, input-gradient compute and collective(s), weight-gradient
// compute and collective(s), send.
enum FwdStep { kFwdRecv, kFwdCompute, kFwdComm, kFwdComm2, kFwdSend, kFwdSteps };
enum BwdStep { kBwdRecv, kBwdInput, kBwdInputComm, kBwdInputComm2, kBwdWeight, kBwdWeightComm, kBwdWeightComm2,
               kBwdSend, kBwdSteps };

}  // namespace

std::vector<std::size_t> simai_microbatch_starts(const SimaiWorkload& w) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < w.layers.size(); ++i)
    if (w.layers[i].name == "embedding_layer") starts.push_back(i);
  if (starts.empty() || static_cast<int>(starts.size()) != w.ga) return {0};
  starts[0] = 0;  // lines before the first micro-batch (gradient sync) travel with it
  return starts;
}

ParallelismSpec simai_parallelism(const SimaiWorkload& w, int gpus) {
  ParallelismSpec p;
  if (w.policy == SimaiPolicy::micro) {
    p.dp = gpus;
    return p;
  }
  const int model = w.tp * w.pp;
  if (gpus % model != 0)
    throw ConfigError(w.file + ": model_parallel_NPU_group " + std::to_string(w.tp) + " x pp " +
                      std::to_string(w.pp) + " does not divide the topology's " + std::to_string(gpus) + " GPUs");
  if (w.all_gpus > 0 && w.all_gpus != gpus)
    throw ConfigError(w.file + ": all_gpus: the file is for " + std::to_string(w.all_gpus) +
                      " GPUs, the topology has " + std::to_string(gpus));
  p.tp = w.tp;
  p.pp = w.pp;
  p.dp = gpus / model;
  p.ep = w.ep;
  if (p.dp % p.ep != 0)
    throw ConfigError(w.file + ": ep " + std::to_string(w.ep) + " does not divide the data-parallel size " +
                      std::to_string(p.dp));
  return p;
}

SimaiProgram::SimaiProgram(const SimaiWorkload& w, const RankLayout& layout, int gpu)
    : w_(&w), layout_(&layout), gpu_(gpu), coords_(layout.coords(gpu)), starts_(simai_microbatch_starts(w)) {
  done_ = w.layers.empty();
}

int SimaiProgram::microbatch_of(std::size_t line) const {
  int mb = 0;
  for (std::size_t k = 1; k < starts_.size(); ++k)
    if (starts_[k] <= line) mb = static_cast<int>(k);
  return mb;
}

SimaiProgram::Place SimaiProgram::place_of(std::size_t line) const {
  const int mb = microbatch_of(line);
  return {mb, line == starts_[static_cast<std::size_t>(mb)],
          line + 1 == w_->layers.size() || microbatch_of(line + 1) != mb};
}

bool SimaiProgram::compute_op(Op& op, OpKind kind, Phase phase, std::int64_t ns, std::size_t line, int microbatch) {
  if (ns <= 0) return false;
  begin(op, kind, phase, static_cast<int>(line), microbatch);
  op.seconds = static_cast<double>(ns) * 1e-9;
  return true;
}

void SimaiProgram::begin(Op& op, OpKind kind, Phase phase, int line, int microbatch) {
  op = Op{};
  op.id = next_id_++;
  op.kind = kind;
  op.phase = phase;
  op.stream = stream_of(kind);
  op.layer = line;
  op.microbatch = microbatch;
}

bool SimaiProgram::comm_op(Op& op, const SimaiComm& c, bool second, Phase phase, int line, int microbatch) {
  if (c.op == Collective::none || (second && !c.then_all_to_all)) return false;
  const Collective coll = second ? Collective::all_to_all : c.op;
  begin(op, comm_kind(coll), phase, line, microbatch);
  op.group = layout_->group_of(c.group, gpu_);
  op.seq = seq_[static_cast<std::size_t>(c.group)]++;
  op.bytes = c.bytes;
  return true;
}

void SimaiProgram::p2p(Op& op, bool send, bool forward, int microbatch) {
  begin(op, send ? OpKind::pp_send : OpKind::pp_recv, forward ? Phase::fwd : Phase::bwd, -1, microbatch);
  Coords peer = coords_;
  peer.pp += (send == forward) ? 1 : -1;  // forward: from pp-1 to pp+1; backward the other way
  op.peer = layout_->rank(peer);
  op.group = layout_->group_of(GroupKind::pp, gpu_);
  op.seq = static_cast<std::uint32_t>(2 * microbatch + (forward ? 0 : 1));
  op.bytes = w_->pp_comm_bytes;
}

bool SimaiProgram::next(Op& op) {
  while (!done_) {
    const bool emitted = w_->policy == SimaiPolicy::micro ? emit_micro(op)
                         : backward_                      ? emit_backward(op)
                                                          : emit_forward(op);
    if (emitted) return true;
  }
  return false;
}

// MICRO files, in file order: each line's weight-gradient compute, then its
// collective over all GPUs, which the next line waits for (isolated, as measured).
bool SimaiProgram::emit_micro(Op& op) {
  const std::size_t i = line_;
  const SimaiLayer& l = w_->layers[i];
  const int step = stage_++;
  if (stage_ == 3) {
    stage_ = 0;
    done_ = ++line_ == w_->layers.size();
  }
  if (step == 0) {
    if (!compute_op(op, OpKind::imported_weight_grad, Phase::bwd, l.weight_grad_ns, i, 0)) return false;
  } else if (!comm_op(op, l.weight_grad, step == 2, Phase::bwd, static_cast<int>(i), 0)) {
    return false;
  }
  if (last_blocking_ != kNoOp) op.deps[op.dep_count++] = last_blocking_;
  last_blocking_ = op.id;
  return true;
}

// Each call advances one step of the current line; true when it produced an op.
bool SimaiProgram::emit_forward(Op& op) {
  const std::size_t i = line_;
  const SimaiLayer& l = w_->layers[i];
  const auto [mb, block_start, block_end] = place_of(i);
  const bool piped = w_->pp > 1 && w_->pp_comm_bytes > 0;
  const int step = stage_++;
  if (stage_ == kFwdSteps) {
    stage_ = 0;
    if (++line_ == w_->layers.size()) {
      backward_ = true;
      line_ = w_->layers.size();
    }
  }
  switch (step) {
    case kFwdRecv:
      if (!piped || !block_start || coords_.pp == 0) return false;
      p2p(op, false, true, mb);
      last_blocking_ = op.id;
      return true;
    case kFwdCompute:
      if (!compute_op(op, OpKind::imported_fwd, Phase::fwd, l.fwd_ns, i, mb)) return false;
      break;
    case kFwdComm:
    case kFwdComm2:
      if (!comm_op(op, l.fwd, step == kFwdComm2, Phase::fwd, static_cast<int>(i), mb)) return false;
      break;
    case kFwdSend:
      if (!piped || !block_end || coords_.pp == w_->pp - 1) return false;
      p2p(op, true, true, mb);
      if (last_blocking_ != kNoOp) op.deps[op.dep_count++] = last_blocking_;
      return true;
  }
  if (last_blocking_ != kNoOp) op.deps[op.dep_count++] = last_blocking_;
  last_blocking_ = op.id;
  return true;
}

bool SimaiProgram::emit_backward(Op& op) {
  if (line_ == 0) {
    done_ = true;
    return false;
  }
  const std::size_t i = line_ - 1;
  const SimaiLayer& l = w_->layers[i];
  const auto [mb, block_start, block_end] = place_of(i);
  const bool piped = w_->pp > 1 && w_->pp_comm_bytes > 0;
  const int step = stage_++;
  if (stage_ == kBwdSteps) {
    stage_ = 0;
    --line_;
  }
  switch (step) {
    case kBwdRecv:
      if (!piped || !block_end || coords_.pp == w_->pp - 1) return false;
      p2p(op, false, false, mb);
      last_blocking_ = op.id;
      return true;
    case kBwdInput:
      if (!compute_op(op, OpKind::imported_input_grad, Phase::bwd, l.input_grad_ns, i, mb)) return false;
      break;
    case kBwdInputComm:
    case kBwdInputComm2:
      if (!comm_op(op, l.input_grad, step == kBwdInputComm2, Phase::bwd, static_cast<int>(i), mb)) return false;
      break;
    case kBwdWeight:
      if (!compute_op(op, OpKind::imported_weight_grad, Phase::bwd, l.weight_grad_ns, i, mb)) return false;
      break;
    case kBwdWeightComm:
    case kBwdWeightComm2: {
      if (!comm_op(op, l.weight_grad, step == kBwdWeightComm2, Phase::bwd, static_cast<int>(i), mb)) return false;
      const std::uint32_t dep = step == kBwdWeightComm2 ? last_weight_comm_ : last_blocking_;
      if (dep != kNoOp) op.deps[op.dep_count++] = dep;
      last_weight_comm_ = op.id;
      return true;
    }
    case kBwdSend:
      if (!piped || !block_start || coords_.pp == 0) return false;
      p2p(op, true, false, mb);
      if (last_blocking_ != kNoOp) op.deps[op.dep_count++] = last_blocking_;
      return true;
  }
  if (last_blocking_ != kNoOp) op.deps[op.dep_count++] = last_blocking_;
  last_blocking_ = op.id;
  return true;
}

}  // namespace pf::models::workload
