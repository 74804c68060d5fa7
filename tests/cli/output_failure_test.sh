#!/usr/bin/env bash
# Output failures (issue: never hang, never leave output that looks complete):
#   * a full disk while the timeline is written: every rank exits non-zero
#     within seconds with one error line, leaves no *.tmp, and the earlier
#     run's complete report.json and timeline.h5 are left byte for byte;
#   * the same when HDF5 itself fails midway (the synthetic writer without its
#     space guard): the writer abandons the file instead of hanging in close;
#   * an unwritable output is refused before the simulation starts;
#   * a destination that is not a regular file (a FIFO, a link to one, a
#     device, standard output) is written as it is, never staged and renamed
#     over (which replaced /dev/full with a regular file when run as root),
#     and a write error there (ENOSPC on a full device) is exit 2.
# The full disk is a small tmpfs; where mounting one is not permitted the
# disk-full cases are skipped (exit 77) after the unwritable-output checks.
# usage: output_failure_test.sh PREFLIGHT MPIEXEC SYNTHETIC_WRITER EXAMPLE WORK_DIR
set -uo pipefail
preflight=$1 mpiexec=$2 writer=$3 example=$4 work=$5
mpi=("$mpiexec" --oversubscribe --allow-run-as-root)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok   $*"; }

rm -rf "$work"
mkdir -p "$work"

# --- an unwritable output is found before simulating ---------------------
check_refused() {  # LABEL ARGS...
  local label=$1 log="$work/unwritable.log"
  shift
  timeout 60 "$preflight" run "$example" "$@" >"$log" 2>&1
  local status=$?
  if [[ $status -ne 2 ]]; then
    fail "unwritable $label: exit $status, expected 2: $(tail -1 "$log")"
  elif grep -q "step time" "$log"; then
    fail "unwritable $label: the simulation ran before the output was checked"
  elif [[ $(grep -c "^preflight: error:" "$log") -ne 1 ]]; then
    fail "unwritable $label: expected one error line: $(cat "$log")"
  else
    ok "unwritable $label: refused before simulating: $(grep "^preflight: error:" "$log")"
  fi
}
check_refused "output.dir" --out /proc/preflight-x
check_refused "--report-json" --out "$work/fine" --report-json /proc/preflight-y.json
check_refused "--report-json DIR" --out "$work/fine" --report-json "$work"

# --report-json naming OUT/report.json itself (through a longer path) is one file, written once.
same="$work/same"
if timeout 120 "$preflight" run "$example" --quiet --no-timeline --out "$same" --report-json "$same/./report.json" \
     >"$work/same.log" 2>&1 && [[ -s "$same/report.json" ]] && ! ls "$same" | grep -q '\.tmp$'; then
  ok "--report-json OUT/report.json: exit 0, one report"
else
  fail "--report-json OUT/report.json: $(tail -1 "$work/same.log")"
fi

# --- destinations that are not regular files ------------------------------
# Made inside the work folder (a regression must not replace the machine's
# own /dev/full or /dev/stdout); standard output is named /proc/self/fd/1,
# which a rename cannot replace.
streams="$work/streams"
mkdir -p "$streams"
mkfifo "$streams/fifo"
ln -s fifo "$streams/link-to-fifo"
run_quiet() { timeout 120 "$preflight" run "$example" --quiet --no-timeline "$@"; }

timeout 150 cat "$streams/fifo" >"$streams/from-fifo" &
reader=$!
run_quiet --out "$streams/a" --report-json "$streams/link-to-fifo" >"$streams/fifo.log" 2>&1
status=$?
wait "$reader"
if [[ $status -ne 0 ]]; then
  fail "--report-json LINK-TO-FIFO: exit $status: $(tail -1 "$streams/fifo.log")"
elif ! cmp -s "$streams/from-fifo" "$streams/a/report.json"; then
  fail "--report-json LINK-TO-FIFO: the reader did not get the report"
elif [[ ! -L "$streams/link-to-fifo" || ! -p "$streams/fifo" ]] || ls "$streams" | grep -q '\.tmp$'; then
  fail "--report-json LINK-TO-FIFO: the link or the FIFO was replaced, or a *.tmp left: $(ls -l "$streams")"
else
  ok "--report-json LINK-TO-FIFO: the reader got report.json's bytes; link and FIFO kept"
fi

if mknod "$streams/full" c 1 7 2>/dev/null; then
  run_quiet --out "$streams/c" --report-json "$streams/full" >"$streams/full.log" 2>&1
  status=$?
  if [[ $status -ne 2 ]]; then
    fail "--report-json FULL-DEVICE: exit $status, expected 2"
  elif ! grep -q "^preflight: error: --report-json: cannot write .*No space left on device" "$streams/full.log"; then
    fail "--report-json FULL-DEVICE: no error line naming the cause: $(tail -2 "$streams/full.log")"
  elif [[ ! -c "$streams/full" ]]; then
    fail "--report-json FULL-DEVICE: the device node was replaced by a regular file"
  else
    ok "--report-json FULL-DEVICE: exit 2, $(grep "^preflight: error:" "$streams/full.log")"
  fi
else
  echo "skip: mknod not permitted here: the full-device case not run"
fi

# Standard output as the output (`-`, or stdout's own file): stdout holds the
# file alone (CHECK, a function given the captured stdout), the text for
# people goes to stderr (a line matching STDERR_PATTERN).
stdout_alone() {  # LABEL CHECK STDERR_PATTERN COMMAND...
  local label=$1 check=$2 pattern=$3
  shift 3
  timeout 120 "$@" >"$streams/cmd.out" 2>"$streams/cmd.err"
  local status=$?
  if [[ $status -ne 0 && $status -ne 3 ]]; then
    fail "$label: exit $status: $(tail -1 "$streams/cmd.err")"
  elif ! "$check" "$streams/cmd.out" 2>>"$streams/cmd.err"; then
    fail "$label: standard output is not the file alone: $(head -c 200 "$streams/cmd.out")"
  elif ! grep -q "$pattern" "$streams/cmd.err"; then
    fail "$label: the text output did not move to stderr"
  else
    ok "$label: standard output holds the file alone, the text on stderr"
  fi
}
is_json() { /usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1"; }
is_csv() {
  /usr/bin/python3 -c 'import csv, sys; rows = list(csv.reader(open(sys.argv[1])));
assert rows[0][:2] == ["rank", "grid_index"] and len(rows) == 3' "$1"
}
is_report() { cmp -s "$1" "$streams/b/report.json"; }
is_trace() { cmp -s "$1" "$streams/trace.json"; }

for name in - /proc/self/fd/1; do
  stdout_alone "--report-json $name" is_report "step time" \
    "$preflight" run "$example" --quiet --no-timeline --out "$streams/b" --report-json "$name"
done
stdout_alone "validate --json -" is_json . "$preflight" validate "$example" --json -
stdout_alone "sweep --csv -" is_csv . "$preflight" sweep "$example" --vary parallelism.tp=4,8 \
  --set simulation.network=analytical --quiet --csv -
stdout_alone "collective --json -" is_json . "$preflight" collective --experiment "$example" --op all_reduce \
  --gpus 8 --max-bytes 16M --quiet --json -
stdout_alone "phold --json -" is_json . "$preflight" phold --json -
timeout 120 "$preflight" run "$example" --quiet --set output.timeline_gpus=0 --out "$streams/t" >/dev/null 2>&1 \
  || fail "the run for the trace checks did not write its timeline"
timeout 60 "$preflight" trace "$streams/t/timeline.h5" -o "$streams/trace.json" >/dev/null 2>&1
stdout_alone "trace -o -" is_trace "^trace: .* -> -$" "$preflight" trace "$streams/t/timeline.h5" -o -

# --- a full disk -----------------------------------------------------------
tiny="$work/tiny"
mkdir -p "$tiny"
if ! mount -t tmpfs -o size=2m tmpfs "$tiny" 2>/dev/null; then
  echo "skip: cannot mount a small tmpfs here (needs root and CAP_SYS_ADMIN): disk-full cases not run"
  exit $((failures > 0 ? 1 : 77))
fi
trap 'umount "$tiny" 2>/dev/null' EXIT

# An earlier, complete run's outputs (the timeline of one GPU: 0.2 MB).
out="$tiny/out"
"$preflight" run "$example" --set output.timeline_gpus=0 --out "$out" --quiet >/dev/null 2>&1 \
  || fail "the earlier run did not write its outputs"
before=$(cd "$out" && sha256sum report.json timeline.h5)

check_failed_run() {  # LABEL STATUS LOG
  local label=$1 status=$2 log=$3
  if [[ $status -eq 124 || $status -eq 137 ]]; then
    fail "$label: hung (killed after 300 s)"
  elif [[ $status -eq 0 ]]; then
    fail "$label: exit 0 on a full disk"
  elif ! grep -qE "^(preflight: error|timeline_synthetic_writer):" "$log"; then
    fail "$label: no error line: $(tail -3 "$log")"
  elif ls "$out" | grep -q '\.tmp$'; then
    fail "$label: left $(ls "$out" | grep '\.tmp$')"
  elif [[ $(cd "$out" && sha256sum report.json timeline.h5) != "$before" ]]; then
    fail "$label: the earlier run's report.json/timeline.h5 changed"
  else
    ok "$label: exit $status, $(grep -m1 -E "^(preflight: error|timeline_synthetic_writer):" "$log")"
  fi
}

# The timeout covers the simulation before the write: 4 ranks oversubscribed on
# 2 busy cores can take over a minute (the write itself fails within seconds).
for n in 1 2 4; do
  log="$work/full-np$n.log"
  timeout 300 "${mpi[@]}" -n "$n" "$preflight" run "$example" --out "$out" >"$log" 2>&1
  check_failed_run "preflight run, full disk, $n ranks" $? "$log"
  log="$work/abandon-np$n.log"
  timeout 300 "${mpi[@]}" -n "$n" "$writer" "$out" --gpus 64 --layers 48 --microbatches 200 --no-space-guard >"$log" 2>&1
  check_failed_run "HDF5 failing midway, $n ranks" $? "$log"
done
exit $((failures > 0))
