// preflight: one binary, subcommands (io/cli/README.md).
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>

#include "core/communicator.h"
#include "core/error.h"
#include "git_commit.h"
#include "io/cli/command.h"
#include "io/cli/presets.h"

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f, a batch system's RLIMIT_FSIZE) makes a write
  // fail with EFBIG, reported like a full disk, instead of killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
  pf::core::MpiSession mpi(&argc, &argv);
  pf::cli::CommandContext ctx;
  ctx.rank = pf::core::Communicator::world().rank();
  ctx.ranks = pf::core::Communicator::world().size();

  CLI::App app{"preflight: predicts large-model training on GPU clusters by parallel discrete-event simulation"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("preflight ") + PREFLIGHT_VERSION + " (git " + PREFLIGHT_GIT_COMMIT + ")",
                       "print preflight's version and the git commit it was built from, and exit");
  app.add_flag_callback(
      "--list-presets",
      [&ctx] {
        if (ctx.is_root()) pf::cli::print_presets();
        throw CLI::Success();
      },
      "print where the shipped hardware, model, topology and example files are, and exit");
  pf::cli::add_run_command(app, ctx);
  pf::cli::add_phold_command(app, ctx);
  pf::cli::add_collective_command(app, ctx);
  pf::cli::add_validate_command(app, ctx);
  pf::cli::add_calibrate_command(app, ctx);
  pf::cli::add_trace_command(app, ctx);
  pf::cli::add_sweep_command(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    if (ctx.is_root()) app.exit(e);
    return 0;
  } catch (const CLI::CallForAllHelp& e) {
    if (ctx.is_root()) app.exit(e);
    return 0;
  } catch (const CLI::CallForVersion& e) {
    if (ctx.is_root()) app.exit(e);
    return 0;
  } catch (const CLI::Success&) {  // --list-presets
    return 0;
  } catch (const CLI::ParseError& e) {
    if (ctx.is_root()) std::fprintf(stderr, "preflight: error: %s (try --help)\n", e.what());
    return 2;
  } catch (const pf::UnrecoverableError& e) {
    // Every rank threw it alike: rank 0 speaks; nobody may finalize MPI.
    if (ctx.is_root()) std::fprintf(stderr, "preflight: error: %s\n", e.what());
    pf::core::MpiSession::exit_now(e.exit_code());
  } catch (const pf::ConfigError& e) {
    // Configuration is read identically on every rank, so rank 0 speaks for all.
    if (ctx.is_root()) std::fprintf(stderr, "preflight: error: %s\n", e.what());
    return e.exit_code();
  } catch (const pf::Error& e) {
    std::fprintf(stderr, "preflight: error%s: %s\n", ctx.ranks > 1 ? (" [rank " + std::to_string(ctx.rank) + "]").c_str() : "", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "preflight: internal error [rank %d]: %s\n", ctx.rank, e.what());
    mpi.abort(1);
    return 1;
  }
  return ctx.exit_code;
}
