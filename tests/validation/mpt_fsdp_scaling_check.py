#!/usr/bin/python3
"""ctest `accuracy_mpt_fsdp_scaling` (LABELS accuracy): data-parallel weak
scaling across servers against llm-foundry's measured H100 runs.

configs/calibration/h100-sxm/mpt_scaling.csv holds MPT 125M-13B measured at
the same per-GPU batch on 8 to 64 H100s (2 to 8 servers of 8), FSDP
FULL_SHARD over every GPU, 2,048 tokens per sequence, Triton attention
(mosaicml/llm-foundry commit beb8dee, scripts/train/benchmarking/h100new.md;
none of them a validation row). What changes with the GPU count is only the
data-parallel exchange — FSDP's per-layer gathers and gradient
reduce-scatters leaving the server over the NICs — so the ratio of a model's
step time at its largest GPU count to its smallest tests the cross-server
collective model and its overlap with compute, whatever the absolute level
(that is the sweep check's: mpt_triton_sweep_check.py). The test asserts
each model's predicted ratio within MAX_RATIO_ERROR of the measured one.

  /usr/bin/python3 tests/validation/mpt_fsdp_scaling_check.py --preflight build/io/cli/preflight
"""

import csv
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import mpt_triton_sweep_check as sweep  # noqa: E402  (the experiment builder and runner)
import check_result  # noqa: E402

DATA = sweep.REPO / "configs" / "calibration" / "h100-sxm" / "mpt_scaling.csv"
HARDWARE = sweep.REPO / "configs" / "hardware" / "h100-sxm-80gb.yaml"
MAX_RATIO_ERROR = 5.0  # percent


def main(argv=None):
    args = check_result.parse_args(__doc__, argv)
    runs = defaultdict(list)  # model -> [(gpus, measured s, predicted s)]
    with tempfile.TemporaryDirectory() as work, DATA.open() as f:
        for r in csv.DictReader(f):
            gpus = int(r["gpus"])
            measured = int(r["micro_batch"]) * int(r["grad_accum"]) * int(r["seq_length"]) / float(r["tokens_per_s_per_gpu"])
            predicted = sweep.step_seconds(args.preflight, sweep.experiment(r, HARDWARE), min(gpus, 8), work)
            runs[r["model"]].append((gpus, measured, predicted))
            print(f"MPT-{r['model']:>4} on {gpus:>2} H100: measured {measured:.3f} s, predicted {predicted:.3f} s "
                  f"({check_result.ratio_off_pct(measured, predicted):+.1f} %)")
    failures = []
    for model, rs in runs.items():
        rs.sort()
        (g0, m0, p0), (g1, m1, p1) = rs[0], rs[-1]
        measured, predicted = m1 / m0, p1 / p0
        off = check_result.ratio_off_pct(measured, predicted)
        print(f"MPT-{model:>4} {g0} -> {g1} GPUs: step time x{measured:.3f} measured, x{predicted:.3f} predicted "
              f"({off:+.1f} %)")
        if abs(off) > MAX_RATIO_ERROR:
            failures.append(f"MPT-{model} {g0} -> {g1} GPUs: predicted scaling off by {off:+.1f} % "
                            f"(bound {MAX_RATIO_ERROR:g} %)")
    return check_result.finish(failures)


if __name__ == "__main__":
    sys.exit(main())
