#!/usr/bin/python3
"""ctest `accuracy_host_calibration` (LABELS accuracy): the host's per-kernel
issue time (models::kEagerHostOverheadUs, x86), the time of a kernel that
Transformer Engine's C++ launches inside one call (models::kInnerLaunchHostUs)
and the Grace presets' scale of both (hardware.node.host_overhead_scale)
against measured training steps that are not rows of the validation set.

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
    1, EP 16, PP 1, HybridEP, router CUDA graphs (26.04, .01)

The first is host-bound: 2.8x the time per token of the third (the same GPUs
and model at four times the tokens per micro-batch), which no GPU-side
efficiency loss explains. It calibrates the x86 per-kernel time (FIT). The
second and third ran in the same three containers (26.02.01, 26.04, 26.04.01),
GB200's step 1.028x the DGX B200's on average: that ratio calibrates the
Grace hosts' scale (RATIO), since a ratio of one model's runs in one release
cancels what both share, such as GPU-side time preflight misses (the 25.09
run of this model with full-layer CUDA graphs, below the host's reach, is
22-25 % slower than preflight's GPU time on GB200). The GB200, B200 and H100
steps are bounds (BOUND): a host time that made preflight slower than a
measured run would be too large.

The 25.09 table (same archive, perf configs of v0.1.0rc4) ran Qwen3-235B-A22B
on 64 B200 (GBS 1,024, micro-batch 1, PP 8, VP 2, EP 8, no CUDA graphs, token
dropping padded to capacity: static split sizes, no host sync) at 4,104
tokens/s/GPU under fp8 current scaling and 4,275 under MXFP8. The two runs
differ only in how each expert's GEMM input is cast (TE's split_quantize: an
amax kernel and a cast per expert against one cast), so their step ratio
calibrates the time of a kernel TE's C++ launches inside one call (RATIO,
within the tolerance); each run's step is then a held-out check of the whole
host model (CHECK, within 5 %). Each plan is a validation row's experiment
with the release's settings as overrides.

  plan                                                     tokens/s/GPU        step
  B200 x 64, Qwen3-235B-A22B, fp8 current scaling (25.09)  4,104               15.97 s
  B200 x 64, Qwen3-235B-A22B, MXFP8 (25.09)                4,275               15.33 s

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
# Megatron-Bridge 25.09's Qwen3 token dropping (capacity factor 1, padded): static split sizes, so the
# dispatcher reads nothing back to the host; its perf configs have no all-to-all overlap.
TOKEN_DROP_2509 = ["training.host_sync_on_moe_dispatch=false", "training.overlap_moe_expert_parallel_comm=false",
                   "training.delay_wgrad_compute=false"]
SEQ = 4096
HELD_OUT_TOLERANCE_PCT = 5.0


def step_s(gbs, gpus, tokens_per_s_per_gpu):
    """Measured step time from the tables' throughput at their 4,096-token sequences."""
    return rowlib.step_from_tokens_per_s(gbs, SEQ, gpus, tokens_per_s_per_gpu)


# (name, validation row whose experiment it starts from, overrides, measured step s, FIT, BOUND or CHECK)
PLANS = [
    ("B200 micro-batch 1, alltoall (26.02)", BRIDGE + "13", [],
     step_s(512, 8, 9691), "FIT"),
    ("GB200 micro-batch 4, HybridEP (26.02-26.04.01)", BRIDGE + "7", [],
     mean([step_s(512, 8, t) for t in (26084, 26373, 26032, 26112)]), "BOUND"),
    ("B200 micro-batch 4, HybridEP, attention graphed (26.02.01-26.04.01)", BRIDGE + "13",
     ["training.micro_batch_size=4", *HYBRIDEP, "training.cuda_graph_scope=[attn,moe_router,moe_preprocess]"],
     mean([step_s(512, 8, t) for t in (26695, 26859, 27136)]), "BOUND"),
    ("16 H100 EP 16, HybridEP, GBS 1024 (26.04, 26.04.01)", BRIDGE + "19",
     ["parallelism.pp=1", "parallelism.pipeline_schedule=1f1b", "parallelism.virtual_stages=1", "parallelism.ep=16",
      "training.global_batch_size=1024", "training.micro_batch_size=1", *HYBRIDEP,
      "training.cuda_graph_scope=[moe_router,moe_preprocess]",
      "training.overlap_moe_expert_parallel_comm=false", "training.delay_wgrad_compute=false"],
     mean([step_s(1024, 16, t) for t in (8901, 8960)]), "BOUND"),
    ("64 B200 Qwen3-235B, MXFP8, token drop (25.09)", BRIDGE + "14", TOKEN_DROP_2509,
     step_s(1024, 64, 4275), "CHECK"),
    ("64 B200 Qwen3-235B, fp8 current scaling, token drop (25.09)", BRIDGE + "14",
     [*TOKEN_DROP_2509, "training.fp8_recipe=tensorwise"], step_s(1024, 64, 4104), "CHECK"),
]
# (name, numerator plan, denominator plan, measured step ratio; None: the plans' measured steps' ratio):
# measured and predicted step ratios must agree within the tolerance.
RATIOS = [("GB200 over B200, micro-batch 4, HybridEP (26.02.01, 26.04, 26.04.01)",
           "GB200 micro-batch 4, HybridEP (26.02-26.04.01)",
           "B200 micro-batch 4, HybridEP, attention graphed (26.02.01-26.04.01)",
           mean([b200 / gb200 for gb200, b200 in ((26373, 26695), (26032, 26859), (26112, 27136))])),
          ("current scaling over MXFP8, 64 B200 Qwen3-235B (25.09)",
           "64 B200 Qwen3-235B, fp8 current scaling, token drop (25.09)",
           "64 B200 Qwen3-235B, MXFP8, token drop (25.09)", None)]


def main(argv=None):
    args = check_result.parse_args(__doc__, argv, 3.0, "largest |signed error|, percent, of a FIT plan")
    all_rows = rowlib.load_rows()
    failures = []
    steps = {}  # name -> (measured, predicted)
    for name, row_id, sets, measured, kind in PLANS:
        rows, missing = accuracy_table.select_rows(row_id, all_rows)
        if missing:
            failures.append(f"{name}: row {row_id} not in the data set")
            continue
        res = accuracy_table.run_rows(rows, args.preflight, progress=False, extra_sets=sets)[0]
        if res["predicted_s"] is None:
            failures.append(f"{name}: {res['status']} {res['message']}")
            continue
        steps[name] = (measured, res["predicted_s"])
        err = check_result.ratio_off_pct(measured, res["predicted_s"])
        print(f"{name}: measured {measured:.2f} s, predicted {res['predicted_s']:.2f} s ({err:+.1f} %, {kind})")
        if kind == "FIT" and abs(err) > args.tolerance:
            failures.append(f"{name}: {err:+.1f} % beyond the calibration's {args.tolerance:g} %")
        if kind == "CHECK" and abs(err) > HELD_OUT_TOLERANCE_PCT:
            failures.append(f"{name}: {err:+.1f} % beyond the held-out {HELD_OUT_TOLERANCE_PCT:g} %")
        if kind == "BOUND" and err > 0:
            failures.append(f"{name}: predicted slower than measured ({err:+.1f} %): the host time is too large")
    for name, num, den, measured in RATIOS:
        if num not in steps or den not in steps:
            failures.append(f"{name}: a plan of the ratio did not run")
            continue
        if measured is None:
            measured = steps[num][0] / steps[den][0]
        predicted = steps[num][1] / steps[den][1]
        err = check_result.ratio_off_pct(measured, predicted)
        print(f"{name}: measured {measured:.4f}, predicted {predicted:.4f} ({err:+.1f} %, RATIO)")
        if abs(err) > args.tolerance:
            failures.append(f"{name}: ratio {err:+.1f} % beyond the calibration's {args.tolerance:g} %")
    return check_result.finish(failures)


if __name__ == "__main__":
    sys.exit(main())
