#!/bin/bash
# Benchmarks of `preflight run` (figures, not a timed test): for each
# experiment, network mode and rank count, one iteration without a timeline;
# prints step time, MFU, events, wall time, events/s and peak memory from the
# JSON report. Run it on an idle machine: MPI ranks busy-poll, so anything else
# running distorts the parallel figures.
#
#   tests/bench/run_bench.sh [EXPERIMENT.yaml ...]
#   RANKS="1 2" MODES="packet analytical" tests/bench/run_bench.sh configs/examples/gpt3-175b-a100-1024.yaml
#   SETS="--set simulation.lookahead=static" tests/bench/run_bench.sh ...   # extra --set options for every run
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
preflight=${PREFLIGHT:-$root/build/io/cli/preflight}
ranks_list=${RANKS:-"1 2"}
modes=${MODES:-"packet analytical"}
read -r -a extra_sets <<< "${SETS:-}"
experiments=("$@")
[ ${#experiments[@]} -gt 0 ] || experiments=("$root/configs/examples/gpt3-13b-a100-128.yaml"
                                              "$root/configs/examples/gpt3-175b-a100-1024.yaml")
mpi_flags=(--oversubscribe)
[[ $(id -u) -eq 0 ]] && mpi_flags+=(--allow-run-as-root)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf "%-28s %-10s %5s %12s %7s %12s %9s %12s %12s %9s %10s\n" experiment network ranks step_ms mfu events wall_s \
  events_per_s rss_gb_rank total_s windows
for exp in "${experiments[@]}"; do
  for mode in $modes; do
    for n in $ranks_list; do
      start=$(date +%s.%N)
      mpiexec -n "$n" "${mpi_flags[@]}" "$preflight" run "$exp" --no-timeline --quiet --out "$work/out" \
        --set simulation.network="$mode" "${extra_sets[@]}" --report-json "$work/r.json" > "$work/log" 2>&1
      rc=$?
      total=$(echo "$(date +%s.%N) - $start" | bc)
      if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
        echo "$(basename "$exp") $mode $n: exit $rc"; tail -3 "$work/log"; continue
      fi
      /usr/bin/python3 - "$work/r.json" "$(basename "$exp" .yaml)" "$mode" "$n" "$total" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = r["simulation"]
print(f"{sys.argv[2][:28]:<28} {sys.argv[3]:<10} {sys.argv[4]:>5} {r['step_time_ms']:>12.3f} {r['mfu']:>7.3f} "
      f"{s['events']:>12} {s['wall_s']:>9.2f} {s['events_per_s']:>12.3e} {s['peak_rss_gb']:>12.3f} {float(sys.argv[5]):>9.2f} "
      f"{s.get('windows', 0):>10}")
PY
    done
  done
done
