#!/usr/bin/python3
"""Checks on `preflight run` outputs, for run_cli_test.sh.

    check_run.py same DIR_A DIR_B [other-config]    reports (less simulation, version) and timelines identical
    check_run.py timeline DIR        timeline.h5 has io/timeline/README.md's schema and agrees with report.json
    check_run.py critical DIR        the critical path rebuilt from /events spans [0, step time]
    check_run.py oom DIR             report.json carries a filled `oom` block
    check_run.py complete DIR        timeline.h5, if present, is complete and readable
"""
import json
import sys

import h5py
import numpy as np

EVENT_FIELDS = [("gpu", "u4"), ("stream", "u1"), ("kind", "u2"), ("start_ns", "i8"), ("end_ns", "i8"),
                ("layer", "i4"), ("microbatch", "i4"), ("phase", "u1"), ("bytes", "u8"), ("flops", "f8"),
                ("group", "u4")]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def report(d):
    with open(d + "/report.json") as f:
        return json.load(f)


def same(a, b, config="same-config"):
    ra, rb = report(a), report(b)
    for r in (ra, rb):
        r.pop("simulation"), r.pop("version")
        if config == "other-config":  # e.g. another sync mode: the hash of the configuration differs
            r.pop("config_sha256")
    if ra != rb:
        diff = [k for k in ra if ra.get(k) != rb.get(k)]
        fail(f"reports differ in {diff}")
    with h5py.File(a + "/timeline.h5") as fa, h5py.File(b + "/timeline.h5") as fb:
        for name in ("events", "gpu_summary", "kinds", "groups"):
            if not np.array_equal(fa[name][:], fb[name][:]):
                fail(f"/{name} differs between {a} and {b}")
        n = fa["events"].shape[0]
    print(f"same: report and {n} events identical")


def timeline(d):
    r = report(d)
    with h5py.File(d + "/timeline.h5") as f:
        ev = f["events"]
        got = [(name, ev.dtype[name].str[1:]) for name in ev.dtype.names]
        if got != EVENT_FIELDS:
            fail(f"/events fields {got}")
        if ev.chunks is None or ev.compression is None:
            fail("/events is not chunked and compressed")
        e = ev[:]
        if len(e) == 0:
            fail("no events")
        order = np.lexsort((e["start_ns"], e["gpu"]))
        if not np.array_equal(order, np.arange(len(e))):
            fail("/events not sorted by (gpu, start_ns)")
        if (e["end_ns"] < e["start_ns"]).any() or (e["start_ns"] < 0).any():
            fail("an event ends before it starts")
        kinds = [k.decode() for k in f["kinds"][:]]
        groups = [g.decode() for g in f["groups"][:]]
        if e["kind"].max() >= len(kinds) or e["group"].max() >= len(groups):
            fail("kind or group index outside its table")
        step_ns = r["step_time_ms"] * 1e6
        if abs(e["end_ns"].max() - step_ns) > 1:
            fail(f"last event ends at {e['end_ns'].max()} ns, step time {step_ns} ns")
        gs = f["gpu_summary"][:]
        if len(gs) != r["gpus"] or not np.array_equal(gs["gpu"], np.arange(r["gpus"])):
            fail("/gpu_summary does not hold one row per GPU")
        if abs(f["summary"].attrs["step_time_ms"] - r["step_time_ms"]) > 1e-9:
            fail("/summary step_time_ms differs from report.json")
        if "parallelism" not in f["config"][()].decode():
            fail("/config is not the merged configuration")
        meta = f["meta"].attrs
        if meta["gpus"] != r["gpus"] or meta["ranks"] != r["simulation"]["ranks"]:
            fail("/meta gpus or ranks wrong")
        # Compute busy per GPU in /gpu_summary equals the compute rows' total.
        for g in range(min(r["gpus"], 8)):
            mine = e[(e["gpu"] == g) & (e["stream"] == 0)]
            busy = int((mine["end_ns"] - mine["start_ns"]).sum())
            if abs(busy - gs["busy_ns"][g]) > len(mine):
                fail(f"gpu {g}: busy_ns {gs['busy_ns'][g]} vs rows {busy}")
    print(f"timeline: {len(e)} events, {len(kinds)} kinds, {len(groups)} groups, schema ok")


def critical(d):
    """Walks back from the last op: a compute or p2p op was started by an op
    of its GPU ending at its start, or by the host issuing it then (no op ends
    at its start: the host thread, which runs from the latest op of the GPU
    that ended before, is on the path); a collective ended when its last
    member joined, so the path continues from the member that started it last."""
    r = report(d)
    with h5py.File(d + "/timeline.h5") as f:
        e = f["events"][:]
    by_gpu = {}
    for i in range(len(e)):
        by_gpu.setdefault(int(e["gpu"][i]), []).append(i)
    # The n-th collective of a group on each member is the same collective.
    instance = {}
    count = {}
    for i in range(len(e)):
        if e["stream"][i] != 1:
            continue
        key = (int(e["gpu"][i]), int(e["group"][i]))
        n = count.get(key, 0)
        count[key] = n + 1
        instance.setdefault((int(e["group"][i]), n), []).append(i)
        e_inst = (int(e["group"][i]), n)
        instance[("of", i)] = e_inst
    end_index = {}
    for i in range(len(e)):
        end_index.setdefault((int(e["gpu"][i]), int(e["end_ns"][i])), []).append(i)
    cur = int(np.argmax(e["end_ns"]))
    step_ns = int(e["end_ns"][cur])
    path, compute_ns, hops, host_ns = [], 0, 0, 0
    while True:
        path.append(cur)
        s = int(e["start_ns"][cur])
        if e["stream"][cur] == 0:
            compute_ns += int(e["end_ns"][cur]) - s
        if e["stream"][cur] == 1:
            members = instance[instance[("of", cur)]]
            latest = max(members, key=lambda j: (int(e["start_ns"][j]), -j))
            if e["start_ns"][latest] > s:
                cur, hops = latest, hops + 1
                s = int(e["start_ns"][cur])
        if s == 0:
            break
        prev = [j for j in end_index.get((int(e["gpu"][cur]), s), []) if j != cur and e["start_ns"][j] <= s]
        if not prev:
            # Issued by the host at s: the host ran since an earlier op ended (or since 0).
            gpu = int(e["gpu"][cur])
            before = [j for j in by_gpu[gpu] if j != cur and int(e["end_ns"][j]) < s]
            if not before:
                host_ns += s
                break
            cur = max(before, key=lambda j: (int(e["end_ns"][j]), -j))
            host_ns += s - int(e["end_ns"][cur])
            continue
        cur = max(prev, key=lambda j: (int(e["end_ns"][j]) - int(e["start_ns"][j]), -j))
    if abs(step_ns - r["step_time_ms"] * 1e6) > 1:
        fail(f"path length {step_ns} ns, step time {r['step_time_ms']} ms")
    if compute_ns + host_ns > step_ns:
        fail("more compute and host time on the path than its length")
    print(f"critical path: {len(path)} ops, {hops} jumps across GPUs, {step_ns} ns = step time, "
          f"{100.0 * compute_ns / step_ns:.1f}% compute, {100.0 * host_ns / step_ns:.1f}% host issue")


def oom(d):
    o = report(d)["oom"]
    if not o or not all(k in o for k in ("capacity_gb", "required_gb", "excess_gb")):
        fail(f"oom block {o}")
    if abs(o["required_gb"] - o["capacity_gb"] - o["excess_gb"]) > 1e-6 or o["excess_gb"] <= 0:
        fail(f"oom block inconsistent: {o}")
    print(f"oom: needs {o['required_gb']:.2f} of {o['capacity_gb']:.2f} GiB")


def folded(d):
    s = report(d)["simulation"]
    gpus = report(d)["gpus"] if "gpus" in report(d) else None
    if not s.get("fold", "").startswith("auto (") or s.get("simulated_gpus", 0) <= 0:
        fail(f"not folded: {s.get('fold')}")
    if gpus is not None and s["simulated_gpus"] >= gpus:
        fail(f"folded, but {s['simulated_gpus']} of {gpus} GPUs simulated")
    print(f"folded: {s['fold']}, {s['simulated_gpus']} GPUs simulated")


def complete(d):
    import os
    p = d + "/timeline.h5"
    if not os.path.exists(p):
        print("complete: no timeline.h5 (run was stopped before it finished)")
        return
    with h5py.File(p) as f:
        if f["meta"].attrs["events"] != f["events"].shape[0]:
            fail("timeline.h5 present but incomplete")
    print("complete: timeline.h5 present and complete")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"same": same, "folded": folded, "timeline": timeline, "critical": critical, "oom": oom, "complete": complete}[cmd](*args)
