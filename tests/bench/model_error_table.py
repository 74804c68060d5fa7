#!/usr/bin/python3
"""preflight's own error against measured runs, as the band's model-error prior.

Reads the JSON that `accuracy_table.py --json OUT` writes (every validation
row's measured and predicted step time), splits the rows into the strata the
band distinguishes (dense models, MoE models: models/uncertainty/model_error.h),
and prints per stratum the quantiles of measured / predicted step time at the
levels the band samples (0, 5, 10, 25, 50, 75, 90, 95, 100 %), then how well a
P10..P90 band built this way covers rows it was not fitted on: each source's
rows against the quantiles of the other sources' rows (leave one source out),
and finally the C++ table for models/uncertainty/model_error.cpp.

  /usr/bin/python3 tests/bench/accuracy_table.py --json /tmp/acc.json --quiet
  /usr/bin/python3 tests/bench/model_error_table.py /tmp/acc.json

Rows marked OOM count: their step time is still a prediction of the run the
source measured (the memory verdict is a separate figure).

The residuals already hold the cost-model parameters' own error, which the
band samples anyway. With --parameter-band COVERAGE_JSON (the output of
`uncertainty_coverage.py --json OUT --set simulation.uncertainty_model_error=false`,
the parameters' band alone, at 32 samples or more) the table is deflated so
that the two together spread as the residuals do: in logs, Var(residual) =
Var(parameters) + Var(model error), so each knot's distance from the median
shrinks by k = sqrt(1 - s_p^2 / s_r^2), with s_r the stratum's residual
spread and s_p its rows' median parameter spread (each ln(P90/P10) / 2.563,
the normal distribution's P10..P90 width in standard deviations).
"""

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "tests" / "validation"))
import rows as rowlib  # noqa: E402

LEVELS = (0.0, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 1.0)
Z_WIDTH = 2 * 1.2815515655446004  # P10..P90 of a standard normal, in standard deviations


def quantile(values, q):
    """numpy's default (linear) quantile."""
    v = sorted(values)
    pos = q * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (pos - lo) * (v[hi] - v[lo])


def strata_of(results, rows):
    moe = {r.id for r in rows if r.raw["moe_experts"]}
    out = {"dense": [], "moe": []}
    for r in results:
        if r.get("predicted_s") and r.get("measured_s"):
            out["moe" if r["id"] in moe else "dense"].append(r)
    return out


def leave_one_source_out(items):
    """Rows inside the P10..P90 of the other sources' ratios, and those bands' widths."""
    inside, widths = 0, []
    for source in sorted({r["source"] for r in items}):
        train = [r["ratio"] for r in items if r["source"] != source]
        test = [r["ratio"] for r in items if r["source"] == source]
        if len(train) < 2:
            continue
        lo, hi = quantile(train, 0.10), quantile(train, 0.90)
        inside += sum(lo <= x <= hi for x in test)
        widths += [hi / lo] * len(test)
    return inside, widths


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("accuracy_json", help="the output of accuracy_table.py --json")
    ap.add_argument("--commit", default="", help="the commit the table was made at, for the C++ comment")
    ap.add_argument("--parameter-band", metavar="COVERAGE_JSON",
                    help="uncertainty_coverage.py's JSON of the parameters' band alone: deflate the table by it")
    a = ap.parse_args(argv)
    data = json.loads(Path(a.accuracy_json).read_text())
    all_rows = rowlib.load_rows()
    strata = strata_of(data["rows"], all_rows)
    param_width = {}
    if a.parameter_band:
        moe = {r.id for r in all_rows if r.raw["moe_experts"]}
        for r in json.loads(Path(a.parameter_band).read_text()):
            if r.get("width"):
                param_width.setdefault("moe" if r["id"] in moe else "dense", []).append(r["width"])
    total_inside, total_rows, all_widths = 0, 0, []
    cpp = []
    for name, items in strata.items():
        for r in items:
            r["ratio"] = r["measured_s"] / r["predicted_s"]
        ratios = [r["ratio"] for r in items]
        if len(ratios) < 2:
            print(f"{name}: {len(ratios)} rows, too few for quantiles", file=sys.stderr)
            return 1
        knots = [quantile(ratios, q) for q in LEVELS]
        inside_fit = sum(knots[2] <= x <= knots[6] for x in ratios)
        raw = list(knots)
        if name in param_width:
            s_r = math.log(knots[6] / knots[2]) / Z_WIDTH
            s_p = math.log(statistics.median(param_width[name])) / Z_WIDTH
            k = math.sqrt(max(0.0, 1 - (s_p / s_r) ** 2))
            med = knots[4]
            knots = [med * math.exp(k * math.log(x / med)) for x in knots]
            print(f"{name}: parameters' band median P90/P10 {statistics.median(param_width[name]):.3f} over "
                  f"{len(param_width[name])} rows: s_p {s_p:.4f}, s_r {s_r:.4f}, deflation k {k:.3f}")
        loso, widths = leave_one_source_out(items)
        total_inside += loso
        total_rows += len(items)
        all_widths += widths
        print(f"{name}: {len(ratios)} rows, measured / predicted step time")
        print("  " + "  ".join(f"P{round(100 * q)} {x:.3f}" for q, x in zip(LEVELS, raw)))
        print(f"  P90/P10 {raw[6] / raw[2]:.3f}; inside P10..P90 {inside_fit} of {len(ratios)} (fitted rows)")
        if knots != raw:
            print("  deflated: " + "  ".join(f"P{round(100 * q)} {x:.3f}" for q, x in zip(LEVELS, knots)))
        print(f"  leave one source out: {loso} of {len(items)} inside ({100 * loso / len(items):.1f} %), "
              f"median P90/P10 {statistics.median(widths):.3f}")
        cpp.append(f'    {{"{name}", {len(ratios)}, {{' + ", ".join(f"{k:.4f}" for k in knots) + "}},")
    print(f"all strata, leave one source out: {total_inside} of {total_rows} inside "
          f"({100 * total_inside / total_rows:.1f} %), median P90/P10 {statistics.median(all_widths):.3f}")
    print()
    print(f"// models/uncertainty/model_error.cpp, from {Path(a.accuracy_json).name}"
          + (f" at commit {a.commit}" if a.commit else ""))
    print("\n".join(cpp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
