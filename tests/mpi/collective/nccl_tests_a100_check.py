#!/usr/bin/python3
"""`preflight collective` against measured nccl-tests all_reduce_perf tables
on A100 servers (configs/calibration/a100-nccl-allreduce, see its README):
the vTrain tables (2-8 GPUs, 1 MiB - 1 GiB; the A100 preset's NCCL figures
were fitted on the 2-, 4- and 8-GPU ones) and a second machine's 8-GPU table
(Bekman's ml-engineering, 32 KiB - 16 GiB, never fitted on).

Prints the signed bus-bandwidth error of every row (predicted / measured - 1:
+ means preflight is too fast) and fails when the errors regress past the
figures this model reaches (a guard, not the goal: models/collective/README.md
lists the goal and how far the model is from it).

usage: nccl_tests_a100_check.py PREFLIGHT SOURCE_ROOT
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

preflight, root = sys.argv[1], sys.argv[2]
calib = os.path.join(root, "configs/calibration/a100-nccl-allreduce")


def predict(gpus, lo, hi, work):
    out = os.path.join(work, f"p{gpus}.json")
    subprocess.run([preflight, "collective", "--op", "all_reduce", "--hardware", f"{root}/configs/hardware/a100-sxm-80gb.yaml",
                    "--topology", f"{root}/configs/topology/single-switch.yaml", "--set", "topology.nodes=1",
                    "--gpus", str(gpus), "--min-bytes", str(lo), "--max-bytes", str(hi), "--quiet", "--json", out],
                   check=True, stdout=subprocess.DEVNULL)
    return {r["bytes"]: r["busbw_gbps"] for r in json.load(open(out))["rows"]}


def measured_vtrain(n):
    rows = csv.reader(open(os.path.join(calib, f"all_reduce_{n}gpu.csv")))
    return {int(r[0]): float(r[4]) for r in rows if not r[0].startswith("size")}


def measured_second():
    rows = csv.reader(open(os.path.join(calib, "ml_engineering_8gpu.csv")))
    return {int(r[0]): float(r[3]) for r in rows if not r[0].startswith("size")}


errors = []  # (table, gpus, bytes, signed error)
with tempfile.TemporaryDirectory() as work:
    for n in range(2, 9):
        meas = measured_vtrain(n)
        pred = predict(n, 1 << 20, 1 << 30, work)
        errors += [("vtrain", n, b, pred[b] / meas[b] - 1) for b in pred if b in meas]
    meas = measured_second()
    pred = predict(8, 32 << 10, 16 << 30, work)
    errors += [("ml-engineering", 8, b, pred[b] / meas[b] - 1) for b in pred if b in meas]

print(f"{'table':15} {'gpus':>4} {'bytes':>12} {'busbw err':>9}")
for t, n, b, e in errors:
    print(f"{t:15} {n:4d} {b:12d} {100 * e:+8.1f}%")


def summary(sel, label):
    if not sel:
        return 0, 0
    worst = max(abs(e) for e in sel)
    mean = sum(abs(e) for e in sel) / len(sel)
    print(f"{label}: {len(sel)} rows, mean |err| {100 * mean:.1f}%, worst {100 * worst:.1f}%, "
          f"{sum(e > 0 for e in sel)} too fast")
    return mean, worst


big = summary([e for t, n, b, e in errors if b >= 64 << 20], ">= 64 MiB")
mid = summary([e for t, n, b, e in errors if (1 << 20) <= b < 64 << 20], "1-64 MiB")
held = summary([e for t, n, b, e in errors if t == "vtrain" and n in (3, 5, 6, 7)], "held-out vTrain (3, 5, 6, 7 GPUs)")
second = summary([e for t, n, b, e in errors if t == "ml-engineering"], "second machine, 8 GPUs")
# Guards: what the model reaches (see the README) plus a small margin.
ok = big[0] <= 0.06 and big[1] <= 0.17 and mid[0] <= 0.12 and mid[1] <= 0.70 and second[0] <= 0.20
print("PASS" if ok else "FAIL: the NCCL model's agreement with measured nccl-tests regressed")
sys.exit(0 if ok else 1)
