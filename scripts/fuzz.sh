#!/usr/bin/env bash
# A longer fuzzing campaign than ctest's (tests/fuzz/README.md).
# usage: scripts/fuzz.sh [SECONDS_PER_HARNESS] [HARNESS...]
# Builds build-sanitize/ (clang, ASan + UBSan, libFuzzer) if needed, then runs
# each harness for SECONDS (default 300) from its seeds and the corpus kept
# from earlier campaigns in build-sanitize/tests/fuzz/campaign/<harness>/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-300}
shift || true
harnesses=("$@")
[[ ${#harnesses[@]} -gt 0 ]] || harnesses=(fuzz_experiment fuzz_simai fuzz_calibration fuzz_timeline)
build=${BUILD_DIR:-$root/build-sanitize}
export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export OMPI_MCA_opal_signal=  # let libFuzzer, not Open MPI, handle a crash (and save its input)
if [[ ! -x $build/tests/fuzz/fuzz_experiment ]]; then
  BUILD_DIR=$build CC=clang CXX=clang++ \
    PREFLIGHT_CMAKE_ARGS="-DPREFLIGHT_SANITIZE=address,undefined -DPREFLIGHT_FUZZ=ON" "$root/scripts/build.sh"
fi
(cd "$build" && ctest -R fuzz_timeline_seed >/dev/null)  # the timeline harness's seed
declare -A seeds=(
  [fuzz_experiment]="$root/configs/examples $root/tests/fuzz/corpus/experiment"
  [fuzz_simai]="$root/configs/workloads/simai"
  [fuzz_calibration]="$root/tests/fuzz/corpus/calibration"
  [fuzz_timeline]="$build/tests/fuzz/timeline-seed"
)
declare -A max_len=([fuzz_experiment]=8192 [fuzz_simai]=16384 [fuzz_calibration]=4096 [fuzz_timeline]=32768)
status=0
for h in "${harnesses[@]}"; do
  [[ -n ${seeds[$h]:-} ]] || { echo "fuzz.sh: unknown harness $h" >&2; exit 2; }
  corpus=$build/tests/fuzz/campaign/$h
  mkdir -p "$corpus/corpus" "$corpus/artifacts"
  echo "== $h for ${seconds} s"
  # shellcheck disable=SC2086
  "$build/tests/fuzz/$h" -max_total_time="$seconds" -max_len="${max_len[$h]}" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$corpus/artifacts/" -print_final_stats=1 "$corpus/corpus" ${seeds[$h]} \
    "$root/tests/fuzz/regression/$h" || status=1
done
exit $status
