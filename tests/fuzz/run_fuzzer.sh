#!/usr/bin/env bash
# ctest fuzz_run_*: one libFuzzer harness for a fixed number of runs from a
# fresh working corpus (so the run is the same every time: -seed=1).
# usage: run_fuzzer.sh HARNESS WORK_DIR RUNS MAX_LEN SEED_DIR...
set -euo pipefail
harness=$1 work=$2 runs=$3 max_len=$4
shift 4
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
seeds=()
for d in "$@"; do [[ -d "$d" ]] && seeds+=("$d"); done
# Open MPI (the timeline harness initialises it) would catch SIGABRT/SIGSEGV
# itself and exit before libFuzzer saves the crashing input.
export OMPI_MCA_opal_signal=
# -timeout: an input that takes over 10 s is a hang; -rss_limit_mb: a bound on
# what a malformed input may make the reader allocate.
exec "$harness" -seed=1 -runs="$runs" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 "$work/corpus" "${seeds[@]}"
