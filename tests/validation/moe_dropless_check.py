#!/usr/bin/python3
"""ctest `accuracy_moe_dropless` (LABELS accuracy): training.moe_load_imbalance
against measured dropless-over-forced slowdowns.

Megatron-MoE-ModelZoo's long-context table (best_practice/qwen3/readme.md at
e865051, "Long Context"; the validation rows megatron-moe-modelzoo-qwen3-6 to
-9) measured Qwen3-235B-A22B on 256 H100 twice per sequence length: with
--moe-router-force-load-balancing (the validation rows) and with the model
yaml's dropless aux-loss routing (coefficient 1e-3), everything else the same:

    16k (TP 4, CP 1)  295 / 237 TFLOP/s per GPU   x1.245
    32k (TP 4, CP 2)  335 / 277                   x1.209
    64k (TP 4, CP 4)  368 / 320                   x1.150
    128k (TP 4, CP 8) 389 / 357                   x1.090

Every one has EP 8 (16 experts per rank) and 4,096 tokens per GPU and
micro-batch, so one routing imbalance should serve all four; the slowdown
shrinks with length only because attention takes a growing share of the
step. DROPLESS_IMBALANCE, the busiest EP rank's routed tokens over the mean,
is fitted on the 16k pair alone (models/compute/README.md, "Routing
imbalance"); the other three pairs are held out. The test asserts each
pair's predicted step-time ratio (imbalance / balanced) within TOLERANCE of
the measured one.

  /usr/bin/python3 tests/validation/moe_dropless_check.py --preflight build/io/cli/preflight [--tolerance 0.02]
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "bench"))
import rows as rowlib  # noqa: E402
import accuracy_table  # noqa: E402
import check_result  # noqa: E402

# The busiest EP rank's token copies over the mean under dropless aux-loss routing, fitted on the 16k pair.
DROPLESS_IMBALANCE = 1.63
# (forced-balance validation row, forced TFLOP/s, dropless TFLOP/s, fitted on it)
PAIRS = [("megatron-moe-modelzoo-qwen3-6", 295, 237, True),
         ("megatron-moe-modelzoo-qwen3-7", 335, 277, False),
         ("megatron-moe-modelzoo-qwen3-8", 368, 320, False),
         ("megatron-moe-modelzoo-qwen3-9", 389, 357, False)]


def main(argv=None):
    args = check_result.parse_args(__doc__, argv, 0.02,
                                   "largest |predicted - measured| dropless/forced step-time ratio")
    rows, missing = accuracy_table.select_rows(",".join(p[0] for p in PAIRS), rowlib.load_rows())
    if missing:
        print(f"FAIL: rows not in the data set: {missing}")
        return 1
    forced = {r["id"]: r for r in accuracy_table.run_rows(rows, args.preflight, progress=False)}
    dropless = {r["id"]: r for r in accuracy_table.run_rows(
        rows, args.preflight, progress=False, extra_sets=[f"training.moe_load_imbalance={DROPLESS_IMBALANCE}"])}
    failures = []
    for row_id, tf_forced, tf_dropless, fitted in PAIRS:
        f, d = forced[row_id], dropless[row_id]
        if f["predicted_s"] is None or d["predicted_s"] is None:
            failures.append(f"{row_id}: {f['status']} {d['status']} {f['message']} {d['message']}")
            continue
        measured = tf_forced / tf_dropless  # the same FLOPs per step: step times in inverse ratio
        predicted = d["predicted_s"] / f["predicted_s"]
        off = predicted - measured
        print(f"{row_id}: dropless / forced step time measured x{measured:.3f}, predicted x{predicted:.3f} "
              f"({off:+.3f}; {'fitted' if fitted else 'held out'})")
        if abs(off) > args.tolerance:
            failures.append(f"{row_id}: predicted ratio off by {off:+.3f} (tolerance {args.tolerance:g})")
    return check_result.finish(failures)


if __name__ == "__main__":
    sys.exit(main())
