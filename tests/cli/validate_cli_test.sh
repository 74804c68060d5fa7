#!/usr/bin/env bash
# `preflight validate`: exit codes 0 / 3 / 2, the JSON keys of io/cli/README.md, figures that
# agree with published totals, and the same answer on 1 and 2 MPI ranks.
set -uo pipefail
preflight=$1
configs=$2
mpiexec=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

gpt3=$configs/examples/gpt3-175b-a100-1024.yaml

"$preflight" validate "$gpt3" --json "$tmp/fits.json" >"$tmp/fits.txt"
status=$?
[[ $status -eq 0 ]] || fail "GPT-3 175B on 1,024 A100s should fit (exit $status)"
grep -q '^fits:' "$tmp/fits.txt" || fail "text report has no verdict line"
/usr/bin/python3 - "$tmp/fits.json" <<'PY' || failures=$((failures + 1))
import json, sys
j = json.load(open(sys.argv[1]))
for key in ["parameters", "active_parameters", "model_flops", "hardware_flops", "pp_stage_memory_gb", "memory", "oom"]:
    assert key in j, f"missing key {key}"
for key in ["parameters_gb", "gradients_gb", "optimizer_gb", "activations_gb"]:
    assert key in j["memory"], f"missing memory.{key}"
assert j["oom"] is None, "oom must be null when the plan fits"
assert abs(j["parameters"] / 174.6e9 - 1) < 0.01, j["parameters"]
assert len(j["pp_stage_memory_gb"]) == 16
# Megatron's closed form, selective recompute adds no matmul FLOPs beyond attention:
B, s, l, h, V = 1536, 2048, 96, 12288, 51200
closed = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h))
assert abs(j["model_flops"] / closed - 1) < 1e-9, (j["model_flops"], closed)
assert j["hardware_flops"] >= j["model_flops"]
assert j["state_bytes_per_parameter"] == {"weights": 2, "gradients": 4, "optimizer": 12}, j["state_bytes_per_parameter"]
PY

# Adam's states at lower precision (training.optimizer_states): 12 -> 6 bytes per parameter, so the
# sharded optimizer term halves and nothing else moves.
"$preflight" validate "$gpt3" --set 'training.optimizer_states={param_remainders: true, exp_avg: bf16, exp_avg_sq: bf16}' \
  --json "$tmp/states.json" >"$tmp/states.txt" || fail "lower-precision optimizer states should fit"
grep -q 'optimizer 6 bytes' "$tmp/states.txt" || fail "text report does not show 6 optimizer bytes per parameter"
/usr/bin/python3 - "$tmp/fits.json" "$tmp/states.json" <<'PY' || failures=$((failures + 1))
import json, sys
full, low = (json.load(open(p)) for p in sys.argv[1:3])
assert low["state_bytes_per_parameter"]["optimizer"] == 6, low["state_bytes_per_parameter"]
assert abs(low["memory"]["optimizer_gb"] / full["memory"]["optimizer_gb"] - 0.5) < 1e-12, (low["memory"], full["memory"])
for key in ["parameters_gb", "gradients_gb", "activations_gb"]:
    assert low["memory"][key] == full["memory"][key], key
PY

# Without ZeRO and with pure data parallelism, 175B cannot fit in 80 GB.
"$preflight" validate "$gpt3" --set parallelism.tp=1 --set parallelism.pp=1 --set parallelism.zero_stage=0 \
  --set parallelism.sequence_parallel=false --set parallelism.pipeline_schedule=1f1b \
  --set parallelism.virtual_stages=1 --set training.global_batch_size=2048 --json "$tmp/oom.json" >"$tmp/oom.txt"
status=$?
[[ $status -eq 3 ]] || fail "an OOM plan must exit 3, got $status"
/usr/bin/python3 - "$tmp/oom.json" <<'PY' || failures=$((failures + 1))
import json, sys
j = json.load(open(sys.argv[1]))
oom = j["oom"]
assert oom is not None, "oom block empty"
assert oom["capacity_gb"] == 80, oom
assert oom["required_gb"] > 80 and abs(oom["excess_gb"] - (oom["required_gb"] - 80)) < 1e-6, oom
PY

# Bad input: exit 2, one line naming the key.
err=$("$preflight" validate "$gpt3" --set parallelism.tpp=4 2>&1 >/dev/null)
status=$?
[[ $status -eq 2 ]] || fail "bad --set key must exit 2, got $status"
[[ $(grep -c . <<<"$err") -eq 1 ]] || fail "expected one line, got: $err"
grep -q "did you mean 'tp'" <<<"$err" || fail "no did-you-mean hint: $err"
err=$("$preflight" validate "$tmp/missing.yaml" 2>&1 >/dev/null)
[[ $? -eq 2 ]] || fail "a missing experiment file must exit 2"

# The same plan on 2 ranks prints the same report.
"$mpiexec" --oversubscribe --allow-run-as-root -n 2 "$preflight" validate "$gpt3" --json "$tmp/fits2.json" >"$tmp/fits2.txt"
cmp -s "$tmp/fits.txt" "$tmp/fits2.txt" || fail "2-rank text report differs"
cmp -s "$tmp/fits.json" "$tmp/fits2.json" || fail "2-rank JSON differs"

[[ $failures -eq 0 ]] && echo "validate: all checks passed"
exit $((failures > 0))
