#include "models/workload/simai_program.h"

#include <algorithm>
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

// Steps of one line. Forward: compute, collective(s). Backward: input-gradient
// compute and collective(s), weight-gradient compute and collective(s).
enum FwdStep { kFwdCompute, kFwdComm, kFwdComm2, kFwdSteps };
enum BwdStep { kBwdInput, kBwdInputComm, kBwdInputComm2, kBwdWeight, kBwdWeightComm, kBwdWeightComm2, kBwdSteps };

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
  simai_pipeline(w);  // here, once, rather than in every GPU's program mid-run
  return p;
}

SimaiProgram::SimaiProgram(const SimaiWorkload& w, const RankLayout& layout, int gpu)
    : w_(&w), layout_(&layout), gpu_(gpu), coords_(layout.coords(gpu)), schedule_(w, coords_.pp) {
  done_ = w.layers.empty();
  seg_.microbatch = 0;  // MICRO files: one micro-batch
}

double SimaiProgram::progress() const {
  if (done_) return 1;
  if (w_->policy == SimaiPolicy::micro) {  // one pass over the lines, three ops each
    const double lines = static_cast<double>(w_->layers.size());
    return lines > 0 ? (static_cast<double>(pos_) + stage_ / 3.0) / lines : 0;
  }
  // segment_ counts the segments started; the current one by its lines.
  const int segments = schedule_.segments();
  if (segments == 0 || segment_ == 0) return 0;
  const double lines = static_cast<double>(seg_.end - seg_.begin) + 2;  // receive, lines, send
  const double within = in_segment_ ? std::min(1.0, static_cast<double>(pos_) / lines) : 1.0;
  return (segment_ - 1 + within) / segments;
}

bool SimaiProgram::next(Op& op) {
  while (!done_) {
    const bool emitted = w_->policy == SimaiPolicy::micro ? emit_micro(op) : emit_segment(op);
    if (emitted) return true;
  }
  return false;
}

void SimaiProgram::begin(Op& op, OpKind kind, Phase phase, int line) {
  reset(op);
  op.id = next_id_++;
  op.kind = kind;
  op.phase = phase;
  op.stream = stream_of(kind);
  op.layer = line;
  op.microbatch = seg_.microbatch;
  op.chunk = static_cast<std::int16_t>(seg_.chunk);
}

bool SimaiProgram::compute_op(Op& op, OpKind kind, Phase phase, std::int64_t ns, std::size_t line) {
  if (ns <= 0) return false;
  begin(op, kind, phase, static_cast<int>(line));
  op.seconds = static_cast<double>(ns) * 1e-9;
  return true;
}

bool SimaiProgram::comm_op(Op& op, const SimaiComm& c, bool second, Phase phase, std::size_t line) {
  if (c.op == Collective::none || (second && !c.then_all_to_all)) return false;
  const Collective coll = second ? Collective::all_to_all : c.op;
  begin(op, comm_kind(coll), phase, static_cast<int>(line));
  op.group = layout_->group_of(c.group, gpu_);
  op.seq = seq_[static_cast<std::size_t>(c.group)]++;
  op.bytes = c.bytes;
  return true;
}

void SimaiProgram::p2p(Op& op, bool send) {
  begin(op, send ? OpKind::pp_send : OpKind::pp_recv, seg_.forward ? Phase::fwd : Phase::bwd, -1);
  Coords peer = coords_;
  peer.pp = send ? seg_.send_stage : seg_.recv_stage;
  op.peer = layout_->rank(peer);
  op.group = layout_->group_of(GroupKind::pp, gpu_);
  op.seq = send ? seg_.send_tag : seg_.recv_tag;
  op.bytes = w_->pp_comm_bytes;
}

// What a blocking op waits for: the last blocking op (compute or collective),
// and the segment's receive until something has waited for it.
void SimaiProgram::wait_blocking(Op& op) const {
  if (last_blocking_ != kNoOp) op.deps[op.dep_count++] = last_blocking_;
  if (recv_ != kNoOp) op.deps[op.dep_count++] = recv_;
}

void SimaiProgram::blocking(Op& op) {
  wait_blocking(op);
  last_blocking_ = op.id;
  recv_ = kNoOp;
}

// MICRO files, in file order: each line's weight-gradient compute, then its
// collective over all GPUs, which the next line waits for (isolated, as measured).
bool SimaiProgram::emit_micro(Op& op) {
  const std::size_t i = pos_;
  const SimaiLayer& l = w_->layers[i];
  const int step = stage_++;
  if (stage_ == 3) {
    stage_ = 0;
    done_ = ++pos_ == w_->layers.size();
  }
  if (step == 0) {
    if (!compute_op(op, OpKind::imported_weight_grad, Phase::bwd, l.weight_grad_ns, i)) return false;
  } else if (!comm_op(op, l.weight_grad, step == 2, Phase::bwd, i)) {
    return false;
  }
  blocking(op);
  return true;
}

// Each call advances one step of the current segment (receive, a line's step,
// send); true when it produced an op.
bool SimaiProgram::emit_segment(Op& op) {
  if (!in_segment_) {
    if (segment_ == schedule_.segments()) {
      done_ = true;
      return false;
    }
    seg_ = schedule_.segment(segment_++);
    in_segment_ = true;
    pos_ = 0;
    stage_ = 0;
    recv_ = kNoOp;
  }
  const std::size_t lines = seg_.end - seg_.begin;
  if (pos_ == 0) {
    pos_ = 1;
    if (!seg_.recv) return false;
    p2p(op, false);
    recv_ = op.id;  // a receive waits for nothing: it is posted at once
    return true;
  }
  if (pos_ <= lines) {
    const std::size_t k = pos_ - 1;
    const int step = stage_++;
    if (stage_ == (seg_.forward ? static_cast<int>(kFwdSteps) : static_cast<int>(kBwdSteps))) {
      stage_ = 0;
      ++pos_;
    }
    return seg_.forward ? emit_forward(op, seg_.begin + k, step) : emit_backward(op, seg_.end - 1 - k, step);
  }
  in_segment_ = false;
  if (!seg_.send) return false;
  p2p(op, true);
  wait_blocking(op);
  return true;
}

bool SimaiProgram::emit_forward(Op& op, std::size_t line, int step) {
  const SimaiLayer& l = w_->layers[line];
  if (step == kFwdCompute) {
    if (!compute_op(op, OpKind::imported_fwd, Phase::fwd, l.fwd_ns, line)) return false;
  } else if (!comm_op(op, l.fwd, step == kFwdComm2, Phase::fwd, line)) {
    return false;
  }
  blocking(op);
  return true;
}

bool SimaiProgram::emit_backward(Op& op, std::size_t line, int step) {
  const SimaiLayer& l = w_->layers[line];
  switch (step) {
    case kBwdInput:
      if (!compute_op(op, OpKind::imported_input_grad, Phase::bwd, l.input_grad_ns, line)) return false;
      break;
    case kBwdInputComm:
    case kBwdInputComm2:
      if (!comm_op(op, l.input_grad, step == kBwdInputComm2, Phase::bwd, line)) return false;
      break;
    case kBwdWeight:
      if (!compute_op(op, OpKind::imported_weight_grad, Phase::bwd, l.weight_grad_ns, line)) return false;
      break;
    default: {  // the weight-gradient collective(s): not blocking
      if (!comm_op(op, l.weight_grad, step == kBwdWeightComm2, Phase::bwd, line)) return false;
      if (step == kBwdWeightComm) wait_blocking(op);
      else if (last_weight_comm_ != kNoOp) op.deps[op.dep_count++] = last_weight_comm_;
      last_weight_comm_ = op.id;
      return true;
    }
  }
  blocking(op);
  return true;
}

}  // namespace pf::models::workload
