#!/usr/bin/env bash
# One command: install missing dependencies, build, run the default example on
# 2 MPI ranks. Extra arguments are passed to preflight.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/install_deps.sh"
"$root/scripts/build.sh"
build_dir=${BUILD_DIR:-$root/build}
ranks=${RANKS:-2}
mpi_flags=(--oversubscribe)
[[ $(id -u) -eq 0 ]] && mpi_flags+=(--allow-run-as-root)
# Until the training simulation lands, the default example is the engine benchmark
# with SPEC section 6's parameters.
exec mpiexec -n "$ranks" "${mpi_flags[@]}" "$build_dir/io/cli/preflight" phold \
  --lps 2048 --start-events 4 --remote 0.25 --lookahead 0.1 --mean 1.0 --end 2000 --seed 1 "$@"
