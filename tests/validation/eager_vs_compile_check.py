#!/usr/bin/python3
"""ctest `accuracy_eager_vs_compile` (LABELS accuracy): the eager elementwise
kernels (training.fused_elementwise: false) against a measured speed-up.

torchtitan's H100 benchmark (tests/validation/README.md, source
torchtitan-benchmarks) ran Llama 3.1 8B with FSDP on the same 8 and 128 GPUs
in eager mode and with torch.compile, which fuses the elementwise kernels:
5,762 -> 6,667 and 5,605 -> 6,514 tokens/s per GPU (x1.157, x1.162). The
pairs differ only in that setting, so the predicted eager/compiled step-time
ratio must match the measured one; its absolute error is not tested here.

  /usr/bin/python3 tests/validation/eager_vs_compile_check.py --preflight build/io/cli/preflight [--tolerance 5]
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "bench"))
import rows as rowlib  # noqa: E402
import accuracy_table  # noqa: E402
import check_result  # noqa: E402

PAIRS = [("torchtitan-benchmarks-1", "torchtitan-benchmarks-2"),   # 8 GPUs: eager, compiled
         ("torchtitan-benchmarks-4", "torchtitan-benchmarks-5")]   # 128 GPUs


def main(argv=None):
    args = check_result.parse_args(__doc__, argv, 5.0, "largest |predicted/measured ratio - 1|, percent")
    all_rows = rowlib.load_rows()
    ids = [i for pair in PAIRS for i in pair]
    rows, missing = accuracy_table.select_rows(",".join(ids), all_rows)
    if missing:
        print(f"FAIL: rows not in the data set: {missing}")
        return 1
    results = {r["id"]: r for r in accuracy_table.run_rows(rows, args.preflight, progress=False)}
    failures = []
    for eager, compiled in PAIRS:
        e, c = results[eager], results[compiled]
        if e["predicted_s"] is None or c["predicted_s"] is None:
            failures.append(f"{eager}/{compiled}: {e['status']} {c['status']} {e['message']} {c['message']}")
            continue
        measured = e["measured_s"] / c["measured_s"]
        predicted = e["predicted_s"] / c["predicted_s"]
        off = check_result.ratio_off_pct(measured, predicted)
        print(f"{eager} / {compiled}: measured x{measured:.3f}, predicted x{predicted:.3f} ({off:+.1f} %)")
        if abs(off) > args.tolerance:
            failures.append(f"{eager}/{compiled}: predicted eager/compiled ratio off by {off:+.1f} % "
                            f"(tolerance {args.tolerance:g} %)")
    return check_result.finish(failures)


if __name__ == "__main__":
    sys.exit(main())
