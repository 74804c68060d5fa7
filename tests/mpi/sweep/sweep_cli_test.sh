#!/bin/bash
# `preflight sweep` through the binary under mpiexec:
#  - rows ranked by step time, exact ties broken by grid index, invalid
#    variants reported as rows (not fatal), CSV = JSON = the table;
#  - the same table (less wall times) on 1 rank, on 2 ranks, and on 2 ranks
#    with --jobs-per-run 1 (two groups running variants side by side);
#  - a variant's figures equal `preflight run` of the same overrides;
#  - an OOM variant is a column, exit 0;
#  - bad usage (bad --vary, unknown key, --jobs-per-run not dividing, no valid
#    variant) exits 2 with one line;
#  - scripts/plot_sweep.py draws the JSON.
# usage: sweep_cli_test.sh PREFLIGHT MPIEXEC SOURCE_ROOT
set -u
preflight=$1 mpiexec=$2 root=$3
exp=$root/tests/mpi/training/small-pipeline.yaml
check="/usr/bin/python3 $root/tests/mpi/sweep/check_sweep.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
mpi() { local n=$1; shift; "$mpiexec" --oversubscribe --allow-run-as-root -n "$n" "$@"; }

# One 8-GPU server, a 4-layer model, short sequences: each variant simulates in
# well under a second. dp is derived from tp x pp; tp=3 divides neither the 16
# heads nor the 8 GPUs; output.timeline does not change the simulation, so
# every tp ties exactly with its pair.
sets=(--set topology.nodes=1 --set parallelism.dp=~ --set parallelism.pp=2 --set model.layers=4
      --set training.global_batch_size=8 --set training.seq_length=256)
grid=(--vary parallelism.tp=1,2,3,4 --vary output.timeline=true,false)

sweep() {  # sweep NAME RANKS [extra args...]
  local name=$1 n=$2; shift 2
  mpi "$n" "$preflight" sweep "$exp" "${sets[@]}" "${grid[@]}" --csv "$work/$name.csv" --json "$work/$name.json" \
    "$@" > "$work/$name.txt" 2> "$work/$name.err"
}

sweep one 1 || { fail "sweep on 1 rank exited $?"; cat "$work/one.err"; }
$check ranked "$work/one.json" "$work/one.csv" 6 2 || fail "ranking on 1 rank"
grep -q "invalid: " "$work/one.txt" || fail "the table does not show the invalid variant"
[ "$(grep -c '^sweep: \[' "$work/one.err")" -eq 8 ] || { fail "expected one progress line per variant"; cat "$work/one.err"; }

sweep two 2 || { fail "sweep on 2 ranks exited $?"; cat "$work/two.err"; }
$check same "$work/one.json" "$work/two.json" || fail "2 ranks differ from 1 rank"
$check same-table "$work/one.txt" "$work/two.txt" || fail "table on 2 ranks differs"

sweep split 2 --jobs-per-run 1 || { fail "sweep with --jobs-per-run 1 exited $?"; cat "$work/split.err"; }
$check same "$work/one.json" "$work/split.json" || fail "--jobs-per-run 1 differs from 1 rank"
$check same-table "$work/one.txt" "$work/split.txt" || fail "table with --jobs-per-run 1 differs"

sweep quiet 1 --quiet || fail "quiet sweep exited $?"
[ ! -s "$work/quiet.err" ] || { fail "--quiet still wrote to stderr"; cat "$work/quiet.err"; }

# Grid index 3 is tp=2, output.timeline=false: the same overrides through `run`.
mpi 2 "$preflight" run "$exp" "${sets[@]}" --set parallelism.tp=2 --set output.timeline=false --quiet \
  --out "$work/run" > /dev/null 2>&1 || fail "run exited $?"
$check matches-run "$work/one.json" 3 "$work/run/report.json" || fail "sweep and run disagree"

# Out of memory is a column, not a failure.
mpi 2 "$preflight" sweep "$exp" "${sets[@]}" --vary hardware.gpu.memory_gb=0.5,80 --json "$work/oom.json" --quiet \
  > "$work/oom.txt" 2>&1 || fail "sweep with an OOM variant exited $?"
$check oom "$work/oom.json" hardware.gpu.memory_gb 0.5 || fail "oom column"

# Bad usage: exit 2, one line, no table.
bad() {  # bad LABEL RANKS ARGS...
  local label=$1 n=$2; shift 2
  mpi "$n" "$preflight" sweep "$exp" "${sets[@]}" "$@" > "$work/bad.txt" 2>&1
  local rc=$?
  [ $rc -eq 2 ] || fail "$label exited $rc, expected 2"
  [ "$(grep -c 'preflight: error' "$work/bad.txt")" -eq 1 ] || { fail "$label: expected one error line"; cat "$work/bad.txt"; }
  ! grep -q step_time_ms "$work/bad.txt" || fail "$label printed a table"
}
bad "--vary without '='" 2 --vary parallelism.tp
bad "--vary with an empty value" 2 --vary parallelism.tp=1,,2
bad "--vary of an unknown key" 2 --vary parallelism.tpp=1,2
bad "the same key varied twice" 1 --vary parallelism.tp=1 --vary parallelism.tp=2
bad "--jobs-per-run not dividing the ranks" 2 --vary parallelism.tp=1,2 --jobs-per-run 3
bad "no valid variant" 2 --vary parallelism.tp=3,5 --quiet
bad "--jobs-per-run 0" 1 --vary parallelism.tp=1 --jobs-per-run 0
bad "no --vary" 1

# The plot script draws the sweep.
if /usr/bin/python3 -c "import matplotlib" 2> /dev/null; then
  /usr/bin/python3 "$root/scripts/plot_sweep.py" "$work/one.json" -o "$work/one.png" || fail "plot_sweep.py exited $?"
  [ "$(head -c 4 "$work/one.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "plot_sweep.py wrote no PNG"
  /usr/bin/python3 "$root/scripts/plot_sweep.py" "$work/oom.json" -o "$work/oom.png" || fail "plot of an OOM sweep"
  /usr/bin/python3 "$root/scripts/plot_sweep.py" --help > /dev/null || fail "plot_sweep.py --help"
fi

exit $status
