#!/usr/bin/python3
"""Which part of a predicted step carries the validation error?

Runs `preflight run` (analytical network, timeline of GPU 0) on the public
validation rows (tests/validation: every ok row, the CI subset, or a list of
ids), splits GPU 0's compute stream into GEMM, attention and other
(memory-bound) kernel time, takes the rest of the step as the remainder
(exposed communication, pipeline bubble, host waits), and fits

    measured step = a * GEMM + b * attention + c * other + d * remainder

by least squares over the dense rows that fit in memory (each row weighted by
1 / measured, so every row counts by its relative error), overall and per GPU.
A coefficient near 1 says the class is priced right on average; all of them
above 1 say every kernel runs too fast. A diagnosis only: no preset is fitted
from it (tests/validation/README.md, "Results").

  /usr/bin/python3 tests/bench/error_breakdown.py                 # every ok row (~15 min)
  /usr/bin/python3 tests/bench/error_breakdown.py --rows subset [--json OUT]

Needs Debian's python3-h5py and python3-numpy.
"""

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import h5py
import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "tests" / "validation"))
sys.path.insert(0, str(REPO_ROOT / "tests" / "bench"))
import rows as rowlib  # noqa: E402
from accuracy_table import DEFAULT_PREFLIGHT, select_rows  # noqa: E402

GEMM_PREFIXES = ("qkv", "attn_proj", "mlp_fc", "lm_head")
MOE_MARKS = ("expert", "moe", "router", "ep_")
CLASSES = ("gemm", "attention", "other", "remainder")


def kernel_class(kind):
    if kind.startswith("attention") or re.match(r"attn_(scores|context|softmax)", kind):
        return "attention"
    if kind.startswith(GEMM_PREFIXES) and kind.endswith(("_fwd", "_dgrad", "_wgrad")):
        return "gemm"
    return "other"


def breakdown(timeline, step_ms):
    """Milliseconds per class on GPU 0; None for a MoE row."""
    with h5py.File(timeline) as f:
        kinds = [k.decode() for k in f["kinds"][:]]
        ev = f["events"][:]
    used = {kinds[k] for k in np.unique(ev["kind"][ev["gpu"] == 0])}
    if any(k.startswith(MOE_MARKS) or "expert" in k for k in used):
        return None
    e = ev[(ev["gpu"] == 0) & (ev["stream"] == 0)]
    ms = {c: 0.0 for c in CLASSES}
    for k, name in enumerate(kinds):
        sel = e["kind"] == k
        if sel.any():
            ms[kernel_class(name)] += float((e["end_ns"][sel] - e["start_ns"][sel]).sum()) / 1e6
    ms["remainder"] = step_ms - ms["gemm"] - ms["attention"] - ms["other"]
    return ms


def run_row(row, preflight, work, timeout_s):
    d = Path(work) / row.id
    d.mkdir(parents=True, exist_ok=True)
    exp = rowlib.write_experiment(row, d)
    report = d / "report.json"
    cmd = rowlib.preflight_command(preflight, row, exp, report, d / "out")
    cmd.remove("--no-timeline")
    cmd += ["--set", "output.timeline=true"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=d)
    if p.returncode != 0 or not report.is_file():
        return None, "oom" if p.returncode == 3 else f"failed (rc {p.returncode})"
    step_ms = json.loads(report.read_text())["step_time_ms"]
    ms = breakdown(d / "out" / "timeline.h5", step_ms)
    (d / "out" / "timeline.h5").unlink()
    return (None, "moe") if ms is None else (dict(ms, step=step_ms, measured=row.measured_s * 1e3), "ok")


def fit(rows):
    x = np.array([[r[c] for c in CLASSES] for r in rows])
    t = np.array([r["measured"] for r in rows])
    coef = np.linalg.lstsq(x / t[:, None], np.ones(len(t)), rcond=None)[0]
    before = np.mean(np.abs(np.array([r["step"] for r in rows]) / t - 1)) * 100
    after = np.mean(np.abs(x @ coef / t - 1)) * 100
    return coef, before, after


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preflight", default=str(DEFAULT_PREFLIGHT))
    ap.add_argument("--rows", default="all", help="all (default), subset, a file of ids, or ID,ID,...")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per row (default 300)")
    ap.add_argument("--json", metavar="OUT", help="write the per-row breakdown and the fits as JSON")
    a = ap.parse_args(argv)
    rows, missing = select_rows(a.rows, rowlib.load_rows())
    if missing:
        sys.exit(f"error_breakdown.py: unknown row ids: {', '.join(missing)}")
    preflight = str(Path(a.preflight).resolve())
    results = {}
    with tempfile.TemporaryDirectory(prefix="pf-breakdown-") as work:
        for row in (r for r in rows if r.ok):
            try:
                res, status = run_row(row, preflight, work, a.timeout)
            except subprocess.TimeoutExpired:
                res, status = None, "timeout"
            print(f"{row.id:45s} {row.short_gpu():9s} {status}", file=sys.stderr, flush=True)
            if res:
                res["gpu"] = row.short_gpu()
                results[row.id] = res
    print(f"{'id':45s} {'GPU':9s} " + " ".join(f"{c:>9s}" for c in CLASSES) + "  error %")
    for rid, r in sorted(results.items()):
        shares = " ".join(f"{r[c] / r['step']:9.2f}" for c in CLASSES)
        print(f"{rid:45s} {r['gpu']:9s} {shares}  {(r['step'] / r['measured'] - 1) * 100:+7.1f}")
    fits = {}
    groups = {"all": list(results.values())}
    for r in results.values():
        groups.setdefault(r["gpu"], []).append(r)
    print("\nfit of measured = a*gemm + b*attention + c*other + d*remainder (weights 1/measured)")
    for name, rs in groups.items():
        if len(rs) < 2 * len(CLASSES):
            continue
        coef, before, after = fit(rs)
        fits[name] = {"rows": len(rs), **dict(zip(CLASSES, coef.tolist())), "mape_before": before, "mape_after": after}
        print(f"  {name:9s} {len(rs):3d} rows  " + "  ".join(f"{c} {v:.3f}" for c, v in zip(CLASSES, coef))
              + f"   (MAPE {before:.1f} % as predicted, {after:.1f} % refitted)")
    if a.json:
        Path(a.json).write_text(json.dumps({"rows": results, "fits": fits}, indent=1))


if __name__ == "__main__":
    main()
