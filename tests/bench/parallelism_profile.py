#!/usr/bin/python3
"""The parallelism profile of one experiment, projected and measured side by side.

  tests/bench/parallelism_profile.py [EXPERIMENT.yaml] [--ranks 2,4] [--project 2,4,8,64,512,4096] [--set K=V ...]

1. a plain one-rank run: its cost per event (simulation.wall_s / events) and wall time;
2. a one-rank run with --profile-parallelism and that cost (--profile-event-ns): the
   windows of every projected rank count, replayed, and the projected wall time;
3. a run on each of --ranks with --profile-parallelism: the windows recorded.
Prints, per measured rank count: windows, balance and busiest-rank events per window,
projected against measured (these must agree exactly: same partition, same windows);
two ceilings of these windows: k x balance, the speed-up if every event cost the same
on any rank count and synchronising cost nothing, and the one-rank wall time over the
sum over windows of the busiest rank's busy time (free synchronisation, each rank's
own cost per event);
the engine wall time, measured, and projected twice: with the default InfiniBand MPI
latency table and with this machine's own reduction latency (the median of the
least-waiting rank's sync time per window in the measured run). Ranks beyond this
machine's cores are oversubscribed: their wall time says nothing, their work split
(windows, balance) is still exact. Figures, not a test.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PREFLIGHT = os.environ.get("PREFLIGHT", os.path.join(ROOT, "build", "io", "cli", "preflight"))
MPI = ["mpiexec", "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])

EVENT_BYTES = 64


def latency_s(osu, nbytes, small_us):
    """The profile file's MPI latency table (io/run/parallelism_profile.cpp), shifted to small_us at 0 B."""
    xs, ys = osu
    t = float(np.interp(nbytes, xs, ys)) if nbytes <= xs[-1] else ys[-1] + (ys[-1] - ys[-2]) * (nbytes - xs[-1]) / (xs[-1] - xs[-2])
    return (t - ys[0] + small_us) * 1e-6


def projected_wall(osu, row, per_event_s, small_us):
    k = row["ranks"]
    batch = row["remote_events"] * EVENT_BYTES / row["messages"] if row["messages"] else 0
    work = per_event_s * row["max_events_sum"]
    msgs = row["max_messages_sum"] * latency_s(osu, batch, small_us)
    sync = row["windows"] * (math.ceil(math.log2(k)) if k > 1 else 0) * latency_s(osu, 8 * (3 + k), small_us)
    return work + msgs + sync


def run(ranks, experiment, out, extra):
    cmd = ([] if ranks == 1 else MPI + ["-n", str(ranks)]) + [PREFLIGHT, "run", experiment, "--no-timeline", "--quiet",
                                                              "--out", out] + extra
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 3):
        sys.exit(f"{' '.join(cmd)}: exit {done.returncode}\n{done.stderr[-2000:]}")
    with open(os.path.join(out, "report.json")) as f:
        return json.load(f)["simulation"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("experiment", nargs="?", default=os.path.join(ROOT, "configs/examples/gpt3-175b-a100-1024.yaml"))
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--project", default="2,4,8,64,512,4096")
    ap.add_argument("--set", action="append", default=[])
    a = ap.parse_args()
    sets = [x for kv in a.set for x in ("--set", kv)]
    measured_ranks = [int(x) for x in a.ranks.split(",") if x]
    project = sorted(set([int(x) for x in a.project.split(",") if x] + measured_ranks))
    work = tempfile.mkdtemp()

    plain = run(1, a.experiment, os.path.join(work, "plain"), sets)
    per_event = plain["wall_s"] / plain["events"]
    print(f"{os.path.basename(a.experiment)} {' '.join(a.set)}: {plain['events']:,} events, {plain['network']} network, "
          f"one rank {plain['wall_s']:.2f} s ({per_event * 1e9:.1f} ns per event)")

    prof1 = os.path.join(work, "p1.h5")
    run(1, a.experiment, os.path.join(work, "one"), sets + ["--profile-parallelism", prof1, "--profile-ranks",
                                                            ",".join(map(str, project)),
                                                            "--profile-event-ns", f"{per_event * 1e9:.4f}"])
    with h5py.File(prof1) as f:
        p = f["projection"]
        rows = {int(r): {name: p[name][i] for name in p if p[name].ndim == 1} for i, r in enumerate(p["ranks"][:])}
        osu = (f["mpi_latency/bytes"][:], f["mpi_latency/us"][:])
        if "skipped" in f:
            for r, why in zip(f["skipped/ranks"][:], f["skipped/why"][:]):
                print(f"  {r} ranks not projected: {why.decode()}")

    print(f"\n{'ranks':>6} {'windows proj/meas':>22} {'balance proj/meas':>18} {'ns/event busiest':>17} "
          f"{'wall s meas':>12} {'proj A':>7} {'proj B':>7} {'speed-up meas':>14} {'proj B':>7} {'ceiling':>8} "
          f"{'no-sync':>8}  local sync us")
    for k in measured_ranks:
        path = os.path.join(work, f"p{k}.h5")
        sim = run(k, a.experiment, os.path.join(work, f"r{k}"), sets + ["--profile-parallelism", path])
        with h5py.File(path) as f:
            ev = f["windows/events"][:]
            sync_ns = f["windows/sync_ns"][:]
            busy_ns = f["windows/busy_ns"][:]
        windows = ev.shape[0]
        balance = ev.sum() / (k * ev.max(axis=1).sum())
        local_us = float(np.median(sync_ns.min(axis=1))) / 1e3
        # the reduction is ceil(log2 k) rounds: the local per-round latency
        local_small = local_us / max(1, math.ceil(math.log2(k)))
        row = rows[k]
        # the busiest rank's work per window over its events: the engine's cost per event on k ranks
        per_event_k = busy_ns.max(axis=1).sum() * 1e-9 / ev.max(axis=1).sum()
        # ceilings of these windows: equal event costs and free synchronisation; then
        # free synchronisation with the measured costs (the busiest rank's busy time per window)
        ceiling = k * balance
        no_sync = plain["wall_s"] / (busy_ns.max(axis=1).sum() * 1e-9)
        proj_ib = projected_wall(osu, row, per_event, osu[1][0])
        proj_local = projected_wall(osu, row, per_event_k, local_small)
        oversub = " (oversubscribed)" if k > (os.cpu_count() or 1) else ""
        print(f"{k:>6} {int(row['windows']):>10}/{windows:<11} {row['balance']:>8.3f}/{balance:<9.3f} "
              f"{per_event_k * 1e9:>17.1f} {sim['wall_s']:>12.2f} {proj_ib:>7.2f} {proj_local:>7.2f} "
              f"{plain['wall_s'] / sim['wall_s']:>14.2f} {plain['wall_s'] / proj_local:>7.2f} {ceiling:>8.2f} "
              f"{no_sync:>8.2f}  {local_us:.2f}{oversub}")
    print("proj A: one-rank cost per event, InfiniBand latency table; proj B: the measured run's own cost per event "
          "on its busiest rank and this machine's reduction latency; ceiling: k x balance (every event at one cost, "
          "synchronisation free); no-sync: one-rank wall time over the sum of the busiest rank's busy time per window")

    print(f"\nprojection with the InfiniBand latency table (cost per event {per_event * 1e9:.1f} ns):")
    print(f"{'ranks':>6} {'windows':>10} {'events/window':>14} {'balance':>8} {'work s':>8} {'messages s':>11} "
          f"{'sync s':>8} {'wall s':>8} {'speed-up':>9}")
    for k in project:
        if k not in rows:
            continue
        r = rows[k]
        print(f"{k:>6} {int(r['windows']):>10} {r['events'] / r['windows']:>14.1f} {r['balance']:>8.3f} "
              f"{r['work_s']:>8.2f} {r['messages_s']:>11.2f} {r['sync_s']:>8.2f} {r['wall_s']:>8.2f} "
              f"{r['speedup']:>9.2f}")


if __name__ == "__main__":
    main()
