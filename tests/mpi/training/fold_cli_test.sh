#!/bin/bash
# Replica folding (simulation.fold: auto, models/training/replica_folding.h):
# on nine configurations (dense 1F1B, interleaved, CP, ZeRO-3, MoE with EP,
# data-parallel groups inside a server, a SimAI import, a rail-optimised
# fabric where replicas fall into two classes, GPU faults), the folded run on 1 and 2 ranks gives the report (less
# simulation/version/config hash) and every GPU's timeline rows and
# /gpu_summary of the unfolded run (fold: off, 1 rank), and it did fold
# (fewer GPUs simulated than the cluster has); the MoE plan also on 4 ranks
# with null-message synchronisation, folded and not.
# usage: fold_cli_test.sh PREFLIGHT MPIEXEC SOURCE_ROOT
set -u
preflight=$1 mpiexec=$2 root=$3
exp=$root/tests/mpi/training/small-pipeline.yaml
# shellcheck source=cli_common.sh
source "$root/tests/mpi/training/cli_common.sh"

# 32 GPUs on four servers, analytical network: TP 2, PP 2, DP 8.
base=(--set topology.nodes=4 --set parallelism.tp=2 --set parallelism.pp=2 --set parallelism.dp=8
      --set training.global_batch_size=16 --set simulation.network=analytical --quiet)
declare -A plans
plans[dense_1f1b]=""
plans[interleaved]="--set parallelism.pipeline_schedule=interleaved --set parallelism.virtual_stages=2 --set training.global_batch_size=32"
plans[cp]="--set parallelism.cp=2 --set parallelism.dp=4 --set training.seq_length=2048"
plans[zero3]="--set parallelism.pp=1 --set parallelism.dp=16 --set parallelism.zero_stage=3 --set parallelism.sequence_parallel=true"
plans[moe_ep]="--set model.moe.num_experts=8 --set model.moe.top_k=2 --set parallelism.ep=4 --set parallelism.sequence_parallel=true"
plans[dp_in_server]="--set topology.nodes=2 --set parallelism.tp=1 --set parallelism.dp=8"
plans[two_classes]="--set topology.kind=rail_optimized --set topology.nodes=12 --set topology.nodes_per_leaf=6 --set parallelism.pp=3 --set parallelism.dp=16 --set model.layers=12 --set training.global_batch_size=32"

run_case() {  # name, experiment, extra args...
  local name=$1 e=$2
  shift 2
  "$preflight" run "$e" "$@" --set simulation.fold=off --out "$work/$name-off" > "$work/$name-off.txt" 2>&1 \
    || { fail "$name: unfolded run exited $?"; cat "$work/$name-off.txt"; return; }
  for n in 1 2; do
    local out=$work/$name-auto-$n
    mpi "$n" "$preflight" run "$e" "$@" --out "$out" > "$out.txt" 2>&1 \
      || { fail "$name: folded run on $n ranks exited $?"; cat "$out.txt"; continue; }
    $check folded "$out" || fail "$name: the run on $n ranks did not fold"
    $check same "$work/$name-off" "$out" other-config || fail "$name: folded on $n ranks differs from unfolded"
  done
}

for name in "${!plans[@]}"; do
  # shellcheck disable=SC2086
  run_case "$name" "$exp" "${base[@]}" ${plans[$name]}
done
# A straggler and jitter: the replicas on the servers they touch are simulated
# each on its own, the rest fold (5 of 8 replicas simulated); fault figures too.
run_case gpu_faults "$exp" "${base[@]}" \
  --set 'faults=[{gpus: "3", compute_slowdown: 1.3}, {gpus: "20-21", compute_jitter: {distribution: normal, sigma: 0.1, seed: 7}}]'
run_case simai "$root/tests/mpi/training/simai.yaml" --quiet \
  --set workload.simai="$root/configs/workloads/simai/L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt" \
  --set topology.nodes=4 --set simulation.network=analytical

# The rendezvous across ranks in the other synchronisation mode: the MoE plan
# on 4 ranks with null messages, folded and unfolded (every member's join
# then crosses ranks), gives the 1-rank unfolded run.
# shellcheck disable=SC2086
for fold in auto off; do
  out=$work/null-message-$fold
  mpi 4 "$preflight" run "$exp" "${base[@]}" ${plans[moe_ep]} --set simulation.sync=null_message \
    --set simulation.fold=$fold --out "$out" > "$out.txt" 2>&1 || { fail "null_message fold $fold exited $?"; continue; }
  $check same "$work/moe_ep-off" "$out" other-config || fail "null_message on 4 ranks, fold $fold, differs"
done

# Folding is off, with its reason, where replicas share links or paths depend on flows.
"$preflight" run "$exp" "${base[@]}" --set simulation.network=packet --out "$work/packet" > "$work/packet.txt" 2>&1
grep -q "replica folding *off (packet network" "$work/packet.txt" || fail "packet run does not say folding is off"
"$preflight" run "$exp" "${base[@]}" --set 'faults=[{link: "leaf0->spine0", bandwidth_factor: 0.5}]' \
  --set topology.kind=rail_optimized --set topology.nodes_per_leaf=2 --out "$work/link" > "$work/link.txt" 2>&1
grep -q "replica folding *off (link and switch faults" "$work/link.txt" || { fail "a link fault does not turn folding off"; cat "$work/link.txt"; }
exit $status
