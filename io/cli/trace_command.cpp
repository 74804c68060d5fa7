// `preflight trace TIMELINE.h5 -o trace.json [--gpus 0-7] [--start-ns A --end-ns B]`:
// a timeline (io/timeline/README.md) as Chrome / Perfetto trace JSON. Rank 0 does the
// work (a serial read); under mpirun the other ranks wait and share its outcome.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <string>

#include "core/communicator.h"
#include "core/error.h"
#include "io/cli/command.h"
#include "io/cli/output_files.h"
#include "io/timeline/chrome_trace.h"
#include "io/timeline/timeline_reader.h"

namespace pf::cli {
namespace {

struct TraceOptions {
  std::string timeline;
  std::string output;
  timeline::TraceRequest request;
};

// Writes the trace to `out`; false where the stream failed (a full disk).
bool write_trace(const timeline::TimelineReader& reader, const TraceOptions& o, std::ostream& out,
                 timeline::TraceStats& stats) {
  stats = timeline::write_chrome_trace(reader, o.request, out);
  out.flush();
  return static_cast<bool>(out);
}

// Written next to the destination and renamed: a failed export leaves no
// truncated trace.json that a viewer would half-load.
timeline::TraceStats write_trace_staged(const timeline::TimelineReader& reader, const TraceOptions& o) {
  const std::string temp = o.output + ".tmp";
  timeline::TraceStats stats;
  std::error_code ec;
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw ConfigError("-o: cannot write " + o.output);
    bool written = false;
    try {
      written = write_trace(reader, o, out, stats);
    } catch (...) {
      out.close();
      std::filesystem::remove(temp, ec);
      throw;
    }
    if (!written) {
      out.close();
      std::filesystem::remove(temp, ec);
      throw ConfigError("-o: cannot write " + o.output + " (disk full?)");
    }
  }
  std::filesystem::rename(temp, o.output, ec);
  if (ec) throw ConfigError("-o: cannot rename " + temp + " to " + o.output + ": " + ec.message());
  return stats;
}

void export_trace(const TraceOptions& o) {
  probe_output_files({{o.output, "-o"}});
  const timeline::TimelineReader reader(o.timeline);
  timeline::TraceStats stats;
  const Destination destination = destination_of(o.output);
  if (destination == Destination::standard_output) {
    std::fflush(stdout);
    if (!write_trace(reader, o, std::cout, stats)) throw ConfigError("-o: cannot write " + o.output);
  } else if (destination == Destination::in_place) {
    // A device, pipe or FIFO: written as it is (a rename would replace it).
    std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
    if (!out || !write_trace(reader, o, out, stats)) throw ConfigError("-o: cannot write " + o.output);
  } else {
    stats = write_trace_staged(reader, o);
  }
  std::FILE* summary = text_stream({o.output});  // stderr when the trace went to stdout (a pipe into jq)
  std::fprintf(summary, "trace: %llu events of %u GPUs -> %s\n", static_cast<unsigned long long>(stats.events),
               stats.gpus, o.output.c_str());
  std::fflush(summary);
}

// Rank 0 exports; every rank then exits with rank 0's status and message
// (a ConfigError, so that main() prints it once).
void run_trace(const TraceOptions& o) {
  run_on_root_agreed(core::Communicator::world(), [&] { export_trace(o); });
}

}  // namespace

void add_trace_command(CLI::App& app, CommandContext& /*ctx*/) {
  auto options = std::make_shared<TraceOptions>();
  CLI::App* cmd = app.add_subcommand("trace", "convert a timeline.h5 into Chrome/Perfetto trace JSON");
  cmd->add_option("timeline", options->timeline, "timeline file written by `preflight run` (OUT/timeline.h5)")
      ->required();
  cmd->add_option("-o,--output", options->output, "trace JSON to write (open in ui.perfetto.dev or chrome://tracing)")
      ->required();
  cmd->add_option("--gpus", options->request.gpus, "GPUs to export, a range list like 0-7,64-71 (default: all)");
  cmd->add_option("--start-ns", options->request.start_ns, "export events that end after this time (ns)");
  cmd->add_option("--end-ns", options->request.end_ns, "export events that start before this time (ns)");
  cmd->callback([options] { run_trace(*options); });
}

}  // namespace pf::cli
