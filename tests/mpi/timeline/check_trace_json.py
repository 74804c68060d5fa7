#!/usr/bin/python3
"""Validates a `preflight trace` output: loads as JSON, every complete event
has ph "X", numeric ts/dur in microseconds, pid = node, tid = gpu*4+stream (four streams: compute, comm, p2p, copy)
with a thread_name, and (when h5py is available) exactly the rows of the
timeline that the request selects.

    check_trace_json.py TRACE.json TIMELINE.h5 [--gpus 0-7] [--start-ns A --end-ns B]
"""
import argparse
import json
import sys

STREAMS = 4  # io/timeline/timeline_event.h kStreamCount: compute, comm, p2p, copy


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def expected_rows(timeline, gpus, start_ns, end_ns):
    try:
        import h5py
    except ImportError:
        print("skip: no h5py, event count not compared")
        return None, None
    with h5py.File(timeline, "r") as f:
        offsets = f["meta/gpu_row_offsets"][:]
        per_node = int(f["meta"].attrs["gpus_per_node"])
        count = 0
        for g in gpus if gpus is not None else range(len(offsets) - 1):
            rows = f["events"][offsets[g]:offsets[g + 1]]
            count += int(((rows["start_ns"] < end_ns) & (rows["end_ns"] > start_ns)).sum())
    return count, per_node


def main():
    p = argparse.ArgumentParser()
    p.add_argument("trace")
    p.add_argument("timeline")
    p.add_argument("--gpus")
    p.add_argument("--start-ns", type=int, default=-2**63)
    p.add_argument("--end-ns", type=int, default=2**63 - 1)
    a = p.parse_args()
    gpus = None
    if a.gpus:
        gpus = []
        for part in a.gpus.split(","):
            lo, _, hi = part.partition("-")
            gpus += range(int(lo), int(hi or lo) + 1)

    with open(a.trace) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    complete = [e for e in events if e.get("ph") == "X"]
    if any(e.get("ph") not in ("X", "M") for e in events):
        fail("events other than X and M")
    threads = {(e["pid"], e["tid"]) for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    for e in complete:
        for key in ("name", "pid", "tid", "ts", "dur", "args"):
            if key not in e:
                fail(f"event without {key}: {e}")
        if not isinstance(e["ts"], (int, float)) or e["dur"] < 0:
            fail(f"bad ts/dur: {e}")
        if (e["pid"], e["tid"]) not in threads:
            fail(f"no thread_name for pid {e['pid']} tid {e['tid']}")
        if gpus is not None and e["tid"] // STREAMS not in gpus:
            fail(f"gpu {e['tid'] // 3} not requested")
        if not (e["ts"] * 1000 < a.end_ns + 1 and (e["ts"] + e["dur"]) * 1000 > a.start_ns - 1):
            fail(f"event outside the window: {e}")
        for key in ("layer", "microbatch", "phase", "bytes", "flops", "group"):
            if key not in e["args"]:
                fail(f"args without {key}: {e}")
    count, per_node = expected_rows(a.timeline, gpus, a.start_ns, a.end_ns)
    if count is not None:
        if len(complete) != count:
            fail(f"{len(complete)} X events, the timeline selects {count}")
        if any(e["pid"] != (e["tid"] // STREAMS) // per_node for e in complete):
            fail("pid is not gpu // gpus_per_node")
    if not complete:
        fail("no events")
    print(f"ok: {len(complete)} X events, {len(threads)} named threads")


if __name__ == "__main__":
    main()
