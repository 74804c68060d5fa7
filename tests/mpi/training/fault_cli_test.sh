#!/bin/bash
# `preflight run` with a faults: section, through the binary under mpiexec:
#  - a straggler, jitter, a degraded link, a failed spine and random slow
#    links give the same report and timeline on 1, 2 and 4 ranks (packet mode,
#    ECMP and adaptive routing);
#  - --baseline adds the fault-free step; the report's faults block, /gpu_summary
#    and /links name the affected elements (check_faults.py run);
#  - `sweep --vary faults.0.compute_slowdown` ranks the slowdowns;
#  - `collective --set faults=...` runs on the faulted fabric;
#  - a fault the fabric cannot take exits 2 with one line naming file and line.
# usage: fault_cli_test.sh PREFLIGHT MPIEXEC SOURCE_ROOT
set -u
preflight=$1 mpiexec=$2 root=$3
exp=$root/tests/mpi/training/small-pipeline.yaml
faults_check="/usr/bin/python3 $root/tests/mpi/training/check_faults.py"
# shellcheck source=cli_common.sh
source "$root/tests/mpi/training/cli_common.sh"

# 16 GPUs on two servers, one leaf each: their 8 rails cross 8 spines.
plan=(--set topology.nodes=2 --set topology.kind=fat_tree --set topology.nodes_per_leaf=1
      --set parallelism.pp=2 --set parallelism.dp=8 --set training.global_batch_size=16 --quiet)
cat > "$work/faults.yaml" <<'YAML'
- {gpus: "3", compute_slowdown: 1.2}
- {gpus: all, compute_jitter: {distribution: lognormal, sigma: 0.05, seed: 3}}
- {link: "leaf0->spine1", bandwidth_factor: 0.5}
- {switch: spine2, failed: true}
- {random_links: {fraction: 0.1, bandwidth_factor: 0.5, seed: 7}}
YAML
faults="faults=$(tr '\n' ',' < "$work/faults.yaml" | sed 's/^/[/; s/,$/]/; s/- //g')"

for n in 1 2 4; do
  out=$work/run-$n
  mpi "$n" "$preflight" run "$exp" "${plan[@]}" --set "$faults" --baseline --out "$out" > "$out.txt" 2>&1 \
    || { fail "faulted run on $n ranks exited $?"; cat "$out.txt"; continue; }
  $check same "$work/run-1" "$out" || fail "faulted run on $n ranks differs from 1 rank"
done
# Adaptive routing around the same faults: also the same on 1 and 4 ranks.
for n in 1 4; do
  out=$work/adaptive-$n
  mpi "$n" "$preflight" run "$exp" "${plan[@]}" --set "$faults" --set topology.routing=adaptive --out "$out" \
    > "$out.txt" 2>&1 || { fail "adaptive run on $n ranks exited $?"; cat "$out.txt"; continue; }
  $check same "$work/adaptive-1" "$out" || fail "adaptive run on $n ranks differs from 1 rank"
done
$faults_check run "$work/run-2" || fail "faults in the report and timeline"
grep -q "the faults add" "$work/run-2.txt" || { fail "text report lacks the baseline line"; cat "$work/run-2.txt"; }

# A sweep over the straggler's slowdown (1.0 is the healthy end).
mpi 2 "$preflight" sweep "$exp" "${plan[@]}" --set simulation.network=analytical \
  --set 'faults=[{gpus: "3", compute_slowdown: 1.0}]' --vary faults.0.compute_slowdown=1.0,1.25,1.5 \
  --json "$work/sweep.json" > "$work/sweep.txt" 2>&1 || { fail "sweep exited $?"; cat "$work/sweep.txt"; }
$faults_check sweep "$work/sweep.json" || fail "sweep over the slowdown"

# `preflight collective` on the faulted fabric: a failed spine of the 16 in the
# default example's rail fabric lowers cross-server all-to-all bus bandwidth.
busbw() {  # busbw [--set FAULTS]: the table's average bus bandwidth
  mpi 2 "$preflight" collective --experiment "$root/configs/examples/gpt3-13b-a100-128.yaml" --op all_to_all \
    --min-bytes 64M --max-bytes 64M --quiet "$@" 2>&1 | sed -n 's/^# Avg bus bandwidth *: *//p'
}
healthy_bw=$(busbw) faulted_bw=$(busbw --set 'faults=[{switch: spine3, failed: true}]')
/usr/bin/python3 -c "import sys; h, f = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if f < 0.97 * h else 1)" \
  "$healthy_bw" "$faulted_bw" || fail "collective all-to-all: $healthy_bw GB/s healthy, $faulted_bw GB/s with a failed spine"

# Refused: exit 2, one line, nothing written.
bad() {  # bad NAME EXPECTED-TEXT ARGS...
  local name=$1 expected=$2; shift 2
  mpi 2 "$preflight" run "$exp" "${plan[@]}" "$@" --out "$work/$name" > "$work/$name.txt" 2>&1
  local rc=$?
  [ $rc -eq 2 ] || fail "$name exited $rc, expected 2"
  [ "$(grep -c 'preflight: error' "$work/$name.txt")" -eq 1 ] || { fail "$name: expected one error line"; cat "$work/$name.txt"; }
  grep -q -- "$expected" "$work/$name.txt" || { fail "$name: expected '$expected'"; cat "$work/$name.txt"; }
  [ ! -e "$work/$name/report.json" ] || fail "$name left report.json"
}
bad unknown-vertex "faults\[0\]: no vertex 'spine9' in this cluster" --set 'faults=[{link: "leaf0->spine9", failed: true}]'
spines='faults=[{switch: spine0, failed: true}'
for k in 1 2 3 4 5 6 7; do spines="$spines, {switch: spine$k, failed: true}"; done
bad disconnected "the fabric is disconnected: no path is left from leaf0 to leaf1" --set "$spines]"
bad no-faults "--baseline: expected an experiment with a faults: section" --baseline

exit $status
