#!/usr/bin/env bash
# PHOLD engine benchmark (models/phold/README.md's reference parameters unless overridden):
# the bare-loop floor, then preflight on 1, 2 and 4 ranks in both sync modes.
# Prints events/s, wall time, sync rounds per second, peak memory per rank and
# queue bytes per pending event. Run on an otherwise idle machine.
#   tests/bench/phold_bench.sh [BUILD_DIR] [extra phold flags...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
shift || true
preflight=$build/io/cli/preflight
bare=$build/tests/bench/bare_phold_loop
mpi=(mpiexec --oversubscribe)
[[ $(id -u) -eq 0 ]] && mpi+=(--allow-run-as-root)
args=(--lps 2048 --start-events 4 --remote 0.25 --lookahead 0.1 --mean 1.0 --end 2000 --seed 1 "$@")

field() { sed -n "s/^$1: //p" <<<"$2"; }
calc() { awk "BEGIN { print $1 }"; }

bare_out=$("$bare")
bare_rate=$(field events_per_s "$bare_out")
printf 'bare std::priority_queue loop: %s events, %.2f M events/s\n\n' "$(field events "$bare_out")" \
  "$(calc "$bare_rate/1e6")"

printf '%-5s %-13s %10s %8s %10s %9s %12s %9s %9s\n' ranks sync events wall_s Mevents/s speedup rounds/s peak_MB B/pending
one_rank_rate=""
for ranks in 1 2 4; do
  for sync in window null_message; do
    [[ $ranks -eq 1 && $sync == null_message ]] && continue
    out=$("${mpi[@]}" -n "$ranks" "$preflight" phold "${args[@]}" --sync "$sync")
    rate=$(field events_per_s "$out")
    wall=$(field wall_s "$out")
    [[ -z "$one_rank_rate" ]] && one_rank_rate=$rate
    rounds=$(( $(field windows "$out") + $(field null_messages "$out") ))
    printf '%-5s %-13s %10s %8.2f %10.2f %8.2fx %12.0f %9.1f %9.1f\n' "$ranks" "$(field sync "$out")" \
      "$(field events "$out")" "$wall" "$(calc "$rate/1e6")" "$(calc "$rate/$one_rank_rate")" \
      "$(calc "$rounds/$wall")" "$(field peak_memory_mb_per_rank "$out")" \
      "$(field queue_bytes_per_pending_event "$out")"
  done
done
printf '\none-rank engine rate / bare loop rate: %.2f\n' "$(calc "$one_rank_rate/$bare_rate")"
echo "(rounds/s: windows per second in window mode, null messages per second in null_message mode)"
