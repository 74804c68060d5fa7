// How parallel a run is, and what more MPI ranks would buy
// (`preflight run --profile-parallelism FILE`; io/run/README.md).
//
// Two sources of figures:
//   * on more than one rank (window mode), every window of the run itself,
//     per rank: events committed, events and MPI messages sent, wall time
//     working and synchronising (core::WindowRecord);
//   * on one rank, the windows a K-rank run with the same partitioning method
//     would take, replayed exactly (core/window_projection.h) for each K asked
//     for; with the run's own cost per event and a model of MPI's costs they
//     give the projected wall time on K ranks.
//
// The projection, per K:
//   work  = cost per event x sum over windows of the busiest rank's events
//   msgs  = sum over windows of the busiest rank's MPI messages (sent +
//           received) x the point-to-point latency of one batch
//   sync  = windows x MPI_Allreduce of the window vector (3 + K int64s):
//           ceil(log2 K) rounds of recursive doubling, each one point-to-point
//           message of that size
//   wall  = work + msgs + sync;  speed-up = (cost per event x events) / wall
// The point-to-point latency L(bytes) is a measured osu_latency table
// (SyncCostModel), scalable to a user's own network by --sync-latency-us.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/engine_stats.h"
#include "core/window_projection.h"

namespace pf::run {

// One projected rank count that could not be set up (e.g. more ranks than
// servers, or a cut link with zero latency): why.
struct SkippedRanks {
  int ranks = 0;
  std::string why;
};

struct ParallelismProfile {
  int ranks = 1;                    // this run's
  std::string partition;            // the partitioning method (the projection uses the same)
  std::string network;              // analytical | packet
  std::uint64_t events = 0;         // committed, all ranks
  double engine_wall_s = 0;         // Engine::run, the slowest rank
  double observer_s = 0;            // one rank: estimated cost of replaying the projections
  double measured_event_s = 0;      // > 0: the cost per event measured by a plain run (--profile-event-ns)
  // More than one rank: per rank, its windows in order (the same count on every rank).
  std::vector<std::vector<core::WindowRecord>> windows;
  // One rank: per K asked for.
  std::vector<core::ProjectedWindows> projected;
  std::vector<SkippedRanks> skipped;

  // Seconds per committed event on one rank, the projection's cost of work:
  // measured_event_s when given, else engine wall time less the replay's
  // estimated cost, over events. The estimate runs high (about +20 to +30 %
  // on gpt3-13b-a100-128 packet: the replay also slows the engine's own code
  // through the cache, which sampling does not see); a plain run's
  // simulation.wall_s / events is exact.
  double seconds_per_event() const;
  bool replay_excluded() const;  // observer_s is subtracted from engine_wall_s (seconds_per_event)
};

// MPI point-to-point latency by message size, for the projection's messages
// and reductions. Default: osu_latency (OSU Micro-Benchmarks 5.3.2) between two
// nodes over InfiniBand with Open MPI's ob1 PML, as published by Open MPI
// developer H. Pritchard (gist.github.com/hppritcha/6a3acd0c192fcfd082bd543fc98e6fe6):
// 1.18 us at 0 B, 1.49 us at 1 KiB ... 114.59 us at 1 MiB. `scale_to_us`
// rescales the table so that its 0-byte latency is that figure (a user's own
// network or this machine's shared memory).
struct SyncCostModel {
  double small_message_us = 0;  // 0: the table's own 1.18 us
  double latency_s(double bytes) const;
  // The measured table itself: (message bytes, microseconds), ascending.
  static std::vector<std::pair<double, double>> table();
  // One MPI_Allreduce of the window vector on `ranks` ranks.
  double allreduce_s(int ranks) const;
};

struct ProjectedSpeed {
  int ranks = 0;
  std::uint64_t windows = 0;
  double work_s = 0, messages_s = 0, sync_s = 0, wall_s = 0;
  double speedup = 0;         // over one rank at the same cost per event
  double balance = 0;         // events / (ranks x sum of the busiest rank's events): 1 = perfect split
  double events_per_window = 0;
};

// One row per projected K (one-rank profiles; empty otherwise).
std::vector<ProjectedSpeed> project_speed(const ParallelismProfile& profile, const SyncCostModel& model);

// A multi-rank profile's own figures.
struct MeasuredParallelism {
  std::uint64_t windows = 0;
  std::uint64_t max_events_sum = 0;
  double balance = 0;             // as ProjectedSpeed::balance
  double busy_s = 0;              // summed over windows of the busiest rank's work time
  double sync_s = 0;              // summed over windows of the least-waiting rank's sync time
  double median_sync_us = 0;      // per window, the least-waiting rank's sync: the reduction itself
};
MeasuredParallelism measured(const ParallelismProfile& profile);

// The profile as text (rank 0 prints it after the report).
std::string profile_text(const ParallelismProfile& profile, const SyncCostModel& model);

}  // namespace pf::run
