// GpuExecutor::earliest_output: the GPU's promise to the engine (dynamic
// lookahead, core/promise_board.h).
//
// A GPU's quiet events are its own completions: its kernels' ends, the
// completions it schedules for its collectives, p2p ops and copies, and those
// a server's last member sends it for a closed-form collective inside the
// server. Handling one completes an op, starts the next kernel, lets the host
// issue more and starts whatever communication became ready; only that last
// step — start_comm — sends to another LP (copies and host wake-ups are events
// to the GPU itself), and a closed-form collective inside the server sends
// only quiet completions, which count at their own time, no earlier than the
// call's overhead after its start. So the promise is a lower bound, over
// every communication op not yet started, on when a quiet event could start
// it (plus that overhead for a server collective):
//
//  - nothing happens before the GPU's first quiet event (`base`);
//  - the compute stream runs one kernel at a time in issue order, so the j-th
//    kernel not yet started completes no earlier than the running kernel's
//    end plus the shortest durations of the j kernels (priced duration over
//    the fastest rate, one less picosecond for rounding); the running kernel
//    ends sooner than planned only if a collective ends first;
//  - an op starts in the event that opens the last of its gates: a kernel or
//    a quiet completion it waits on (no earlier than their bounds), its issue
//    time, the op of its group ahead of it, its pull by the host (no earlier
//    than the start of the kernel before the one preceding it: the host keeps
//    two kernels queued; the program is read ahead, ahead_, to see it);
//  - gates only another LP's event opens (a delivery from the network, a
//    collective still gathering its members, the end of its group's
//    collective under way without a quiet completion) bound nothing; an op
//    held by such gates alone never starts in one of this GPU's quiet events,
//    and when that event comes the promise is stated again.
#include <algorithm>
#include <array>
#include <limits>

#include "models/training/gpu_executor.h"
#include "models/training/server_collective.h"

namespace pf::models::training {
namespace {

using workload::Stream;

// Compute kernels whose completion bounds are kept for dependency lookups.
constexpr std::size_t kKernelBounds = 96;

struct KernelBound {
  std::uint32_t id = 0;
  core::SimTime done;
};

}  // namespace

core::SimTime GpuExecutor::earliest_output(core::SimTime now, bool after_quiet, const ExecutionShared& shared) {
  // Unchanged state, unchanged bound (a later `now` could only raise it).
  // After a quiet event the last promise still holds (it covered every state
  // quiet events lead to) until its time comes; only then is it worth the
  // walk — or when the GPU's next quiet event lies beyond it (it would stay
  // behind the run's clock, holding every window to the smallest lookahead).
  if (promised_version_ == version_ || (after_quiet && promised_ > now && promised_ >= next_quiet_event())) return promised_;
  promised_version_ = version_;
  promised_ = output_bound(shared);
  return promised_;
}

core::SimTime GpuExecutor::next_quiet_event() const {
  core::SimTime next = computing_ ? kernel_.finish() : core::SimTime::infinity();
  for (const PendingOp& p : pending_) next = std::min(next, p.quiet_done);
  return next;
}

core::SimTime GpuExecutor::output_bound(const ExecutionShared& shared) {
  const core::SimTime never = core::SimTime::infinity();
  const core::SimTime margin = core::SimTime::from_ps(1);
  // Completions already scheduled as quiet events: the earliest, and per
  // group kind that of the collective under way.
  core::SimTime first_completion = never, comm_completion = never;
  std::array<core::SimTime, workload::kGroupKindCount> group_done;
  group_done.fill(never);
  for (const PendingOp& p : pending_) {  // started ops may follow unstarted ones
    if (!p.started || p.quiet_done == never) continue;
    first_completion = std::min(first_completion, p.quiet_done);
    if (p.stream == Stream::comm) {
      comm_completion = std::min(comm_completion, p.quiet_done);
      group_done[static_cast<std::size_t>(p.group.kind())] = p.quiet_done;
    }
  }
  if (!computing_ && first_completion == never) return never;  // only stale kernel ends: they do nothing
  // The running kernel ends sooner than planned if a collective ends first
  // and gives its SMs back.
  core::SimTime running_done = never;
  if (computing_) {
    running_done = kernel_.finish();
    // (no sooner than that collective's end, when its rate could rise)
    if (comm_completion < running_done)
      running_done = std::min(running_done, std::max(comm_completion, kernel_.earliest_finish(fastest_rate(shared))));
    running_done = running_done - margin;
  }
  // Nothing starts before the GPU's first quiet event.
  const core::SimTime base = std::min(running_done, first_completion);

  std::array<KernelBound, kKernelBounds> kernels;
  std::size_t kernel_count = 0;
  if (computing_) kernels[kernel_count++] = {computing_op_, running_done};
  // What a dependency's completion is to an op waiting on it: a kernel or a
  // quiet completion (a bound it ends no earlier than), an op that needs an
  // event which is not quiet first (the network's delivery of a collective:
  // the promise is stated again then), an op not started yet (taken as
  // possibly quiet, no bound), or done.
  enum class Gate : std::uint8_t { done, quiet, not_quiet };
  const auto gate_of = [&](std::uint32_t id, core::SimTime& bound) {
    const auto end = kernels.begin() + static_cast<std::ptrdiff_t>(kernel_count);
    const auto it = std::lower_bound(kernels.begin(), end, id, [](const KernelBound& k, std::uint32_t v) { return k.id < v; });
    if (it != end && it->id == id) {
      bound = std::max(bound, it->done);
      return Gate::quiet;
    }
    const auto op = std::lower_bound(pending_.begin(), pending_.end(), id,
                                     [](const PendingOp& p, std::uint32_t v) { return p.id < v; });
    if (op != pending_.end() && op->id == id) {
      if (!op->started) return Gate::quiet;
      if (op->quiet_done == never) return Gate::not_quiet;
      bound = std::max(bound, op->quiet_done);
      return Gate::quiet;
    }
    if (!pending_.empty() && id > pending_.back().id) return Gate::quiet;  // read ahead, not pulled
    return Gate::done;
  };
  // Completion bounds of the last three kernels walked: an op not yet pulled
  // follows `unstarted` kernels and is pulled when the one before the last of
  // them starts, i.e. no earlier than the completion of the one before that.
  core::SimTime done_last = computing_ ? running_done : base, done_before_last = done_last,
                done_two_before = done_last;
  int unstarted = 0;
  std::array<core::SimTime, workload::kGroupKindCount> group_start{};  // per group kind: last unstarted op's start bound
  std::uint32_t group_seen = 0;                                   // bit per group kind: an unstarted op seen

  core::SimTime best = never;
  // op: a PendingOp or a workload::Op (the fields read are named alike).
  const auto visit = [&](const auto& op, core::SimTime shortest, bool pulled, core::SimTime issue) {
    const core::SimTime pull = pulled || unstarted < 2 ? base : done_two_before;
    if (!pulled && pull >= best) return false;  // every later op is pulled later still
    if (op.stream == Stream::compute) {
      const core::SimTime done = std::max(done_last, pull) + shortest;
      done_two_before = done_before_last;
      done_before_last = done_last;
      done_last = done;
      ++unstarted;
      if (kernel_count < kKernelBounds) kernels[kernel_count++] = {op.id, done};
      return true;
    }
    if (op.stream == Stream::copy) return true;
    // The op starts in the event that opens the last of its gates. With one
    // gate that only an event which is not quiet can open, and none a quiet
    // one can, it never starts in a quiet event; otherwise no earlier than
    // every gate's bound.
    bool quiet_gate = !pulled, not_quiet_gate = false;
    core::SimTime start = pull;
    for (int d = 0; d < op.dep_count; ++d) {
      const Gate g = gate_of(op.deps[static_cast<std::size_t>(d)], start);
      quiet_gate |= g == Gate::quiet;
      not_quiet_gate |= g == Gate::not_quiet;
    }
    if (issue.is_infinite()) {
      quiet_gate = true;  // held at a host sync point: released in a completion, issued after it
    } else if (issue > last_now_) {
      quiet_gate = true;
      start = std::max(start, issue);
    }
    if (op.stream == Stream::comm) {
      const auto kind = static_cast<std::size_t>(op.group.kind());
      const std::uint32_t bit = 1u << kind;
      if (group_seen & bit) {  // behind an earlier op of its group, not started yet
        quiet_gate = true;
        start = std::max(start, group_start[kind]);
      } else if (busy_groups_ & bit) {  // behind its group's collective under way
        if (group_done[kind] != never) {
          quiet_gate = true;
          start = std::max(start, group_done[kind]);
        } else {
          not_quiet_gate = true;
        }
      }
      group_seen |= bit;
      group_start[kind] = start;
    }
    core::SimTime quiet_start = !quiet_gate && not_quiet_gate ? never : start;
    if (op.stream == Stream::comm && shared.promises) {
      const auto kind = static_cast<std::size_t>(op.group.kind());
      if (shared.group_size[kind] <= 1) return true;  // completes at once, sends nothing
      // A closed-form collective inside the server sends nothing but, from
      // its last member, quiet completions timed at least the call's
      // overhead after its start (server_collective.h).
      const std::uint32_t group = shared.group_base[kind] + op.group.index();
      if (shared.server != nullptr && shared.server->handles(group)) quiet_start = quiet_start + shared.comm_overhead;
    }
    best = std::min(best, quiet_start);
    return true;
  };

  for (std::size_t i = first_unstarted_; i < pending_.size(); ++i) {
    const PendingOp& p = pending_[i];
    if (p.started) continue;
    if (!visit(p, p.shortest, true, p.issue)) return best;
  }
  for (std::size_t i = 0;; ++i) {
    if (i == ahead_size_ && !read_ahead(shared)) {  // as far as the ring holds (kAheadCapacity)
      // The program ends here, or the read-ahead stops: what follows is
      // pulled no earlier than the op after the last one seen would be.
      if (!program_done_) best = std::min(best, unstarted < 2 ? base : done_two_before);
      return best;
    }
    const AheadOp& a = ahead(i);
    if (!visit(a.op, a.shortest, false, core::SimTime::zero())) return best;
  }
}

}  // namespace pf::models::training
