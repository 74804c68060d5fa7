#!/usr/bin/python3
"""Checks a faulted `preflight run` output (tests/mpi/training/fault_cli_test.sh).

    check_faults.py run DIR        report's faults and fault_baseline blocks; /gpu_summary and /links fault columns
    check_faults.py sweep JSON     step time grows with the straggler's slowdown
"""
import json
import sys

import h5py
import numpy as np


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(d):
    with open(d + "/report.json") as f:
        r = json.load(f)
    faults = r.get("faults")
    if not isinstance(faults, list) or len(faults) != 5:
        fail(f"expected 5 entries in faults, found {faults!r}")
    straggler, jitter, link, switch, random = faults
    if straggler["target"] != "gpus" or straggler["gpus"] != 1 or straggler["extra_compute_ms"] is None:
        fail(f"straggler entry {straggler}")
    if straggler["extra_compute_ms"] <= 0:
        fail("the straggler added no compute")
    if jitter["gpus"] != 16 or jitter["extra_compute_ms"] is not None:  # no healthy peer to compare with
        fail(f"jitter entry {jitter}")
    if link["links"] != 1 or link["failed_links"] != 0 or link["link_bytes"] is None:
        fail(f"link entry {link}")
    if switch["failed_links"] != switch["links"] or switch["link_bytes"] != 0:
        fail(f"a failed switch carried traffic: {switch}")
    if random["links"] < 2:
        fail(f"random_links entry {random}")
    base = r.get("fault_baseline")
    if not base or abs(base["added_ms"] - (r["step_time_ms"] - base["step_time_ms"])) > 1e-6:
        fail(f"fault_baseline {base}")
    if base["added_ms"] <= 0:
        fail("the faults made the step faster")

    with h5py.File(d + "/timeline.h5") as f:
        gs = f["gpu_summary"][:]
        links = f["links"][:]
        vertices = [v.decode() for v in f["vertices"][:]]
    slow = gs["compute_slowdown"]
    if not (np.isclose(slow[3], 1.2) and np.all(np.delete(slow, 3) == 1.0)):
        fail(f"/gpu_summary compute_slowdown {slow}")
    if not np.all(gs["jitter_sigma"] == 0.05):
        fail(f"/gpu_summary jitter_sigma {gs['jitter_sigma']}")
    failed = links[links["failed"] == 1]
    if len(failed) == 0 or np.any(failed["bytes"] != 0):
        fail("failed links missing from /links or carrying bytes")
    names = {(vertices[s], vertices[t]): row for s, t, row in zip(links["src"], links["dst"], links)}
    degraded = names.get(("leaf0", "spine1"))
    if degraded is None or not np.isclose(degraded["bandwidth_bytes_per_s"], 0.5 * degraded["nominal_bandwidth_bytes_per_s"]):
        fail(f"leaf0->spine1 in /links: {degraded}")
    print(f"run: {len(faults)} faults reported, {len(failed)} failed links idle, +{base['added_ms']:.3f} ms over the baseline")


def sweep(path):
    with open(path) as f:
        rows = json.load(f)["rows"]
    rows.sort(key=lambda row: row["grid_index"])
    steps = [row["step_time_ms"] for row in rows]
    if len(steps) != 3 or not all(row["valid"] for row in rows) or not steps[0] < steps[1] < steps[2]:
        fail(f"step times over the straggler's slowdown: {steps}")
    print(f"sweep: {steps}")


if __name__ == "__main__":
    {"run": run, "sweep": sweep}[sys.argv[1]](*sys.argv[2:])
