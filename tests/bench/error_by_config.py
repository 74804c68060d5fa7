#!/usr/bin/python3
"""Signed error of the validation rows, by configuration class.

Reads the JSON that `accuracy_table.py --json OUT` writes (each row's measured
and predicted step time) and the rows' experiments (tests/validation/rows.py),
and prints, for dense and MoE rows apart, each class's rows, MAPE, median
signed error and share predicted too fast (accuracy_table.py's figures) under: source, GPU, TP, pipeline (PP > 1),
ZeRO stage, recompute, precision, micro-batches per step, tokens per
micro-batch, TP communication overlap, fused elementwise kernels and the
attention kernel. One class leaning one way while its complement does not
points at an effect the model leaves out for that class (errors all of one
sign mean a missing effect); classes overlap (one framework sets several), so
it says where to look, not what to change. A diagnosis only: nothing is
fitted from it.

  /usr/bin/python3 tests/bench/accuracy_table.py --json /tmp/acc.json --quiet
  /usr/bin/python3 tests/bench/error_by_config.py /tmp/acc.json [--markdown]

Standard library only.
"""

import argparse
import json
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "tests" / "validation"))
import rows as rowlib  # noqa: E402

sys.path.insert(0, str(REPO_ROOT / "tests" / "bench"))
from accuracy_table import error_stats  # noqa: E402


def bucket(value, edges):
    """The first "<= edge" label value fits, else "> last edge"."""
    for edge, label in edges:
        if value <= edge:
            return label
    return f"> {edges[-1][0]:,}"


def classes(row):
    """The configuration classes of one row's experiment."""
    par, train = row.experiment["parallelism"], row.experiment["training"]
    tp, pp, cp = par["tp"], par["pp"], par["cp"]
    dp = max(1, row.gpus // (tp * pp * cp))
    mbs = train["micro_batch_size"]
    micro_batches = max(1, train["global_batch_size"] // (mbs * dp))
    tokens = mbs * train["seq_length"] // cp
    return {
        "source": row.source,
        "GPU": row.short_gpu(),
        "TP": str(tp),
        "pipeline": "PP > 1" if pp > 1 else "PP 1",
        "ZeRO stage": str(par.get("zero_stage", 0)),
        "recompute": train.get("recompute", "none"),
        "precision": train.get("dtype", "bf16"),
        "micro-batches per step": bucket(micro_batches, [(1, "1"), (4, "2-4"), (16, "5-16")]),
        "tokens per micro-batch": bucket(tokens, [(2048, "<= 2,048"), (4096, "<= 4,096"), (8192, "<= 8,192")]),
        "TP comm overlap": "on" if train.get("tp_comm_overlap") and par.get("sequence_parallel") else "off",
        "fused elementwise": "yes" if train.get("fused_elementwise", True) else "no (eager)",
        "attention kernel": train.get("attention", "default (cuDNN fused)"),
    }


def table(rows, results, markdown):
    by_key = {}
    for row in rows:
        for key, value in classes(row).items():
            by_key.setdefault(key, {}).setdefault(value, []).append(results[row.id])
    lines = []
    for key, groups in by_key.items():
        width = max(len(str(v)) for v in groups)
        if markdown:
            lines += [f"\n| {key} | rows | MAPE % | median signed % | too fast |", "|---|---:|---:|---:|---:|"]
        else:
            lines.append(f"\n{key}")
        for value in sorted(groups, key=str):
            st = error_stats(groups[value])
            if markdown:
                lines.append(f"| {value} | {st['rows']} | {st['mape']:.1f} | {st['median_signed']:+.1f} | "
                             f"{100 * st['too_fast']:.0f} % |")
            else:
                lines.append(f"  {str(value):<{width}} {st['rows']:>4} rows  MAPE {st['mape']:5.1f}  "
                             f"median {st['median_signed']:+6.1f}  too fast {100 * st['too_fast']:3.0f} %")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("accuracy_json", help="the JSON accuracy_table.py --json writes")
    ap.add_argument("--markdown", action="store_true", help="Markdown tables instead of text")
    a = ap.parse_args()
    try:
        results = json.loads(Path(a.accuracy_json).read_text())["rows"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"{a.accuracy_json}: expected the JSON of accuracy_table.py --json ({e})")
    scored = {r["id"]: r for r in results if r.get("error_pct") is not None}
    by_id = {row.id: row for row in rowlib.load_rows() if row.ok}
    unknown = sorted(set(scored) - set(by_id))
    if unknown:
        sys.exit(f"{a.accuracy_json}: rows not in tests/validation/public-throughput.csv: {', '.join(unknown[:5])}")
    for label, moe in (("dense rows", False), ("MoE rows", True)):
        part = [by_id[i] for i in scored if bool(by_id[i].raw["moe_experts"]) == moe]
        if not part:
            continue
        st = error_stats([scored[r.id] for r in part])
        print(f"{'## ' if a.markdown else ''}{label}: {st['rows']}, MAPE {st['mape']:.1f} %, median signed error "
              f"{st['median_signed']:+.1f} %")
        print("\n".join(table(part, scored, a.markdown)))
        print()


if __name__ == "__main__":
    main()
