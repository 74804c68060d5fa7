#!/bin/bash
# Side-by-side speed of two preflight binaries (figures, not a timed test):
# runs each experiment with the old and the new binary alternately, REPEAT
# times each, one rank, no timeline, and prints the minimum and median wall
# time of each, their ratios (old / new: above 1 means the new one is faster)
# and whether the two reports agree once the wall-clock figures are set aside.
# Interleaving matters: the development machines' speed drifts by tens of
# percent within minutes, so only runs made side by side compare. PAIRED=1
# runs each old/new pair at the same time instead (one per core, so a machine
# with at least two idle cores): both then see the same machine, which on the
# 2-core development VMs gave ratios within +-5 % where alternating runs
# scattered by +-15 %.
#
#   tests/bench/compare_bench.sh OLD_PREFLIGHT NEW_PREFLIGHT [EXPERIMENT.yaml ...]
#   REPEAT=5 MODES="packet analytical" [PAIRED=1] tests/bench/compare_bench.sh /tmp/preflight.old build/io/cli/preflight
#
# Build the old binary from the previous commit, e.g.
#   git worktree add /tmp/old HEAD~1 && cmake -S /tmp/old -B /tmp/old/build -DCMAKE_BUILD_TYPE=Release &&
#   cmake --build /tmp/old/build -j2 --target preflight
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_PREFLIGHT NEW_PREFLIGHT [EXPERIMENT.yaml ...]" >&2
  exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
old=$1
new=$2
shift 2
for b in "$old" "$new"; do
  [ -x "$b" ] || { echo "$0: $b is not an executable" >&2; exit 2; }
done
experiments=("$@")
[ ${#experiments[@]} -gt 0 ] || experiments=("$root/configs/examples/gpt3-175b-a100-1024.yaml")
repeat=${REPEAT:-3}
paired=${PAIRED:-0}
modes=${MODES:-"packet analytical"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf "%-28s %-10s %9s %9s %9s %9s %8s %8s %s\n" experiment network old_min old_med new_min new_med x_min x_med reports
for exp in "${experiments[@]}"; do
  for mode in $modes; do
    : > "$work/old.txt"
    : > "$work/new.txt"
    failed=0
    for _ in $(seq "$repeat"); do
      for which in old new; do
        bin=$old
        [ $which = new ] && bin=$new
        "$bin" run "$exp" --no-timeline --quiet --out "$work/out-$which" --set simulation.network="$mode" \
          --report-json "$work/$which.json" > "$work/log-$which" 2>&1 &
        [ "$paired" = 1 ] || wait $!
      done
      wait
      for which in old new; do
        if [ ! -s "$work/$which.json" ]; then
          echo "$(basename "$exp") $mode $which: no report"; tail -3 "$work/log-$which"; failed=1; break 2
        fi
        /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['simulation']['wall_s'])" \
          "$work/$which.json" >> "$work/$which.txt"
        rm -f "$work/$which.json.last"; mv "$work/$which.json" "$work/$which.json.last"
      done
    done
    [ $failed -eq 0 ] || continue
    /usr/bin/python3 - "$work" "$(basename "$exp" .yaml)" "$mode" <<'PY'
import json, statistics, sys
work, name, mode = sys.argv[1:4]
wall = {w: [float(x) for x in open(f"{work}/{w}.txt")] for w in ("old", "new")}
def without_wall(o):
    if isinstance(o, dict):
        return {k: without_wall(v) for k, v in o.items()
                if k not in ("wall_s", "events_per_s", "peak_rss_gb", "queue_peak_bytes")}
    if isinstance(o, list):
        return [without_wall(v) for v in o]
    return o
same = (without_wall(json.load(open(f"{work}/old.json.last"))) ==
        without_wall(json.load(open(f"{work}/new.json.last"))))
lo = {w: min(v) for w, v in wall.items()}
med = {w: statistics.median(v) for w, v in wall.items()}
print(f"{name[:28]:<28} {mode:<10} {lo['old']:>9.2f} {med['old']:>9.2f} {lo['new']:>9.2f} {med['new']:>9.2f} "
      f"{lo['old'] / lo['new']:>8.3f} {med['old'] / med['new']:>8.3f} {'identical' if same else 'DIFFER'}")
PY
  done
done
