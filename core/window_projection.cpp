#include "core/window_projection.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "core/error.h"

namespace pf::core {

WindowProjection::WindowProjection(VirtualRanks v) : lp_rank_(std::move(v.lp_rank)) {
  if (v.ranks < 1) throw ConfigError("window projection: expected at least 1 rank, found " + std::to_string(v.ranks));
  for (std::size_t lp = 0; lp < lp_rank_.size(); ++lp)
    if (lp_rank_[lp] < 0 || lp_rank_[lp] >= v.ranks)
      throw ConfigError("window projection: LP " + std::to_string(lp) + " placed on rank " +
                        std::to_string(lp_rank_[lp]) + " of " + std::to_string(v.ranks));
  // The classes a K-rank engine would form (Engine::configure_lookahead_classes).
  if (v.ranks == 1 || v.lp_lookahead.empty()) {
    lookahead_[0] = v.lookahead;
    class_of_.assign(lp_rank_.size(), 0);
  } else {
    if (v.lp_lookahead.size() != lp_rank_.size())
      throw ConfigError("window projection: expected one lookahead per LP (" + std::to_string(lp_rank_.size()) +
                        "), found " + std::to_string(v.lp_lookahead.size()));
    LookaheadClasses c = group_lookaheads(v.lp_lookahead);
    classes_ = static_cast<int>(c.lookahead.size());
    std::copy(c.lookahead.begin(), c.lookahead.end(), lookahead_.begin());
    class_of_ = std::move(c.class_of);
  }
  // Promises, as a K-rank engine keeps them (Engine::configure_promises):
  // every LP's, with its K-rank lookahead.
  min_lookahead_ = v.lookahead;
  if (v.ranks > 1) {
    std::vector<SimTime> lookahead = v.lp_lookahead;
    if (lookahead.empty()) lookahead.assign(lp_rank_.size(), v.lookahead);
    min_lookahead_ = *std::min_element(lookahead.begin(), lookahead.end());
    std::vector<LpId> all(lp_rank_.size());
    for (std::size_t lp = 0; lp < all.size(); ++lp) all[lp] = static_cast<LpId>(lp);
    promises_.configure(lp_rank_.size(), all, lookahead);
    separate_quiet_ = true;
  } else {
    promises_.configure(lp_rank_.size(), {}, {});
  }
  const auto ranks = static_cast<std::size_t>(v.ranks);
  events_.assign(ranks, 0);
  messages_.assign(ranks, 0);
  rank_total_.assign(ranks, 0);
  out_.ranks = v.ranks;
  out_.classes = classes_;
  out_.class_lookahead = lookahead_;
}

void WindowProjection::pushed(SimTime time, LpId dst, std::uint8_t flags) {
  if (outside_bound(flags) && separate_quiet_) {
    quiet_.push(time.ps);
    if (flags & kQuietEvent) promises_.quiet_pushed(dst);
    return;
  }
  pending_[class_of_[dst]].push(time.ps);
}

void WindowProjection::sent(LpId src, LpId dst) {
  const int from = lp_rank_[src], to = lp_rank_[dst];
  if (from == to) return;
  ++out_.remote_events;
  pairs_.push_back(static_cast<std::uint64_t>(from) * static_cast<std::uint64_t>(out_.ranks) +
                   static_cast<std::uint64_t>(to));
}

std::pair<SimTime, int> WindowProjection::bound() const {
  SimTime best = SimTime::infinity();
  int from = 0;
  for (int k = 0; k < classes_; ++k) {
    const MinHeap& heap = pending_[static_cast<std::size_t>(k)];
    if (heap.empty()) continue;
    const SimTime b = SimTime{heap.top()} + lookahead_[static_cast<std::size_t>(k)];
    if (b < best) best = b, from = k;
  }
  if (quiet_.empty()) return {best, from};
  // Window mode's promise term (window_sync.cpp): never below the earliest
  // pending event plus the smallest lookahead.
  SimTime earliest{quiet_.top()};
  for (int k = 0; k < classes_; ++k) {
    const MinHeap& heap = pending_[static_cast<std::size_t>(k)];
    if (!heap.empty()) earliest = std::min(earliest, SimTime{heap.top()});
  }
  // Deferred promises restated where they matter, as the K-rank engine does.
  const SimTime promised = std::max(promises_.settled_earliest_output(best, source_), earliest + min_lookahead_);
  if (promised < best) return {promised, -1};
  return {best, from};
}

void WindowProjection::committing(SimTime time, LpId dst, std::uint8_t flags) {
  // The first commit at or after the bound opens the next window; its bound
  // is taken over what is pending now, this event included.
  if (!open_ || time >= bound_) {
    if (open_) close_window();
    const auto [b, from] = bound();
    bound_ = b;
    if (from < 0) ++out_.bound_by_promise;
    else ++out_.bound_by[static_cast<std::size_t>(from)];
    open_ = true;
  }
  const auto r = static_cast<std::size_t>(lp_rank_[dst]);
  if (events_[r]++ == 0) touched_.push_back(static_cast<int>(r));
  // Its heap's earliest: nothing pending is earlier than the event committing.
  if (outside_bound(flags) && separate_quiet_) {
    quiet_.pop();
    if (flags & kQuietEvent) promises_.quiet_popped(dst);
    return;
  }
  pending_[class_of_[dst]].pop();
}

void WindowProjection::close_window() {
  std::uint32_t busiest = 0;
  for (int r : touched_) {
    auto& n = events_[static_cast<std::size_t>(r)];
    busiest = std::max(busiest, n);
    out_.events += n;
    rank_total_[static_cast<std::size_t>(r)] += n;
    n = 0;
  }
  touched_.clear();
  out_.max_events_sum += busiest;

  // One MPI message per (sender, receiver) pair with events this window.
  std::sort(pairs_.begin(), pairs_.end());
  pairs_.erase(std::unique(pairs_.begin(), pairs_.end()), pairs_.end());
  const auto ranks = static_cast<std::uint64_t>(out_.ranks);
  for (std::uint64_t p : pairs_) {
    ++messages_[p / ranks];
    ++messages_[p % ranks];
  }
  std::uint32_t most = 0;
  for (std::uint64_t p : pairs_) {
    for (std::uint64_t r : {p / ranks, p % ranks}) {
      most = std::max(most, messages_[r]);
      messages_[r] = 0;
    }
  }
  out_.messages += pairs_.size();
  out_.max_messages_sum += most;
  pairs_.clear();
  ++out_.windows;
}

const ProjectedWindows& WindowProjection::finish() {
  if (open_) close_window();
  open_ = false;
  out_.busiest_rank_events = rank_total_.empty() ? 0 : *std::max_element(rank_total_.begin(), rank_total_.end());
  return out_;
}

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

WindowProjections::WindowProjections() {
  // The cheapest of many empty timed spans: what a sample costs beyond the
  // work it times.
  double least = 1;
  for (int i = 0; i < 1000; ++i) {
    const auto start = std::chrono::steady_clock::now();
    least = std::min(least, seconds_since(start));
  }
  clock_s_ = least;
}

double WindowProjections::overhead_s() const {
  return std::max(0.0, sampled_s_ - static_cast<double>(samples_) * clock_s_) * kSampleEvery;
}

void WindowProjections::timed_pushed(const Event& event) {
  const auto start = std::chrono::steady_clock::now();
  for (WindowProjection& p : each_) {
    p.pushed(event.time, event.dst, event.flags);
    p.sent(event.src, event.dst);
  }
  sampled_s_ += seconds_since(start);
  ++samples_;
}

void WindowProjections::timed_committing(const Event& event) {
  const auto start = std::chrono::steady_clock::now();
  for (WindowProjection& p : each_) p.committing(event.time, event.dst, event.flags);
  sampled_s_ += seconds_since(start);
  ++samples_;
}

std::vector<ProjectedWindows> WindowProjections::finish() {
  std::vector<ProjectedWindows> out;
  for (WindowProjection& p : each_) out.push_back(p.finish());
  return out;
}

}  // namespace pf::core
