#!/usr/bin/python3
"""Bar chart of a preflight sweep (`preflight sweep ... --json sweep.json`).

One horizontal bar per valid variant, in the table's order (fastest on top):
its step time, annotated with tokens/s, MFU and the change against the
baseline (the first variant in grid order). Variants that do not fit in GPU
memory are hatched and marked OOM; invalid variants are left out and listed
underneath. A sweep run with --uncertainty N gets each variant's P10..P90
band as an error bar (the bar's end at P50 marked), and "flips" beside a
ranking that holds in fewer than 90 % of the samples.

    scripts/plot_sweep.py sweep.json -o sweep.png
    scripts/plot_sweep.py sweep.json -o sweep.svg --title "NIC bandwidth, 1,024 H100"

Needs only Debian's python3-matplotlib.
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed (batch nodes have none)
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402


def short_keys(keys):
    """Each dotted key's shortest suffix no other key shares (as the sweep table prints them)."""
    parts = [k.split(".") for k in keys]
    out = []
    for i, p in enumerate(parts):
        for n in range(1, len(p) + 1):
            cand = p[-n:]
            clash = any(j != i and len(q) >= n and q[-n:] == cand for j, q in enumerate(parts))
            if not clash or n == len(p):
                out.append(".".join(cand))
                break
    return out


def value_text(v):
    """A variant's value as it was written on the command line (YAML)."""
    if isinstance(v, bool) or v is None or isinstance(v, (list, dict)):
        return json.dumps(v)
    return str(v)


def label(row, keys, short):
    return " ".join(f"{s}={value_text(row['variant'][k])}" for k, s in zip(keys, short))


def si(value):
    """1234567 -> '1.23M' for compact tokens/s annotations."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.3g}"


def plot(doc, out, title):
    keys = [v["key"] for v in doc["vary"]]
    short = short_keys(keys)
    rows = [r for r in doc["rows"] if r["valid"]]
    invalid = [r for r in doc["rows"] if not r["valid"]]
    if not rows:
        raise ValueError("the sweep has no valid variant to draw")
    base = doc.get("baseline_grid_index")

    fig_h = 1.5 + 0.45 * len(rows) + (0.25 * len(invalid) if invalid else 0)
    fig, ax = plt.subplots(figsize=(10, max(2.5, fig_h)))
    y = list(range(len(rows)))[::-1]  # rank 1 on top
    steps = [r["step_time_ms"] for r in rows]
    colors = ["#dd8452" if r["grid_index"] == base else "#4c72b0" for r in rows]
    bars = ax.barh(y, steps, color=colors, edgecolor="black", linewidth=0.5)
    for bar, r in zip(bars, rows):
        if r["oom"]:
            bar.set_hatch("//")
            bar.set_facecolor("#c44e52")
    bands = [r.get("uncertainty") for r in rows]
    if any(bands):
        for yi, r, b in zip(y, rows, bands):
            if not b:
                continue
            ax.plot([b["p10"], b["p90"]], [yi, yi], color="black", linewidth=1.2)
            ax.plot([b["p10"], b["p10"]], [yi - 0.18, yi + 0.18], color="black", linewidth=1.2)
            ax.plot([b["p90"], b["p90"]], [yi - 0.18, yi + 0.18], color="black", linewidth=1.2)
            ax.plot([b["p50"]], [yi], marker="|", markersize=12, color="black")
    ax.set_yticks(y)
    ax.set_yticklabels([label(r, keys, short) for r in rows], fontsize=8)
    ax.set_xlabel("step time (ms)")
    top = max(steps + [b["p90"] for b in bands if b])
    ax.set_xlim(0, top * (1.85 if any(bands) else 1.45))
    for yi, r in zip(y, rows):
        change = "baseline" if r["grid_index"] == base else (
            f"{r['change_pct']:+.1f}%" if r["change_pct"] is not None else "")
        note = f"{r['step_time_ms']:.5g} ms  {si(r['tokens_per_s'])} tok/s  MFU {100 * r['mfu']:.1f}%  {change}"
        if r["oom"]:
            note += "  OOM"
        b = r.get("uncertainty")
        if b and b.get("vs_next"):
            v = b["vs_next"]
            note += f"  beats next in {100 * v['faster_share']:.0f}%" + ("" if v["robust"] else " (flips)")
        x = max(r["step_time_ms"], b["p90"] if b else 0)
        ax.text(x + top * 0.01, yi, note, va="center", fontsize=7.5)
    ax.set_title(title or f"preflight sweep: {doc.get('name') or doc['experiment']}", loc="left")
    handles = [Patch(facecolor="#4c72b0", label="variant"), Patch(facecolor="#dd8452", label="baseline")]
    if any(bands):
        handles.append(Patch(facecolor="white", edgecolor="black", label=f"P10..P90 of {doc['uncertainty_samples']} samples"))
    if any(r["oom"] for r in rows):
        handles.append(Patch(facecolor="#c44e52", hatch="//", label="does not fit in memory (OOM)"))
    # Above the axes, clear of the bars' annotations.
    ax.legend(handles=handles, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=len(handles), fontsize=8,
              frameon=False)
    if invalid:
        text = "invalid (not drawn): " + "; ".join(f"{label(r, keys, short)}" for r in invalid)
        fig.text(0.01, 0.01, text, fontsize=7, wrap=True)
    fig.tight_layout(rect=(0, 0.04 if invalid else 0, 1, 1))
    fig.savefig(out, dpi=130)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("sweep_json", help="JSON written by preflight sweep --json")
    parser.add_argument("-o", "--output", default="sweep.png", help="image file (PNG, SVG, PDF; default sweep.png)")
    parser.add_argument("--title", help="chart title (default: the experiment's name)")
    args = parser.parse_args(argv)
    try:
        with open(args.sweep_json) as f:
            doc = json.load(f)
        plot(doc, args.output, args.title)
    except (OSError, ValueError, KeyError) as e:
        print(f"plot_sweep.py: error: {e}", file=sys.stderr)
        return 2
    print(f"plot_sweep.py: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
