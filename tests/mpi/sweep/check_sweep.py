#!/usr/bin/python3
"""Checks on `preflight sweep` outputs, for sweep_cli_test.sh.

    check_sweep.py ranked JSON CSV N_VALID N_INVALID   rows ranked by step time, ties by grid index, invalid last;
                                                       the CSV holds the same rows in the same order
    check_sweep.py same JSON_A JSON_B                  the same rows, less wall times and rank counts
    check_sweep.py same-table TXT_A TXT_B              the same stdout table, less wall times and its headline
    check_sweep.py matches-run JSON GRID_INDEX REPORT  that variant's figures equal `preflight run`'s report.json
    check_sweep.py oom JSON KEY VALUE                  the row with variant KEY=VALUE is valid and marked oom,
                                                       the others are not
"""
import csv
import json
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def load(path):
    with open(path) as f:
        return json.load(f)


def ranked(path, csv_path, n_valid, n_invalid):
    rows = load(path)["rows"]
    valid = [r for r in rows if r["valid"]]
    invalid = [r for r in rows if not r["valid"]]
    if (len(valid), len(invalid)) != (int(n_valid), int(n_invalid)):
        fail(f"{len(valid)} valid and {len(invalid)} invalid rows, expected {n_valid} and {n_invalid}")
    if rows != valid + invalid:
        fail("invalid rows are not last")
    keys = [(r["step_time_ms"], r["grid_index"]) for r in valid]
    if keys != sorted(keys):
        fail(f"valid rows not ordered by (step time, grid index): {keys}")
    if [r["rank"] for r in valid] != list(range(1, len(valid) + 1)):
        fail("ranks are not 1..n")
    if [r["grid_index"] for r in invalid] != sorted(r["grid_index"] for r in invalid):
        fail("invalid rows not in grid order")
    for r in invalid:
        if not r["error"] or "\n" in r["error"] or r["step_time_ms"] is not None:
            fail(f"invalid row without a one-line reason or with figures: {r}")
    ties = sum(1 for a, b in zip(keys, keys[1:]) if a[0] == b[0])
    base = load(path)["baseline_grid_index"]
    base_ms = next(r["step_time_ms"] for r in valid if r["grid_index"] == base)
    for r in valid:
        want = (r["step_time_ms"] - base_ms) / base_ms * 100
        if abs(r["change_pct"] - want) > 1e-9 * max(1, abs(want)):
            fail(f"change_pct {r['change_pct']} != {want}")
    with open(csv_path) as f:
        table = list(csv.DictReader(f))
    if [int(t["grid_index"]) for t in table] != [r["grid_index"] for r in rows]:
        fail("CSV rows differ from JSON rows")
    for t, r in zip(table, rows):
        if r["valid"] and float(t["step_time_ms"]) != r["step_time_ms"]:
            fail(f"CSV step time {t['step_time_ms']} != JSON {r['step_time_ms']}")
        if not r["valid"] and t["error"] != r["error"]:
            fail("CSV error differs from JSON")
    print(f"ranked: {len(valid)} valid ({ties} tied pairs), {len(invalid)} invalid")


def strip(doc):
    doc = dict(doc)
    doc.pop("ranks"), doc.pop("jobs_per_run")
    doc["rows"] = [{k: v for k, v in r.items() if k != "wall_s"} for r in doc["rows"]]
    return doc


def same(a, b):
    da, db = strip(load(a)), strip(load(b))
    if da != db:
        fail(f"{a} and {b} differ")
    print(f"same: {len(da['rows'])} rows identical")


def table_rows(path):
    with open(path) as f:
        lines = f.read().splitlines()
    # Headline names the rank counts; the last column is wall_s.
    return [line.rsplit(None, 1)[0] if not line.lstrip().startswith("-") else line for line in lines[1:]]


def same_table(a, b):
    ta, tb = table_rows(a), table_rows(b)
    if ta != tb:
        fail("tables differ:\n" + "\n".join(ta) + "\n---\n" + "\n".join(tb))
    print(f"same-table: {len(ta)} lines identical")


def matches_run(path, grid_index, report_path):
    row = next(r for r in load(path)["rows"] if r["grid_index"] == int(grid_index))
    rep = load(report_path)
    for key in ("step_time_ms", "tokens_per_s", "mfu", "hfu", "peak_memory_gb"):
        if row[key] != rep[key]:
            fail(f"{key}: sweep {row[key]} != run {rep[key]}")
    if row["oom"] != (rep["oom"] is not None):
        fail("oom differs")
    print(f"matches-run: step {row['step_time_ms']} ms as in the run report")


def oom(path, key, value):
    for r in load(path)["rows"]:
        want = str(r["variant"][key]) == value
        if not r["valid"] or r["oom"] != want:
            fail(f"row {r['variant']}: oom {r['oom']}, expected {want}")
    print("oom: the marked row only")


if __name__ == "__main__":
    commands = {"ranked": ranked, "same": same, "same-table": same_table, "matches-run": matches_run, "oom": oom}
    commands[sys.argv[1]](*sys.argv[2:])
