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
# The default example: GPT-3 13B on 128 A100s (configs/examples), one
# training iteration, report on stdout, report.json and timeline.h5 under
# out/gpt3-13b-a100-128. Extra arguments go to `preflight run` (--set ...).
example=${EXAMPLE:-$root/configs/examples/gpt3-13b-a100-128.yaml}
exec mpiexec -n "$ranks" "${mpi_flags[@]}" "$build_dir/io/cli/preflight" run "$example" "$@"
