#include "io/timeline/timeline_writer.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>
#include <system_error>

#include "core/error.h"
#include "io/timeline/collective_step.h"
#include "io/timeline/content_checks.h"
#include "io/timeline/disk_space.h"
#include "io/timeline/event_layout.h"
#include "io/timeline/events_dataset.h"
#include "io/timeline/packed_event.h"
#include "io/timeline/parallel_file.h"
#include "io/timeline/rank_exchange.h"
#include "io/timeline/timeline_error.h"
#include "io/timeline/timeline_sections.h"

namespace pf::timeline {

namespace fs = std::filesystem;

namespace {

struct Paths {
  fs::path final_path;
  fs::path temp_path;
};

// Rank 0 only: the directory exists, and no leftover temporary file of a
// killed run is in the way. A complete timeline.h5 of an earlier run stays
// until this one replaces it: a write that fails leaves it untouched.
void prepare_directory(const Paths& paths) {
  const fs::path dir = paths.final_path.parent_path().empty() ? fs::path(".") : paths.final_path.parent_path();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw TimelineOutputError("cannot create output directory " + dir.string() + ": " +
                              (ec ? ec.message() : "a file of that name exists"));
  fs::remove(paths.temp_path, ec);
  if (ec) throw TimelineOutputError("cannot remove the old " + paths.temp_path.string() + ": " + ec.message());
}

// Every GPU is simulated by one rank, so the global count of each GPU this
// rank has events for must equal its local count (check_rows has already
// matched events against the partition; this guards the arithmetic).
void check_whole_gpus(std::span<const std::uint64_t> local, std::span<const std::uint64_t> global) {
  for (std::size_t g = 0; g < local.size(); ++g)
    if (local[g] != 0 && local[g] != global[g])
      throw SimulationError("timeline: gpu " + std::to_string(g) + " has events on more than one rank");
}

// MPI counts and block lengths are ints.
void check_message_sizes(std::span<const std::uint64_t> send_counts, const std::vector<std::vector<RowRun>>& incoming) {
  constexpr std::uint64_t limit = std::numeric_limits<int>::max();
  bool fits = std::all_of(send_counts.begin(), send_counts.end(), [](std::uint64_t n) { return n <= limit; });
  for (const auto& runs : incoming)
    fits = fits && std::all_of(runs.begin(), runs.end(), [](const RowRun& r) { return r.count <= limit; });
  if (!fits) throw SimulationError("timeline: more than 2^31 /events rows between two ranks in one message");
}

template <typename Row, typename Key>
void sort_unique(std::vector<Row>& rows, Key key, const char* table) {
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) { return key(a) < key(b); });
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (key(rows[i]) == key(rows[i - 1]))
      throw SimulationError(std::string("timeline: ") + table + " has two rows for " + std::to_string(key(rows[i])));
}

class Writer {
 public:
  Writer(const core::Communicator& comm, const Paths& paths, const TimelineContent& content, TimelineRows& rows,
         const TimelineWriteOptions& options)
      : comm_(comm), paths_(paths), content_(content), rows_(rows), options_(options),
        steps_(comm, options.after_step), root_(comm.rank() == 0) {}

  // Each step either succeeds on every rank or throws on every rank; HDF5
  // handles are released (collectively) as the exception unwinds this frame.
  std::uint64_t write() {
    steps_.run("check", [&] {
      check_content(content_, comm_.size());
      check_rows(rows_, content_, comm_.rank());
    });
    const auto digest = static_cast<std::int64_t>(content_digest(content_));
    if (comm_.min(digest) != comm_.max(digest))
      throw SimulationError("timeline: ranks passed different tables, report, configuration or partition");
    steps_.run("prepare", [&] {
      if (root_) prepare_directory(paths_);
    });

    std::vector<std::uint64_t> local_counts;
    steps_.run("sort", [&] {
      sort_events(rows_.events);
      local_counts = rows_per_gpu(rows_.events, content_.meta.gpus);
    });
    const std::vector<std::uint64_t> global_counts = sum_over_ranks(comm_, local_counts);
    const std::vector<std::uint64_t> offsets = gpu_row_offsets(global_counts);
    // This rank's rows, in file order, and the file rows they go to: its own
    // GPU blocks on one rank, an equal contiguous share after an exchange on more.
    const std::byte* packed_rows = nullptr;
    std::vector<RowRun> runs;
    std::vector<std::uint64_t> send_counts;
    std::vector<std::vector<RowRun>> incoming;
    const RowRun share = balanced_share(offsets.back(), comm_.rank(), comm_.size());
    steps_.run("layout", [&] {
      check_whole_gpus(local_counts, global_counts);
      runs = local_row_runs(rows_.events, offsets);
      packed_rows = pack_events_in_place(rows_.events);
      send_counts = rows_for_each_share(runs, offsets.back(), comm_.size());
      incoming = incoming_runs(offsets, content_.meta.partition, share, comm_.size());
      check_message_sizes(send_counts, incoming);
    });
    std::vector<std::byte> shared_rows;
    if (comm_.size() > 1) {
      shared_rows = exchange_rows(comm_, packed_rows, send_counts, incoming, share.count, packed::size);
      rows_.events = {};  // sent: release before compression buffers are allocated
      packed_rows = shared_rows.data();
      runs.clear();
      if (share.count > 0) runs.push_back(share);
    }

    const std::uint64_t link_rows = comm_.sum(rows_.links.size());
    const std::uint64_t summary_rows = comm_.sum(rows_.gpu_summary.size());
    std::vector<LinkRow> links = gather_to_root<LinkRow>(comm_, rows_.links);
    std::vector<GpuSummaryRow> summary = gather_to_root<GpuSummaryRow>(comm_, rows_.gpu_summary);
    steps_.run("gather", [&] {
      sort_unique(links, [](const LinkRow& r) { return r.link; }, "/links");
      sort_unique(summary, [](const GpuSummaryRow& r) { return r.gpu; }, "/gpu_summary");
    });

    // A write that fails midway cannot be undone by parallel HDF5 (disk_space.h):
    // make sure the space is there, and the file's own, before writing.
    const std::uint64_t bound = timeline_size_bound(content_, offsets.back(), link_rows, summary_rows, options_.chunk_rows);
    steps_.run("space", [&] {
      if (root_ && options_.guard_space)
        reserved_bytes_ = reservation_for(paths_.final_path.parent_path(), paths_.final_path, bound);
    });
    h5::Handle file;
    steps_.run("create", [&] { file = h5::create_parallel_file(comm_, paths_.temp_path.string()); });
    try {
      fill_file(file, offsets, packed_rows, runs, link_rows, summary_rows, links, summary, shared_rows);
    } catch (const Hdf5CallError&) {
      // HDF5 failed with the file open: its ranks may disagree on what is
      // written, and closing would hang or crash (disk_space.h). Let it go.
      file.abandon();
      file_abandoned_ = true;
      throw;
    }
    return offsets.back();
  }

  bool file_abandoned() const { return file_abandoned_; }

  // After every rank has closed the file: the rename makes it visible.
  std::uint64_t publish() {
    std::uint64_t bytes = 0;
    steps_.run("publish", [&] {
      if (!root_) return;
      if (reserved_bytes_ > 0) release_reserved_space(paths_.temp_path, reserved_bytes_);
      check_fully_written(paths_.temp_path);
      std::error_code ec;
      fs::rename(paths_.temp_path, paths_.final_path, ec);
      if (ec) throw TimelineOutputError("cannot rename " + paths_.temp_path.string() + " to " +
                                        paths_.final_path.string() + ": " + ec.message());
      bytes = fs::file_size(paths_.final_path, ec);
    });
    return static_cast<std::uint64_t>(comm_.max(static_cast<std::int64_t>(bytes)));
  }

 private:
  void fill_file(h5::Handle& file, const std::vector<std::uint64_t>& offsets, const std::byte* packed_rows,
                 const std::vector<RowRun>& runs, std::uint64_t link_rows, std::uint64_t summary_rows,
                 const std::vector<LinkRow>& links, const std::vector<GpuSummaryRow>& summary,
                 std::vector<std::byte>& shared_rows) {
    steps_.run("reserve", [&] {
      if (root_ && reserved_bytes_ > 0) reserve_space(paths_.temp_path, reserved_bytes_);
    });
    steps_.run("meta", [&] { h5::write_meta(file, content_, comm_.size(), offsets, root_); });
    h5::EventStorage storage;
    storage.chunk_rows = std::max<std::uint64_t>(1, options_.chunk_rows);
    storage.deflate_level = std::clamp(options_.deflate_level, 0, 9);
    steps_.run("events", [&] { h5::write_events(file, offsets.back(), packed_rows, runs, storage); });
    rows_.events = {};  // written: release the memory before the smaller tables
    shared_rows = {};
    steps_.run("tables", [&] {
      h5::write_string_tables(file, content_, root_);
      h5::write_links(file, link_rows, links, root_);
      h5::write_gpu_summary(file, summary_rows, summary, root_);
    });
    steps_.run("summary", [&] { h5::write_summary(file, content_.summary); });
    steps_.run("config", [&] { h5::write_config(file, content_.config_yaml, root_); });
    steps_.run("close", [&] { h5::check(file.close(), "cannot close " + paths_.temp_path.string()); });
  }

  const core::Communicator& comm_;
  const Paths& paths_;
  const TimelineContent& content_;
  TimelineRows& rows_;
  const TimelineWriteOptions& options_;
  CollectiveSteps steps_;
  bool root_;
  std::uint64_t reserved_bytes_ = 0;
  bool file_abandoned_ = false;
};

}  // namespace

TimelineWriteStats write_timeline(const core::Communicator& comm, const std::string& dir,
                                  const TimelineContent& content, TimelineRows& rows,
                                  const TimelineWriteOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  h5::silence_errors();
  Paths paths;
  paths.final_path = fs::path(dir) / kTimelineFileName;
  paths.temp_path = fs::path(dir) / (std::string(kTimelineFileName) + ".tmp");

  Writer writer(comm, paths, content, rows, options);
  TimelineWriteStats stats;
  stats.path = paths.final_path.string();
  try {
    stats.rows = writer.write();
    stats.file_bytes = writer.publish();
  } catch (...) {
    // Every rank is here (the steps agree) and has closed the file, or, when
    // HDF5 itself failed with the file open, abandoned it.
    rows.events = {};
    comm.barrier();
    if (comm.rank() == 0) {
      std::error_code ec;
      fs::remove(paths.temp_path, ec);
    }
    if (writer.file_abandoned()) {
      try {
        throw;
      } catch (const Error& e) {
        throw UnrecoverableError(e.what() + free_space_note(paths.final_path.parent_path()), e.exit_code());
      }
    }
    throw;
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started;
  stats.wall_s = comm.max(elapsed.count());
  return stats;
}

}  // namespace pf::timeline
