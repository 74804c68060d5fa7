#!/usr/bin/python3
"""Does the sampled band cover what was measured? (models/uncertainty/README.md)

Runs `preflight run --uncertainty N` (analytical network, no timeline) on the
public validation rows (tests/validation: every ok row, the CI subset, or a
list of ids) and prints per row the measured step time, the band's P10, P50
and P90, whether the measured value lies inside P10..P90 (or below / above
it), and the band's width P90/P10; then the coverage (share of rows inside),
the shares below and above, and the median P90/P10; and the same coverage
for the cheap band every report carries (step_time_ms_low .. high). The issue's target:
coverage >= 80 % with a median P90/P10 <= 1.35.

  /usr/bin/python3 tests/bench/uncertainty_coverage.py --rows subset --samples 8
  /usr/bin/python3 tests/bench/uncertainty_coverage.py --rows ID,ID --samples 16 --ranks 2 [--json OUT]
  /usr/bin/python3 tests/bench/uncertainty_coverage.py --rows all --samples 32 --set simulation.uncertainty_model_error=false

With --ranks R > 1 each row runs under mpiexec -n R --jobs-per-run 1 (the
sampled runs dealt over the ranks).
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "tests" / "validation"))
sys.path.insert(0, str(REPO_ROOT / "tests" / "bench"))
import rows as rowlib  # noqa: E402
from accuracy_table import select_rows  # noqa: E402

DEFAULT_PREFLIGHT = REPO_ROOT / "build" / "io" / "cli" / "preflight"


def run_row(row, preflight, work, samples, ranks, timeout_s, extra_sets=()):
    res = {"id": row.id, "gpu": row.short_gpu(), "gpus": row.gpus, "measured_ms": row.measured_s * 1e3,
           "status": None, "wall_s": 0.0}
    d = Path(work) / row.id
    d.mkdir(parents=True, exist_ok=True)
    exp = rowlib.write_experiment(row, d)
    report = d / "report.json"
    cmd = rowlib.preflight_command(preflight, row, exp, report, d / "out") + ["--uncertainty", str(samples)]
    for s in extra_sets:
        cmd += ["--set", s]
    if ranks > 1:
        cmd = ["mpiexec", "--oversubscribe", "--allow-run-as-root", "-n", str(ranks)] + cmd + ["--jobs-per-run", "1"]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=d)
    except subprocess.TimeoutExpired:
        res["status"] = "timeout"
        return res
    res["wall_s"] = time.monotonic() - t0
    if p.returncode not in (0, 3) or not report.is_file():
        text = p.stderr.strip() or p.stdout.strip()
        res["status"] = f"failed (rc {p.returncode}): " + (text.splitlines()[-1] if text else "")
        return res
    rep = json.loads(report.read_text())
    u = rep["uncertainty"]
    res.update(status="oom" if p.returncode == 3 else "ok", predicted_ms=rep["step_time_ms"], p10=u["p10"],
               p50=u["p50"], p90=u["p90"], low=u["step_time_ms_low"], high=u["step_time_ms_high"],
               top=u["sensitivity"][0]["parameter"] if u["sensitivity"] else "")
    m = res["measured_ms"]
    res["where"] = "below" if m < u["p10"] else "above" if m > u["p90"] else "inside"
    res["width"] = u["p90"] / u["p10"] if u["p10"] > 0 else None
    res["cheap_inside"] = u["step_time_ms_low"] <= m <= u["step_time_ms_high"]
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="subset", help="all, subset, a file of ids, or ID,ID,...")
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--preflight", default=str(DEFAULT_PREFLIGHT))
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--json")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="an extra override for every row (repeatable), e.g. simulation.uncertainty_model_error=false "
                         "for the cost-model priors' band alone")
    a = ap.parse_args(argv)
    rows, missing = select_rows(a.rows, rowlib.load_rows())
    if missing:
        print("unknown rows: " + ", ".join(missing), file=sys.stderr)
        return 2
    preflight = str(Path(a.preflight).resolve())
    results = []
    with tempfile.TemporaryDirectory(prefix="pf-coverage-") as work:
        runnable = [r for r in rows if r.ok]
        for i, row in enumerate(runnable, 1):
            res = run_row(row, preflight, work, a.samples, a.ranks, a.timeout, a.set)
            results.append(res)
            if res["status"] in ("ok", "oom"):
                print(f"[{i}/{len(runnable)}] {row.id:42s} measured {res['measured_ms']:10.1f}  P10 {res['p10']:10.1f}"
                      f"  P50 {res['p50']:10.1f}  P90 {res['p90']:10.1f} ms  {res['where']:6s} x{res['width']:.3f}"
                      f"  {res['wall_s']:6.1f} s", flush=True)
            else:
                print(f"[{i}/{len(runnable)}] {row.id:42s} {res['status']}", flush=True)
    ran = [r for r in results if r["status"] in ("ok", "oom")]
    if not ran:
        print("no row ran")
        return 1
    inside = sum(r["where"] == "inside" for r in ran)
    below = sum(r["where"] == "below" for r in ran)
    above = sum(r["where"] == "above" for r in ran)
    widths = [r["width"] for r in ran if r["width"]]
    print(f"rows {len(ran)} ({a.samples} samples each): inside P10..P90 {inside} ({100 * inside / len(ran):.1f} %), "
          f"measured below P10 {below}, above P90 {above}; median P90/P10 {statistics.median(widths):.3f}")
    cheap = sum(r["cheap_inside"] for r in ran)
    cheap_width = statistics.median(r["high"] / r["low"] for r in ran if r["low"] > 0)
    print(f"cheap band (every report's step_time_ms_low .. high): inside {cheap} ({100 * cheap / len(ran):.1f} %), "
          f"median high/low {cheap_width:.3f}")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
