// Writes a synthetic timeline (synthetic_timeline.h) into DIR on however many
// ranks it is launched with, and prints the write figures on rank 0. Used as
// the fixture of the Python, trace and script tests, as a benchmark
// (--gpus 64 --layers 48 --microbatches 800 gives about 10 million rows), and
// with --die-at STEP to show that a run killed mid-write leaves no timeline.h5.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "core/communicator.h"
#include "core/error.h"
#include "io/timeline/timeline_writer.h"
#include "tests/mpi/timeline/synthetic_timeline.h"

int main(int argc, char** argv) {
  pf::core::MpiSession mpi(&argc, &argv);
  const pf::core::Communicator world = pf::core::Communicator::world();
  pf::timeline::testing::SyntheticShape shape;
  pf::timeline::TimelineWriteOptions options;
  std::string dir;
  std::string die_at;
  CLI::App app{"write a synthetic preflight timeline"};
  app.add_option("dir", dir, "output directory")->required();
  app.add_option("--gpus", shape.gpus, "GPUs (a multiple of 4)")->capture_default_str();
  app.add_option("--layers", shape.layers, "layers per pipeline stage")->capture_default_str();
  app.add_option("--microbatches", shape.microbatches, "micro-batches per GPU (plus gpu % 3)")->capture_default_str();
  app.add_option("--timeline-gpus", shape.timeline_gpus, "GPUs with /events rows")->capture_default_str();
  app.add_option("--chunk-rows", options.chunk_rows, "/events chunk size in rows")->capture_default_str();
  app.add_option("--deflate", options.deflate_level, "zlib level 0-9")->capture_default_str();
  app.add_option("--die-at", die_at, "kill the process on the last rank after this write step");
  bool no_guard = false;
  app.add_flag("--no-space-guard", no_guard, "skip the free-space check and disk reservation (failure tests)");
  bool steps = false;
  app.add_flag("--steps", steps, "print the time of each write step (rank 0)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : 2;
  }
  options.guard_space = !no_guard;
  auto last = std::chrono::steady_clock::now();
  options.after_step = [&](std::string_view step) {
    if (step == die_at && world.rank() == world.size() - 1) std::_Exit(9);  // like a SIGKILL: no cleanup runs
    const auto now = std::chrono::steady_clock::now();
    if (steps && world.rank() == 0)
      std::printf("step %-8s %.3f s\n", std::string(step).c_str(), std::chrono::duration<double>(now - last).count());
    last = now;
  };
  try {
    const auto content = pf::timeline::testing::synthetic_content(shape, world.size());
    auto rows = pf::timeline::testing::synthetic_rows(shape, content, world.rank(), world.size());
    const auto stats = pf::timeline::write_timeline(world, dir, content, rows, options);
    if (world.rank() == 0) {
      std::printf("ranks: %d\nrows: %llu\nfile_bytes: %llu\nbytes_per_row: %.2f\nwall_s: %.3f\nrows_per_s: %.0f\n",
                  world.size(), static_cast<unsigned long long>(stats.rows),
                  static_cast<unsigned long long>(stats.file_bytes),
                  stats.rows ? static_cast<double>(stats.file_bytes) / static_cast<double>(stats.rows) : 0.0,
                  stats.wall_s, stats.wall_s > 0 ? static_cast<double>(stats.rows) / stats.wall_s : 0.0);
    }
  } catch (const pf::UnrecoverableError& e) {
    if (world.rank() == 0) std::fprintf(stderr, "timeline_synthetic_writer: %s\n", e.what());
    pf::core::MpiSession::exit_now(e.exit_code());
  } catch (const pf::Error& e) {
    if (world.rank() == 0) std::fprintf(stderr, "timeline_synthetic_writer: %s\n", e.what());
    return e.exit_code();
  }
  return 0;
}
