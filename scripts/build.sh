#!/usr/bin/env bash
# Configures (once) and builds preflight incrementally into build/.
# BUILD_DIR and CMAKE_BUILD_TYPE may be overridden from the environment;
# PREFLIGHT_CMAKE_ARGS adds configure options (first configure only), CC/CXX
# choose the compiler (scripts/test.sh --sanitize uses both).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
build_type=${CMAKE_BUILD_TYPE:-Release}

if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  # shellcheck disable=SC2086
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE="$build_type" -DPREFLIGHT_WERROR=ON ${PREFLIGHT_CMAKE_ARGS:-} >/dev/null
fi
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build "$build_dir" --parallel "$jobs" -- --no-print-directory | grep -v -E '^\[ *[0-9]+%\]' || true
test "${PIPESTATUS[0]}" -eq 0
