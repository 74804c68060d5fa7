#!/usr/bin/env bash
# One command: install missing dependencies, build, run the whole test suite.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/install_deps.sh"
"$root/scripts/build.sh"
build_dir=${BUILD_DIR:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)
cd "$build_dir"
ctest --output-on-failure --parallel "$jobs" "$@"
