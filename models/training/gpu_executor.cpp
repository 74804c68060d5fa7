#include "models/training/gpu_executor.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "models/training/server_collective.h"
#include "models/workload/rank_layout.h"

namespace pf::models::training {
namespace {

using workload::Stream;

// The host stops running ahead once this many kernels wait to start.
constexpr int kQueuedKernels = 2;
// A safety bound on ops in flight; a program that needs more is a generator bug.
constexpr std::size_t kMaxPending = 4096;

std::uint32_t group_bit(workload::GroupId g) { return 1u << static_cast<unsigned>(g.kind()); }

}  // namespace

collective::Op collective_op(workload::Collective c) {
  switch (c) {
    case workload::Collective::all_reduce: return collective::Op::all_reduce;
    case workload::Collective::all_gather: return collective::Op::all_gather;
    case workload::Collective::reduce_scatter: return collective::Op::reduce_scatter;
    case workload::Collective::all_to_all: return collective::Op::all_to_all;
    case workload::Collective::ring_exchange: return collective::Op::send_recv;
    case workload::Collective::send: return collective::Op::send;
    case workload::Collective::recv: return collective::Op::recv;
    case workload::Collective::none: break;
  }
  throw SimulationError("training: op is not communication");
}

GpuExecutor::GpuExecutor(ProgramSource program, bool record) : program_(std::move(program)), record_(record) {
  pending_.reserve(32);
  immediate_.reserve(4);
}

std::size_t GpuExecutor::find(std::uint32_t op) const {
  for (std::size_t i = 0; i < pending_.size(); ++i)
    if (pending_[i].op.id == op) return i;
  throw SimulationError("training: GPU " + std::to_string(gpu()) + " completed op " + std::to_string(op) +
                        " which is not in flight");
}

bool GpuExecutor::is_host_sync(const workload::Op& op, const ExecutionShared& shared) const {
  return op.kind == workload::OpKind::optimizer_step || (shared.host_sync_on_loss && op.kind == workload::OpKind::loss_fwd);
}

// A sync point is reached once every op before it has completed, p2p receives
// aside (they may wait on peers that are themselves waiting).
void GpuExecutor::release_host_sync(core::SimTime now, const ExecutionShared& shared) {
  if (!host_blocked_) return;
  for (std::size_t i = 0; i + 1 < pending_.size(); ++i) {
    if (pending_[i].op.kind != workload::OpKind::pp_recv) return;
  }
  host_blocked_ = false;
  host_clock_ = std::max(host_clock_, now) + shared.host_overhead;
  pending_.back().issue = host_clock_;
}

bool GpuExecutor::issued(core::LpContext& engine, const PendingOp& p) {
  if (p.issue <= engine.now()) return true;
  if (p.issue < wake_scheduled_ && p.issue != core::SimTime::infinity()) {
    wake_scheduled_ = p.issue;
    engine.send(p.issue, static_cast<core::LpId>(gpu()), HostIssued{p.op.id});
  }
  return false;
}

bool GpuExecutor::pull_ops(core::LpContext& engine, const ExecutionShared& shared) {
  bool pulled = false;
  release_host_sync(engine.now(), shared);
  while (!exhausted_ && !host_blocked_ && unstarted_compute_ < kQueuedKernels) {
    if (pending_.size() >= kMaxPending)
      throw SimulationError("training: GPU " + std::to_string(gpu()) + " has " + std::to_string(kMaxPending) +
                            " ops in flight; the program cannot make progress");
    PendingOp& p = pending_.emplace_back();
    if (!program_.next(p.op)) {
      pending_.pop_back();
      exhausted_ = true;
      break;
    }
    pulled = true;
    // A dependency is done unless it is still in flight (ids are issued in order).
    for (int d = 0; d < p.op.dep_count; ++d)
      for (std::size_t i = 0; i + 1 < pending_.size(); ++i)
        if (pending_[i].op.id == p.op.deps[static_cast<std::size_t>(d)]) {
          ++p.waiting;
          break;
        }
    if (p.op.stream == Stream::compute) {
      p.cost = shared.conditions->price(gpu(), p.op);
      ++unstarted_compute_;
    }
    // Imported ops (measured times) and a zero host cost: no host model.
    if (shared.host_overhead == core::SimTime::zero() || p.op.seconds >= 0) continue;
    if (is_host_sync(p.op, shared)) {
      host_blocked_ = true;
      p.issue = core::SimTime::infinity();
      release_host_sync(engine.now(), shared);
      continue;
    }
    host_clock_ += shared.host_overhead;
    p.issue = host_clock_;
  }
  return pulled;
}

bool GpuExecutor::start_ready(core::LpContext& engine, ExecutionShared& shared) {
  bool started = false;
  bool compute_blocked = computing_;
  std::uint32_t groups_blocked = busy_groups_;
  // Index loop: starting an op never adds to pending_, but complete() may not run here.
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    PendingOp& p = pending_[i];
    if (p.started) continue;
    switch (p.op.stream) {
      case Stream::compute: {
        if (compute_blocked) continue;
        compute_blocked = true;
        const bool waiting_for_host = p.waiting == 0 && !issued(engine, p);
        if (waiting_for_host != host_waiting_) {
          time_.advance(engine.now());
          time_.host_wait(waiting_for_host);
          host_waiting_ = waiting_for_host;
        }
        if (p.waiting == 0 && !waiting_for_host) {
          start_compute(engine, shared, p);
          started = true;
        }
        break;
      }
      case Stream::comm: {
        const std::uint32_t bit = group_bit(p.op.group);
        if (groups_blocked & bit) continue;
        groups_blocked |= bit;
        if (p.waiting == 0 && issued(engine, p)) {
          start_comm(engine, shared, p);
          started = true;
        }
        break;
      }
      case Stream::p2p:
        if (p.waiting == 0 && issued(engine, p)) {
          start_comm(engine, shared, p);
          started = true;
        }
        break;
    }
  }
  return started;
}

void GpuExecutor::start_compute(core::LpContext& engine, ExecutionShared& shared, PendingOp& p) {
  const double rate = time_.collective_active() ? 1.0 / shared.overlap_slowdown : 1.0;
  time_.advance(engine.now());
  time_.compute_started();
  computing_ = true;
  computing_op_ = p.op.id;
  --unstarted_compute_;
  p.started = true;
  p.start = engine.now();
  const core::SimTime end = kernel_.start(engine.now(), p.cost.seconds, rate);
  engine.send(end, static_cast<core::LpId>(gpu()), ComputeDone{p.op.id, kernel_.token()});
}

void GpuExecutor::retime_compute(core::LpContext& engine, const ExecutionShared& shared) {
  if (!computing_) return;
  const double rate = time_.collective_active() ? 1.0 / shared.overlap_slowdown : 1.0;
  if (rate == kernel_.rate()) return;
  const core::SimTime end = kernel_.set_rate(engine.now(), rate);
  engine.send(end, static_cast<core::LpId>(gpu()), ComputeDone{computing_op_, kernel_.token()});
}

void GpuExecutor::start_comm(core::LpContext& engine, ExecutionShared& shared, PendingOp& p) {
  time_.advance(engine.now());
  p.started = true;
  p.start = engine.now();
  const auto kind = static_cast<std::size_t>(p.op.group.kind());
  if (p.op.stream == Stream::comm) {
    busy_groups_ |= group_bit(p.op.group);
    time_.collective_started();
    retime_compute(engine, shared);
  } else {
    time_.p2p_started();
  }
  if (shared.group_size[kind] <= 1) {  // a group of one: nothing to move
    immediate_.push_back(p.op.id);
    return;
  }
  const std::uint32_t group = shared.group_base[kind] + p.op.group.index();
  if (p.op.stream == Stream::comm && shared.server != nullptr && shared.server->handles(group)) {
    shared.server->arrive(engine, group, p.op.seq, workload::collective_of(p.op.kind), p.op.bytes, gpu(), p.op.id,
                          shared.comm_overhead);
    return;
  }
  collective::Request r;
  r.op = collective_op(workload::collective_of(p.op.kind));
  r.group = group;
  r.seq = p.op.seq;
  r.bytes = p.op.bytes;
  r.peer = p.op.peer;
  const collective::Completion c = shared.collectives->start(engine, gpu(), r, p.op.id);
  if (c.done && c.not_before > engine.now())
    engine.send(c.not_before + shared.comm_overhead, static_cast<core::LpId>(gpu()), CommDone{p.op.id});
  else if (c.done)
    immediate_.push_back(p.op.id);
}

void GpuExecutor::drive(core::LpContext& engine, ExecutionShared& shared) {
  for (;;) {
    bool progressed = pull_ops(engine, shared);
    progressed |= start_ready(engine, shared);
    while (!immediate_.empty()) {
      const std::uint32_t op = immediate_.back();
      immediate_.pop_back();
      on_comm_delivered(engine, shared, op);
      progressed = true;
    }
    if (!progressed) return;
  }
}

void GpuExecutor::on_compute_done(core::LpContext& engine, ExecutionShared& shared, std::uint32_t op,
                                  std::uint32_t token) {
  if (!computing_ || op != computing_op_ || token != kernel_.token()) return;  // re-timed since
  time_.advance(engine.now());
  time_.compute_ended();
  computing_ = false;
  complete(engine, shared, op);
  drive(engine, shared);
}

void GpuExecutor::on_comm_delivered(core::LpContext& engine, ExecutionShared& shared, std::uint32_t op,
                                    core::SimTime not_before) {
  const core::SimTime at = std::max(engine.now(), not_before);
  if (shared.comm_overhead > core::SimTime::zero() || at > engine.now()) {
    engine.send(at + shared.comm_overhead, static_cast<core::LpId>(gpu()), CommDone{op});
    return;
  }
  on_comm_done(engine, shared, op);
}

void GpuExecutor::on_comm_done(core::LpContext& engine, ExecutionShared& shared, std::uint32_t op) {
  const PendingOp& p = pending_[find(op)];
  time_.advance(engine.now());
  if (p.op.stream == Stream::comm) {
    busy_groups_ &= ~group_bit(p.op.group);
    time_.collective_ended();
    retime_compute(engine, shared);
  } else {
    time_.p2p_ended();
  }
  complete(engine, shared, op);
  drive(engine, shared);
}

void GpuExecutor::complete(core::LpContext& engine, ExecutionShared& shared, std::uint32_t op) {
  const std::size_t index = find(op);
  const PendingOp& p = pending_[index];
  const std::int64_t start = p.start.ps, end = engine.now().ps, dt = end - start;
  const auto kind = static_cast<std::size_t>(p.op.kind);
  stats_.kind_ps[kind] += dt;
  ++stats_.kind_count[kind];
  stats_.end_ps = end;
  if (p.op.stream == Stream::compute) {
    stats_.phase_compute_ps[static_cast<std::size_t>(p.op.phase)] += dt;
    if (p.cost.basis == CostBasis::calibrated || p.cost.basis == CostBasis::interpolated) stats_.measured_ps += dt;
    stats_.bases |= static_cast<std::uint8_t>(1u << static_cast<unsigned>(p.cost.basis));
  } else if (p.op.stream == Stream::comm && dt > stats_.longest_ps) {
    stats_.longest_ps = dt;
    stats_.longest = p.op;
  }
  if (record_) {
    ExecutedOp& r = shared.records->emplace_back();
    r.gpu = static_cast<std::uint32_t>(gpu());
    r.stream = static_cast<std::uint8_t>(p.op.stream);
    r.kind = static_cast<std::uint16_t>(p.op.kind);
    r.start_ps = start;
    r.end_ps = end;
    r.layer = p.op.layer;
    r.microbatch = p.op.microbatch;
    r.phase = static_cast<std::uint8_t>(p.op.phase);
    r.bytes = p.op.bytes;
    r.flops = p.op.flops;
    r.group = p.op.group.raw();
  }
  for (PendingOp& other : pending_)
    for (int d = 0; d < other.op.dep_count; ++d)
      if (other.op.deps[static_cast<std::size_t>(d)] == op) --other.waiting;
  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(index));
}

std::string GpuExecutor::stuck_description() const {
  std::string s = "GPU " + std::to_string(gpu()) + ":";
  int shown = 0;
  for (const PendingOp& p : pending_) {
    if (shown++ == 4) break;
    s += " op " + std::to_string(p.op.id) + " " + std::string(workload::kind_name(p.op.kind)) +
         (p.started ? " (started" : " (waiting on " + std::to_string(p.waiting) + " deps") +
         (p.op.group.is_none() ? std::string() : ", " + workload::RankLayout::group_name(p.op.group) + " seq " +
                                                    std::to_string(p.op.seq)) +
         ")";
  }
  return s;
}

}  // namespace pf::models::training
