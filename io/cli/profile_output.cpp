#include "io/cli/profile_output.h"

#include <cstdint>
#include <vector>

#include "io/timeline/column_file.h"

namespace pf::cli {
namespace {

using timeline::ColumnFile;
using I64 = std::vector<std::int64_t>;
using F64 = std::vector<double>;

void add_projection(ColumnFile& f, const run::ParallelismProfile& p, const run::SyncCostModel& model) {
  I64 ranks, windows, events, remote, messages, max_events, max_messages, busiest, by_promise;
  for (const core::ProjectedWindows& w : p.projected) {
    ranks.push_back(w.ranks);
    windows.push_back(static_cast<std::int64_t>(w.windows));
    events.push_back(static_cast<std::int64_t>(w.events));
    remote.push_back(static_cast<std::int64_t>(w.remote_events));
    messages.push_back(static_cast<std::int64_t>(w.messages));
    max_events.push_back(static_cast<std::int64_t>(w.max_events_sum));
    max_messages.push_back(static_cast<std::int64_t>(w.max_messages_sum));
    busiest.push_back(static_cast<std::int64_t>(w.busiest_rank_events));
    by_promise.push_back(static_cast<std::int64_t>(w.bound_by_promise));
  }
  F64 work, msgs, sync, wall, speedup, balance;
  for (const run::ProjectedSpeed& s : run::project_speed(p, model)) {
    work.push_back(s.work_s);
    msgs.push_back(s.messages_s);
    sync.push_back(s.sync_s);
    wall.push_back(s.wall_s);
    speedup.push_back(s.speedup);
    balance.push_back(s.balance);
  }
  const std::vector<std::pair<const char*, I64*>> counts{
      {"ranks", &ranks},          {"windows", &windows},         {"events", &events},
      {"remote_events", &remote}, {"messages", &messages},       {"max_events_sum", &max_events},
      {"max_messages_sum", &max_messages}, {"busiest_rank_events", &busiest}, {"bound_by_promise", &by_promise}};
  for (const auto& [name, values] : counts) f.columns.push_back({std::string("projection/") + name, std::move(*values)});
  const std::vector<std::pair<const char*, F64*>> times{{"work_s", &work},   {"messages_s", &msgs},
                                                         {"sync_s", &sync},   {"wall_s", &wall},
                                                         {"speedup", &speedup}, {"balance", &balance}};
  for (const auto& [name, values] : times) f.columns.push_back({std::string("projection/") + name, std::move(*values)});
  // What bounds the windows: per K and lookahead class (up to 4; unused: 0).
  const std::size_t k_count = p.projected.size(), classes = core::kMaxLookaheadClasses;
  std::vector<double> lookahead_us(k_count * classes, 0);
  std::vector<std::uint32_t> bound_by(k_count * classes, 0);
  for (std::size_t i = 0; i < k_count; ++i)
    for (std::size_t c = 0; c < static_cast<std::size_t>(p.projected[i].classes); ++c) {
      lookahead_us[i * classes + c] = p.projected[i].class_lookahead[c].us();
      bound_by[i * classes + c] = static_cast<std::uint32_t>(p.projected[i].bound_by[c]);
    }
  f.matrices.push_back({"projection/class_lookahead_us", k_count, classes, std::move(lookahead_us)});
  f.matrices.push_back({"projection/bound_by", k_count, classes, std::move(bound_by)});
  I64 skipped_ranks;
  std::vector<std::string> why;
  for (const run::SkippedRanks& s : p.skipped) {
    skipped_ranks.push_back(s.ranks);
    why.push_back(s.why);
  }
  if (!why.empty()) {
    f.columns.push_back({"skipped/ranks", std::move(skipped_ranks)});
    f.columns.push_back({"skipped/why", std::move(why)});
  }
}

void add_windows(ColumnFile& f, const run::ParallelismProfile& p) {
  const std::size_t ranks = p.windows.size(), windows = p.windows.front().size();
  const auto matrix = [&](const char* name, auto field) {
    std::vector<std::uint32_t> values(windows * ranks);
    for (std::size_t r = 0; r < ranks; ++r)
      for (std::size_t w = 0; w < windows; ++w) values[w * ranks + r] = field(p.windows[r][w]);
    f.matrices.push_back({std::string("windows/") + name, windows, ranks, std::move(values)});
  };
  matrix("events", [](const core::WindowRecord& w) { return w.events; });
  matrix("remote_events", [](const core::WindowRecord& w) { return w.remote_events; });
  matrix("messages", [](const core::WindowRecord& w) { return w.messages; });
  matrix("busy_ns", [](const core::WindowRecord& w) { return w.busy_ns; });
  matrix("sync_ns", [](const core::WindowRecord& w) { return w.sync_ns; });
}

}  // namespace

void write_profile_file(const std::string& path, const run::ParallelismProfile& p, const run::SyncCostModel& model,
                        const std::string& version) {
  ColumnFile f;
  f.attributes = {
      {"format", std::string("preflight parallelism profile 1")},
      {"version", version},
      {"ranks", std::int64_t{p.ranks}},
      {"partition", p.partition},
      {"network", p.network},
      {"events", static_cast<std::int64_t>(p.events)},
      {"engine_wall_s", p.engine_wall_s},
      {"observer_s", p.observer_s},
      {"seconds_per_event", p.seconds_per_event()},
      {"small_message_latency_us", model.latency_s(0) * 1e6},
  };
  if (!p.projected.empty() || !p.skipped.empty()) add_projection(f, p, model);
  F64 table_bytes, table_us;
  for (const auto& [bytes, us] : run::SyncCostModel::table()) {
    table_bytes.push_back(bytes);
    table_us.push_back(us);
  }
  f.columns.push_back({"mpi_latency/bytes", std::move(table_bytes)});
  f.columns.push_back({"mpi_latency/us", std::move(table_us)});
  if (!p.windows.empty() && !p.windows.front().empty()) add_windows(f, p);
  timeline::write_column_file(path, f);
}

}  // namespace pf::cli
