#!/usr/bin/python3
"""ctest `accuracy_host_calibration` (LABELS accuracy): the host's per-kernel
issue time (models::kEagerHostOverheadUs, x86) and the Grace presets' scale of
it (hardware.node.host_overhead_scale) against measured training steps that
are not rows of the validation set.

Megatron-Bridge's performance archive (NVIDIA-NeMo/Megatron-Bridge
docs/performance-summary-archive.md at 067f987; the perf configs of the
matching tags: v0.3.0 = 26.02, v0.3.1 = 26.02.01, v0.4.0 / v0.4.1 = 26.04 /
26.04.01, scripts/performance/configs/qwen/qwen3_workload_base_configs.py)
measured Qwen3-30B-A3B, GBS 512 (1,024 on H100), 4,096 tokens, EP 8 unless
stated, force-balanced dropless routing, in later releases than the 25.11
table the validation rows come from:

  plan                                                     tokens/s/GPU        step
  B200 x 8, MXFP8, micro-batch 1, alltoall dispatcher,     9,691 (26.02)       27.05 s
    router CUDA graphs (= row 13's plan; 25.11: 9,299)
  GB200 x 8, MXFP8, micro-batch 4, HybridEP, router        26,084 / 26,373 /   10.02 s
    CUDA graphs (= row 7's plan; 25.11: 23,766)            26,032 / 26,112
  B200 x 8, MXFP8, micro-batch 4, HybridEP, attention      26,695 / 26,859 /   9.75 s
    and router CUDA graphs (26.02.01, 26.04, 26.04.01)     27,136
  H100 x 16, FP8 current scaling, GBS 1,024, micro-batch   8,901 / 8,960       29.35 s
    1, EP 16, PP 1, HybridEP, no CUDA graphs (26.04, .01)

The first is host-bound: 2.8x the time per token of the third (the same GPUs
and model at four times the tokens per micro-batch), which no GPU-side
efficiency loss explains. It calibrates the x86 per-kernel time (FIT); the
second, the same model's GB200 step on Grace hosts, calibrates their scale
(FIT). The other two are bounds (BOUND): a host time that made preflight
slower than a measured run would be too large. Each plan is a validation
row's experiment with the release's settings as overrides.

  /usr/bin/python3 tests/validation/host_calibration_check.py --preflight build/io/cli/preflight [--tolerance 3]
"""

import sys
from pathlib import Path
from statistics import mean

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "bench"))
import rows as rowlib  # noqa: E402
import accuracy_table  # noqa: E402
import check_result  # noqa: E402

BRIDGE = "megatron-bridge-25.11-perf-summary-"
HYBRIDEP = ["training.moe_token_dispatcher=flex", "training.moe_flex_backend=hybridep"]
SEQ = 4096


def step_s(gbs, gpus, tokens_per_s_per_gpu):
    """Measured step time from the tables' throughput at their 4,096-token sequences."""
    return rowlib.step_from_tokens_per_s(gbs, SEQ, gpus, tokens_per_s_per_gpu)


# (name, validation row whose experiment it starts from, overrides, measured step s, FIT or BOUND)
PLANS = [
    ("B200 micro-batch 1, alltoall (26.02)", BRIDGE + "13", [],
     step_s(512, 8, 9691), "FIT"),
    ("GB200 micro-batch 4, HybridEP (26.02-26.04.01)", BRIDGE + "7", [],
     mean([step_s(512, 8, t) for t in (26084, 26373, 26032, 26112)]), "FIT"),
    ("B200 micro-batch 4, HybridEP, attention graphed (26.02.01-26.04.01)", BRIDGE + "13",
     ["training.micro_batch_size=4", *HYBRIDEP, "training.cuda_graph_scope=[attn,moe_router,moe_preprocess]"],
     mean([step_s(512, 8, t) for t in (26695, 26859, 27136)]), "BOUND"),
    ("16 H100 EP 16, HybridEP, GBS 1024 (26.04, 26.04.01)", BRIDGE + "19",
     ["parallelism.pp=1", "parallelism.pipeline_schedule=1f1b", "parallelism.virtual_stages=1", "parallelism.ep=16",
      "training.global_batch_size=1024", "training.micro_batch_size=1", *HYBRIDEP,
      "training.overlap_moe_expert_parallel_comm=false", "training.delay_wgrad_compute=false"],
     mean([step_s(1024, 16, t) for t in (8901, 8960)]), "BOUND"),
]


def main(argv=None):
    args = check_result.parse_args(__doc__, argv, 3.0, "largest |signed error|, percent, of a FIT plan")
    all_rows = rowlib.load_rows()
    failures = []
    for name, row_id, sets, measured, kind in PLANS:
        rows, missing = accuracy_table.select_rows(row_id, all_rows)
        if missing:
            failures.append(f"{name}: row {row_id} not in the data set")
            continue
        res = accuracy_table.run_rows(rows, args.preflight, progress=False, extra_sets=sets)[0]
        if res["predicted_s"] is None:
            failures.append(f"{name}: {res['status']} {res['message']}")
            continue
        err = check_result.ratio_off_pct(measured, res["predicted_s"])
        print(f"{name}: measured {measured:.2f} s, predicted {res['predicted_s']:.2f} s ({err:+.1f} %, {kind})")
        if kind == "FIT" and abs(err) > args.tolerance:
            failures.append(f"{name}: {err:+.1f} % beyond the calibration's {args.tolerance:g} %")
        if kind == "BOUND" and err > 0:
            failures.append(f"{name}: predicted slower than measured ({err:+.1f} %): the host time is too large")
    return check_result.finish(failures)


if __name__ == "__main__":
    sys.exit(main())
