#!/usr/bin/python3
"""Where the time of a simulated training step went, from a preflight timeline
(OUT/timeline.h5, io/timeline/README.md): text tables on stdout and a PNG.

- report: the headline figures of /summary (step time, MFU, memory, ...)
- phases: compute time per training phase (fwd, bwd, opt) per GPU
- communication: total and exposed (not overlapped by compute) per GPU
- bubble: time within the step that a GPU neither computes nor waits on
  communication (step - compute busy - exposed communication), so that
  compute + exposed communication + bubble = step time
- kinds: the operation kinds that took the most time
- links: utilisation (busy time / step time) per link class and the busiest links

Per-GPU figures come from /events for the GPUs that have rows, and from
/gpu_summary (every GPU) otherwise.

    scripts/summarize.py out/run/timeline.h5 -o summary.png
"""
import argparse
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

PHASES = ("fwd", "bwd", "opt")
REPORT_KEYS = ("step_time_ms", "forward_ms", "backward_ms", "optimizer_ms", "collective_total_ms",
               "collective_exposed_ms", "tokens_per_s", "mfu", "hfu", "peak_memory_gb")


def merge(starts, ends):
    """Union of intervals given sorted by start -> disjoint (starts, ends)."""
    if len(starts) == 0:
        return starts, ends
    reach = np.maximum.accumulate(ends)
    gap = starts[1:] > reach[:-1]
    return starts[np.r_[True, gap]], reach[np.r_[gap, True]]


def overlap(a, b):
    """Total length of the intersection of two disjoint sorted interval sets."""
    (a0, a1), (b0, b1) = a, b
    if len(a0) == 0 or len(b0) == 0:
        return 0
    covered = np.r_[0, np.cumsum(a1 - a0)]

    def coverage(t):  # length of `a` before time t
        i = np.searchsorted(a0, t, side="right") - 1
        inside = np.clip(t - a0[np.maximum(i, 0)], 0, (a1 - a0)[np.maximum(i, 0)])
        return np.where(i >= 0, covered[np.maximum(i, 0)] + inside, 0)

    return int(np.sum(coverage(b1) - coverage(b0)))


def gpu_figures(rows, step_ns):
    """Per-GPU breakdown from its /events rows (sorted by start)."""
    duration = rows["end_ns"] - rows["start_ns"]
    compute = rows["stream"] == 0
    per_phase = [int(duration[compute & (rows["phase"] == p)].sum()) for p in range(3)]
    busy = merge(rows["start_ns"][compute], rows["end_ns"][compute])
    comm = merge(rows["start_ns"][~compute], rows["end_ns"][~compute])
    busy_ns = int(np.sum(busy[1] - busy[0]))
    comm_ns = int(np.sum(comm[1] - comm[0]))
    exposed = comm_ns - overlap(busy, comm)
    return per_phase + [comm_ns, exposed, max(0, step_ns - busy_ns - exposed)]


def read(path):
    """Everything but /events, plus per-GPU figures computed one GPU block at a
    time (via /meta/gpu_row_offsets), so a 10-million-row file is never loaded whole."""
    with h5py.File(path, "r") as f:
        if "meta" not in f or f["meta"].attrs.get("format") != "preflight timeline":
            raise ValueError(f"{path}: not a preflight timeline")
        d = {"summary": {k: f["summary"].attrs[k] for k in f["summary"].attrs},
             "offsets": f["meta/gpu_row_offsets"][:], "kinds": [k.decode() for k in f["kinds"][:]],
             "gpu_summary": f["gpu_summary"][:], "links": f["links"][:],
             "link_classes": [c.decode() for c in f["link_classes"][:]],
             "vertices": [v.decode() for v in f["vertices"][:]]}
        offsets, events = d["offsets"], f["events"]
        d["gpus"] = [g for g in range(len(offsets) - 1) if offsets[g + 1] > offsets[g]]
        blocks = (events[offsets[g]:offsets[g + 1]] for g in d["gpus"])
        if "step_time_ms" in d["summary"]:
            d["step_ns"] = int(round(float(d["summary"]["step_time_ms"]) * 1e6))
        else:  # no report: the span of all events
            spans = [(int(b["start_ns"].min()), int(b["end_ns"].max())) for b in blocks]
            d["step_ns"] = max(e for _, e in spans) - min(s for s, _ in spans) if spans else 0
            blocks = (events[offsets[g]:offsets[g + 1]] for g in d["gpus"])
        d["kind_ns"] = np.zeros(len(d["kinds"]))
        per_gpu = []
        for rows in blocks:
            per_gpu.append(gpu_figures(rows, d["step_ns"]))
            d["kind_ns"] += np.bincount(rows["kind"], weights=rows["end_ns"] - rows["start_ns"],
                                        minlength=len(d["kinds"]))[:len(d["kinds"])]
        d["per_gpu"] = np.array(per_gpu, dtype=np.int64).reshape(-1, 6)
    return d


def table(title, header, rows):
    print(f"\n{title}")
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    for line in [header] + rows:
        print("  " + "  ".join(str(x).rjust(w) for x, w in zip(line, widths)))


def ms(ns):
    return f"{ns / 1e6:.3f}"


def summarize(d, top_links):
    s, step = d["summary"], d["step_ns"]
    report = [[k, f"{float(s[k]):.4g}"] for k in REPORT_KEYS if k in s]
    table("report (/summary)", ["key", "value"], report or [["step_ns (from /events)", step]])

    gpus, per_gpu = d["gpus"], d["per_gpu"]
    if len(gpus):
        cols = ["fwd", "bwd", "opt", "comm", "exposed comm", "bubble"]
        stats = [[c, ms(per_gpu[:, i].mean()), ms(per_gpu[:, i].min()), ms(per_gpu[:, i].max()),
                  f"{100 * per_gpu[:, i].mean() / step:.1f}" if step else "-"] for i, c in enumerate(cols)]
        table(f"per-GPU breakdown over {len(gpus)} GPUs with events (ms)", ["", "mean", "min", "max", "% of step"],
              stats)
        totals = d["kind_ns"]
        top = np.argsort(totals)[::-1][:10]
        table("operation kinds by total time (all GPUs with events)", ["kind", "total ms", "% of time"],
              [[d["kinds"][k], ms(totals[k]), f"{100 * totals[k] / totals.sum():.1f}"] for k in top if totals[k] > 0])

    gs = d["gpu_summary"]
    if len(gs):
        table(f"/gpu_summary over all {len(gs)} GPUs (ms)", ["", "mean", "min", "max"],
              [[c, ms(gs[c].mean()), ms(gs[c].min()), ms(gs[c].max())]
               for c in ("busy_ns", "idle_ns", "exposed_comm_ns")] +
              [["peak_memory_gib", f"{gs['peak_memory_bytes'].mean() / 2**30:.2f}",
                f"{gs['peak_memory_bytes'].min() / 2**30:.2f}", f"{gs['peak_memory_bytes'].max() / 2**30:.2f}"]])

    links = d["links"]
    util = links["busy_ns"] / step if step and len(links) else np.zeros(len(links))
    if len(links):
        classes = d["link_classes"]
        table("link utilisation by class (busy / step time)", ["class", "links", "mean %", "max %", "GB carried"],
              [[classes[c] if c < len(classes) else c, int((links["class"] == c).sum()),
                f"{100 * util[links['class'] == c].mean():.1f}", f"{100 * util[links['class'] == c].max():.1f}",
                f"{links['bytes'][links['class'] == c].sum() / 1e9:.3f}"] for c in np.unique(links["class"])])
        name = (lambda v: d["vertices"][v] if v < len(d["vertices"]) else str(v))
        busiest = np.argsort(util)[::-1][:top_links]
        table(f"busiest {len(busiest)} links", ["link", "src", "dst", "util %", "GB", "peak queue KiB"],
              [[int(links["link"][i]), name(links["src"][i]), name(links["dst"][i]), f"{100 * util[i]:.1f}",
                f"{links['bytes'][i] / 1e9:.3f}", f"{links['peak_queue_bytes'][i] / 1024:.0f}"] for i in busiest])
    return gpus, per_gpu, util


def figure(d, gpus, per_gpu, util, out):
    fig, axes = plt.subplots(2, 2, figsize=(14, 8))
    ax = axes[0][0]
    if len(gpus):
        bottom = np.zeros(len(gpus))
        for i, label in [(0, "fwd"), (1, "bwd"), (2, "opt"), (4, "exposed comm"), (5, "bubble")]:
            ax.bar(range(len(gpus)), per_gpu[:, i] / 1e6, bottom=bottom, label=label, width=0.9)
            bottom += per_gpu[:, i] / 1e6
        ax.set_xticks(range(len(gpus)))
        ax.set_xticklabels(gpus, fontsize=6, rotation=90)
        ax.legend(fontsize=7)
    ax.set_title("per-GPU step breakdown (GPUs with events)")
    ax.set_xlabel("gpu")
    ax.set_ylabel("ms")

    ax = axes[0][1]
    gs = d["gpu_summary"]
    for c in ("busy_ns", "idle_ns", "exposed_comm_ns"):
        ax.plot(gs["gpu"], gs[c] / 1e6, ".", label=c.replace("_ns", ""), markersize=3)
    ax.set_title("/gpu_summary (all GPUs)")
    ax.set_xlabel("gpu")
    ax.set_ylabel("ms")
    ax.legend(fontsize=7)

    ax = axes[1][0]
    totals = d["kind_ns"]
    if totals.sum() > 0:
        top = np.argsort(totals)[::-1][:12]
        ax.barh([d["kinds"][k] for k in top][::-1], (totals[top] / 1e6)[::-1])
    ax.set_title("total time by operation kind")
    ax.set_xlabel("ms (summed over GPUs)")

    ax = axes[1][1]
    links = d["links"]
    if len(links):
        classes = d["link_classes"]
        for c in np.unique(links["class"]):
            ax.hist(100 * util[links["class"] == c], bins=20, alpha=0.6,
                    label=classes[c] if c < len(classes) else str(c))
        ax.legend(fontsize=7)
    ax.set_title("link utilisation")
    ax.set_xlabel("busy / step time (%)")
    ax.set_ylabel("links")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"\nsummarize: figure -> {out}")


def main(argv=None):
    p = argparse.ArgumentParser(description="Per-phase, communication, bubble and link summary of a timeline.h5.")
    p.add_argument("timeline", help="OUT/timeline.h5 written by `preflight run`")
    p.add_argument("-o", "--output", default="summary.png", help="PNG to write (default: %(default)s)")
    p.add_argument("--top-links", type=int, default=10, help="busiest links to list (default: %(default)s)")
    args = p.parse_args(argv)
    try:
        d = read(args.timeline)
        gpus, per_gpu, util = summarize(d, args.top_links)
        figure(d, gpus, per_gpu, util, args.output)
    except (OSError, KeyError, ValueError) as e:
        print(f"summarize: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
