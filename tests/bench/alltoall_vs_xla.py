#!/usr/bin/python3
"""`preflight collective --op all_to_all` against OpenXLA's measured all-to-all
tables (configs/calibration/xla-perf-tables/collectives.csv: one NVLink domain,
F32, the group sizes the table has), side by side. With --check PCT it is a
test: every size from --min-mib up within PCT % (exit status 1 otherwise).

XLA's times carry its own overhead per call (its 8-GPU all-reduce floor is
~32-40 us where nccl-tests measures ~10-15 us), so only sizes of 128 MiB and
up say much about bandwidth (models/collective/README.md, "Left out").

  tests/bench/alltoall_vs_xla.py [--preflight build/io/cli/preflight] [--min-mib 128] [--check PCT]

The presets' hardware.nccl.p2p_nvlink_efficiency is this table's slope (time
over bytes from 512 MiB up) over the collectives' NVLink rate, so from 1 GiB up
the figures sit within a few percent; below, XLA's own ~30-40 us per call shows.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# XLA's GPU name -> (preset, GPUs of one group to run); GB200's table has one
# 64-GPU group in its NVL72 domain.
CASES = {"sm_90": ("h100-sxm-80gb", 8), "sm_100_B200": ("b200-192gb", 8), "sm_100_GB200": ("gb200-nvl72", 64)}


def measured(gpu, gpus):
    rows = csv.DictReader(open(os.path.join(ROOT, "configs/calibration/xla-perf-tables/collectives.csv")))
    return {int(r["tensor_bytes"]): float(r["runtime_us"]) for r in rows
            if r["gpu"] == gpu and r["op"] == "all-to-all" and int(r["devices_per_group"]) == gpus}


def predicted(preflight, preset, gpus, lo, hi, work):
    out = os.path.join(work, f"{preset}.json")
    subprocess.run([preflight, "collective", "--op", "all_to_all", "--hardware", f"{ROOT}/configs/hardware/{preset}.yaml",
                    "--topology", f"{ROOT}/configs/topology/single-switch.yaml", "--gpus", str(gpus),
                    "--min-bytes", str(lo), "--max-bytes", str(hi), "--set", "simulation.network=analytical",
                    "--quiet", "--json", out], check=True, stdout=subprocess.DEVNULL)
    return {r["bytes"]: r["time_us"] for r in json.load(open(out))["rows"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preflight", default=os.path.join(ROOT, "build/io/cli/preflight"))
    ap.add_argument("--min-mib", type=int, default=128, help="smallest size compared, MiB (default 128)")
    ap.add_argument("--check", type=float, metavar="PCT", help="fail unless every compared size is within PCT %%")
    a = ap.parse_args()
    worst = 0.0
    print(f"{'gpu':14} {'gpus':>4} {'bytes':>12} {'xla us':>10} {'preflight us':>13} {'error':>7}")
    with tempfile.TemporaryDirectory() as work:
        for gpu, (preset, gpus) in CASES.items():
            meas = {b: t for b, t in measured(gpu, gpus).items() if b >= a.min_mib << 20 and b & (b - 1) == 0}
            if not meas:
                print(f"{gpu}: no rows of {gpus} GPUs at >= {a.min_mib} MiB", file=sys.stderr)
                continue
            pred = predicted(a.preflight, preset, gpus, min(meas), max(meas), work)
            errors = []
            for b in sorted(meas):
                if b in pred:
                    e = pred[b] / meas[b] - 1
                    errors.append(e)
                    worst = max(worst, abs(e))
                    print(f"{gpu:14} {gpus:4d} {b:12d} {meas[b]:10.1f} {pred[b]:13.1f} {100 * e:+6.1f}%")
            print(f"{gpu}: {len(errors)} sizes, mean {100 * sum(errors) / len(errors):+.1f}% (- = preflight faster)")
    if a.check is not None:
        verdict = "within" if 100 * worst <= a.check else "NOT within"
        print(f"worst |error| {100 * worst:.1f}% at >= {a.min_mib} MiB: {verdict} {a.check:g}%")
        if 100 * worst > a.check:
            sys.exit(1)


if __name__ == "__main__":
    main()
