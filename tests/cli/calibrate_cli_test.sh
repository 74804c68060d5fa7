#!/usr/bin/env bash
# `preflight calibrate`: fits the H100 GEMM model to the measured XLA table,
# reports a held-out error that meets the model's target, writes a hardware
# file that `validate`/`run` accept and that reproduces the printed fit; bad
# input exits 2 with one line.
set -uo pipefail
preflight=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

hw=$root/configs/hardware/h100-sxm-80gb.yaml
data=$root/configs/calibration/h100-sxm/gemm_bf16.csv

"$preflight" calibrate --hardware "$hw" --data "$data" --holdout 0.5 --fix efficiency.gemm -o "$tmp/h100.yaml" >"$tmp/out.txt"
status=$?
cat "$tmp/out.txt"
[[ $status -eq 0 ]] || fail "calibrate exit $status"
/usr/bin/python3 - "$tmp/out.txt" <<'PY' || failures=$((failures + 1))
import re, sys
text = open(sys.argv[1]).read()
held = re.search(r"fitted, held-out rows\s+rows\s+(\d+)\s+median \|err\|\s+([\d.]+) %\s+p90\s+([\d.]+) %", text)
assert held, "no held-out line"
rows, median, p90 = int(held.group(1)), float(held.group(2)), float(held.group(3))
assert rows == 62, rows                      # half of the 125 rows, rounded down
assert median <= 8.0 and p90 <= 20.0, (median, p90)
fitted = re.search(r"fitted: efficiency.gemm ([\d.]+)", text)
assert fitted and abs(float(fitted.group(1)) - 0.803) < 1e-9, "efficiency.gemm was fixed at the preset's 0.803"
PY
# The written file is a valid hardware file and gives the fit it printed.
grep -q "^  sm_count: 132" "$tmp/h100.yaml" || grep -q "sm_count: 132" "$tmp/h100.yaml" || fail "no sm_count in the written file"
"$preflight" calibrate --hardware "$tmp/h100.yaml" --data "$data" >"$tmp/again.txt" || fail "written file does not load"
before=$(grep "fitted on all, all rows" "$tmp/out.txt" | sed 's/.*median |err| *\([0-9.]*\).*/\1/')
after=$(grep "preset, all rows" "$tmp/again.txt" | sed 's/.*median |err| *\([0-9.]*\).*/\1/')
[[ "$before" == "$after" ]] || fail "written parameters give median $after%, the fit printed $before%"
cat >"$tmp/exp.yaml" <<YAML
name: tiny
model: {name: tiny, layers: 2, hidden_size: 256, ffn_hidden_size: 1024, num_attention_heads: 4, vocab_size: 512}
hardware: $tmp/h100.yaml
topology: {kind: single_switch, nodes: 1}
training: {global_batch_size: 8, seq_length: 128}
simulation: {network: analytical}
YAML
"$preflight" validate "$tmp/exp.yaml" >/dev/null || fail "validate rejects the calibrated hardware file"

# Errors: exit 2 and a message naming what is wrong.
expect_error() {
  local pattern=$1; shift
  "$preflight" calibrate "$@" >"$tmp/err.txt" 2>&1
  local s=$?
  [[ $s -eq 2 ]] || fail "'$*' exited $s, expected 2"
  grep -q -- "$pattern" "$tmp/err.txt" || fail "'$*' did not say '$pattern': $(cat "$tmp/err.txt")"
}
expect_error "unknown-parameter" --hardware "$hw" --data "$data" --fix unknown-parameter
expect_error "missing.csv.*found nothing" --hardware "$hw" --data "$tmp/missing.csv"
printf 'seq,dim,t_measured_ms\n2,256,0.1\n' >"$tmp/rmsnorm.csv"
expect_error "GEMM table" --hardware "$hw" --data "$tmp/rmsnorm.csv"
sed 's/^  sm_count:.*$//' "$hw" >"$tmp/no-sms.yaml"
expect_error "sm_count" --hardware "$tmp/no-sms.yaml" --data "$data"
printf 'M,N,K,t_measured_ms\n4096,4096,x,0.2\n' >"$tmp/bad.csv"
expect_error "bad.csv:2" --hardware "$hw" --data "$tmp/bad.csv"

[[ $failures -eq 0 ]] && echo "calibrate_cli: all checks passed"
exit $((failures > 0))
