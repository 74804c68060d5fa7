#!/bin/bash
# Bad input to `preflight collective` exits 2 with one line naming what is
# wrong: for configuration files the file, line and key (io/cli/README.md).
# Usage: collective_cli_errors_test.sh PREFLIGHT SOURCE_ROOT
set -uo pipefail
preflight=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hw="$root/configs/hardware/a100-sxm-80gb.yaml"
topo="$root/configs/topology/single-switch.yaml"
failures=0

# expect_error NAME PATTERN ARGS...: exit status 2 and one stderr line matching PATTERN.
expect_error() {
  local name=$1 pattern=$2
  shift 2
  "$preflight" collective "$@" --json "$work/out.json" > "$work/stdout" 2> "$work/stderr"
  local rc=$?
  local lines
  lines=$(wc -l < "$work/stderr")
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -Eq -- "$pattern" "$work/stderr" || [ -e "$work/out.json" ]; then
    echo "FAIL: $name: rc=$rc, stderr:"
    cat "$work/stderr"
    failures=$((failures + 1))
  fi
}

sed 's/nic_bandwidth_gbps: 200 /nic_bandwidth_gbps: fast /' "$hw" > "$work/wrong_type.yaml"
sed 's/nvlink_bandwidth_gbps: 300 /nvlink_bandwidth_gbps: 0 /' "$hw" > "$work/zero_bandwidth.yaml"
sed 's/^  nics_per_node: 8 /  nics_per_node: 8\n  nic_speed_gbps: 400 /' "$hw" > "$work/unknown_key.yaml"
sed 's/^nodes_per_leaf: 32 /nodes_per_leaf: 16 /; s/^pod_nodes: 0 /pod_nodes: 24 /' \
  "$root/configs/topology/rail-optimized.yaml" > "$work/impossible_shape.yaml"
sed 's/^nodes: 4 /nodes: -4 /' "$topo" > "$work/negative_nodes.yaml"

expect_error "wrong type" 'wrong_type\.yaml:[0-9]+: hardware\.node\.nic_bandwidth_gbps: expected a number' \
  --op all_reduce --hardware "$work/wrong_type.yaml" --topology "$topo"
expect_error "zero bandwidth" 'zero_bandwidth\.yaml:[0-9]+: hardware\.node\.nvlink_bandwidth_gbps: expected a number > 0' \
  --op all_reduce --hardware "$work/zero_bandwidth.yaml" --topology "$topo"
expect_error "unknown key" "unknown_key\.yaml:[0-9]+: .*nic_speed_gbps" \
  --op all_reduce --hardware "$work/unknown_key.yaml" --topology "$topo"
expect_error "impossible shape" 'impossible_shape\.yaml:[0-9]+: topology\.pod_nodes: expected' \
  --op all_reduce --hardware "$hw" --topology "$work/impossible_shape.yaml"
expect_error "negative count" 'negative_nodes\.yaml:[0-9]+: topology\.nodes' \
  --op all_reduce --hardware "$hw" --topology "$work/negative_nodes.yaml"
expect_error "unknown --set key" "--set topology\.nodez=3: unknown key 'nodez', did you mean 'nodes'" \
  --op all_reduce --hardware "$hw" --topology "$topo" --set topology.nodez=3
expect_error "too many GPUs" '--gpus: expected an integer in 2\.\.32' \
  --op all_reduce --gpus 33 --hardware "$hw" --topology "$topo"
expect_error "algorithm for op" '--algo: expected ring or auto for all_gather, found tree' \
  --op all_gather --algo tree --hardware "$hw" --topology "$topo"
expect_error "hierarchical on part of a server" '--algo: .*hierarchical' \
  --op all_reduce --algo hierarchical --gpus 12 --hardware "$hw" --topology "$topo"
expect_error "pat with several GPUs per server" '--algo: expected ring or auto for all_gather \(pat needs .*one GPU of the group on each of several servers\), found pat' \
  --op all_gather --algo pat --hardware "$hw" --topology "$topo"
expect_error "collnet without SHARP" '--algo: .*collnet needs hardware.nccl.collnet: true.*found collnet_direct' \
  --op all_reduce --algo CollnetDirect --hardware "$hw" --topology "$topo"
expect_error "unknown algorithm" '--algo: expected ring \| tree \| hierarchical .* \| pat \| auto, found .nvlstrees.' \
  --op all_reduce --algo nvlstrees --hardware "$hw" --topology "$topo"
expect_error "unknown op" '--op: expected all_reduce' --op allreduc --hardware "$hw" --topology "$topo"
expect_error "bad size" '--min-bytes: expected a byte count' --op all_reduce --min-bytes 8Q --hardware "$hw" --topology "$topo"
expect_error "sizes reversed" '--max-bytes: expected at least --min-bytes' \
  --op all_reduce --min-bytes 1G --max-bytes 1M --hardware "$hw" --topology "$topo"
expect_error "more GPUs per thread than GPUs" '--gpus-per-thread: expected at most the 4 GPUs of the call, found 8' \
  --op all_reduce --gpus 4 --gpus-per-thread 8 --launch-us 10 --hardware "$hw" --topology "$topo"
expect_error "bad GPUs per thread" "--gpus-per-thread: expected a GPU count \(1 or more\) or all, found 'some'" \
  --op all_reduce --gpus-per-thread some --hardware "$hw" --topology "$topo"
expect_error "negative launch time" '--launch-us' --op all_reduce --launch-us -1 --hardware "$hw" --topology "$topo"
sed 's/^  local_pass_gbps: .*/  local_pass_gbps: -5/' "$hw" > "$work/negative_pass.yaml"
expect_error "negative local pass" 'negative_pass\.yaml:[0-9]+: hardware\.nccl\.local_pass_gbps: expected a number >= 0' \
  --op all_reduce --hardware "$work/negative_pass.yaml" --topology "$topo"
expect_error "no topology" '--topology: expected' --op all_reduce --hardware "$hw"
expect_error "missing file" 'no_such\.yaml' --op all_reduce --hardware "$work/no_such.yaml" --topology "$topo"

# nccl-tests -g: each call takes at least the thread's launches of its GPUs
# (8 x 12.5 us = 100 us), and larger calls their own time.
"$preflight" collective --op all_reduce --gpus 8 --gpus-per-thread 8 --launch-us 12.5 --min-bytes 1K --max-bytes 1G \
  --hardware "$hw" --topology "$topo" --set topology.nodes=1 --quiet --json "$work/floor.json" > /dev/null 2>&1
"$preflight" collective --op all_reduce --gpus 8 --min-bytes 1K --max-bytes 1G \
  --hardware "$hw" --topology "$topo" --set topology.nodes=1 --quiet --json "$work/plain.json" > /dev/null 2>&1
# `all`: every GPU of the call from one thread (all_reduce_perf -g 8 on one server).
"$preflight" collective --op all_reduce --gpus 8 --gpus-per-thread all --launch-us 12.5 --min-bytes 1K --max-bytes 1K \
  --hardware "$hw" --topology "$topo" --set topology.nodes=1 --quiet --json "$work/all.json" > /dev/null 2>&1
grep -q '"gpus_per_thread": 8' "$work/all.json" || { echo "FAIL: --gpus-per-thread all is not the call's 8 GPUs"; failures=$((failures + 1)); }
/usr/bin/python3 - "$work/floor.json" "$work/plain.json" <<'PY' || { echo "FAIL: host launch floor"; failures=$((failures + 1)); }
import json, sys
floor, plain = (json.load(open(p)) for p in sys.argv[1:])
assert floor["gpus_per_thread"] == 8 and floor["launch_us"] == 12.5, floor
for f, p in zip(floor["rows"], plain["rows"]):
    assert abs(f["time_us"] - max(p["time_us"], 100.0)) < 1e-9, (f, p)
assert floor["rows"][0]["time_us"] == 100.0 and floor["rows"][-1]["time_us"] > 100.0
PY

[ $failures -eq 0 ] && echo "PASS"
exit $failures
