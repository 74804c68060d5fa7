#include "io/run/parallelism_profile.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

#include "core/event.h"

namespace pf::run {
namespace {

// osu_latency 5.3.2, 2 nodes, InfiniBand, Open MPI ob1 (the source is in the
// header): message bytes, one-way latency in microseconds.
constexpr std::array<std::pair<double, double>, 19> kOsuLatency{{
    {0, 1.18}, {8, 1.20}, {64, 1.20}, {128, 1.22}, {256, 1.24}, {512, 1.26}, {1024, 1.49},
    {2048, 1.81}, {4096, 2.42}, {8192, 4.97}, {16384, 5.76}, {32768, 11.60}, {65536, 15.03},
    {131072, 21.84}, {262144, 35.14}, {524288, 61.25}, {1048576, 114.59}, {2097152, 220.58},
    {4194304, 435.60},
}};

double table_us(double bytes) {
  if (bytes <= 0) return kOsuLatency.front().second;
  for (std::size_t i = 1; i < kOsuLatency.size(); ++i) {
    const auto [b1, t1] = kOsuLatency[i];
    if (bytes <= b1) {
      const auto [b0, t0] = kOsuLatency[i - 1];
      return t0 + (t1 - t0) * (bytes - b0) / (b1 - b0);
    }
  }
  // Past the table: its last slope (bandwidth-bound).
  const auto [b0, t0] = kOsuLatency[kOsuLatency.size() - 2];
  const auto [b1, t1] = kOsuLatency.back();
  return t1 + (t1 - t0) * (bytes - b1) / (b1 - b0);
}

int ceil_log2(int n) {
  int r = 0;
  while ((1 << r) < n) ++r;
  return r;
}

}  // namespace

double ParallelismProfile::seconds_per_event() const {
  if (measured_event_s > 0) return measured_event_s;
  if (events == 0) return 0;
  return (replay_excluded() ? engine_wall_s - observer_s : engine_wall_s) / static_cast<double>(events);
}

// The replay's cost is estimated from sampled timings: on a short run the
// estimate can reach the engine's whole wall time, which would make every
// event free and every projected speed-up zero. Then nothing is excluded (the
// cost per event is overstated, never zero).
bool ParallelismProfile::replay_excluded() const { return engine_wall_s - observer_s > 0; }

std::vector<std::pair<double, double>> SyncCostModel::table() { return {kOsuLatency.begin(), kOsuLatency.end()}; }

double SyncCostModel::latency_s(double bytes) const {
  const double shift = small_message_us > 0 ? small_message_us - kOsuLatency.front().second : 0;
  return (table_us(bytes) + shift) * 1e-6;
}

double SyncCostModel::allreduce_s(int ranks) const {
  if (ranks <= 1) return 0;
  // window_sync.cpp's vector: next time, bound, error flag, one count per rank.
  const double bytes = 8.0 * (3 + ranks);
  return ceil_log2(ranks) * latency_s(bytes);
}

std::vector<ProjectedSpeed> project_speed(const ParallelismProfile& profile, const SyncCostModel& model) {
  std::vector<ProjectedSpeed> out;
  const double per_event = profile.seconds_per_event();
  const double sequential = per_event * static_cast<double>(profile.events);
  for (const core::ProjectedWindows& p : profile.projected) {
    ProjectedSpeed s;
    s.ranks = p.ranks;
    s.windows = p.windows;
    s.work_s = per_event * static_cast<double>(p.max_events_sum);
    const double batch_bytes =
        p.messages == 0 ? 0 : static_cast<double>(p.remote_events) * sizeof(core::Event) / static_cast<double>(p.messages);
    s.messages_s = static_cast<double>(p.max_messages_sum) * model.latency_s(batch_bytes);
    s.sync_s = static_cast<double>(p.windows) * model.allreduce_s(p.ranks);
    s.wall_s = s.work_s + s.messages_s + s.sync_s;
    s.speedup = s.wall_s > 0 ? sequential / s.wall_s : 0;
    s.balance = p.max_events_sum == 0
                    ? 0
                    : static_cast<double>(p.events) / (p.ranks * static_cast<double>(p.max_events_sum));
    s.events_per_window = p.windows == 0 ? 0 : static_cast<double>(p.events) / static_cast<double>(p.windows);
    out.push_back(s);
  }
  return out;
}

MeasuredParallelism measured(const ParallelismProfile& profile) {
  MeasuredParallelism m;
  if (profile.windows.empty()) return m;
  const std::size_t windows = profile.windows.front().size();
  m.windows = windows;
  std::uint64_t events = 0;
  std::vector<double> least_sync(windows, 0);
  for (std::size_t w = 0; w < windows; ++w) {
    std::uint32_t busiest = 0, busy_ns = 0, sync_ns = 0xFFFFFFFF;
    for (const auto& rank : profile.windows) {
      const core::WindowRecord& r = rank[w];
      events += r.events;
      busiest = std::max(busiest, r.events);
      busy_ns = std::max(busy_ns, r.busy_ns);
      sync_ns = std::min(sync_ns, r.sync_ns);
    }
    m.max_events_sum += busiest;
    m.busy_s += busy_ns * 1e-9;
    m.sync_s += sync_ns * 1e-9;
    least_sync[w] = sync_ns * 1e-3;
  }
  if (m.max_events_sum > 0)
    m.balance = static_cast<double>(events) / (static_cast<double>(profile.ranks) * static_cast<double>(m.max_events_sum));
  if (windows > 0) {
    std::nth_element(least_sync.begin(), least_sync.begin() + static_cast<std::ptrdiff_t>(windows / 2), least_sync.end());
    m.median_sync_us = least_sync[windows / 2];
  }
  return m;
}

namespace {

std::string line(const char* format, auto... values) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, format, values...);
  return buffer;
}

}  // namespace

std::string profile_text(const ParallelismProfile& profile, const SyncCostModel& model) {
  std::string out = "parallelism profile\n";
  out += line("  this run            %d rank(s), %s network, partition %s, %llu events, engine %.3f s\n", profile.ranks,
              profile.network.c_str(), profile.partition.c_str(), static_cast<unsigned long long>(profile.events),
              profile.engine_wall_s);
  if (!profile.windows.empty()) {
    const MeasuredParallelism m = measured(profile);
    out += line("  windows             %llu, %.1f events each; balance %.3f (1 = every rank as busy as the busiest)\n",
                static_cast<unsigned long long>(m.windows),
                m.windows ? static_cast<double>(profile.events) / static_cast<double>(m.windows) : 0.0, m.balance);
    out += line("  time                busiest rank working %.3f s, synchronising %.3f s (median %.2f us a window)\n",
                m.busy_s, m.sync_s, m.median_sync_us);
  }
  if (profile.projected.empty()) {
    if (profile.ranks > 1) out += "  (projections to other rank counts come from a one-rank run)\n";
    return out;
  }
  if (profile.measured_event_s > 0)
    out += line("  cost per event      %.1f ns (given: --profile-event-ns)\n", profile.seconds_per_event() * 1e9);
  else
    out += line("  cost per event      %.1f ns estimated (replay of the projections: %.3f s, %s; a run without "
                "--profile-parallelism measures it: simulation.wall_s / events, for --profile-event-ns)\n",
                profile.seconds_per_event() * 1e9, profile.observer_s,
                profile.replay_excluded() ? "excluded" : "not excluded: the estimate reaches the engine's wall time");
  out += line("  MPI model           osu_latency table, %.2f us at 0 B; MPI_Allreduce by recursive doubling\n",
              model.latency_s(0) * 1e6);
  out += "   ranks      windows  events/window  balance   work s  messages s    sync s    wall s  speed-up\n";
  for (const ProjectedSpeed& s : project_speed(profile, model))
    out += line("  %6d %12llu %14.1f %8.3f %8.3f %11.3f %9.3f %9.3f %9.2f\n", s.ranks,
                static_cast<unsigned long long>(s.windows), s.events_per_window, s.balance, s.work_s, s.messages_s,
                s.sync_s, s.wall_s, s.speedup);
  out += "  what bounds the windows (events at LPs this far from the cut: share of windows)\n";
  for (const core::ProjectedWindows& w : profile.projected) {
    std::string row = line("  %6d ", w.ranks);
    for (int c = 0; c < w.classes; ++c) {
      const auto i = static_cast<std::size_t>(c);
      const double share = w.windows ? 100.0 * static_cast<double>(w.bound_by[i]) / static_cast<double>(w.windows) : 0;
      row += w.class_lookahead[i].is_infinite() ? line("   no path: %5.1f %%", share)
                                                : line("   %.3f us: %5.1f %%", w.class_lookahead[i].us(), share);
    }
    if (w.bound_by_promise > 0 && w.windows > 0)  // simulation.lookahead: dynamic
      row += line("   promises: %5.1f %%", 100.0 * static_cast<double>(w.bound_by_promise) / static_cast<double>(w.windows));
    out += row + "\n";
  }
  for (const SkippedRanks& s : profile.skipped) out += line("  %6d  not projected: %s\n", s.ranks, s.why.c_str());
  return out;
}

}  // namespace pf::run
