#!/usr/bin/python3
"""`preflight collective` against measured nccl-tests all_reduce_perf tables
on A100 servers (configs/calibration/a100-nccl-allreduce, see its README):
the vTrain tables (2-8 GPUs, 1 MiB - 1 GiB; the A100 preset's NCCL figures
were fitted on all seven) and a second machine's 8-GPU table (Bekman's
ml-engineering, 32 KiB - 16 GiB, never fitted on).

Since the preset sees every vTrain table, the check also cross-validates the
fit: for each GPU count, `preflight calibrate --nccl-tests` fits the four
parameters on the other six tables and the held-out table is predicted with
that fit (leave one GPU count out), so the model's reach to a group size it
was not fitted on stays measured.

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


# vTrain's tables read as `all_reduce_perf -g N` runs: one host thread
# launches every GPU's part of each call, 11.62 us each (the launch time
# `preflight calibrate --nccl-tests ... --gpus-per-thread all` fits on the 2-,
# 4- and 8-GPU tables with the preset's figures: at 1-4 MiB the 6-8 GPU
# tables sit flat at ~6.9-11.6 us per GPU). The second machine's invocation
# is not known: it is checked without a host floor (its 32 KiB row, 43.8 us,
# is below eight such launches).
VTRAIN_LAUNCH_US = 11.62


PRESET = f"{root}/configs/hardware/a100-sxm-80gb.yaml"


def predict(gpus, lo, hi, work, gpus_per_thread=1, launch_us=0.0, hardware=PRESET):
    out = os.path.join(work, f"p{gpus}.json")
    subprocess.run([preflight, "collective", "--op", "all_reduce", "--hardware", hardware,
                    "--topology", f"{root}/configs/topology/single-switch.yaml", "--set", "topology.nodes=1",
                    "--gpus", str(gpus), "--min-bytes", str(lo), "--max-bytes", str(hi), "--quiet", "--json", out,
                    "--gpus-per-thread", str(gpus_per_thread), "--launch-us", str(launch_us)],
                   check=True, stdout=subprocess.DEVNULL)
    return {r["bytes"]: r["busbw_gbps"] for r in json.load(open(out))["rows"]}


def measured_vtrain(n):
    rows = csv.reader(open(os.path.join(calib, f"all_reduce_{n}gpu.csv")))
    return {int(r[0]): float(r[4]) for r in rows if not r[0].startswith("size")}


def measured_second():
    rows = csv.reader(open(os.path.join(calib, "ml_engineering_8gpu.csv")))
    return {int(r[0]): float(r[3]) for r in rows if not r[0].startswith("size")}


def fit_without(n, work):
    """The preset's four collective parameters fitted on every vTrain table but n's."""
    out = os.path.join(work, f"fit_without_{n}.yaml")
    tables = [os.path.join(calib, f"all_reduce_{m}gpu.csv") for m in range(2, 9) if m != n]
    subprocess.run([preflight, "calibrate", "--hardware", PRESET, "--nccl-tests", *tables, "--gpus-per-thread", "all",
                    "-o", out], check=True, stdout=subprocess.DEVNULL)
    return out


errors = []  # (table, gpus, bytes, signed error)
with tempfile.TemporaryDirectory() as work:
    for n in range(2, 9):
        meas = measured_vtrain(n)
        pred = predict(n, 1 << 20, 1 << 30, work, gpus_per_thread=n, launch_us=VTRAIN_LAUNCH_US)
        errors += [("vtrain", n, b, pred[b] / meas[b] - 1) for b in pred if b in meas]
        pred = predict(n, 1 << 20, 1 << 30, work, gpus_per_thread=n, launch_us=VTRAIN_LAUNCH_US,
                       hardware=fit_without(n, work))
        errors += [("vtrain-loo", n, b, pred[b] / meas[b] - 1) for b in pred if b in meas]
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


vtrain = [(n, b, e) for t, n, b, e in errors if t == "vtrain"]
big = summary([e for n, b, e in vtrain if b >= 64 << 20], "vTrain >= 64 MiB")
mid = summary([e for n, b, e in vtrain if (1 << 20) <= b < 64 << 20], "vTrain 1-64 MiB")
loo = [e for t, n, b, e in errors if t == "vtrain-loo"]
held = summary(loo, "vTrain, each GPU count predicted by a fit on the other six")
held_big = summary([e for t, n, b, e in errors if t == "vtrain-loo" and b >= 64 << 20], "  of which >= 64 MiB")
second = summary([e for t, n, b, e in errors if t == "ml-engineering"], "second machine, 8 GPUs")
# The target, row by row: within 10 % at >= 64 MiB, 20 % at 1-64 MiB.
misses = [(n, b, e) for n, b, e in vtrain if abs(e) > (0.10 if b >= 64 << 20 else 0.20 if b >= 1 << 20 else 1)]
print(f"vTrain rows outside the target (10 % at >= 64 MiB, 20 % at 1-64 MiB): {len(misses)} of {len(vtrain)}"
      + "".join(f"\n  {n} GPUs {b} B {100 * e:+.1f}%" for n, b, e in misses))
# Guards: what the model reaches (see the README) plus a small margin.
ok = (big[0] <= 0.04 and big[1] <= 0.08 and mid[0] <= 0.08 and mid[1] <= 0.20 and not misses
      and held[0] <= 0.07 and held[1] <= 0.30 and held_big[1] <= 0.10 and second[0] <= 0.18)
print("PASS" if ok else "FAIL: the NCCL model's agreement with measured nccl-tests regressed")
sys.exit(0 if ok else 1)
