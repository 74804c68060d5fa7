#!/usr/bin/python3
"""ctest `accuracy_public_throughput` (LABELS accuracy): preflight's predicted
step time against published, measured training throughputs, over the rows of
tests/validation/subset.txt.

Prints the table (tests/bench/accuracy_table.py) and exits non-zero when
  * the FLOPs-convention self-test of rows.py fails,
  * any subset row is unknown, unsupported, fails to run or times out,
  * MAPE over the subset exceeds --max-mape (percent), or
  * any row's |signed error| exceeds --max-row-error (percent), or
  * every report's band (uncertainty.step_time_ms_low .. high: the cost-model
    priors and the model's measured error, models/uncertainty/README.md)
    holds the measured step time on fewer than --min-band-coverage percent of
    the rows run, or its median high/low exceeds --max-band-width.

  /usr/bin/python3 tests/validation/accuracy_test.py --preflight build/io/cli/preflight --max-mape 10 --max-row-error 25
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "bench"))
import rows as rowlib  # noqa: E402
import accuracy_table  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preflight", required=True, help="preflight binary")
    ap.add_argument("--max-mape", type=float, required=True, help="largest MAPE over the subset, percent")
    ap.add_argument("--max-row-error", type=float, required=True, help="largest |signed error| of one row, percent")
    ap.add_argument("--min-band-coverage", type=float, default=0.0,
                    help="least share of rows whose measured step time lies inside the report's band, percent")
    ap.add_argument("--max-band-width", type=float, default=float("inf"),
                    help="largest median step_time_ms_high / step_time_ms_low over the rows")
    ap.add_argument("--max-oom", type=int, default=None,
                    help="most rows (which the sources ran) that preflight calls out of memory")
    ap.add_argument("--rows", default="subset", help="subset (default), all, a file of ids, or ID,ID,...")
    ap.add_argument("--timeout", type=float, default=accuracy_table.DEFAULT_TIMEOUT_S, help="seconds per row")
    args = ap.parse_args(argv)

    failures = []
    all_rows = rowlib.load_rows()
    try:
        n = rowlib.self_test(all_rows)
        print(f"rows.py self-test: {n} FLOPs-convention cross-checks passed")
    except AssertionError as e:
        failures.append(f"rows.py self-test: {e}")

    rows, missing = accuracy_table.select_rows(args.rows, all_rows)
    failures += [f"{i}: not a row id of tests/validation/public-throughput.csv" for i in missing]
    failures += [f"{r.id}: {r.status}" for r in rows if not r.ok]
    if not Path(args.preflight).is_file():
        failures.append(f"no preflight binary at {args.preflight}")
        rows = []

    results = accuracy_table.run_rows(rows, args.preflight, args.timeout, progress=True)
    summary = accuracy_table.summarize(results)
    print(accuracy_table.format_table(results, summary))
    print()

    for f in summary["failed"]:
        failures.append(f"{f['id']}: {f['status']} {f['message']}")
    if summary["mape"] is not None and summary["mape"] > args.max_mape:
        failures.append(f"MAPE {summary['mape']:.1f} % > {args.max_mape:g} %")
    for r in results:
        if r["error_pct"] is not None and abs(r["error_pct"]) > args.max_row_error:
            failures.append(f"{r['id']}: |error| {abs(r['error_pct']):.1f} % > {args.max_row_error:g} %")
    oom = [r["id"] for r in results if r.get("oom")]
    if args.max_oom is not None and len(oom) > args.max_oom:
        failures.append(f"{len(oom)} rows out of memory > {args.max_oom}: {', '.join(oom)} (their sources ran them)")
    band = summary.get("band")
    if band is None and summary["rows_run"] > 0:
        failures.append("no report carried uncertainty.step_time_ms_low/high")
    elif band is not None:
        if 100 * band["coverage"] < args.min_band_coverage:
            failures.append(f"band holds {100 * band['coverage']:.1f} % of rows < {args.min_band_coverage:g} %")
        if band["median_width"] > args.max_band_width:
            failures.append(f"band median high/low {band['median_width']:.3f} > {args.max_band_width:g}")
    if not results or summary["rows_run"] == 0:
        failures.append("no row ran")

    print(f"thresholds: MAPE <= {args.max_mape:g} %, every row |error| <= {args.max_row_error:g} %, band holds >= "
          f"{args.min_band_coverage:g} % of rows at a median high/low <= {args.max_band_width:g}"
          + (f", at most {args.max_oom} rows out of memory" if args.max_oom is not None else ""))
    if failures:
        print(f"FAIL ({len(failures)}):")
        for f in failures:
            print("  " + f)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
