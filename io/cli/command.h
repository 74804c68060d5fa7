// How a subcommand plugs into the `preflight` binary.
//
// Each subcommand lives in io/cli/<name>_command.cpp and exposes one function,
// add_<name>_command(app, ctx), that declares its options with CLI11 and sets
// the callback that runs it. The callback returns the process exit status
// through ctx.exit_code and reports failures by throwing pf::Error subclasses
// (core/error.h); main() turns those into one-line messages and exit codes.
#pragma once

#include <CLI/CLI.hpp>

namespace pf::cli {

struct CommandContext {
  int rank = 0;        // this process's MPI rank in MPI_COMM_WORLD
  int ranks = 1;       // MPI_COMM_WORLD size
  int exit_code = 0;   // set by the command that ran
  bool is_root() const { return rank == 0; }
};

void add_phold_command(CLI::App& app, CommandContext& ctx);
void add_collective_command(CLI::App& app, CommandContext& ctx);
void add_validate_command(CLI::App& app, CommandContext& ctx);
void add_trace_command(CLI::App& app, CommandContext& ctx);
void add_run_command(CLI::App& app, CommandContext& ctx);
void add_sweep_command(CLI::App& app, CommandContext& ctx);
void add_calibrate_command(CLI::App& app, CommandContext& ctx);

}  // namespace pf::cli
