#!/usr/bin/env bash
# `preflight trace` end to end on a written timeline, on 1 and 2 ranks, and its
# usage errors (exit 2, one line on stderr, no output file left behind).
set -uo pipefail
preflight=$1 mpiexec=$2 timeline=$3 work=$4 check=$5
mpi=("$mpiexec" --oversubscribe --allow-run-as-root)
failures=0
mkdir -p "$work"

ok() {  # ok NAME CHECK-ARGS... -- PREFLIGHT-COMMAND...
  local name=$1; shift
  local args=(); while [[ $1 != -- ]]; do args+=("$1"); shift; done; shift
  rm -f "$work/trace.json"
  if ! timeout 120 "$@" >"$work/stdout" 2>"$work/stderr"; then
    echo "FAIL ($name): exit $?: $(cat "$work/stderr")"; failures=$((failures + 1)); return
  fi
  if /usr/bin/python3 "$check" "$work/trace.json" "$timeline" "${args[@]}"; then
    echo "ok   ($name): $(grep '^trace:' "$work/stdout")"
  else
    echo "FAIL ($name): JSON check"; failures=$((failures + 1))
  fi
}

usage_error() {  # usage_error NAME PATTERN PREFLIGHT-COMMAND...
  local name=$1 pattern=$2; shift 2
  rm -f "$work/bad.json"
  local err status lines
  err=$(timeout 120 "$@" 2>&1 >/dev/null); status=$?
  err=$(grep '^preflight' <<<"$err")   # Open MPI adds its own banner on non-zero exits
  lines=$(grep -c . <<<"$err")
  if [[ $status -ne 2 || $lines -ne 1 ]] || ! grep -q -- "$pattern" <<<"$err"; then
    echo "FAIL ($name): exit $status, $lines lines: $err"; failures=$((failures + 1))
  elif [[ -e $work/bad.json || -e $work/bad.json.tmp ]]; then
    echo "FAIL ($name): left an output file"; failures=$((failures + 1))
  else
    echo "ok   ($name) -> $err"
  fi
}

ok all -- "$preflight" trace "$timeline" -o "$work/trace.json"
ok gpus --gpus 0-7 -- "$preflight" trace "$timeline" -o "$work/trace.json" --gpus 0-7
ok window_np2 --gpus 2,9 --start-ns 5000 --end-ns 40000 -- \
  "${mpi[@]}" -n 2 "$preflight" trace "$timeline" -o "$work/trace.json" --gpus 2,9 --start-ns 5000 --end-ns 40000

echo "not hdf5" >"$work/text.h5"
for ranks in 1 2; do
  run=("$preflight"); [[ $ranks -gt 1 ]] && run=("${mpi[@]}" -n "$ranks" "$preflight")
  usage_error "missing np$ranks" "no such file" "${run[@]}" trace "$work/missing.h5" -o "$work/bad.json"
  usage_error "not hdf5 np$ranks" "not an HDF5 file" "${run[@]}" trace "$work/text.h5" -o "$work/bad.json"
  usage_error "gpus np$ranks" "--gpus" "${run[@]}" trace "$timeline" -o "$work/bad.json" --gpus 0-9999
  usage_error "window np$ranks" "--end-ns" "${run[@]}" trace "$timeline" -o "$work/bad.json" --start-ns 9 --end-ns 3
done
usage_error "no output" "output" "$preflight" trace "$timeline"
exit $((failures > 0))
