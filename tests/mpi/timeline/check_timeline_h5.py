#!/usr/bin/python3
"""Reads a timeline.h5 with h5py (as a user would) and checks it against
io/timeline/README.md: /events field names and dtypes in order, sorted by (gpu, start_ns),
/meta/gpu_row_offsets consistent with /events, string tables, /gpu_summary for
every GPU, /summary attributes, /config text. Exit status 0 when all hold."""
import json
import sys

import h5py
import numpy as np

EXPECTED_EVENTS = [("gpu", "<u4"), ("stream", "u1"), ("kind", "<u2"), ("start_ns", "<i8"), ("end_ns", "<i8"),
               ("layer", "<i4"), ("microbatch", "<i4"), ("phase", "u1"), ("bytes", "<u8"), ("flops", "<f8"),
               ("group", "<u4")]


def check(condition, message):
    if not condition:
        print("FAIL:", message)
        sys.exit(1)
    print("ok  ", message)


def main(path):
    with h5py.File(path, "r") as f:
        events = f["events"]
        names = list(events.dtype.names)
        check(names == [n for n, _ in EXPECTED_EVENTS], f"/events fields {names}")
        for name, dtype in EXPECTED_EVENTS:
            check(events.dtype[name] == np.dtype(dtype), f"/events.{name} is {dtype}")
        check(events.chunks is not None and events.compression == "gzip" and events.shuffle,
              f"/events chunked {events.chunks}, {events.compression}, shuffle={events.shuffle}")
        rows = events[:]
        check(len(rows) > 0, f"{len(rows)} rows")
        gpu = rows["gpu"].astype(np.int64)
        start = rows["start_ns"]
        order_ok = np.all((gpu[1:] > gpu[:-1]) | ((gpu[1:] == gpu[:-1]) & (start[1:] >= start[:-1])))
        check(bool(order_ok), "sorted by (gpu, start_ns)")
        check(bool(np.all(rows["end_ns"] >= rows["start_ns"])), "end_ns >= start_ns")
        check(bool(np.all(rows["stream"] <= 2) and np.all(rows["phase"] <= 2)), "stream and phase in 0..2")

        meta = f["meta"]
        check(meta.attrs["format"] == "preflight timeline", "meta.format")
        gpus = int(meta.attrs["gpus"])
        offsets = meta["gpu_row_offsets"][:]
        check(len(offsets) == gpus + 1 and offsets[-1] == len(rows), "gpu_row_offsets covers /events")
        counts = np.bincount(gpu, minlength=gpus)
        check(bool(np.array_equal(np.diff(offsets), counts)), "gpu_row_offsets matches per-GPU row counts")
        check(len(meta["partition"]) == gpus and int(meta["partition"][:].max()) < int(meta.attrs["ranks"]),
              "meta.partition: one rank per GPU")

        kinds = [k.decode() for k in f["kinds"][:]]
        groups = [g.decode() for g in f["groups"][:]]
        check(len(kinds) > 0 and int(rows["kind"].max()) < len(kinds), f"/kinds {kinds}")
        check(int(rows["group"].max()) < len(groups), f"/groups has {len(groups)} entries")

        summary = f["gpu_summary"][:]
        check(list(summary.dtype.names) == ["gpu", "busy_ns", "idle_ns", "exposed_comm_ns", "peak_memory_bytes",
                                           "compute_slowdown", "jitter_sigma"],
              "/gpu_summary fields")
        check(bool(np.array_equal(summary["gpu"], np.arange(gpus))), "/gpu_summary has every GPU once")
        links = f["links"][:]
        check("busy_ns" in links.dtype.names and "peak_queue_bytes" in links.dtype.names, "/links fields")

        report = json.loads(f["summary"].attrs["report_json"])
        check(abs(float(f["summary"].attrs["step_time_ms"]) - report["step_time_ms"]) < 1e-12,
              "/summary.step_time_ms mirrors report_json")
        config = f["config"][()].decode()
        check("name:" in config, "/config holds YAML text")


if __name__ == "__main__":
    main(sys.argv[1])
