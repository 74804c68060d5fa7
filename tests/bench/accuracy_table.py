#!/usr/bin/python3
"""Predicted vs measured step time on published training throughputs.

Runs `preflight run` (analytical network mode, no timeline) on every row of
tests/validation/public-throughput.csv that preflight can express (or a
subset), one after another, and prints per row: id, source, model, GPU, GPU
count, measured step (s), predicted step (s), signed error (%, negative =
preflight predicts faster than measured); then MAPE, median signed error, the
fraction of rows predicted too fast, the worst row, and MAPE / median signed
error per source and per GPU. See tests/validation/README.md.

  /usr/bin/python3 tests/bench/accuracy_table.py                   # every ok row
  /usr/bin/python3 tests/bench/accuracy_table.py --rows subset     # tests/validation/subset.txt
  /usr/bin/python3 tests/bench/accuracy_table.py --rows ID,ID,...  [--json OUT] [--markdown]
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
import rows as rowlib  # noqa: E402

DEFAULT_PREFLIGHT = REPO_ROOT / "build" / "io" / "cli" / "preflight"
DEFAULT_TIMEOUT_S = 300


def select_rows(spec, all_rows):
    """spec: 'all', 'subset', a file of ids, or comma-separated ids."""
    by_id = {r.id: r for r in all_rows}
    if spec in (None, "all"):
        return list(all_rows), []
    if spec == "subset":
        ids = rowlib.read_subset()
    elif len(spec) < 256 and Path(spec).is_file():  # a long id list is no file name
        ids = rowlib.read_subset(spec)
    else:
        ids = [x.strip() for x in spec.split(",") if x.strip()]
    missing = [i for i in ids if i not in by_id]
    return [by_id[i] for i in ids if i in by_id], missing


def run_row(row, preflight, workdir, timeout_s, extra_sets=()):
    """One `preflight run` (the row's overrides, then extra_sets); returns a result dict."""
    res = {"id": row.id, "source": row.source, "model": row.model, "gpu": row.short_gpu(), "gpus": row.gpus,
           "measured_s": row.measured_s, "predicted_s": None, "error_pct": None, "status": None, "wall_s": 0.0,
           "oom": False, "peak_memory_gb": None, "mfu": None, "assumptions": row.assumptions, "message": ""}
    if not row.ok:
        res["status"] = "unsupported"
        res["message"] = row.status[len("unsupported: "):]
        return res
    d = Path(workdir) / row.id
    d.mkdir(parents=True, exist_ok=True)
    exp = rowlib.write_experiment(row, d)
    report = d / "report.json"
    cmd = rowlib.preflight_command(preflight, row, exp, report, d / "out")
    for o in extra_sets:
        cmd += ["--set", o]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=d)
    except subprocess.TimeoutExpired:
        res["wall_s"] = time.monotonic() - t0
        res["status"] = "timeout"
        res["message"] = f"no result after {timeout_s:g} s"
        return res
    except OSError as e:
        res["status"] = "failed"
        res["message"] = f"cannot run {preflight}: {e.strerror}"
        return res
    res["wall_s"] = time.monotonic() - t0
    if p.returncode in (0, 3) and report.is_file():
        rep = json.loads(report.read_text())
        res["predicted_s"] = rep["step_time_ms"] / 1000.0
        res["error_pct"] = (res["predicted_s"] - row.measured_s) / row.measured_s * 100.0
        res["oom"] = p.returncode == 3 or bool(rep.get("oom"))
        res["peak_memory_gb"] = rep.get("peak_memory_gb")
        res["mfu"] = rep.get("mfu")
        u = rep.get("uncertainty", {})
        if "step_time_ms_low" in u:  # the cheap band every report carries
            res["band_low_s"] = u["step_time_ms_low"] / 1000.0
            res["band_high_s"] = u["step_time_ms_high"] / 1000.0
        res["status"] = "oom" if res["oom"] else "ok"
    else:
        res["status"] = "config-error" if p.returncode == 2 else f"failed (rc {p.returncode})"
        text = p.stderr.strip() or p.stdout.strip()
        res["message"] = text.splitlines()[-1] if text else ""
    return res


def run_rows(rows, preflight, timeout_s=DEFAULT_TIMEOUT_S, progress=True, keep=None, extra_sets=()):
    results = []
    preflight = str(Path(preflight).resolve())   # rows run in their own folders
    runnable = [r for r in rows if r.ok]
    with tempfile.TemporaryDirectory(prefix="pf-accuracy-") as tmp:
        work = keep or tmp
        n = 0
        for row in rows:
            if row.ok:
                n += 1
            res = run_row(row, preflight, work, timeout_s, extra_sets)
            results.append(res)
            if progress and row.ok:
                err = f"{res['error_pct']:+7.1f} %" if res["error_pct"] is not None else res["status"]
                print(f"[{n}/{len(runnable)}] {row.id:40s} {res['wall_s']:7.1f} s wall  {err}"
                      + ("  OOM" if res["oom"] else "") + (f"  {res['message']}" if res["message"] else ""),
                      file=sys.stderr, flush=True)
    return results


def error_stats(results):
    """Rows, MAPE, median signed error and the share too fast, over the results that have an error."""
    errs = [r["error_pct"] for r in results if r["error_pct"] is not None]
    if not errs:
        return {"rows": 0, "mape": None, "median_signed": None, "too_fast": None}
    return {"rows": len(errs), "mape": sum(abs(e) for e in errs) / len(errs),
            "median_signed": statistics.median(errs), "too_fast": sum(e < 0 for e in errs) / len(errs)}


def summarize(results, total_rows=None):
    ran = [r for r in results if r["error_pct"] is not None]
    s = error_stats(ran)
    s["rows_total"] = total_rows if total_rows is not None else len(results)
    s["rows_run"] = len(ran)
    s["oom"] = sum(r["oom"] for r in ran)
    s["fits"] = error_stats([r for r in ran if not r["oom"]])
    s["unsupported"] = sum(r["status"] == "unsupported" for r in results)
    s["failed"] = [{"id": r["id"], "status": r["status"], "message": r["message"]} for r in results
                   if r["error_pct"] is None and r["status"] != "unsupported"]
    s["wall_s"] = sum(r["wall_s"] for r in results)
    banded = [r for r in ran if r.get("band_low_s") is not None and r["band_low_s"] > 0]
    s["band"] = None
    if banded:
        inside = sum(r["band_low_s"] <= r["measured_s"] <= r["band_high_s"] for r in banded)
        s["band"] = {"rows": len(banded), "inside": inside, "coverage": inside / len(banded),
                     "below": sum(r["measured_s"] < r["band_low_s"] for r in banded),
                     "above": sum(r["measured_s"] > r["band_high_s"] for r in banded),
                     "median_width": statistics.median(r["band_high_s"] / r["band_low_s"] for r in banded)}
    if ran:
        worst = max(ran, key=lambda r: abs(r["error_pct"]))
        s["worst"] = {"id": worst["id"], "error_pct": worst["error_pct"]}
    else:
        s["worst"] = None
    s["per_source"] = {}
    for src in sorted({r["source"] for r in results}):
        s["per_source"][src] = error_stats([r for r in ran if r["source"] == src])
    s["per_gpu"] = {}
    for gpu in sorted({r["gpu"] for r in results}):
        s["per_gpu"][gpu] = error_stats([r for r in ran if r["gpu"] == gpu])
    return s


def _f(v, fmt):
    return format(v, fmt) if v is not None else "-"


def format_table(results, summary):
    lines = []
    hdr = f"{'id':40s} {'source':34s} {'model':40s} {'GPU':8s} {'GPUs':>5s} {'measured s':>11s} {'predicted s':>11s} {'error %':>8s}  note"
    lines.append(hdr)
    lines.append("-" * len(hdr))
    for r in results:
        note = ""
        if r["status"] == "unsupported":
            note = "left out: " + r["message"]
        elif r["error_pct"] is None:
            note = f"{r['status']}: {r['message']}"
        elif r["oom"]:
            note = "OOM (plan does not fit; step time still reported)"
        lines.append(f"{r['id']:40s} {r['source'][:34]:34s} {r['model'][:40]:40s} {r['gpu']:8s} {r['gpus']:5d} "
                     f"{r['measured_s']:11.3f} {_f(r['predicted_s'], '11.3f'):>11s} {_f(r['error_pct'], '+8.1f'):>8s}  {note}")
    lines.append("")
    lines += format_summary(summary)
    return "\n".join(lines)


def format_summary(s):
    out = []
    left = s["rows_total"] - s["rows_run"]
    out.append(f"rows run {s['rows_run']} of {s['rows_total']}; left out {left} "
               f"({s['unsupported']} unsupported, {len(s['failed'])} failed/timed out); {s['oom']} of the rows run are OOM")
    if s["mape"] is not None:
        out.append(f"MAPE {s['mape']:.1f} %   median signed error {s['median_signed']:+.1f} %   "
                   f"predicted too fast {s['too_fast'] * 100:.0f} % of rows   worst {s['worst']['id']} "
                   f"({s['worst']['error_pct']:+.1f} %)")
        fs = s["fits"]
        if fs["rows"]:
            out.append(f"rows that fit in memory only ({fs['rows']}): MAPE {fs['mape']:.1f} %   "
                       f"median signed {fs['median_signed']:+.1f} %")
    b = s.get("band")
    if b:
        out.append(f"every report's band (step_time_ms_low .. high): measured inside on {b['inside']} of {b['rows']} rows "
                   f"({100 * b['coverage']:.1f} %), below {b['below']}, above {b['above']}; median high/low "
                   f"{b['median_width']:.3f}")
    for f in s["failed"]:
        out.append(f"FAILED {f['id']}: {f['status']} {f['message']}")
    out.append("")
    for title, key in (("source", "per_source"), ("GPU", "per_gpu")):
        out.append(f"{'per ' + title:36s} {'rows':>5s} {'MAPE %':>8s} {'median signed %':>16s} {'too fast':>10s}")
        for name, st in s[key].items():
            out.append(f"{name:36s} {st['rows']:5d} {_f(st['mape'], '8.1f'):>8s} {_f(st['median_signed'], '+16.1f'):>16s} "
                       f"{_f(st['too_fast'] * 100 if st['too_fast'] is not None else None, '8.0f') + ' %':>10s}")
        out.append("")
    out.append(f"simulation wall time {s['wall_s']:.0f} s")
    return out


def format_markdown(results, s):
    out = ["| id | source | model | GPU | GPUs | measured s | predicted s | error % | note |",
           "|---|---|---|---|---:|---:|---:|---:|---|"]
    for r in results:
        note = ""
        if r["status"] == "unsupported":
            note = "left out: " + r["message"]
        elif r["error_pct"] is None:
            note = r["status"]
        elif r["oom"]:
            note = "OOM"
        out.append(f"| {r['id']} | {r['source']} | {r['model']} | {r['gpu']} | {r['gpus']} | {r['measured_s']:.3f} | "
                   f"{_f(r['predicted_s'], '.3f')} | {_f(r['error_pct'], '+.1f')} | {note} |")
    out.append("")
    if s["mape"] is not None:
        out.append(f"Rows run {s['rows_run']} of {s['rows_total']} ({s['oom']} OOM); MAPE {s['mape']:.1f} %; median signed "
                   f"error {s['median_signed']:+.1f} %; predicted too fast on {s['too_fast'] * 100:.0f} % of rows; worst "
                   f"{s['worst']['id']} ({s['worst']['error_pct']:+.1f} %).")
    out.append("")
    out.append("| source | rows | MAPE % | median signed % |")
    out.append("|---|---:|---:|---:|")
    for name, st in s["per_source"].items():
        out.append(f"| {name} | {st['rows']} | {_f(st['mape'], '.1f')} | {_f(st['median_signed'], '+.1f')} |")
    out.append("")
    out.append("| GPU | rows | MAPE % | median signed % |")
    out.append("|---|---:|---:|---:|")
    for name, st in s["per_gpu"].items():
        out.append(f"| {name} | {st['rows']} | {_f(st['mape'], '.1f')} | {_f(st['median_signed'], '+.1f')} |")
    return "\n".join(out)


def parse_args(argv=None, description=__doc__):
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preflight", default=str(DEFAULT_PREFLIGHT), help="preflight binary (default: %(default)s)")
    ap.add_argument("--rows", default="all", help="all (default), subset (tests/validation/subset.txt), a file of ids, or ID,ID,...")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds per row (default %(default)s)")
    ap.add_argument("--json", metavar="OUT", help="write results and summary as JSON")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown (for the README)")
    ap.add_argument("--keep", metavar="DIR", help="keep the generated experiments and reports in DIR")
    ap.add_argument("--quiet", action="store_true", help="no per-row progress on stderr")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="an override applied to every row after its own (repeatable), for ablations: "
                         "e.g. --set hardware.gpu.sustained_clock=1")
    return ap, ap.parse_args(argv)


def main(argv=None):
    ap, args = parse_args(argv)
    if not Path(args.preflight).is_file():
        ap.error(f"no preflight binary at {args.preflight}")
    all_rows = rowlib.load_rows()
    rows, missing = select_rows(args.rows, all_rows)
    if missing:
        ap.error("unknown row ids: " + ", ".join(missing))
    results = run_rows(rows, args.preflight, args.timeout, progress=not args.quiet, keep=args.keep,
                       extra_sets=args.sets)
    summary = summarize(results)
    print(format_markdown(results, summary) if args.markdown else format_table(results, summary))
    if args.json:
        Path(args.json).write_text(json.dumps({"preflight": str(args.preflight), "rows": results, "summary": summary},
                                              indent=1))
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
