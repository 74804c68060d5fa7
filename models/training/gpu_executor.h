// One GPU running its program: the op stream of models/workload executed on a
// compute stream and communication streams, as a CUDA device driven by
// PyTorch runs it.
//
// Issue. The program is read lazily, in issue order, the way the host runs
// ahead of the device: ops are pulled until two compute kernels are queued
// and not yet started (or the program ends). Communication issued in between
// is thereby posted as soon as its place in the program is reached, which is
// what lets DP buckets, ZeRO prefetches, CP exchanges and pipeline receives
// overlap the compute that follows them.
//
// Start rules (op.h's contract):
//  - compute: one kernel at a time, in issue order, once its dependencies are done;
//    while collectives are under way on this GPU it loses the SMs their NCCL
//    channels hold (compute_rate) and progresses `overlap_slowdown`
//    times slower (communication kernels take SMs and memory bandwidth), and
//    it is re-timed whenever the first collective starts or the last ends
//    (kernel_progress.h), so only the overlapped part of a kernel is slowed;
//  - collectives: in issue order within their group (one NCCL communicator per
//    group, one collective at a time), once their dependencies are done;
//    collectives of different groups run side by side;
//  - pipeline sends once their dependencies are done; receives are posted at
//    issue and complete when the data has arrived;
//  - host copies (activation offloading): one at a time per direction (a
//    copy engine each way), in issue order, once their dependencies are
//    done, taking bytes / host_link_bytes_per_s; they share nothing with
//    compute (copy engines, not SMs).
// Every communication op ends `communication_overhead_us` after the network
// delivered its last byte (NCCL launch and proxy handshake).
//
// Host. One host thread issues the ops in program order, each costing
// `host_overhead` of host time per kernel it launches (Op::launches: a grouped
// expert GEMM launches one GEMM per local expert) or per NCCL call, or
// `graph_overhead` per kernel where its module replays from a CUDA graph
// (Op::graphed, training.cuda_graph_scope); an op
// starts no earlier than its issue. The host runs ahead of the GPU without bound
// except at synchronisation points, where it waits until every op issued
// before (p2p receives aside) has completed: before the optimizer step
// (gradient-norm .item()) and, with host_sync_on_loss, at each micro-batch's
// loss; and, with host_sync_on_moe_dispatch, until every compute kernel
// issued before has completed, before each MoE layer's forward (and
// recomputed forward) token dispatch and, with host_sync_on_quick_geglu,
// before each routed experts' quick-GEGLU activation. Imported (SimAI) workloads carry measured kernel times and no host
// model. A compute stream idle only because its next kernel is not issued
// yet is charged as host wait (TimeAccounting).
//
// Memory: ~100 bytes per op in flight (a few dozen at most) plus the program
// cursor; totals per GPU are a few hundred bytes plus one counter per op kind.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/lp_context.h"
#include "models/collective/collective_engine.h"
#include "models/compute/cost_estimate.h"
#include "models/training/gpu_stats.h"
#include "models/training/kernel_progress.h"
#include "models/training/gpu_conditions.h"
#include "models/training/run_result.h"
#include "models/training/time_accounting.h"
#include "models/training/training_events.h"
#include "models/training/program_source.h"

namespace pf::models::training {

// The collective layer's operation for a workload collective.
collective::Op collective_op(workload::Collective c);

// What every GPU of a rank shares while executing.
class ServerCollectives;
class CrossServerCollectives;

struct ExecutionShared {
  collective::CollectiveEngine* collectives = nullptr;
  ServerCollectives* server = nullptr;  // closed-form collectives inside a server; null: all through the network
  CrossServerCollectives* cross = nullptr;  // closed-form collectives across servers (analytical network); may be null
  // Per GPU: how many GPUs its figures stand for (replica folding: a
  // representative its class, 1 without folding); op counts are weighted by it.
  const std::vector<int>* gpu_weight = nullptr;
  const GpuConditions* conditions = nullptr;  // prices compute ops per GPU (hardware, faults)
  // Dense collective-layer group index of a workload group; kNoGroup for
  // groups of one GPU (their collectives complete at once).
  std::vector<std::uint32_t> group_base;  // per GroupKind
  std::vector<int> group_size;            // per GroupKind
  // Compute beside NCCL kernels (OpEfficiency::overlap_sm_cost): the share
  // of a GPU's SMs one NCCL channel holds, each dense collective group's
  // channel count (NCCL's nChannels for that communicator), and the fixed
  // extra slowdown.
  double sm_share_per_channel = 0;
  std::vector<std::uint16_t> group_channels;
  double overlap_slowdown = 1.0;
  core::SimTime comm_overhead;
  // The copy engines' rate to and from host memory, bytes/s (activation
  // offloading: hardware.node.host_link_gbps).
  double host_link_bytes_per_s = 0;
  core::SimTime host_overhead;    // host time to issue one op; zero = no host model
  core::SimTime graph_overhead;   // the same for a kernel replayed from a CUDA graph (Op::graphed)
  core::SimTime inner_launch_overhead;  // a kernel compiled code launches inside an op's call (Op::inner_launches)
  bool host_sync_on_loss = false;
  bool host_sync_on_moe_dispatch = false;  // before each forward EP dispatch, on the compute stream
  bool host_sync_on_quick_geglu = false;   // before each routed experts' activation (forward, recomputed)
  // simulation.lookahead: dynamic on more than one rank: completions are
  // quiet events and GPUs state promises (earliest_output, core/promise_board.h).
  bool promises = false;
  // The flex (DeepEP, HybridEP) dispatcher's token all-to-alls cross to a
  // server once per token (collective::Request::dedup_top_k); 0: plain.
  int moe_dedup_top_k = 0;
  int moe_dedup_experts = 0;
  std::vector<ExecutedOp>* records = nullptr;  // this rank's timeline rows
  // Where an executor reads its program's next op (~200 bytes, of which
  // pending_ keeps ~100): one slot for the rank, hot in cache, left as the
  // last op was written (the programs reset every op they emit), so reading
  // an op costs no zeroing of a fresh one.
  workload::Op pulled;
};

class GpuExecutor {
 public:
  GpuExecutor(ProgramSource program, bool record);

  // Pull, start and complete whatever can proceed at engine.now().
  void drive(core::LpContext& engine, ExecutionShared& shared);
  // token: the ComputeDone's; a stale finish (the kernel was re-timed since) is ignored.
  void on_compute_done(core::LpContext& engine, ExecutionShared& shared, std::uint32_t op, std::uint32_t token);
  // A communication op's network part finished (collective layer completion).
  // A collective or p2p op's part is complete; it counts as done at
  // max(now, not_before) plus the communication overhead.
  void on_comm_delivered(core::LpContext& engine, ExecutionShared& shared, std::uint32_t op,
                         core::SimTime not_before = core::SimTime::zero());
  void on_comm_done(core::LpContext& engine, ExecutionShared& shared, std::uint32_t op);
  // The host has issued what was waiting for it.
  void on_host_issued(core::LpContext& engine, ExecutionShared& shared) {
    wake_scheduled_ = core::SimTime::infinity();
    drive(engine, shared);
  }

  // A server's last member scheduled this GPU's op to complete at `at` as a
  // quiet event (ServerCollectives); the GPU's promise must be stated again.
  void note_quiet_completion(std::uint32_t op, core::SimTime at);
  // The GPU's promise (core/promise_board.h): the earliest time at which its
  // quiet events (its own completions: gpu_output_bound.cpp), with no other
  // event reaching it, could send to another LP. Infinity when none is
  // pending. Reads the program ahead of the host where needed.
  // after_quiet: the event just handled was one of its quiet events.
  core::SimTime earliest_output(core::SimTime now, bool after_quiet, const ExecutionShared& shared);

  int gpu() const { return program_.gpu(); }
  double progress() const { return program_.progress(); }  // of its program's issue, 0..1
  bool finished() const { return exhausted_ && pending_.empty(); }
  // Why an unfinished GPU is stuck (for the deadlock error).
  std::string stuck_description() const;

  const GpuStats& stats() const { return stats_; }
  const TimeAccounting& time() const { return time_; }

 private:
  // What the executor keeps of an op in flight: the program's op without its
  // shape (priced at issue and not read again) and the cost reduced to what
  // completion needs. A GPU has a few dozen ops in flight at most, scanned on
  // every start and completion and moved on every erase: at ~100 bytes each
  // they span a few cache lines, not a few dozen (the program's op is ~200).
  struct PendingOp {
    std::uint32_t id = 0;
    workload::OpKind kind = workload::OpKind::norm_fwd;
    workload::Stream stream = workload::Stream::compute;
    workload::Phase phase = workload::Phase::fwd;
    bool started = false;
    std::uint8_t waiting = 0;   // dependencies not yet done
    std::uint8_t dep_count = 0;
    std::uint16_t launches = 1;  // host issues (workload::Op::launches)
    std::uint16_t inner_launches = 0;  // compiled launches inside its call (workload::Op::inner_launches)
    bool graphed = false;        // replayed from a CUDA graph (workload::Op::graphed)
    bool copy_engine = false;    // a collective on the copy engines: no NCCL channels (workload::Op::copy_engine)
    CostBasis basis = CostBasis::roofline_only;  // compute ops
    std::int32_t layer = -1;
    std::int32_t microbatch = -1;
    workload::GroupId group;
    std::uint32_t seq = 0;
    std::int32_t peer = -1;
    std::uint64_t bytes = 0;
    double flops = 0;
    double seconds = 0;         // compute ops: the priced duration
    core::SimTime shortest;     // compute ops: the least that duration can become (shortest_duration)
    core::SimTime start;
    core::SimTime issue;        // when the host has issued it (max: not yet known)
    core::SimTime quiet_done = core::SimTime::infinity();  // its completion, when scheduled as a quiet event
    std::array<std::uint32_t, workload::kMaxDeps> deps{};

    // What the executor keeps of a program's op, and back (for reports: the
    // op less the fields dropped). The two are each other's field lists.
    // Built in place in pending_ (emplace_back(op)): a temporary copied in
    // reads back as whole vectors what was just written field by field,
    // which stalls store forwarding on every op.
    PendingOp() = default;
    explicit PendingOp(const workload::Op& op);
    workload::Op op() const;
  };

  bool pull_ops(core::LpContext& engine, ExecutionShared& shared);
  // Whether op is among pending_'s ops before its last (the one being pulled).
  bool in_flight(std::uint32_t op) const;
  // The next op read ahead (compute ops come priced); false when none is.
  bool next_op(workload::Op& op, CostEstimate& cost, core::SimTime& shortest);
  bool read_ahead(const ExecutionShared& shared);  // one more op into ahead_; false at the program's end
  // Full: every op issued before has completed (p2p receives aside).
  // Compute: every compute-stream op issued before has completed.
  enum class HostSync : std::uint8_t { none, full, compute };
  static HostSync host_sync_of(const workload::Op& op, const ExecutionShared& shared);
  void release_host_sync(core::SimTime now, const ExecutionShared& shared);
  // Host time to issue p: one host_overhead per kernel it launches, one
  // inner_launch_overhead per kernel its call launches from compiled code
  // (a graph replays either at graph_overhead).
  static core::SimTime issue_time(const PendingOp& p, const ExecutionShared& shared);
  // False (and a wake-up event scheduled) while the host has not issued p.
  bool issued(core::LpContext& engine, const PendingOp& p);
  bool start_ready(core::LpContext& engine, ExecutionShared& shared);
  void start_compute(core::LpContext& engine, ExecutionShared& shared, PendingOp& p);
  void start_comm(core::LpContext& engine, ExecutionShared& shared, PendingOp& p);
  void start_copy(core::LpContext& engine, const ExecutionShared& shared, PendingOp& p);
  void complete(core::LpContext& engine, ExecutionShared& shared, std::size_t index);  // of pending_
  void schedule_compute_done(core::LpContext& engine, const ExecutionShared& shared, core::SimTime end);
  // CommDone for p at `at`: quiet under promises (p.quiet_done records it).
  void schedule_comm_done(core::LpContext& engine, const ExecutionShared& shared, PendingOp& p, core::SimTime at);
  // A collective started or ended: re-time the running kernel if the rate changed.
  void retime_compute(core::LpContext& engine, const ExecutionShared& shared);
  // The rate a compute kernel progresses at beside the collectives under way.
  double compute_rate(const ExecutionShared& shared) const;
  // NCCL channels of a collective op's group (0 for a group of one GPU or a copy-engine collective).
  static int channels_of(const PendingOp& p, const ExecutionShared& shared);
  std::size_t find(std::uint32_t op) const;
  void mark_started(PendingOp& p);

  ProgramSource program_;
  bool record_;
  bool exhausted_ = false;
  bool computing_ = false;
  // A copy to the host (engine 0) or from it (engine 1) is under way: the
  // two directions run on separate copy engines.
  std::array<bool, 2> copying_{};
  static std::size_t copy_engine(const PendingOp& p) { return p.kind == workload::OpKind::reload_h2d ? 1 : 0; }
  std::uint32_t computing_op_ = 0;
  KernelProgress kernel_;
  int unstarted_compute_ = 0;
  std::uint32_t busy_groups_ = 0;  // bit per GroupKind: a collective of that group is under way
  int nccl_channels_ = 0;           // channels of the collectives under way (their SMs are NCCL's)
  core::SimTime host_clock_;        // when the host has issued every op pulled so far
  HostSync host_wait_ = HostSync::none;  // the newest pulled op's sync point, none once reached
  bool host_waiting_ = false;       // the next kernel is ready but not issued (TimeAccounting's host wait)
  core::SimTime wake_scheduled_ = core::SimTime::infinity();  // pending HostIssued event, max: none
  std::vector<PendingOp> pending_;  // issue order (ascending ids)
  // Every op before this index has started: starting scans from here, and a
  // completion looks for dependants from here (a started op has none left).
  std::size_t first_unstarted_ = 0;
  std::vector<std::uint32_t> immediate_;  // completed while starting (no event needed)
  // Ops read from the program beyond what the host has issued, for
  // earliest_output(): the host pulls from here first (same order, same prices).
  struct AheadOp {
    workload::Op op;
    CostEstimate cost;
    core::SimTime shortest;  // compute ops: shortest_duration(cost.seconds)
  };
  // A kernel of `seconds` at the fastest rate it can run (1, or more where
  // overlap_slowdown < 1), less a picosecond of rounding: earliest_output's
  // lower bound on its duration.
  static core::SimTime shortest_duration(double seconds, const ExecutionShared& shared);
  // The fastest rate a kernel can run at: 1, or 1 / overlap_slowdown if that is faster.
  static double fastest_rate(const ExecutionShared& shared);
  // A ring of at most kAheadCapacity ops: no allocation once built. Also how
  // far past the host's issue window output_bound reads the program: 8 gives
  // promises that bind fewer windows than 4 did, and as many as 16 or 32
  // (models/training/README.md, "Dynamic lookahead").
  static constexpr std::size_t kAheadCapacity = 8;
  std::vector<AheadOp> ahead_ring_;
  std::size_t ahead_head_ = 0, ahead_size_ = 0;
  AheadOp& ahead(std::size_t i) { return ahead_ring_[(ahead_head_ + i) % kAheadCapacity]; }
  bool program_done_ = false;  // the program has no op left to read ahead
  // earliest_output()'s memo: the executor's state changes at every entry
  // point (version_), not when the GPU's LP only forwards network traffic.
  core::SimTime output_bound(const ExecutionShared& shared);
  core::SimTime next_quiet_event() const;  // the running kernel's end or a scheduled quiet completion
  std::uint64_t version_ = 0;
  core::SimTime last_now_;  // the time of the last event that reached the executor
  std::uint64_t promised_version_ = ~std::uint64_t{0};
  core::SimTime promised_;
  TimeAccounting time_;
  GpuStats stats_;
};

}  // namespace pf::models::training
