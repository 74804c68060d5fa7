#!/bin/bash
# `preflight run` through the binary under mpiexec:
#  - the report (less simulation/version) and the timeline's /events are
#    identical on 1, 2 and 4 ranks, in both synchronisation modes;
#  - timeline.h5 has io/timeline/README.md's schema, and the critical path rebuilt
#    from it spans exactly the step time;
#  - an out-of-memory plan exits 3 with the `oom` block filled;
#  - a run stopped part-way leaves no timeline.h5 (or only a complete one);
#  - bad input exits 2 with one line.
# usage: run_cli_test.sh PREFLIGHT MPIEXEC SOURCE_ROOT
set -u
preflight=$1 mpiexec=$2 root=$3
exp=$root/tests/mpi/training/small-pipeline.yaml
# shellcheck source=cli_common.sh
source "$root/tests/mpi/training/cli_common.sh"

# 16 GPUs on two servers: TP 2 with sequence parallelism, PP 2, DP 4, ZeRO 1.
plan=(--set topology.nodes=2 --set parallelism.tp=2 --set parallelism.pp=2 --set parallelism.dp=4
      --set parallelism.sequence_parallel=true --set training.global_batch_size=16 --quiet)

for sync in window null_message; do
  for n in 1 2 4; do
    out=$work/$sync-$n
    mpi "$n" "$preflight" run "$exp" "${plan[@]}" --set simulation.sync=$sync --out "$out" > "$out.txt" 2>&1 \
      || { fail "run on $n ranks ($sync) exited $?"; cat "$out.txt"; continue; }
    same_config=same-config; [ $sync = window ] || same_config=other-config
    $check same "$work/window-1" "$out" $same_config || fail "$sync on $n ranks differs from window on 1 rank"
  done
done

# simulation.partition: replicas (each rank the same share of every pipeline
# stage's servers) gives the same report and events on 2 and 4 ranks as on
# one, on 4 servers so that its runs differ from block's: TP 1 x PP 2 x DP 16,
# and TP 2 x CP 2 x PP 2 x DP 4.
wide=(--set topology.nodes=4 --set parallelism.tp=1 --set parallelism.pp=2 --set parallelism.dp=16
      --set training.global_batch_size=32)
context=(--set topology.nodes=4 --set parallelism.tp=2 --set parallelism.pp=2 --set parallelism.cp=2
         --set parallelism.dp=4 --set parallelism.sequence_parallel=true --set training.global_batch_size=16)
replicas_run() {  # NAME RANKS PLAN...
  local name=$1 n=$2 out=$work/replicas-$1-$2
  shift 2
  mpi "$n" "$preflight" run "$exp" "$@" --set simulation.partition=replicas --quiet --out "$out" > "$out.txt" 2>&1 \
    || { fail "replicas ($name) on $n ranks exited $?"; cat "$out.txt"; return 1; }
  [ "$n" = 1 ] || $check same "$work/replicas-$name-1" "$out" || fail "replicas ($name) on $n ranks differs from 1 rank"
}
for n in 1 2 4; do
  replicas_run wide "$n" "${wide[@]}"
  replicas_run context "$n" "${context[@]}"
done

$check timeline "$work/window-2" || fail "timeline schema"
$check critical "$work/window-2" || fail "critical path"

# Out of memory: 1 GiB GPUs cannot hold this plan; the run still completes.
mpi 2 "$preflight" run "$exp" "${plan[@]}" --set hardware.gpu.memory_gb=1 --out "$work/oom" > "$work/oom.txt" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "out-of-memory run exited $rc, expected 3"
$check oom "$work/oom" || fail "oom block"
grep -q "OUT OF MEMORY" "$work/oom.txt" || fail "text report does not say the plan does not fit"
[ -f "$work/oom/timeline.h5" ] || fail "out-of-memory run wrote no timeline"

# Stopped part-way: no timeline.h5, or a complete one; never a partial file
# under the final name.
for delay in 0.5 1.5 3; do
  out=$work/killed-$delay
  mpi 2 "$preflight" run "$root/configs/examples/gpt3-13b-a100-128.yaml" --out "$out" --quiet > /dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -TERM "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  $check complete "$out" || fail "run stopped after ${delay}s left a partial timeline.h5"
done

# Bad input: exit 2 and one line naming the key.
mpi 2 "$preflight" run "$exp" --set parallelism.tp=3 --out "$work/bad" > "$work/bad.txt" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "bad parallelism exited $rc, expected 2"
[ "$(grep -c 'preflight: error' "$work/bad.txt")" -eq 1 ] || { fail "expected one error line"; cat "$work/bad.txt"; }
[ ! -e "$work/bad/report.json" ] || fail "a failed run left report.json"

exit $status
