#!/bin/bash
# `preflight run` on the real SimAI/AICB files in configs/workloads/simai:
#  - every file runs to a report on 1 and 2 ranks, with identical reports
#    (less simulation/version) and timelines;
#  - the micro-benchmark all_reduce.txt: each line's all-reduce takes what
#    `preflight collective` gives for the same size and group (within 3%);
#  - a malformed file exits 2 naming file and line.
# usage: simai_cli_test.sh PREFLIGHT MPIEXEC SOURCE_ROOT
set -u
preflight=$1 mpiexec=$2 root=$3
exp=$root/tests/mpi/training/simai.yaml
files=$root/configs/workloads/simai
# shellcheck source=cli_common.sh
source "$root/tests/mpi/training/cli_common.sh"

for f in "$files"/*.txt; do
  name=$(basename "$f" .txt)
  set_cluster=(--set topology.nodes=2)   # 16 A100s: fits every file but the 9,216-GPU one
  if [[ $name == moe_9216gpu_example ]]; then
    set_cluster=(--set topology.kind=rail_optimized --set topology.nodes=1152 --set topology.nodes_per_leaf=32
                 --set simulation.network=analytical --set output.timeline_gpus=first_replica
                 --set simulation.partition=block)
  fi
  for n in 1 2; do
    out=$work/$name-$n
    mpi "$n" "$preflight" run "$exp" --set workload.simai="$f" "${set_cluster[@]}" --out "$out" --quiet \
      > "$out.txt" 2>&1 || { fail "$name on $n ranks exited $?"; tail -3 "$out.txt"; continue; }
    grep -q "step time" "$out.txt" || fail "$name on $n ranks printed no report"
  done
  $check same "$work/$name-1" "$work/$name-2" > /dev/null || fail "$name differs between 1 and 2 ranks"
  echo "$name: $(grep 'step time  ' "$work/$name-1.txt" | tr -s ' ')"
done

# Micro-benchmark against the collective table, same 16 GPUs and sizes.
"$preflight" collective --op all_reduce --min-bytes 4K --max-bytes 1G --gpus 16 --experiment "$exp" \
  --set topology.nodes=2 --json "$work/coll.json" > /dev/null || fail "collective table"
/usr/bin/python3 - "$work/all_reduce-1/timeline.h5" "$work/coll.json" <<'PY' || fail "micro all-reduce vs collective"
import json, sys
import h5py
with h5py.File(sys.argv[1]) as f:
    e = f["events"][:]
rows = e[(e["gpu"] == 0) & (e["stream"] == 1)]
table = json.load(open(sys.argv[2]))["rows"]
assert len(rows) == len(table) == 19, (len(rows), len(table))
worst = 0.0
for r, t in zip(rows, table):
    assert int(r["bytes"]) == t["bytes"], (int(r["bytes"]), t["bytes"])
    us = (int(r["end_ns"]) - int(r["start_ns"])) / 1e3
    worst = max(worst, abs(us / t["time_us"] - 1))
print(f"micro all_reduce: 19 sizes, worst deviation from `collective` {100 * worst:.3f}%")
# GPU 0's own span: members reach a collective at slightly different host-issue
# times, and a tree's leaves pay NCCL's latency from their own start.
sys.exit(0 if worst < 0.03 else 1)
PY

# Malformed: a layer line with a bad type.
printf 'HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2\n1\nl -1 1 ALLSUM 8 1 NONE 0 1 NONE 0 1\n' > "$work/bad.txt"
mpi 2 "$preflight" run "$exp" --set workload.simai="$work/bad.txt" --out "$work/bad" > "$work/bad.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "malformed file exited $rc, expected 2"
grep -q "bad.txt:3: forward comm type" "$work/bad.out" || { fail "error does not name file:line"; cat "$work/bad.out"; }

exit $status
