#!/bin/bash
# `preflight run --profile-parallelism FILE` through the binary:
#  - a one-rank run's projection of 2 and 4 ranks has exactly the windows,
#    events per window on the busiest rank, remote events and MPI messages
#    that the 2- and 4-rank runs record (same partition, same windows);
#  - every figure of the report is the same with and without the profile;
#  - projected rank counts above the server count are listed as skipped;
#  - the above with simulation.lookahead: static; with dynamic (the default)
#    the same report on 1, 2 and 4 ranks, fewer windows than static,
#    projection and recorded runs still equal;
#  - bad input exits 2 with one line and before simulating: null_message
#    sync on more than one rank, an unwritable FILE, a bad --profile-ranks.
# usage: profile_cli_test.sh PREFLIGHT MPIEXEC SOURCE_ROOT
set -u
preflight=$1 mpiexec=$2 root=$3
exp=$root/tests/mpi/training/small-pipeline.yaml
# shellcheck source=cli_common.sh
source "$root/tests/mpi/training/cli_common.sh"

# 16 GPUs on four servers: TP 2, PP 2, DP 4, packet network.
plan=(--set topology.nodes=4 --set hardware.node.gpus_per_node=4 --set parallelism.tp=2 --set parallelism.pp=2
      --set parallelism.dp=4 --set training.global_batch_size=16 --set simulation.network=packet --no-timeline)
static=(--set simulation.lookahead=static)

"$preflight" run "$exp" "${plan[@]}" "${static[@]}" --quiet --out "$work/plain" > /dev/null 2>&1 || fail "plain run exited $?"
"$preflight" run "$exp" "${plan[@]}" "${static[@]}" --out "$work/one" --profile-parallelism "$work/one.h5" \
  --profile-ranks 2,3,4,8 > /dev/null 2> "$work/one.err" || { fail "profiled run exited $?"; cat "$work/one.err"; }
grep -q "not projected: more ranks than servers (4)" "$work/one.err" || fail "8 ranks not listed as skipped"
grep -q "speed-up" "$work/one.err" || fail "no projection table: $(cat "$work/one.err")"
for n in 2 4; do
  mpi "$n" "$preflight" run "$exp" "${plan[@]}" "${static[@]}" --quiet --out "$work/r$n" --profile-parallelism "$work/r$n.h5" \
    > /dev/null 2>&1 || fail "$n-rank profiled run exited $?"
done

/usr/bin/python3 - "$work" <<'PY' || status=1
import json, sys
import h5py
w = sys.argv[1]
bad = []
def report(d):
    r = json.load(open(f"{w}/{d}/report.json")); r.pop("simulation"); r.pop("version", None); return r
if report("plain") != report("one"):
    bad.append("report differs with --profile-parallelism")
with h5py.File(f"{w}/one.h5") as f:
    if f.attrs["format"] != "preflight parallelism profile 1": bad.append("format attribute")
    p = f["projection"]
    rows = {int(k): i for i, k in enumerate(p["ranks"][:])}
    if sorted(rows) != [2, 3, 4]: bad.append(f"projected ranks {sorted(rows)}")
    if list(f["skipped/ranks"][:]) != [8]: bad.append("skipped ranks")
    proj = {k: {n: int(p[n][i]) for n in ("windows", "events", "max_events_sum", "remote_events", "messages")}
            for k, i in rows.items()}
    speedup = {k: float(p["speedup"][i]) for k, i in rows.items()}
    events = int(f.attrs["events"])
for n in (2, 4):
    with h5py.File(f"{w}/r{n}.h5") as f:
        ev = f["windows/events"][:]
        got = {"windows": ev.shape[0], "events": int(ev.sum()), "max_events_sum": int(ev.max(axis=1).sum()),
               "remote_events": int(f["windows/remote_events"][:].sum()), "messages": int(f["windows/messages"][:].sum())}
        if ev.shape[1] != n: bad.append(f"{n} ranks: {ev.shape[1]} columns")
        if "projection" in f: bad.append(f"{n} ranks: a projection from a multi-rank run")
    if got != proj[n]: bad.append(f"{n} ranks: projected {proj[n]} vs recorded {got}")
    if got["events"] != events: bad.append(f"{n} ranks: {got['events']} events vs {events} on one rank")
    if not 0 < speedup[n] <= n: bad.append(f"{n} ranks: speed-up {speedup[n]}")
for b in bad: print("FAIL:", b)
if not bad: print(f"ok   projection == recorded run on 2 and 4 ranks: {proj[2]['windows']} windows, "
                  f"busiest-rank events {proj[2]['max_events_sum']} / {proj[4]['max_events_sum']} of {events}")
sys.exit(1 if bad else 0)
PY

# simulation.lookahead: dynamic (the default; GPUs' promises,
# core/promise_board.h): the same report as static on 1, 2 and 4 ranks, fewer
# windows than static, and the one-rank projection still equal to the
# recorded runs.
dyn=(--set simulation.lookahead=dynamic)
"$preflight" run "$exp" "${plan[@]}" "${dyn[@]}" --out "$work/d1" --profile-parallelism "$work/d1.h5" \
  --profile-ranks 2,4 > /dev/null 2>&1 || fail "dynamic profiled run exited $?"
for n in 2 4; do
  mpi "$n" "$preflight" run "$exp" "${plan[@]}" "${dyn[@]}" --quiet --out "$work/d$n" \
    --profile-parallelism "$work/d$n.h5" > /dev/null 2>&1 || fail "$n-rank dynamic run exited $?"
done
/usr/bin/python3 - "$work" <<'PY' || status=1
import json, sys
import h5py
w = sys.argv[1]
bad = []
def report(d):  # less the configuration's hash: the lookahead key differs
    r = json.load(open(f"{w}/{d}/report.json"))
    for k in ("simulation", "version", "config_sha256"): r.pop(k, None)
    return r
for d in ("d1", "d2", "d4"):
    if report(d) != report("plain"): bad.append(f"{d}: report differs from the static run")
with h5py.File(f"{w}/d1.h5") as f:
    p = f["projection"]
    rows = {int(k): i for i, k in enumerate(p["ranks"][:])}
    proj = {k: int(p["windows"][i]) for k, i in rows.items()}
    by_promise = {k: int(p["bound_by_promise"][i]) for k, i in rows.items()}
for n in (2, 4):
    with h5py.File(f"{w}/d{n}.h5") as f: dyn = f["windows/events"].shape[0]
    with h5py.File(f"{w}/r{n}.h5") as f: fixed = f["windows/events"].shape[0]
    if dyn != proj[n]: bad.append(f"{n} ranks dynamic: projected {proj[n]} windows vs recorded {dyn}")
    if not dyn < fixed: bad.append(f"{n} ranks: dynamic {dyn} windows, not fewer than static {fixed}")
    if by_promise[n] <= 0: bad.append(f"{n} ranks: no window bound by a promise")
    print(f"ok   dynamic lookahead, {n} ranks: {dyn} windows (static {fixed}), {by_promise[n]} bound by promises") if not bad else None
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

refused() {  # LABEL EXPECTED-TEXT COMMAND...
  local label=$1 text=$2 log=$work/refused.log
  shift 2
  "$@" > "$log" 2>&1
  local rc=$?
  if [[ $rc -ne 2 ]]; then fail "$label: exit $rc, expected 2: $(tail -2 "$log")"
  elif ! grep -q -- "$text" "$log"; then fail "$label: expected '$text': $(cat "$log")"
  elif grep -q "step time" "$log"; then fail "$label: simulated before refusing"
  else echo "ok   $label: $(grep -m1 error "$log")"; fi
}
refused "null_message on 2 ranks" "expected simulation.sync: window" \
  mpi 2 "$preflight" run "$exp" "${plan[@]}" --set simulation.sync=null_message --out "$work/nm" \
  --profile-parallelism "$work/nm.h5"
refused "unwritable FILE" "--profile-parallelism: cannot write" \
  "$preflight" run "$exp" "${plan[@]}" --out "$work/x" --profile-parallelism /proc/preflight-profile.h5
refused "bad --profile-ranks" "profile-ranks" \
  "$preflight" run "$exp" "${plan[@]}" --out "$work/x" --profile-parallelism "$work/x.h5" --profile-ranks 2,zero
ls "$work"/*.tmp > /dev/null 2>&1 && fail "a .tmp file was left"
exit $status
