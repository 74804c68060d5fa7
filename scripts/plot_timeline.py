#!/usr/bin/python3
"""Gantt chart of a preflight timeline (OUT/timeline.h5, io/timeline/README.md).

One row per GPU stream (compute, comm, p2p, copy), one bar per executed operation,
coloured by operation kind or by training phase.

    scripts/plot_timeline.py out/run/timeline.h5 -o timeline.png --gpus 0-7
    scripts/plot_timeline.py out/run/timeline.h5 --start-ns 2e6 --end-ns 4e6 --color-by phase

Needs only Debian's python3-h5py, python3-numpy and python3-matplotlib.
"""
import argparse
import sys

import h5py
import matplotlib

matplotlib.use("Agg")  # files only, no display needed (batch nodes have none)
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

STREAMS = ("compute", "comm", "p2p", "copy")
PHASES = ("fwd", "bwd", "opt")
PHASE_COLORS = ("#4c72b0", "#dd8452", "#55a868")


def parse_gpu_list(text, gpu_count):
    """'0-7,64-71' -> sorted GPU ids; raises ValueError naming the bad part."""
    gpus = set()
    for part in text.split(","):
        part = part.strip()
        first, _, last = part.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            raise ValueError(f"--gpus: expected a range list like 0-7,64-71, found '{text}'")
        lo, hi = int(first), int(last or first)
        if lo > hi or hi >= gpu_count:
            raise ValueError(f"--gpus: expected GPU ids 0-{gpu_count - 1} with first <= last, found '{part}'")
        gpus.update(range(lo, hi + 1))
    return sorted(gpus)


def default_gpus(offsets, limit=8):
    """The first `limit` GPUs that have /events rows."""
    with_rows = np.nonzero(np.diff(offsets) > 0)[0]
    return [int(g) for g in with_rows[:limit]]


def gpu_events(f, offsets, gpu, start_ns, end_ns):
    """GPU `gpu`'s rows overlapping [start_ns, end_ns); /meta/gpu_row_offsets avoids a full scan."""
    rows = f["events"][int(offsets[gpu]):int(offsets[gpu + 1])]
    keep = (rows["start_ns"] < end_ns) & (rows["end_ns"] > start_ns)
    return rows[keep]


def plot(path, out, gpu_spec, start_ns, end_ns, color_by, width):
    with h5py.File(path, "r") as f:
        if "meta" not in f or f["meta"].attrs.get("format") != "preflight timeline":
            raise ValueError(f"{path}: not a preflight timeline")
        offsets = f["meta/gpu_row_offsets"][:]
        gpu_count = len(offsets) - 1
        gpus = parse_gpu_list(gpu_spec, gpu_count) if gpu_spec else default_gpus(offsets)
        kinds = [k.decode() for k in f["kinds"][:]]
        per_gpu = {g: gpu_events(f, offsets, g, start_ns, end_ns) for g in gpus}

    shown = [g for g in gpus if len(per_gpu[g])]
    if not shown:
        raise ValueError("no events for these GPUs in this time window")
    t0 = min(int(per_gpu[g]["start_ns"].min()) for g in shown)
    t1 = max(int(per_gpu[g]["end_ns"].max()) for g in shown)
    scale, unit = (1e6, "ms") if t1 - t0 > 5e6 else (1e3, "us")

    used_kinds = sorted({int(k) for g in shown for k in np.unique(per_gpu[g]["kind"])})
    palette = plt.get_cmap("tab20")
    kind_colors = {k: palette(i % 20) for i, k in enumerate(used_kinds)}

    lanes = len(shown) * len(STREAMS)
    fig, ax = plt.subplots(figsize=(width, max(2.5, 0.28 * lanes + 1.2)))
    labels = []
    for row, gpu in enumerate(shown):
        events = per_gpu[gpu]
        for stream in range(len(STREAMS)):
            lane = row * len(STREAMS) + stream
            labels.append(f"gpu {gpu} {STREAMS[stream]}")
            mine = events[events["stream"] == stream]
            field, colors = ("kind", kind_colors) if color_by == "kind" else ("phase", dict(enumerate(PHASE_COLORS)))
            for key in np.unique(mine[field]):
                sel = mine[mine[field] == key]
                bars = list(zip((sel["start_ns"] - t0) / scale, (sel["end_ns"] - sel["start_ns"]) / scale))
                ax.broken_barh(bars, (lane - 0.4, 0.8), facecolors=colors[int(key)], linewidth=0)
    ax.set_yticks(range(lanes))
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_ylim(lanes - 0.5, -0.5)
    ax.set_xlim(0, (t1 - t0) / scale)
    ax.set_xlabel(f"time since {t0 / 1e6:.3f} ms ({unit})")
    ax.set_title(f"{path}: GPUs {shown[0]}..{shown[-1]} ({len(shown)} shown)", fontsize=9)
    if color_by == "kind":
        handles = [plt.Rectangle((0, 0), 1, 1, color=kind_colors[k]) for k in used_kinds]
        names = [kinds[k] if k < len(kinds) else f"#{k}" for k in used_kinds]
    else:
        handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in PHASE_COLORS]
        names = list(PHASES)
    ax.legend(handles, names, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"plot_timeline: {sum(len(per_gpu[g]) for g in shown)} events of {len(shown)} GPUs -> {out}")


def main(argv=None):
    p = argparse.ArgumentParser(description="Gantt chart (PNG) of a preflight timeline.h5.")
    p.add_argument("timeline", help="OUT/timeline.h5 written by `preflight run`")
    p.add_argument("-o", "--output", default="timeline.png", help="PNG to write (default: %(default)s)")
    p.add_argument("--gpus", help="range list like 0-7,64-71 (default: the first 8 GPUs with events)")
    p.add_argument("--start-ns", type=float, default=-np.inf, help="window start, ns")
    p.add_argument("--end-ns", type=float, default=np.inf, help="window end, ns")
    p.add_argument("--color-by", choices=("kind", "phase"), default="kind", help="bar colour (default: %(default)s)")
    p.add_argument("--width", type=float, default=14.0, help="figure width in inches (default: %(default)s)")
    args = p.parse_args(argv)
    if args.end_ns <= args.start_ns:
        p.error("--end-ns must be after --start-ns")
    try:
        plot(args.timeline, args.output, args.gpus, args.start_ns, args.end_ns, args.color_by, args.width)
    except (OSError, KeyError, ValueError) as e:
        print(f"plot_timeline: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
