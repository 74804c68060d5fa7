#include "models/training/gpu_executor.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "models/training/cross_server_collective.h"
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

GpuExecutor::PendingOp::PendingOp(const workload::Op& op)
    : id(op.id),
      kind(op.kind),
      stream(op.stream),
      phase(op.phase),
      dep_count(op.dep_count),
      launches(op.launches),
      inner_launches(op.inner_launches),
      graphed(op.graphed),
      copy_engine(op.copy_engine),
      layer(op.layer),
      microbatch(op.microbatch),
      group(op.group),
      seq(op.seq),
      peer(op.peer),
      bytes(op.bytes),
      flops(op.flops),
      deps(op.deps) {}

workload::Op GpuExecutor::PendingOp::op() const {
  workload::Op o;
  o.id = id;
  o.kind = kind;
  o.stream = stream;
  o.phase = phase;
  o.layer = layer;
  o.microbatch = microbatch;
  o.group = group;
  o.seq = seq;
  o.peer = peer;
  o.bytes = bytes;
  o.flops = flops;
  o.dep_count = dep_count;
  o.launches = launches;
  o.inner_launches = inner_launches;
  o.graphed = graphed;
  o.copy_engine = copy_engine;
  o.deps = deps;
  return o;
}

bool GpuExecutor::in_flight(std::uint32_t op) const {
  const auto last = pending_.end() - 1;  // the op being added
  const auto it = std::lower_bound(pending_.begin(), last, op,
                                   [](const PendingOp& p, std::uint32_t id) { return p.id < id; });
  return it != last && it->id == op;
}

std::size_t GpuExecutor::find(std::uint32_t op) const {
  const auto it = std::lower_bound(pending_.begin(), pending_.end(), op,
                                   [](const PendingOp& p, std::uint32_t id) { return p.id < id; });
  if (it != pending_.end() && it->id == op) return static_cast<std::size_t>(it - pending_.begin());
  throw SimulationError("training: GPU " + std::to_string(gpu()) + " completed op " + std::to_string(op) +
                        " which is not in flight");
}

GpuExecutor::HostSync GpuExecutor::host_sync_of(const workload::Op& op, const ExecutionShared& shared) {
  using workload::OpKind;
  if (op.kind == OpKind::optimizer_step || (shared.host_sync_on_loss && op.kind == OpKind::loss_fwd)) {
    return HostSync::full;
  }
  // The forward dispatch (a recomputed forward dispatches again); the
  // backward's ep_dispatch reuses the forward's split sizes.
  if (shared.host_sync_on_moe_dispatch && op.kind == OpKind::ep_dispatch &&
      (op.phase == workload::Phase::fwd || op.recompute)) {
    return HostSync::compute;
  }
  // The activation's linear offset copied to the GPU (forward and recomputed
  // alike), unless a CUDA graph replays the activation: the copy ran at capture.
  if (shared.host_sync_on_quick_geglu && op.kind == OpKind::expert_act_fwd && !op.graphed) return HostSync::compute;
  return HostSync::none;
}

// A full sync point is reached once every op before it has completed, p2p
// receives aside (they may wait on peers that are themselves waiting); a
// compute one once every compute kernel before it has.
void GpuExecutor::release_host_sync(core::SimTime now, const ExecutionShared& shared) {
  if (host_wait_ == HostSync::none) return;
  for (std::size_t i = 0; i + 1 < pending_.size(); ++i) {
    const PendingOp& p = pending_[i];
    if (host_wait_ == HostSync::compute ? p.stream == Stream::compute : p.kind != workload::OpKind::pp_recv) return;
  }
  host_wait_ = HostSync::none;
  host_clock_ = std::max(host_clock_, now) + issue_time(pending_.back(), shared);
  pending_.back().issue = host_clock_;
}

core::SimTime GpuExecutor::issue_time(const PendingOp& p, const ExecutionShared& shared) {
  if (p.graphed) return core::SimTime::from_ps(shared.graph_overhead.ps * (p.launches + p.inner_launches));
  return core::SimTime::from_ps(shared.host_overhead.ps * p.launches + shared.inner_launch_overhead.ps * p.inner_launches);
}

bool GpuExecutor::issued(core::LpContext& engine, const PendingOp& p) {
  if (p.issue <= engine.now()) return true;
  if (p.issue < wake_scheduled_ && p.issue != core::SimTime::infinity()) {
    wake_scheduled_ = p.issue;
    engine.send(p.issue, static_cast<core::LpId>(gpu()), HostIssued{p.id});
  }
  return false;
}

bool GpuExecutor::pull_ops(core::LpContext& engine, ExecutionShared& shared) {
  bool pulled = false;
  release_host_sync(engine.now(), shared);
  while (!exhausted_ && host_wait_ == HostSync::none && unstarted_compute_ < kQueuedKernels) {
    if (pending_.size() >= kMaxPending)
      throw SimulationError("training: GPU " + std::to_string(gpu()) + " has " + std::to_string(kMaxPending) +
                            " ops in flight; the program cannot make progress");
    workload::Op& op = shared.pulled;
    CostEstimate cost;
    core::SimTime shortest;
    // Straight from the program unless ops were read ahead (earliest_output).
    const bool from_program = ahead_size_ == 0;
    if (from_program ? program_done_ || !program_.next(op) : !next_op(op, cost, shortest)) {
      exhausted_ = program_done_ = true;
      break;
    }
    if (from_program && op.stream == Stream::compute) {
      cost = shared.conditions->price(gpu(), op);
      if (shared.promises) shortest = shortest_duration(cost.seconds, shared);
    }
    pulled = true;
    PendingOp& p = pending_.emplace_back(op);
    // A dependency is done unless it is still in flight: pending_ is sorted
    // by id (ids are issued in order), so a binary search over the ops
    // before this one, not a scan of their cache lines.
    for (int d = 0; d < op.dep_count; ++d)
      if (in_flight(op.deps[static_cast<std::size_t>(d)])) ++p.waiting;
    if (op.stream == Stream::compute) {
      p.seconds = cost.seconds;
      p.shortest = shortest;
      p.basis = cost.basis;
      ++unstarted_compute_;
    } else if (op.stream == Stream::copy) {
      if (shared.host_link_bytes_per_s <= 0)
        throw SimulationError("training: a host copy without a host link bandwidth (hardware.node.host_link_gbps)");
      p.seconds = static_cast<double>(op.bytes) / shared.host_link_bytes_per_s;
    }
    // Imported ops (measured times) and a zero host cost: no host model.
    if (shared.host_overhead == core::SimTime::zero() || op.seconds >= 0) continue;
    if (const HostSync sync = host_sync_of(op, shared); sync != HostSync::none) {
      host_wait_ = sync;
      p.issue = core::SimTime::infinity();
      release_host_sync(engine.now(), shared);
      continue;
    }
    host_clock_ += issue_time(p, shared);
    p.issue = host_clock_;
  }
  return pulled;
}

bool GpuExecutor::read_ahead(const ExecutionShared& shared) {
  if (program_done_ || ahead_size_ == kAheadCapacity) return false;
  if (ahead_ring_.empty()) ahead_ring_.resize(kAheadCapacity);
  AheadOp& a = ahead(ahead_size_);
  if (!program_.next(a.op)) {
    program_done_ = true;
    return false;
  }
  if (a.op.stream == Stream::compute) {
    a.cost = shared.conditions->price(gpu(), a.op);
    a.shortest = shortest_duration(a.cost.seconds, shared);
  }
  ++ahead_size_;
  return true;
}

double GpuExecutor::fastest_rate(const ExecutionShared& shared) {
  return std::max(1.0, shared.overlap_slowdown > 0 ? 1.0 / shared.overlap_slowdown : 1.0);
}

core::SimTime GpuExecutor::shortest_duration(double seconds, const ExecutionShared& shared) {
  const core::SimTime d = core::SimTime::from_seconds(seconds / fastest_rate(shared)) - core::SimTime::from_ps(1);
  return std::max(core::SimTime::zero(), d);
}

bool GpuExecutor::next_op(workload::Op& op, CostEstimate& cost, core::SimTime& shortest) {
  if (ahead_size_ == 0) return false;
  const AheadOp& a = ahead(0);
  op = a.op;
  cost = a.cost;
  shortest = a.shortest;
  ahead_head_ = (ahead_head_ + 1) % kAheadCapacity;
  --ahead_size_;
  return true;
}

bool GpuExecutor::start_ready(core::LpContext& engine, ExecutionShared& shared) {
  bool started = false;
  bool compute_blocked = computing_;
  std::array<bool, 2> copy_blocked = copying_;
  std::uint32_t groups_blocked = busy_groups_;
  // Index loop: starting an op never adds to pending_, but complete() may not run here.
  for (std::size_t i = first_unstarted_; i < pending_.size(); ++i) {
    PendingOp& p = pending_[i];
    if (p.started) continue;
    switch (p.stream) {
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
        const std::uint32_t bit = group_bit(p.group);
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
      case Stream::copy: {
        bool& blocked = copy_blocked[copy_engine(p)];
        if (blocked) continue;
        blocked = true;
        if (p.waiting == 0 && issued(engine, p)) {
          start_copy(engine, shared, p);
          started = true;
        }
        break;
      }
    }
  }
  return started;
}

void GpuExecutor::mark_started(PendingOp& p) {
  p.started = true;
  while (first_unstarted_ < pending_.size() && pending_[first_unstarted_].started) ++first_unstarted_;
}

// A compute kernel keeps at least this share of the SMs however many NCCL
// channels run beside it (the block scheduler still places its blocks as
// channels finish their chunks).
constexpr double kMaxSmShareHeld = 0.75;

double GpuExecutor::compute_rate(const ExecutionShared& shared) const {
  if (!time_.collective_active()) return 1.0;
  const double held = std::min(kMaxSmShareHeld, shared.sm_share_per_channel * nccl_channels_);
  return (1.0 - held) / shared.overlap_slowdown;
}

int GpuExecutor::channels_of(const PendingOp& p, const ExecutionShared& shared) {
  const auto kind = static_cast<std::size_t>(p.group.kind());
  if (p.copy_engine || shared.group_size[kind] <= 1 || shared.group_channels.empty()) return 0;
  return shared.group_channels[shared.group_base[kind] + p.group.index()];
}

void GpuExecutor::start_compute(core::LpContext& engine, ExecutionShared& shared, PendingOp& p) {
  const double rate = compute_rate(shared);
  time_.advance(engine.now());
  time_.compute_started();
  computing_ = true;
  computing_op_ = p.id;
  --unstarted_compute_;
  mark_started(p);
  p.start = engine.now();
  time_.compute_rate(rate);
  const core::SimTime end = kernel_.start(engine.now(), p.seconds, rate);
  schedule_compute_done(engine, shared, end);
}

void GpuExecutor::retime_compute(core::LpContext& engine, const ExecutionShared& shared) {
  if (!computing_) return;
  const double rate = compute_rate(shared);
  if (rate == kernel_.rate()) return;
  time_.advance(engine.now());
  time_.compute_rate(rate);
  const core::SimTime end = kernel_.set_rate(engine.now(), rate);
  schedule_compute_done(engine, shared, end);
}

void GpuExecutor::schedule_compute_done(core::LpContext& engine, const ExecutionShared& shared, core::SimTime end) {
  // Quiet only where the GPU answers for it with promises (earliest_output):
  // otherwise the engine would have nothing better than the earliest event.
  if (shared.promises)
    engine.send_quiet(end, ComputeDone{computing_op_, kernel_.token()});
  else
    engine.send(end, static_cast<core::LpId>(gpu()), ComputeDone{computing_op_, kernel_.token()});
}

void GpuExecutor::start_comm(core::LpContext& engine, ExecutionShared& shared, PendingOp& p) {
  time_.advance(engine.now());
  mark_started(p);
  p.start = engine.now();
  const auto kind = static_cast<std::size_t>(p.group.kind());
  if (p.stream == Stream::comm) {
    busy_groups_ |= group_bit(p.group);
    time_.collective_started();
    nccl_channels_ += channels_of(p, shared);
    retime_compute(engine, shared);
  } else {
    time_.p2p_started();
  }
  if (shared.group_size[kind] <= 1) {  // a group of one: nothing to move
    immediate_.push_back(p.id);
    return;
  }
  const std::uint32_t group = shared.group_base[kind] + p.group.index();
  if (p.stream == Stream::comm && shared.server != nullptr && shared.server->handles(group)) {
    shared.server->arrive(engine, group, p.seq, workload::collective_of(p.kind), p.bytes, gpu(), p.id,
                          shared.comm_overhead);
    return;
  }
  if (p.stream == Stream::comm && shared.cross != nullptr && shared.cross->handles(group)) {
    shared.cross->arrive(engine, group, p.seq, workload::collective_of(p.kind), p.bytes, gpu(), p.id,
                         shared.comm_overhead);
    return;
  }
  collective::Request r;
  r.op = collective_op(workload::collective_of(p.kind));
  r.group = group;
  r.seq = p.seq;
  r.bytes = p.bytes;
  r.peer = p.peer;
  if (p.kind == workload::OpKind::ep_dispatch || p.kind == workload::OpKind::ep_combine) {
    r.dedup_top_k = shared.moe_dedup_top_k;
    r.dedup_experts = shared.moe_dedup_experts;
  }
  const collective::Completion c = shared.collectives->start(engine, gpu(), r, p.id);
  if (c.done && c.not_before > engine.now())
    schedule_comm_done(engine, shared, p, c.not_before + shared.comm_overhead);
  else if (c.done)
    immediate_.push_back(p.id);
}

void GpuExecutor::start_copy(core::LpContext& engine, const ExecutionShared& shared, PendingOp& p) {
  time_.advance(engine.now());
  time_.copy_started();
  mark_started(p);
  p.start = engine.now();
  copying_[copy_engine(p)] = true;
  schedule_comm_done(engine, shared, p, engine.now() + core::SimTime::from_seconds(p.seconds));
}

void GpuExecutor::schedule_comm_done(core::LpContext& engine, const ExecutionShared& shared, PendingOp& p,
                                     core::SimTime at) {
  if (!shared.promises) {
    engine.send(at, static_cast<core::LpId>(gpu()), CommDone{p.id});
    return;
  }
  p.quiet_done = at;
  engine.send_quiet(at, CommDone{p.id});
}

void GpuExecutor::note_quiet_completion(std::uint32_t op, core::SimTime at) {
  ++version_;
  pending_[find(op)].quiet_done = at;
}

void GpuExecutor::drive(core::LpContext& engine, ExecutionShared& shared) {
  ++version_;  // every change of state ends here (or in on_comm_delivered, note_quiet_completion)
  last_now_ = engine.now();
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
  complete(engine, shared, find(op));
  drive(engine, shared);
}

void GpuExecutor::on_comm_delivered(core::LpContext& engine, ExecutionShared& shared, std::uint32_t op,
                                    core::SimTime not_before) {
  ++version_;
  last_now_ = engine.now();
  const core::SimTime at = std::max(engine.now(), not_before);
  if (shared.comm_overhead > core::SimTime::zero() || at > engine.now()) {
    schedule_comm_done(engine, shared, pending_[find(op)], at + shared.comm_overhead);
    return;
  }
  on_comm_done(engine, shared, op);
}

void GpuExecutor::on_comm_done(core::LpContext& engine, ExecutionShared& shared, std::uint32_t op) {
  const std::size_t index = find(op);
  const PendingOp& p = pending_[index];
  time_.advance(engine.now());
  if (p.stream == Stream::comm) {
    busy_groups_ &= ~group_bit(p.group);
    time_.collective_ended();
    nccl_channels_ -= channels_of(p, shared);
    retime_compute(engine, shared);
  } else if (p.stream == Stream::copy) {
    copying_[copy_engine(p)] = false;
    time_.copy_ended();
  } else {
    time_.p2p_ended();
  }
  complete(engine, shared, index);
  drive(engine, shared);
}

void GpuExecutor::complete(core::LpContext& engine, ExecutionShared& shared, std::size_t index) {
  const PendingOp& p = pending_[index];
  const std::uint32_t op = p.id;
  const std::int64_t start = p.start.ps, end = engine.now().ps, dt = end - start;
  const auto kind = static_cast<std::size_t>(p.kind);
  GpuStats::KindTotal& total = stats_.kinds[kind];
  total.ps += dt;
  ++total.count;
  stats_.end_ps = end;
  if (p.stream == Stream::compute) {
    stats_.phase_compute_ps[static_cast<std::size_t>(p.phase)] += dt;
    if (p.basis == CostBasis::calibrated || p.basis == CostBasis::interpolated) stats_.measured_ps += dt;
    stats_.bases |= static_cast<std::uint8_t>(1u << static_cast<unsigned>(p.basis));
  } else if (p.stream == Stream::comm && dt > stats_.longest_ps) {
    stats_.longest_ps = dt;
    stats_.longest = p.op();
  }
  if (record_) {
    ExecutedOp& r = shared.records->emplace_back();
    r.gpu = static_cast<std::uint32_t>(gpu());
    r.stream = static_cast<std::uint8_t>(p.stream);
    r.kind = static_cast<std::uint16_t>(p.kind);
    r.start_ps = start;
    r.end_ps = end;
    r.layer = p.layer;
    r.microbatch = p.microbatch;
    r.phase = static_cast<std::uint8_t>(p.phase);
    r.bytes = p.bytes;
    r.flops = p.flops;
    r.group = p.group.raw();
  }
  for (std::size_t i = first_unstarted_; i < pending_.size(); ++i) {
    PendingOp& other = pending_[i];
    for (int d = 0; d < other.dep_count; ++d)
      if (other.deps[static_cast<std::size_t>(d)] == op) --other.waiting;
  }
  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(index));
  if (index < first_unstarted_) --first_unstarted_;
}

std::string GpuExecutor::stuck_description() const {
  std::string s = "GPU " + std::to_string(gpu()) + ":";
  int shown = 0;
  for (const PendingOp& p : pending_) {
    if (shown++ == 4) break;
    s += " op " + std::to_string(p.id) + " " + std::string(workload::kind_name(p.kind)) +
         (p.started ? " (started" : " (waiting on " + std::to_string(p.waiting) + " deps") +
         (p.group.is_none() ? std::string() : ", " + workload::RankLayout::group_name(p.group) + " seq " +
                                                    std::to_string(p.seq)) +
         ")";
  }
  return s;
}

}  // namespace pf::models::training
