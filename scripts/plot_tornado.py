#!/usr/bin/python3
"""Tornado chart of a run's sensitivity (`preflight run ... --uncertainty N`).

One horizontal bar per sampled parameter, largest swing on top: from the step
time with the parameter at its prior's low end to the step time at its high
end, the others at their nominal values, around a vertical line at the
nominal step time; the P10..P90 band of the sampled runs is shaded. The
parameters' priors (preset, default or measured) are in the labels; the
title names the measurement that would most narrow the estimate. Where the
band includes the model's own measured error (`uncertainty.model_error`), a
last bar, hatched, spans the nominal step times its P10 and P90.

    scripts/plot_tornado.py out/gpt3-13b-a100-128/report.json -o tornado.png [--top 8]

Needs only Debian's python3-matplotlib.
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot(report, out, top):
    u = report["uncertainty"]
    if "sensitivity" not in u:
        raise ValueError("the report has no sampled band: run preflight run with --uncertainty N")
    rows = list(u["sensitivity"][:top])
    step = report["step_time_ms"]
    error = u.get("model_error")
    if error:  # the model's own error as one more bar, at the bottom
        rows.append({"parameter": f"model error ({error['stratum']}, {error['rows']} measured runs)", "prior": "measured",
                     "step_time_ms_at_low": step * error["p10"], "step_time_ms_at_high": step * error["p90"],
                     "hatch": "//"})
    fig, ax = plt.subplots(figsize=(10, 1.6 + 0.45 * len(rows)))
    band = f"P10..P90 of {u['samples']} samples" + (" with the model error" if error else "")
    ax.axvspan(u["p10"], u["p90"], color="#dddddd", label=band)
    for i, s in enumerate(rows):
        y = len(rows) - 1 - i
        lo, hi = s["step_time_ms_at_low"], s["step_time_ms_at_high"]
        hatch = s.get("hatch")
        ax.barh(y, hi - step, left=step, color="#c44e52" if hi > step else "#4c72b0", edgecolor="black", linewidth=0.5,
                hatch=hatch)
        ax.barh(y, lo - step, left=step, color="#c44e52" if lo > step else "#4c72b0", edgecolor="black", linewidth=0.5,
                hatch=hatch)
    ax.axvline(step, color="black", linewidth=1, label=f"nominal {step:.5g} ms")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{s['parameter']} ({s['prior']})" for s in rows][::-1], fontsize=8)
    ax.set_xlabel("step time (ms): each parameter from its low to its high end, the others nominal")
    first = u.get("narrow_first")
    title = f"preflight sensitivity: {report.get('name', '')}"
    if first:
        title += f"\nmeasure next: {first['measure']}"
    ax.set_title(title, loc="left", fontsize=9)
    ax.legend(loc="best", fontsize=8, framealpha=0.9)
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("report_json", help="report.json of preflight run --uncertainty N")
    parser.add_argument("-o", "--output", default="tornado.png", help="image file (PNG, SVG, PDF)")
    parser.add_argument("--top", type=int, default=8, help="parameters drawn (default 8)")
    args = parser.parse_args(argv)
    try:
        with open(args.report_json) as f:
            report = json.load(f)
        plot(report, args.output, args.top)
    except (OSError, ValueError, KeyError) as e:
        print(f"plot_tornado.py: error: {e}", file=sys.stderr)
        return 2
    print(f"plot_tornado.py: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
