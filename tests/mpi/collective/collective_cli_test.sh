#!/bin/bash
# `preflight collective` end to end: the table is the same on 1, 2 and 4 ranks
# with every partition strategy and both synchronisation modes, the JSON has
# io/cli/README.md's shape with nccl-tests' bus-bandwidth factors, and sizes
# double from --min-bytes to --max-bytes.
# Usage: collective_cli_test.sh PREFLIGHT MPIEXEC SOURCE_ROOT
set -euo pipefail
preflight=$1
mpiexec=$2
root=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 6 rail-optimised servers of 8 GPUs in 3 leaf groups; sizes span the tree
# and ring regimes of the automatic choice.
common=(collective --hardware "$root/configs/hardware/a100-sxm-80gb.yaml"
        --topology "$root/configs/topology/rail-optimized.yaml"
        --set topology.nodes=6 --set topology.nodes_per_leaf=2 --gpus 48 --min-bytes 64K --max-bytes 4M --quiet)

table() {  # the data rows only: the header names the rank count
  grep -v '^#' "$1"
}

for op in all_reduce all_to_all; do
  "$preflight" "${common[@]}" --op "$op" --json "$work/ref.json" > "$work/ref.txt"
  rows=$(table "$work/ref.txt" | wc -l)
  [ "$rows" -eq 7 ] || { echo "FAIL: $op: expected 7 rows (64K..4M), found $rows"; exit 1; }
  /usr/bin/python3 - "$work/ref.json" "$op" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
op = sys.argv[2]
assert j["op"] == op and j["gpus"] == 48, j
n = 48
factor = 2 * (n - 1) / n if op == "all_reduce" else (n - 1) / n
sizes = [r["bytes"] for r in j["rows"]]
assert sizes == [65536 * 2**i for i in range(7)], sizes
for r in j["rows"]:
    for key in ("bytes", "time_us", "algbw_gbps", "busbw_gbps"):
        assert key in r, (key, r)
    assert abs(r["algbw_gbps"] - r["bytes"] / (r["time_us"] * 1e3)) < 1e-9 * r["algbw_gbps"], r
    assert abs(r["busbw_gbps"] - r["algbw_gbps"] * factor) < 1e-9 * r["busbw_gbps"], r
times = [r["time_us"] for r in j["rows"]]
assert all(a < b for a, b in zip(times, times[1:])), times
PY
  for ranks in 2 4; do
    for partition in block round_robin metis; do
      for sync in window null_message; do
        "$mpiexec" --oversubscribe --allow-run-as-root -n "$ranks" "$preflight" "${common[@]}" --op "$op" \
          --set simulation.partition=$partition --set simulation.sync=$sync > "$work/out.txt"
        if ! diff <(table "$work/ref.txt") <(table "$work/out.txt") > "$work/diff.txt"; then
          echo "FAIL: $op on $ranks ranks ($partition, $sync) differs from 1 rank:"
          cat "$work/diff.txt"
          exit 1
        fi
      done
    done
  done
done

# Analytical mode as well, on 2 ranks.
"$preflight" "${common[@]}" --op all_reduce --set simulation.network=analytical > "$work/ref.txt"
"$mpiexec" --oversubscribe --allow-run-as-root -n 2 "$preflight" "${common[@]}" --op all_reduce \
  --set simulation.network=analytical > "$work/out.txt"
diff <(table "$work/ref.txt") <(table "$work/out.txt") || { echo "FAIL: analytical differs on 2 ranks"; exit 1; }
echo "PASS"
