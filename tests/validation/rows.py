#!/usr/bin/python3
"""Published, measured training throughputs as preflight experiments.

Reads tests/validation/public-throughput.csv (see README.md next to this file
for the sources, their FLOPs conventions and every default used here) and, per
row, derives

  * the measured step time in seconds from the row's headline metric, and
  * a preflight experiment (a YAML tree plus --set overrides), or the reason
    why preflight cannot express the row (status "unsupported: ...").

Standard library only. Self-test of the FLOPs conventions against the
cross-checks the data set documents:  /usr/bin/python3 tests/validation/rows.py --self-test
List the rows:                          /usr/bin/python3 tests/validation/rows.py --list
Check every experiment with preflight:  /usr/bin/python3 tests/validation/rows.py --validate build/io/cli/preflight
"""

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
CSV_PATH = HERE / "public-throughput.csv"
SUBSET_PATH = HERE / "subset.txt"
HARDWARE_DIR = REPO_ROOT / "configs" / "hardware"
MODELS_DIR = REPO_ROOT / "configs" / "models"

# ---------------------------------------------------------------------------
# FLOPs conventions, one function per source convention (README.md, "FLOPs
# conventions"). All return FLOPs for ONE global-batch step of B sequences.
# ---------------------------------------------------------------------------


def flops_megatron_core_r080(B, s, L, h, ffn, a, g, V, q=None, gated=False, topk=1):
    """Megatron-Core r0.8.0 num_floating_point_operations (model FLOPs, no
    recompute, full non-causal s^2 attention, logit layer included):
        12*B*s*L*h^2 * [ (1 + g/a + s/h) * q/h  +  ffn/h * k * (3/2 if SwiGLU)  +  V/(2*L*h) ]
    q = query projection width (heads*head_dim, = h by default), g = KV heads,
    k = routed experts per token (1 for dense)."""
    q = h if q is None else q
    glu = 1.5 if gated else 1.0
    return 12.0 * B * s * L * h * h * ((1 + g / a + s / h) * q / h + ffn / h * topk * glu + V / (2.0 * L * h))


def flops_megatron_moe_causal(B, s, L, h, ffn, a, g, V, q=None, gated=True, topk=1, shared_ffn=0):
    """Megatron-LM MoE-aware num_floating_point_operations as used by
    Megatron-MoE-ModelZoo (and Megatron-Bridge MoE rows): the r0.8.0 form with
    the causal discount on the attention matrix ("only half of the attention
    matrix is non-zero") and a shared-expert term:
        12*B*s*L*h^2 * [ (1 + g/a + s/(2h)) * q/h  +  (ffn*k + shared_ffn)/h * (3/2 if SwiGLU)  +  V/(2*L*h) ]"""
    q = h if q is None else q
    glu = 1.5 if gated else 1.0
    return 12.0 * B * s * L * h * h * ((1 + g / a + s / (2.0 * h)) * q / h + (ffn * topk + shared_ffn) / h * glu
                                        + V / (2.0 * L * h))


def flops_megatron_hw_recompute(B, s, L, h, V):
    """Megatron-LM 2020 README and Megatron-DeepSpeed (BLOOM) 'TFLOPs': hardware
    FLOPs with full activation recompute (Narayanan et al. SC'21 eq. 3):
        96*B*s*L*h^2 * (1 + s/(6h) + V/(16*L*h))"""
    return 96.0 * B * s * L * h * h * (1 + s / (6.0 * h) + V / (16.0 * L * h))


def flops_nemo_full(B, s, L, h, ffn, a, g, V, gated):
    """NeMo 24.07 family formulas (nemo/utils/flops_formulas.py: gpt3, llama2/3,
    nemotron), attention WITHOUT the causal discount:
        B*s*L*h^2 * (12 + 12*g/a + (18 if gated else 12)*ffn/h + 12*s/h + 6*V/(L*h))
    (gpt3's 24h^2+4sh form is this with ffn = 4h, g = a)."""
    return B * s * L * h * h * (12 + 12 * g / a + (18 if gated else 12) * ffn / h + 12 * s / h + 6 * V / (L * h))


def flops_bridge_causal(B, s, L, h, ffn, a, g, V, gated):
    """Megatron-Bridge 25.11 dense family formulas: as NeMo 24.07 with the
    causal-halved attention (NeMo PR #14424):
        B*s*L*h^2 * (12 + 12*g/a + (18 if gated else 12)*ffn/h + 6*s/h + 6*V/(L*h))"""
    return B * s * L * h * h * (12 + 12 * g / a + (18 if gated else 12) * ffn / h + 6 * s / h + 6 * V / (L * h))


# llm-foundry's attn_impl per MPT size in scripts/train/benchmarking/sweep.py (5e85bd6), the script behind the
# "H100 80GB BF16 (Large Scale, >= 128 GPUs)" table: flash is the flash-attn 2.4.2 package that script installs
# (the gpu-flash2 extra), triton MPT's Triton FlashAttention (flash_attn_triton.py on triton-pre-mlir).
LLM_FOUNDRY_LARGE_SCALE_ATTENTION = {"MPT-1b": "flash2", "MPT-3b": "flash2", "MPT-7b": "flash2",
                                     "MPT-13b": "flash_triton", "MPT-30b": "flash_triton", "MPT-70b": "flash2"}


def llm_foundry_attention(model, gpu, gpus):
    """The attention kernel an llm-foundry benchmark row ran: the large-scale H100 table by its sweep script,
    every other table (A100 at ef350d9/b2a43a1, H100 BF16 and FP8 at b2a43a1) by submit_benchmarks.py's default
    --attn_impl triton, which the MPT yamls also name."""
    if gpu == "H100" and gpus >= 128:
        return LLM_FOUNDRY_LARGE_SCALE_ATTENTION[model]
    return "flash_triton"


def flops_per_token_llm_foundry(N, L, h, s):
    """llm-foundry MFU convention: (6*N + 12*L*h*s) FLOPs per token, N = NumParams
    including embeddings, full (non-causal) attention, no recompute."""
    return 6.0 * N + 12.0 * L * h * s


# Peaks the sources divide by for MFU (TFLOP/s).
PEAK_MEGATRON_H100_BF16 = 989.0     # Megatron-LM README: MFU = TFLOP/s / ~989
LLM_FOUNDRY_PEAK = {("A100-80GB", "bf16"): 312.0, ("H100-SXM", "bf16"): 989.0, ("H100-SXM", "fp8"): 1979.0}

# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


def _int(text):
    m = re.match(r"\s*(\d+)", text or "")
    return int(m.group(1)) if m else None


def _note_number(notes, pattern):
    m = re.search(pattern, notes)
    return float(m.group(1).replace(",", "")) if m else None


def embedding_loss_split(layers, vstages):
    """Megatron's --account-for-embedding-in-pipeline-split and
    --account-for-loss-in-pipeline-split: the embedding and the loss each take
    one layer slot, so the first and last model chunks hold one layer fewer.
    None when (layers + 2) does not divide evenly."""
    if (layers + 2) % vstages != 0:
        return None
    per = (layers + 2) // vstages
    counts = [per] * vstages
    counts[0] -= 1
    counts[-1] -= 1
    return counts


def to_yaml(obj, indent=0):
    """A tiny YAML emitter for nested dicts / lists / scalars (block mappings,
    flow lists of scalars)."""
    pad = "  " * indent
    out = []
    for key, value in obj.items():
        if isinstance(value, dict):
            out.append(f"{pad}{key}:")
            out.append(to_yaml(value, indent + 1))
        else:
            out.append(f"{pad}{key}: {_scalar(value)}")
    return "\n".join(line for line in out if line != "")


def _scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_scalar(x) for x in v) + "]"
    return json.dumps(str(v))  # a double-quoted YAML string


# ---------------------------------------------------------------------------
# Per-source defaults (README.md "Per-source defaults" explains each one).
# ---------------------------------------------------------------------------

SOURCE_DEFAULTS = {
    "megatron-lm-readme-h100": [
        "micro_batch 1 (not stated; examples/gpt3/train_gpt3_175b_distributed.sh at f2e5db4 uses --micro-batch-size 1)",
        "zero_stage 1: the README lists --overlap-param-gather, which Megatron-Core only allows with --use-distributed-optimizer",
        "sequence_parallel when tp > 1: the README lists --tp-comm-overlap, which requires sequence parallelism",
        "training.tp_comm_overlap: the README lists --tp-comm-overlap",
        "recompute none (not stated; the same commit's GPT-3 example sets no recompute flag, Megatron-Core's default)",
        "dtype bf16 (MFU is quoted against the 989 TFLOP/s BF16 peak)",
        "PP > 1: interleaved schedule, one layer per virtual stage (virtual pipeline not stated; the README says the runs "
        "overlap pipeline-parallel communication, which Megatron-Core r0.8 turns off unless the schedule is interleaved, "
        "and the 119B and 462B rows hold 23 and 7 layers per stage, which only one layer per virtual stage divides)",
        "strong-scaling rows: TP 8 x PP 6 of the weak-scaling 177B row (same model; TP/PP not stated)",
        "layernorm, GeLU, untied embeddings (inferred in the data set from the parameter counts)",
        "training.loss_reduce microbatch: pretrain_gpt.py's loss_func at core_r0.8.0 all-reduces each micro-batch's "
        "reporting loss over the data-parallel group",
    ],
    "megatron-lm-readme-2020": [
        "training.loss_reduce microbatch: pretrain_gpt2.py at 5281919 all-reduces each micro-batch's loss over every GPU "
        "(megatron/utils.py reduce_losses)",
        "dtype fp16 (the repo's example scripts at that commit use --fp16)",
        "recompute full (inferred in the data set from the 96-factor TFLOP/s formula; examples use --checkpoint-activations)",
        "zero_stage 0, sequence_parallel off (neither existed in 2020)",
        "overlap_grad_reduce false: 2020 Megatron-LM's default --DDP-impl local all-reduces gradients after the backward pass",
        "A100 = A100-SXM4-40GB: memory_gb 40 and memory_bandwidth_gbps 1555 (the README predates the 80 GB part, announced 2020-11-16)",
        "tied embeddings, learned positions (the parameter column equals 12Lh^2+13Lh+Vh+sh)",
        "fewer than 8 GPUs: one server with gpus_per_node = GPUs",
        "training.attention unfused: 2020 Megatron-LM's ParallelSelfAttention (batched QK^T/PV matmuls on materialised scores); FlashAttention came in 2022",
        "training.fused_elementwise false: at 5281919 megatron/model/transformer.py runs the mask (masked_fill_), "
        "torch.nn.Softmax, both dropouts and the residual adds as separate eager kernels, and mpu/layers.py "
        "RowParallelLinear adds its bias after the all-reduce; only LayerNorm is a fused (apex) kernel",
    ],
    "nemo-24.07-perf-summary": [
        "dtype fp8 (the table is FP8)",
        "sequence_parallel when tp > 1 (NeMo/Megatron-Bridge perf scripts set SP = TP > 1)",
        "zero_stage 1 (NeMo GPT/Llama training configs of the time use distributed_fused_adam)",
        "recompute none (not stated; NeMo's default activations_checkpoint_granularity is null), except Nemotron-340B: "
        "selective and grad_reduce_dtype bf16, its launcher config's (nemotron_340b.yaml at tag 24.07)",
        "training.optimizer_states param_remainders: distributed_fused_adam over a bf16 model keeps the fp32 master "
        "weights as 16-bit remainders (NeMo megatron_base_model.py: store_param_remainders)",
        "vp > 1 -> interleaved schedule with virtual_stages = vp",
        "Nemotron's squared-ReLU MLP as model.activation squared_relu (priced as GeLU: two matrices, one fused kernel)",
        "norm/tied embeddings from the NeMo 2.0 configs: GPT3 layernorm + tied, Llama rmsnorm untied, Nemotron layernorm untied",
    ],
    "megatron-bridge-25.11-perf-summary": [
        "sequence_parallel when tp > 1 (the notes: the perf scripts set SP = TP > 1)",
        "zero_stage 1 for 'DDP (FSDP=0)' (Megatron-Bridge pretraining recipes use the distributed optimizer); megatron_fsdp -> zero_stage 3",
        "recompute none (left blank in the data set; the perf configs did not match the table's parallelism), except "
        "DeepSeek-V3: selective with recompute_modules [mla_up_proj], which its perf config sets for B200 and GB200 at every "
        "precision (deepseek_llm_pretrain.py: recompute_granularity selective). GPT-OSS's configs list recompute_modules "
        "without a granularity, which Megatron-Core then ignores: none",
        "training.grad_reduce_dtype bf16: every model family's perf config sets ddp.grad_reduce_in_fp32 = False "
        "(set_*_common_configs at 97ad8cc), so gradients are reduced and kept in bf16",
        "training.fused_cross_entropy with cross_entropy_fusion_impl te: the model providers' cross_entropy_loss_fusion "
        "default True and the perf scripts' set_common_perf_overrides cross_entropy_fusion_impl = 'te' (v0.2.0)",
        "training.host_sync_on_loss false: the perf scripts' common overrides turn off the NaN check on each loss "
        "(rerun_state_machine.check_for_nan_in_loss = False; Megatron-Bridge 0.2.0, what the 25.11 container ran, and 97ad8cc)",
        "overlap_param_gather false on the MXFP8 rows of DeepSeek-V3 on GB200 and Qwen3-235B on B200 (their perf configs)",
        "FP8-CS and FP8-MX (MXFP8) -> dtype fp8 with training.fp8_recipe tensorwise (current scaling) and mxfp8",
        "training.optimizer_states: the precision-aware optimizer the BF16 runs turn on (scripts/performance "
        "set_post_overrides) keeps the fp32 master weights as remainders of the bf16 ones (Megatron-Core 0.15 "
        "store_param_remainders, TE >= 2.1); the DeepSeek-V3 recipe also keeps bf16 moments at every precision",
        "uneven chunks: Megatron's embedding/loss accounting in the pipeline split when it divides, else preflight's even spread",
        "MoE routing balanced (the source says force-balanced, dropless), as preflight assumes",
        "ETP=1 (the perf configs): parallelism.expert_tp 1 with EP as stated (Megatron's MoE parallel folding: whole experts, EP groups on consecutive ranks)",
        "Qwen3 head_dim 128; GPT-OSS head_dim 64 and model.sliding_window {size: 128, full_every: 2} (GPTOSSProvider: "
        "window_size (128, 0), window_attn_skip_freq 2), model.activation quick_geglu with activation_clamp 7 "
        "(activation_func quick_gelu, glu_linear_offset 1, activation_func_clamp_value 7), its attention sinks "
        "(one learned logit per head) left out",
        "training.tp_comm_overlap on the Llama 3 70B and 3.1 405B rows with TP > 1: their recipes' CommOverlapConfig(tp_comm_overlap=True), "
        "which the perf configs keep (Qwen3-235B's H100 config turns it off)",
        "training.moe_token_dispatcher flex where the perf config sets moe_flex_dispatcher_backend: HybridEP for the GB200 "
        "Qwen3-30B-A3B, Qwen3-235B-A22B and DeepSeek-V3 configs (the B200 and H100 configs of these rows keep alltoall)",
        "GB200 rows: gb200-nvl72 preset, NVLink domain = the largest divisor of the GPU count up to 72 (8, 64; 64 for 128 and 256 GPUs)",
        "DeepSeek-V3: configs/models/deepseek-v3.yaml (MLA, 1 shared expert, 3 dense layers, MTP 1)",
    ],
    "torchtitan-benchmarks": [
        "H100 96 GB HBM2e at 500 W: h100-sxm-80gb preset with memory_gb 96, memory_bandwidth_gbps 2400 and power_limit_w 500 (all three stated by the benchmark file)",
        "FSDP2 full shard -> zero_stage 3; TP rows sequence_parallel on",
        "Float8 rows -> dtype fp8, fp8_recipe tensorwise (torchao dynamic scaling); rows without torch.compile -> training.fused_elementwise false (eager RMSNorm, SwiGLU, rotary kernels); TP all-gathers in float8 as torchao casts before them; async TP and FSDP's float8 all-gather are not modelled (such row pairs get the same prediction)",
        "micro_batch = local batch (no gradient accumulation); PP rows: torchtitan 9dec370 uses n_microbatches = pp degree, so micro_batch = local batch / pp",
        "Interleaved 1F1B: 2 stages per rank (torchtitan's generated split points for a multi-stage schedule)",
        "op-level selective AC -> recompute selective_op (torchtitan's policy: every second matmul of a block and attention kept, the rest recomputed); full AC -> full",
        "training.attention flash2: F.scaled_dot_product_attention runs FlashAttention-2 on Hopper; PyTorch made its cuDNN backend opt-in after 2.5 (pytorch/pytorch#138522) until 2.9 (#162073)",
    ],
    "llm-foundry-mpt-benchmarks": [
        "FSDP FULL_SHARD -> zero_stage 3, SHARD_GRAD_OP -> zero_stage 2, no TP/PP",
        "activation_checkpointing -> recompute full, else none",
        "amp_bf16/bf16 -> bf16, amp_fp8 -> fp8",
        "MPT: layernorm, GeLU, tied embeddings (NumParams has one V*h)",
        "eager PyTorch (submit_benchmarks.py sets no torch.compile) -> training.fused_elementwise false",
        "training.attention by table: the H100 large-scale table (>= 128 GPUs, 5e85bd6) ran scripts/train/benchmarking/sweep.py's attn_impl, flash (the flash-attn 2.4.2 package, gpu-flash2 extra) -> flash2 for 1b/3b/7b/70b and triton -> flash_triton for 13b/30b; every other table ran submit_benchmarks.py's default attn_impl triton (as the MPT yamls) -> flash_triton",
    ],
    "bloom-176b-bigscience": [
        "zero_stage 1 (BF16_Optimizer's own ZeRO-1 sharding), recompute full, bf16, no SP",
        "pipeline split 'type:transformer|embedding': embeddings take a slot on the first and last stage -> [5, 6 x 10, 5]",
        "Jean Zay network: 4 Omni-Path links per node -> nics_per_node 4 x 100 Gb/s (OPA 100), fat_tree",
        "tied embeddings, layernorm, GeLU; vocab 250880",
        "training.attention unfused: bigscience Megatron-DeepSpeed (tr11, 2022) used the fused scale-mask-softmax on materialised scores, no FlashAttention",
        "overlap_grad_reduce and overlap_param_gather false: DeepSpeed's pipeline engine all-reduces the gradients after "
        "the last micro-batch (TrainSchedule's ReduceGrads) and BF16_Optimizer all-gathers the updated bf16 parameters "
        "inside the optimizer step (update_lp_params)",
        "training.grad_reduce_collective all_reduce: BF16_Optimizer hands the pipeline engine its whole fp32 gradients "
        "(get_grads_for_reduction -> fp32_groups_gradients_flat) and the engine all-reduces them (_exec_reduce_grads), "
        "though each rank then updates only its shard",
        "training.main_grad_accumulation cast_add on the rows run with DeepSpeed's BF16_Optimizer (the data set's optimizer column): "
        "update_hp_grads casts each micro-batch's bf16 gradients to fp32 and adds them to the fp32 gradients after the backward "
        "(deepspeed/runtime/bf16_optimizer.py; the pipeline engine calls it in _exec_backward_pass), 18 bytes per parameter",
    ],
    "bloom-176b-prequel-topology-sweep": [
        "as bloom-176b-bigscience; vocab 250880 (the production padding; the sweep states only '250k')",
        "precision bf16 where not stated (the tr11 runs were bf16)",
        "182B GBS sweep (78 layers on 12 stages, before the embedding-aware split): 7 per stage, last stage 1 (the source's note)",
    ],
    "megatron-moe-modelzoo-qwen3": [
        "zero_stage 1 (model yaml sets --use-distributed-optimizer); 'Megatron FSDP' -> zero_stage 3",
        "sequence_parallel on (model args)",
        "training.tp_comm_overlap on bf16 rows with TP > 1: sbatch_benchmarking.sh (e865051) adds --tp-comm-overlap when PR=bf16",
        "recompute: 'selective (layernorm + MoE activation)' -> selective with recompute_modules [layernorm, moe_act] "
        "(Megatron-Core's --recompute-modules); 'selective (layernorm + moe modules)' -> [layernorm, moe]; 'full' -> full; "
        "blank -> none",
        "pipeline split with embedding and loss accounting (runtime.conf LAYERS=96 'Account loss and embedding')",
        "parallelism.expert_tp 1 with EP as stated (MoE parallel folding) on every row: the table states ETP=1 for rows 1-5, "
        "and every command runs sbatch_benchmarking.sh with MODEL=Qwen3-235B-A22B, whose model yaml "
        "(model_configs/benchmarking/Qwen3-235B-A22B.yaml, every version b06a6d8 .. e865051) sets --expert-tensor-parallel-size 1",
        "routing at forced balance (training.moe_load_imbalance 1, preflight's default): the long-context and GB200 commands "
        "add --moe-router-force-load-balancing, as does best_practice/qwen3/run_h100_235b.sh (1ed4179) for the H100 table's "
        "TP 2 / EP 32 plan; rows 3-5 state no routing",
        "Qwen3-235B-A22B: head_dim 128, rmsnorm, untied embeddings, no shared experts",
        "GB200 rows: gb200-nvl72 preset, NVLink domain = the largest divisor of the GPU count up to 72 (64 for 128 and 256 GPUs)",
        "DeepEP and HybridEP rows: training.moe_token_dispatcher flex (fused dispatch: no count all-gather, no probabilities all-to-all, no sort by expert); DeepEP's per-node deduplication of inter-node traffic is not modelled (the dispatch is a plain all-to-all)",
    ],
}

# Architecture facts not in the CSV (public model configs; README.md cites them).
HEAD_DIM = {"Qwen3": 128, "GPT OSS": 64}


# ---------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------


class Row:
    def __init__(self, raw, rid, line):
        self.raw = raw
        self.id = rid
        self.line = line                         # 1-based data line in the CSV
        self.source = raw["source_id"]
        self.model = raw["model_name"]
        self.gpu = raw["gpu"]
        self.gpus = int(raw["gpus"])
        self.unit = raw["measured_unit"]
        self.value = float(raw["measured_value"])
        self.measured_s = None
        self.status = "ok"
        self.experiment = None                   # YAML tree (dict)
        self.overrides = []                      # --set KEY=VALUE
        self.assumptions = []                    # row-specific defaults / approximations
        self.size_b = float(raw["params_b"]) if raw["params_b"] else None

    @property
    def ok(self):
        return self.status == "ok"

    def short_gpu(self):
        g = self.gpu
        for key, short in (("H100-96GB", "H100-96G"), ("H100", "H100"), ("H200", "H200"), ("B200", "B200"),
                           ("GB200", "GB200"), ("A100", "A100"), ("V100", "V100")):
            if key in g:
                return "GB200" if "GB200" in g else short
        return g

    def to_dict(self):
        return {"id": self.id, "source": self.source, "model": self.model, "gpu": self.gpu, "gpus": self.gpus,
                "measured_s": self.measured_s, "status": self.status, "overrides": self.overrides,
                "assumptions": self.assumptions}


def _unsupported(row, reason):
    row.status = "unsupported: " + reason


def load_rows(path=CSV_PATH):
    with open(path, newline="") as f:
        raws = list(csv.DictReader(f))
    counters = {}
    rows = []
    for i, raw in enumerate(raws):
        src = raw["source_id"]
        counters[src] = counters.get(src, 0) + 1
        row = Row(raw, f"{src}-{counters[src]}", i + 1)
        row.measured_s = measured_step_s(row)
        build_experiment(row)
        rows.append(row)
    return rows


# ---- measured step time -----------------------------------------------------


def _dims(row):
    r = row.raw
    L, h, a = int(r["layers"]), int(r["hidden"]), int(r["heads"])
    g = _int(r["kv_heads"]) or a
    V = _int(r["vocab"])
    if V == 250:      # "250k (exact padding not stated)": the production padding
        V = 250880
    ffn = _int(r["ffn_hidden"])
    return L, h, a, g, V, ffn


def flops_per_step(row):
    """FLOPs per global-batch step by the row's own source convention (the one
    its TFLOP/s or MFU figure was computed with)."""
    r = row.raw
    B, s = int(r["global_batch"]), int(r["seq_length"])
    L, h, a, g, V, ffn = _dims(row)
    src = row.source
    if src == "megatron-lm-readme-h100":
        return flops_megatron_core_r080(B, s, L, h, ffn, a, g, V, gated=r["activation"] == "swiglu")
    if src in ("bloom-176b-bigscience", "bloom-176b-prequel-topology-sweep", "megatron-lm-readme-2020"):
        return flops_megatron_hw_recompute(B, s, L, h, V)
    if src == "megatron-moe-modelzoo-qwen3":
        q = a * HEAD_DIM["Qwen3"]
        return flops_megatron_moe_causal(B, s, L, h, ffn, a, g, V, q=q, gated=True, topk=int(r["moe_topk"]))
    raise ValueError(f"{row.id}: no FLOPs convention for source {src}")


def step_from_tokens_per_s(global_batch, seq_length, gpus, tokens_per_s_per_gpu):
    """A step's time from a throughput in tokens/s per GPU: the global batch's tokens over all GPUs' rate."""
    return global_batch * seq_length / (gpus * tokens_per_s_per_gpu)


def measured_step_s(row):
    r = row.raw
    B, s = int(r["global_batch"]), int(r["seq_length"])
    if row.unit == "iteration_s":
        return row.value
    if row.unit == "tokens_per_s_per_gpu":
        return step_from_tokens_per_s(B, s, row.gpus, row.value)
    if row.unit == "tflops_per_gpu":
        return flops_per_step(row) / (row.gpus * row.value * 1e12)
    if row.unit == "mfu":
        if row.source != "megatron-lm-readme-h100":
            raise ValueError(f"{row.id}: MFU peak unknown for {row.source}")
        tflops = row.value / 100.0 * PEAK_MEGATRON_H100_BF16
        return flops_per_step(row) / (row.gpus * tflops * 1e12)
    raise ValueError(f"{row.id}: unknown unit {row.unit}")


# ---- experiment -------------------------------------------------------------


def _hardware(row):
    """(preset file, overrides, assumption notes) or (None, reason)."""
    g = row.gpu
    if g.startswith("V100"):
        return None, "no V100 hardware preset in configs/hardware (Volta, DGX-2)"
    if g.startswith("GB200"):
        return ("gb200-nvl72.yaml", [], []), None
    if g == "H100-SXM":
        return ("h100-sxm-80gb.yaml", [], []), None
    if g.startswith("H100-96GB"):
        return ("h100-sxm-80gb.yaml", ["hardware.gpu.memory_gb=96", "hardware.gpu.memory_bandwidth_gbps=2400",
                                       "hardware.gpu.power_limit_w=500"],
                ["H100 96 GB HBM2e 2.4 TB/s at 500 W (source)"]), None
    if g == "H200":
        return ("h200-sxm-141gb.yaml", [], []), None
    if g == "B200":
        return ("b200-192gb.yaml", [], []), None
    if g == "A100-80GB":
        return ("a100-sxm-80gb.yaml", [], []), None
    if g.startswith("A100 (DGX-A100"):
        return ("a100-sxm-80gb.yaml", ["hardware.gpu.memory_gb=40", "hardware.gpu.memory_bandwidth_gbps=1555"],
                ["A100-SXM4-40GB in September 2020"]), None
    return None, f"unknown GPU '{g}'"


def nvlink_domain(gpus, rack):
    """GPUs per NVLink domain of a run on NVL racks: the largest divisor of the GPU count that fits a rack
    (8 -> 8, 64 -> 64, 128 and 256 -> 64 of an NVL72's 72). The sources do not say how their jobs sat on the
    racks; every domain of a run must hold the same number of GPUs in preflight."""
    return max(d for d in range(1, min(gpus, rack) + 1) if gpus % d == 0)


def fp8_recipe(row):
    """training.fp8_recipe of an fp8 row: how the source scales its fp8 tensors."""
    p = row.raw["precision"].lower()
    if p.startswith("mxfp8"):
        return "mxfp8"
    if row.source == "torchtitan-benchmarks":
        return "tensorwise"  # torchao Float8Linear: dynamic tensorwise scaling
    if row.source == "megatron-bridge-25.11-perf-summary" and "FP8-CS" in row.raw["notes"]:
        return "tensorwise"  # FP8-CS: current scaling
    return "delayed"  # Transformer Engine's default recipe (NeMo 24.07, llm-foundry amp_fp8)


def _precision(row):
    p = row.raw["precision"].lower()
    if p.startswith("mxfp8"):
        return "fp8", ["MXFP8 run as dtype fp8, fp8_recipe mxfp8"]
    if p.startswith("fp8"):
        return "fp8", []
    if p.startswith("bf16"):
        return "bf16", []
    if p == "":
        defaults = {"megatron-lm-readme-h100": "bf16", "megatron-lm-readme-2020": "fp16",
                    "bloom-176b-prequel-topology-sweep": "bf16"}
        return defaults[row.source], []
    raise ValueError(f"{row.id}: precision {p!r}")


# CUDA graphs of the measured runs (training.launch, training.cuda_graph_scope).
# Megatron-Bridge 25.11: scripts/performance/configs/*/*_workload_base_configs.py at 97ad8cc, keyed by
# (model, GPU, precision as the row's precision column reads); None: every precision's config sets the same.
# The configs' parallel layout is not always the table's (the data set's note); where it differs, the scope is
# still taken when every precision's config of that model and GPU sets the same one (an assumption, noted).
BRIDGE_GRAPHS = {
    ("LLAMA3_8B", "GB200", None): "full_iteration",     # cuda_graph_impl local, scope full_iteration
    ("LLAMA3_8B", "B200", None): "full_iteration",
    ("Qwen3_30B_a3B", "GB200", "mxfp8"): ["moe_router", "moe_preprocess"],
    ("Qwen3_30B_a3B", "GB200", "bf16"): ["attn", "moe_router", "moe_preprocess"],
    ("Qwen3_30B_a3B", "GB200", "fp8"): ["attn", "moe_router", "moe_preprocess"],
    ("Qwen3_30B_a3B", "B200", None): ["moe_router", "moe_preprocess"],
    ("Qwen3_30B_a3B", "H100-SXM", "bf16"): ["moe_router", "moe_preprocess"],
    ("Qwen3_235B_a22B", "GB200", None): ["attn", "moe_router", "moe_preprocess"],
    ("DeepSeekV3 (w/o MTP)", "GB200", None): ["moe_router", "moe_preprocess"],
}
GRAPH_NOTE = re.compile(r"CUDA graphs \(([a-z_, ]+)\)")

# Megatron-Bridge 25.11 perf configs (97ad8cc) whose MoE token dispatcher is flex: (model, GPU) ->
# moe_flex_dispatcher_backend, the same at every precision of the GPU. apply_flex_dispatcher_backend
# (src/megatron/bridge/training/flex_dispatcher_backend.py) then sets moe_token_dispatcher_type "flex" on
# GB200/GB300 (hybridep) and Ampere/Hopper/B200 (deepep). B200 and H100 Qwen3 configs keep the alltoall dispatcher.
BRIDGE_FLEX = {
    ("Qwen3_30B_a3B", "GB200"): "hybridep",          # QWEN3_30B_A3B_PRETRAIN_CONFIG_GB200_*_BASE_CONFIG
    ("Qwen3_235B_a22B", "GB200"): "hybridep",        # QWEN3_235B_A22B_PRETRAIN_CONFIG_GB200_*_BASE_CONFIG
    ("DeepSeekV3 (w/o MTP)", "GB200"): "hybridep",   # DEEPSEEK_V3_PRETRAIN_CONFIG_GB200_BASE_CONFIG
}


# Megatron-Bridge 0.2.0 (the 25.11 container) perf configs that turn the distributed optimizer's parameter-gather
# overlap off at MXFP8 (deepseek_v3_gb200_config, qwen3_235b_a22b_b200_config: "keeping this enabled causes NaN grad
# norm"): (model, GPU) of the rows.
BRIDGE_MXFP8_NO_PARAM_GATHER_OVERLAP = {("DeepSeekV3 (w/o MTP)", "GB200"), ("Qwen3_235B_a22B", "B200")}

# Megatron-Bridge 0.2.0 (25.11) perf configs with moe_a2a_overlap=True (scripts/performance/configs/qwen3/
# workload_base_configs.py: QWEN3_235B_A22B_B200_*, QWEN3_235B_A22B_H100_*, QWEN3_30B_A3B_H100_*), whose
# set_moe_a2a_overlap_overrides (utils/helpers.py) sets overlap_moe_expert_parallel_comm and
# delay_wgrad_compute: (model, GPU) of the rows. Megatron-MoE-ModelZoo's A2A_OVERLAP=1 passes the same two
# flags (sbatch_benchmarking.sh, "1F1B overlapping arguments"); its Qwen3 table marks that row "+1f1b overlap".
BRIDGE_A2A_OVERLAP = {("Qwen3_235B_a22B", "B200"), ("Qwen3_235B_a22B", "H100-SXM"), ("Qwen3_30B_a3B", "H100-SXM")}
MODELZOO_A2A_OVERLAP_NOTE = "+1f1b overlap"


def a2a_overlap(row):
    """Whether the row's run overlapped its expert all-to-alls with combined 1F1B."""
    if row.source == "megatron-bridge-25.11-perf-summary":
        return (row.model, row.raw["gpu"]) in BRIDGE_A2A_OVERLAP
    return row.source == "megatron-moe-modelzoo-qwen3" and MODELZOO_A2A_OVERLAP_NOTE in row.raw["notes"]

# Megatron-Bridge 25.11 recipes whose CommOverlapConfig turns on Transformer Engine's TP communication overlap
# (97ad8cc): Llama 3 70B and Llama 3.1 405B (src/megatron/bridge/recipes/llama/llama3.py; the perf configs
# keep it, with their userbuffers settings, except at nvfp4). Qwen3-235B-A22B's H100 perf config passes
# CommOverlapConfig(tp_comm_overlap=False); the other rows with TP > 1 are these models.
BRIDGE_TP_COMM_OVERLAP = {"LLAMA3_70B", "LLAMA3.1_405B"}

# NeMo Framework Launcher 24.07 training configs (launcher_scripts/conf/training/*/*.yaml at tag 24.07):
# model.ub_tp_comm_overlap true for these models (gpt3/20b, llama2_70b, llama3_70b, nemotron_8b, nemotron_22b;
# false for gpt3/5b and 175b, llama2_7b and 13b, llama3_8b, nemotron_340b), and model.cross_entropy_loss_fusion
# true for these (llama3_8b, llama3_70b, nemotron_8b, nemotron_22b; not set, so off, elsewhere).
NEMO_TP_COMM_OVERLAP = {"GPT3-20B", "LLAMA2-70B", "LLAMA3-70B", "Nemotron-8B", "Nemotron-22B"}
# The same configs' settings that only nemotron_340b.yaml changes from the defaults the other rows take:
# optim.grad_sync_dtype bf16 (the others leave Apex's fp32) and activations_checkpoint_granularity selective
# (the others null).
NEMO_340B_CONFIG = {"grad_reduce_dtype": "bf16", "recompute": "selective"}
NEMO_CROSS_ENTROPY_FUSION = {"LLAMA3-8B", "LLAMA3-70B", "Nemotron-8B", "Nemotron-22B"}


def bridge_flex_backend(row):
    """The flex dispatcher backend of the row's Megatron-Bridge perf config, or None."""
    if row.source != "megatron-bridge-25.11-perf-summary":
        return None
    return BRIDGE_FLEX.get((row.raw["model_name"], row.raw["gpu"]))


def cuda_graphs(row):
    """(training keys, assumption) for the CUDA graphs the source's run used; ({}, None) for eager."""
    r = row.raw
    if row.source == "megatron-bridge-25.11-perf-summary":
        p = r["precision"].lower()
        scope = BRIDGE_GRAPHS.get((r["model_name"], r["gpu"], p), BRIDGE_GRAPHS.get((r["model_name"], r["gpu"], None)))
        where = "Megatron-Bridge 25.11 perf config (97ad8cc)"
    elif modelzoo_gb200_long_context(row):
        return {}, None  # its command captures no graphs
    else:
        m = GRAPH_NOTE.search(r["notes"])  # ModelZoo's GB200 commands: "CUDA graphs (attn, moe_router, ...)"
        scope = [s.strip() for s in m.group(1).split(",")] if m else None
        where = "the source's command"
    if scope is None:
        return {}, None
    if scope == "full_iteration":
        return {"launch": "cuda_graph"}, f"full-iteration CUDA graph ({where}): launch cuda_graph"
    return {"cuda_graph_scope": scope}, f"CUDA graphs of {', '.join(scope)} ({where})"


# Megatron-Bridge 25.11 perf configs (97ad8cc) that recompute selectively:
# recompute_modules of (model, GPU), the same at every precision of the GPU.
BRIDGE_RECOMPUTE_MODULES = {
    ("DeepSeekV3 (w/o MTP)", "GB200"): ["mla_up_proj"],  # DEEPSEEK_V3_PRETRAIN_CONFIG_GB200_BASE_CONFIG
    ("DeepSeekV3 (w/ MTP)", "B200"): ["mla_up_proj"],    # DEEPSEEK_V3_PRETRAIN_CONFIG_B200_BASE_CONFIG
}

# Plan cells of the 25.11 table that the same container's perf config and the next release's table both
# contradict: (model, GPU) -> {CSV column: value}. Corrected only where those two agree with each other and
# the next table's throughput with this row's; the other plan differences stay as the table states them.
BRIDGE_PLAN_CORRECTIONS = {
    # Table: EP 8. GPT_OSS_120B_PRETRAIN_CONFIG_B200_BF16_BASE_CONFIG sets EP 64 at 97ad8cc, v0.2.0 (25.11),
    # v0.3.0 (26.02) and v0.3.1 (26.02.01); the 26.02 table (docs/performance-summary-archive.md at 067f987)
    # lists this model on 64 B200 at EP 64, micro-batch 4, with 8,047 tokens/s/GPU (this row: 8,213). (The
    # 26.02.01 table says EP 8 at 13,722 while its own config still says 64: the tables' plan cells slip.)
    # Physically, EP 64 sends 7/8 of every dispatch over InfiniBand; at EP 8 the all-to-alls stay on NVLink.
    ("GPT OSS 120B", "B200"): {"ep": "64"},
    # Table: micro-batch 4 with "GA 2", which its own GBS 512, PP 4 and 64 GPUs contradict (DP 16: GA 8 at
    # micro-batch 4); the cells read like the B200 row above it (PP 1: DP 64, GA 2). The H100 config keeps the
    # base config's micro_batch_size=1 with PP 4 and EP 8 in every release (GPT_OSS_120B_*H100_BF16* in
    # scripts/performance/configs/gpt_oss/ at 97ad8cc, v0.2.0 = 25.11, v0.3.0, v0.3.1), and every later table lists this model on
    # 64 H100 at micro-batch 1, PP 4, EP 8 (26.02 .. 26.06: 5,810 .. 5,993 tokens/s/GPU at GBS 1280 against this
    # row's 5,630). At micro-batch 4 the stage holds 108 GB of the H100's 80.
    ("GPT OSS 120B", "H100-SXM"): {"micro_batch": "1"},
}


def bridge_plan_value(row, column):
    """The row's plan cell, corrected where BRIDGE_PLAN_CORRECTIONS says the table misstates it."""
    if row.source == "megatron-bridge-25.11-perf-summary":
        fix = BRIDGE_PLAN_CORRECTIONS.get((row.raw["model_name"], row.raw["gpu"]), {})
        if column in fix:
            row.assumptions.append(f"{column} {fix[column]} instead of the table's {row.raw[column]} "
                                   "(BRIDGE_PLAN_CORRECTIONS: perf config and later tables)")
            return fix[column]
    return row.raw[column]


# Megatron-Bridge 25.11 perf configs (97ad8cc) that offload activations to the host
# (cpu_offloading_num_layers; _set_recompute_overrides sets cpu_offloading_weights False):
# (model, GPU, precision) -> layers, taken where the row runs the config's layout (pp 1).
BRIDGE_CPU_OFFLOAD = {
    ("LLAMA3_70B", "GB200", "fp8"): 40,  # LLAMA3_70B_PRETRAIN_CONFIG_GB200_FP8_CS_BASE_CONFIG: mbs 2, Megatron FSDP, TP 1
}


# Sources whose training loop all-reduces every micro-batch's loss over the data-parallel replicas
# (training.loss_reduce microbatch; SOURCE_DEFAULTS cites the code of each).
LOSS_REDUCED_EACH_MICROBATCH = {"megatron-lm-readme-h100", "megatron-lm-readme-2020"}


def cpu_offload_layers(row):
    """Megatron-Core's --cpu-offloading-num-layers the row's run used, or None."""
    r = row.raw
    if row.source != "megatron-bridge-25.11-perf-summary" or int(r["pp"]) != 1:
        return None
    return BRIDGE_CPU_OFFLOAD.get((r["model_name"], r["gpu"], r["precision"].lower()))


# ModelZoo's GB200 MXFP8 Qwen3-235B row ("activation offloading required"): its README's command
# (best_practice/qwen3/readme.md, "Command (MXFP8)", read at 020b813) runs
# --recompute-granularity selective --recompute-modules moe_act layernorm
# --fine-grained-activation-offloading --offload-modules expert_fc1 moe_act.
MODELZOO_OFFLOAD_NOTE = "activation offloading required"
MODELZOO_OFFLOAD = {"recompute_modules": ["moe_act", "layernorm"], "offload_modules": ["expert_fc1", "moe_act"]}
# ModelZoo's GB200 128k long-context row: its own command ("Command (MXFP8, 128k long context)", read at
# e865051) runs --recompute-granularity selective --recompute-modules moe_act layernorm and no CUDA graphs
# (the data set's note quotes the BF16 command's graphs).
MODELZOO_GB200_LONG_CONTEXT_NOTE = "long context"
MODELZOO_GB200_LONG_CONTEXT_RECOMPUTE = ["moe_act", "layernorm"]


def modelzoo_gb200_long_context(row):
    return (row.source == "megatron-moe-modelzoo-qwen3" and row.raw["gpu"] == "GB200"
            and MODELZOO_GB200_LONG_CONTEXT_NOTE in row.raw["notes"])


def offload_modules(row):
    """Megatron-Core's --offload-modules (fine-grained activation offloading) the row's run used, or None."""
    if row.source == "megatron-moe-modelzoo-qwen3" and MODELZOO_OFFLOAD_NOTE in row.raw["notes"]:
        return MODELZOO_OFFLOAD["offload_modules"]
    return None


def recompute_modules(row):
    """Megatron-Core's --recompute-modules the row's run used (selective recomputation), or None."""
    r = row.raw
    if row.source == "megatron-moe-modelzoo-qwen3" and MODELZOO_OFFLOAD_NOTE in r["notes"]:
        return MODELZOO_OFFLOAD["recompute_modules"]
    if modelzoo_gb200_long_context(row):
        return MODELZOO_GB200_LONG_CONTEXT_RECOMPUTE
    if row.source == "megatron-bridge-25.11-perf-summary":
        return BRIDGE_RECOMPUTE_MODULES.get((r["model_name"], r["gpu"]))
    text = r["recompute"].lower()
    if row.source == "megatron-moe-modelzoo-qwen3" and text.startswith("selective"):
        if "layernorm + moe activation" in text:
            return ["layernorm", "moe_act"]
        if "layernorm + moe modules" in text:
            return ["layernorm", "moe"]
    return None


def optimizer_states(row, dtype, zero):
    """training.optimizer_states the run's optimizer kept, and why; (None, None) for Adam's fp32 defaults."""
    src = row.source
    if src == "nemo-24.07-perf-summary":
        # NeMo's distributed_fused_adam (every launcher config at 24.07) with an fp32 optimizer over a bf16 model
        # (megatron_amp_O2; fp8 compute keeps bf16 weights): megatron_base_model.py sets store_params False,
        # store_param_remainders True, so Apex's DistributedFusedAdam keeps the fp32 master as 16-bit remainders.
        return {"param_remainders": True}, ("optimizer_states param_remainders: NeMo's distributed_fused_adam keeps "
                                            "the fp32 master weights as remainders of the bf16 ones")
    if src != "megatron-bridge-25.11-perf-summary" or zero != 1:
        return None, None
    # Megatron-Bridge 25.11 (97ad8cc): the perf scripts' set_post_overrides turns on the precision-aware optimizer
    # for BF16 runs, and the DeepSeek-V3 recipe (deepseek_v3.py) for every precision, with bf16 moments. Under it
    # Megatron-Core 0.15 (optimizer_config.py: store_param_remainders defaults to True, TE >= 2.1) hands bf16 (or
    # delayed-fp8) runs' master weights to Transformer Engine's FusedAdam as remainders; fp8 current-scaling and
    # MXFP8 runs keep Megatron-Core's own fp32 main parameters.
    deepseek = row.model.startswith("DeepSeek")
    if dtype != "bf16" and not deepseek:
        return None, None
    states = {}
    if dtype == "bf16":
        states["param_remainders"] = True
    if deepseek:
        states.update({"exp_avg": "bf16", "exp_avg_sq": "bf16"})
    note = ("optimizer_states " + ", ".join(f"{k} {str(v).lower()}" for k, v in states.items()) +
            ": Megatron-Bridge 25.11's precision-aware optimizer" + (" (BF16 perf runs)" if dtype == "bf16" else "") +
            (" with the DeepSeek-V3 recipe's bf16 moments" if deepseek else ""))
    return states, note


def _recompute(row):
    r = row.raw["recompute"].lower()
    if r.startswith("full"):
        return "full"
    if recompute_modules(row):
        return "selective"
    if r.startswith("selective"):
        # torchtitan's op-level selective AC is its own policy (every second
        # matmul and attention kept); Megatron's selective re-runs attention.
        if row.source == "torchtitan-benchmarks" and ("op-level" in r or "per-op" in r):
            return "selective_op"
        return "selective"
    if r.startswith("none") or r == "":
        return "none"
    raise ValueError(f"{row.id}: recompute {r!r}")


def _zero_stage(row):
    z = row.raw["zero_distributed_optimizer"]
    zl = z.lower()
    src = row.source
    if "shard_grad_op" in zl:
        return 2
    if "full_shard" in zl or "fsdp2 full shard" in zl or "fsdp (sharding" in zl or zl.startswith("megatron_fsdp") \
            or zl == "megatron fsdp":
        return 3
    if "zero-1" in zl or zl.startswith("distributed optimizer") or zl.startswith("zero-1"):
        return 1
    if zl.startswith("none"):
        return 0
    if zl.startswith("ddp (fsdp=0)"):
        return 1          # Megatron-Bridge recipes: distributed optimizer
    if zl == "":
        return {"megatron-lm-readme-h100": 1, "nemo-24.07-perf-summary": 1}[src]
    if zl.startswith("zero-1") or zl == "zero-1":
        return 1
    raise ValueError(f"{row.id}: zero/distributed optimizer {z!r}")


def _model(row):
    """Model tree; may mark the row unsupported."""
    r = row.raw
    src, name = row.source, row.model
    if name.startswith("DeepSeekV3"):
        return str(MODELS_DIR / "deepseek-v3.yaml"), ([] if "w/ MTP" in name else ["model.mtp_layers=0"])
    L, h, a, g, V, ffn = _dims(row)
    act = r["activation"]
    if act not in ("gelu", "swiglu", "geglu", "relu", "squared_relu"):
        _unsupported(row, f"activation {act}")
        return None, []
    m = {"name": name, "layers": L, "hidden_size": h, "ffn_hidden_size": ffn, "num_attention_heads": a,
         "num_kv_heads": g, "vocab_size": V, "activation": act}
    for key, hd in HEAD_DIM.items():
        if name.startswith(key):
            m["head_dim"] = hd
    llama_like = act == "swiglu"
    m["norm"] = "rmsnorm" if llama_like else "layernorm"
    tied = {"megatron-lm-readme-2020": True, "llm-foundry-mpt-benchmarks": True, "bloom-176b-bigscience": True,
            "bloom-176b-prequel-topology-sweep": True}.get(src, False)
    if src == "nemo-24.07-perf-summary" and name.startswith("GPT3"):
        tied = True
    m["tied_embeddings"] = tied
    if r["moe_experts"]:
        m["moe"] = {"num_experts": int(r["moe_experts"]), "top_k": int(r["moe_topk"]), "expert_ffn_hidden_size": ffn}
    if name.startswith("Qwen3"):
        # Qwen3 normalises queries and keys per head: Megatron-Bridge's Qwen3 providers set
        # qk_layernorm True (src/megatron/bridge/models/qwen/qwen_provider.py at v0.2.0), as Megatron-LM
        # Qwen3 commands pass --qk-layernorm.
        m["qk_norm"] = True
    if name.startswith("GPT OSS"):
        # Megatron-Bridge's GPTOSSProvider: window_size (128, 0) in every second layer
        # (window_attn_skip_freq 2: layers 2, 4, ... attend fully), softmax_type learnable (sinks).
        m["sliding_window"] = {"size": 128, "full_every": 2}
        # GPTOSSProvider: activation_func quick_gelu, glu_linear_offset 1.0, activation_func_clamp_value 7.0
        # (the table's "swiglu" is Hugging Face's name for the same clamped gate, swiglu_limit 7.0).
        m["activation"] = "quick_geglu"
        m["activation_clamp"] = 7.0
        row.assumptions.append("GPT-OSS attention sinks left out (one learned logit per head)")
    return m, []


# Sources whose every row ran a model config that sets Megatron's --expert-tensor-parallel-size 1.
MODEL_YAML_ETP1 = {
    # every version of model_configs/benchmarking/Qwen3-235B-A22B.yaml (b06a6d8 .. e865051), which
    # sbatch_benchmarking.sh reads for MODEL=Qwen3-235B-A22B (runtime_configs/benchmarking/common.conf):
    # the H100 table, the long-context commands and the GB200 commands alike
    "megatron-moe-modelzoo-qwen3": "model yaml --expert-tensor-parallel-size 1",
}


def _map_ep(row, tp, dp, cp, ep):
    """(ep, expert_tp) for the row: expert TP 1 where the source states ETP=1 (Megatron's MoE parallel folding:
    whole experts, EP groups on consecutive ranks of the stage); otherwise experts sharded over TP, EP out of DP."""
    if tp > 1 and ("ETP=1" in row.raw["notes"] or row.source in MODEL_YAML_ETP1):
        if (tp * cp * dp) % ep == 0:
            where = "source" if "ETP=1" in row.raw["notes"] else MODEL_YAML_ETP1[row.source]
            row.assumptions.append(f"ETP 1 ({where}): expert_tp 1, EP {ep} over the stage's tp x cp x dp ranks")
            return ep, 1
        _unsupported(row, f"EP {ep} does not divide tp*cp*dp = {tp * cp * dp}")
        return ep, 1
    return _map_ep_sharded(row, tp, dp, cp, ep), 0


def _map_ep_sharded(row, tp, dp, cp, ep):
    if ep == 1 or dp % ep == 0:
        return ep
    if cp == 1 and ep % tp == 0 and dp % (ep // tp) == 0:
        row.assumptions.append(f"EP {ep} over TP x DP (ETP 1) as ep {ep // tp} with TP-sharded experts")
        return ep // tp
    _unsupported(row, f"EP {ep} spans CP/TP ranks (tp {tp}, cp {cp}, dp {dp}) and the source states no expert TP: "
                      "preflight shards experts over TP with EP out of DP (expert_tp 1 needs the source to state ETP=1)")
    return None


def build_experiment(row):
    r = row.raw
    src = row.source
    hw, reason = _hardware(row)
    if hw is None:
        _unsupported(row, reason)
        return
    hw_file, hw_sets, hw_notes = hw
    row.assumptions += hw_notes
    model, model_sets = _model(row)
    if not row.ok:
        return
    overrides = list(hw_sets) + list(model_sets)

    tp = _int(r["tp"]) or 1
    pp = _int(r["pp"]) or 1
    if src == "megatron-lm-readme-h100" and not r["tp"]:
        tp, pp = 8, 6
        row.assumptions.append("TP8 x PP6 from the weak-scaling 177B row")
    cp = _int(r["cp"]) or 1
    ep = _int(bridge_plan_value(row, "ep")) or 1
    vp = _int(r["vp"]) or 1
    dp = row.gpus // (tp * pp * cp)
    layers = int(r["layers"])
    if src == "megatron-lm-readme-h100" and pp > 1 and not r["vp"]:
        vp = layers // pp  # --num-layers-per-virtual-pipeline-stage 1 (SOURCE_DEFAULTS says why)
        row.assumptions.append(f"interleaved, one layer per virtual stage: virtual_stages {vp}")

    # torchtitan PP: n_microbatches defaults to the pp degree; interleaved = 2 stages per rank.
    mbs = _int(bridge_plan_value(row, "micro_batch")) or 1
    if src == "torchtitan-benchmarks" and pp > 1:
        local = mbs
        mbs = local // pp
        if "Interleaved" in r["notes"]:
            vp = 2
        row.assumptions.append(f"PP micro-batches = pp = {pp}: micro_batch {mbs} of local batch {local}")

    if "INCONSISTENT" in r["notes"]:
        ga = int(r["global_batch"]) // (mbs * dp)
        row.assumptions.append(f"source's GA inconsistent: GBS and micro-batch {mbs} kept, GA {ga}")

    ep, expert_tp = _map_ep(row, tp, dp, cp, ep)
    if not row.ok:
        return

    sp_text = r["sequence_parallel"].lower()
    if sp_text.startswith("yes"):
        sp = True
    elif sp_text.startswith("no"):
        sp = False
    else:
        sp = tp > 1
    if tp == 1:
        sp = False

    par = {"tp": tp, "pp": pp, "cp": cp, "ep": ep, "sequence_parallel": sp,
           "pipeline_schedule": "interleaved" if vp > 1 else "1f1b", "virtual_stages": vp,
           "zero_stage": _zero_stage(row)}
    if expert_tp:
        par["expert_tp"] = expert_tp
    chunks = pp * vp
    if src in ("bloom-176b-bigscience", "bloom-176b-prequel-topology-sweep") and pp > 1:
        if layers == 70 and pp == 12:
            par["layers_per_stage"] = [5] + [6] * 10 + [5]
        elif layers == 78 and pp == 12:
            par["layers_per_stage"] = [7] * 11 + [1]
    elif pp > 1 and layers % chunks != 0 and src in ("megatron-bridge-25.11-perf-summary",
                                                     "megatron-moe-modelzoo-qwen3") \
            and not row.model.startswith("DeepSeek"):
        split = embedding_loss_split(layers, chunks)
        if split:
            par["layers_per_stage"] = split
            row.assumptions.append("embedding/loss-accounted pipeline split")

    dtype, notes = _precision(row)
    row.assumptions += notes
    train = {"global_batch_size": int(r["global_batch"]), "micro_batch_size": mbs,
             "seq_length": int(r["seq_length"]), "recompute": _recompute(row), "dtype": dtype}
    if dtype == "fp8":
        train["fp8_recipe"] = fp8_recipe(row)
    modules = recompute_modules(row)
    if modules:
        train["recompute_modules"] = modules
        row.assumptions.append(f"recompute_modules [{', '.join(modules)}]")
    if src in LOSS_REDUCED_EACH_MICROBATCH:
        train["loss_reduce"] = "microbatch"
    if src == "megatron-bridge-25.11-perf-summary":
        train["grad_reduce_dtype"] = "bf16"  # the perf configs' ddp.grad_reduce_in_fp32 = False
        # The perf scripts' set_common_perf_overrides: rerun_state_machine.check_for_nan_in_loss = False, so
        # no host sync at each micro-batch's loss (Megatron-Bridge 0.2.0, scripts/performance/utils/helpers.py).
        train["host_sync_on_loss"] = False
        if _int(r["moe_experts"]):
            # Every MoE perf config's set_*_common_configs sets moe_router_fusion = True (deepseek_llm_pretrain.py,
            # gpt_oss_llm_pretrain.py, qwen3_llm_pretrain.py at v0.2.0): Transformer Engine's fused router kernels.
            train["moe_router_fusion"] = True
        if (row.model, r["gpu"]) in BRIDGE_MXFP8_NO_PARAM_GATHER_OVERLAP and fp8_recipe(row) == "mxfp8":
            train["overlap_param_gather"] = False
            row.assumptions.append("overlap_param_gather false: the perf config turns it off for MXFP8 "
                                   "('keeping this enabled causes NaN grad norm', Megatron-Bridge 0.2.0)")
    if a2a_overlap(row):
        train["overlap_moe_expert_parallel_comm"] = True
        train["delay_wgrad_compute"] = True
        row.assumptions.append("overlap_moe_expert_parallel_comm and delay_wgrad_compute: combined 1F1B "
                               "(the perf config's moe_a2a_overlap, or ModelZoo's A2A_OVERLAP=1)")
    states, states_note = optimizer_states(row, dtype, _zero_stage(row))
    if states:
        train["optimizer_states"] = states
        row.assumptions.append(states_note)
    if src == "nemo-24.07-perf-summary" and row.model == "Nemotron-340B":
        train.update(NEMO_340B_CONFIG)
        row.assumptions.append("grad_reduce_dtype bf16 and recompute selective: the NeMo Framework Launcher 24.07 "
                               "nemotron_340b.yaml's optim.grad_sync_dtype and activations_checkpoint_granularity")
    fine = offload_modules(row)
    if fine:
        train["offload_modules"] = fine
        row.assumptions.append(f"offload_modules [{', '.join(fine)}] (the source's command)")
    offload = cpu_offload_layers(row)
    if offload:
        train["cpu_offload_layers"] = offload
        row.assumptions.append(f"cpu_offload_layers {offload} (Megatron-Bridge perf config)")
    if src == "megatron-lm-readme-h100" and sp:
        train["tp_comm_overlap"] = True
    if src == "megatron-moe-modelzoo-qwen3" and sp and dtype == "bf16":
        train["tp_comm_overlap"] = True  # sbatch_benchmarking.sh adds --tp-comm-overlap when PR=bf16
    if src == "nemo-24.07-perf-summary" and sp and row.model in NEMO_TP_COMM_OVERLAP:
        train["tp_comm_overlap"] = True
        row.assumptions.append("training.tp_comm_overlap: the NeMo Framework Launcher 24.07 config's "
                               "model.ub_tp_comm_overlap true")
    if src == "nemo-24.07-perf-summary" and row.model in NEMO_CROSS_ENTROPY_FUSION:
        train["fused_cross_entropy"] = True
        row.assumptions.append("training.fused_cross_entropy: the NeMo Framework Launcher 24.07 config's "
                               "model.cross_entropy_loss_fusion true")
    if src == "megatron-bridge-25.11-perf-summary":
        # GPTModelProvider (and DeepSeek's provider) default cross_entropy_loss_fusion True; the perf scripts'
        # set_common_perf_overrides set cross_entropy_fusion_impl "te" (Megatron-Bridge v0.2.0).
        train["fused_cross_entropy"] = True
        train["cross_entropy_fusion_impl"] = "te"
    if src == "megatron-bridge-25.11-perf-summary" and sp and row.model in BRIDGE_TP_COMM_OVERLAP:
        train["tp_comm_overlap"] = True
        row.assumptions.append("training.tp_comm_overlap: the recipe's CommOverlapConfig(tp_comm_overlap=True), kept by "
                               "the perf config with its userbuffers settings (Megatron-Bridge 25.11, 97ad8cc)")
    if src == "megatron-lm-readme-2020":
        train["overlap_grad_reduce"] = False
        # Sept 2020 Megatron-LM: no fused softmax or jit bias-dropout-add yet; eager kernels throughout.
        train["fused_elementwise"] = False
    if src.startswith("bloom-176b"):
        # DeepSpeed's pipeline engine reduces the gradients after the last micro-batch (TrainSchedule's
        # ReduceGrads) and gathers the updated bf16 parameters inside the optimizer step (update_lp_params).
        train["overlap_grad_reduce"] = False
        train["overlap_param_gather"] = False
        # BF16_Optimizer all-reduces the whole fp32 gradients, then updates its own shard.
        train["grad_reduce_collective"] = "all_reduce"
    if src == "megatron-lm-readme-2020" or src.startswith("bloom-176b"):
        # No FlashAttention before mid-2022: Megatron's CoreAttention materialises the scores.
        train["attention"] = "unfused"
    if "bf16_optimizer" in r["zero_distributed_optimizer"].lower():
        # DeepSpeed's BF16_Optimizer adds every micro-batch's bf16 gradients into fp32 ones in kernels of
        # their own (update_hp_grads: a cast and an add per tensor), not inside the weight-gradient GEMMs.
        train["main_grad_accumulation"] = "cast_add"
    if src == "torchtitan-benchmarks":
        # PyTorch SDPA's flash backend: FlashAttention-2 kernels, not cuDNN/FA3.
        train["attention"] = "flash2"
        if pp > 1:
            # torch.distributed.pipelining keeps its sends' works and waits on them at the step's end.
            train["pp_send_wait"] = "background"
    if src.startswith("bloom-176b") and pp > 1:
        # DeepSpeed's PipelineEngine sends with dist.send: the next kernel waits for the receiver.
        train["pp_send_wait"] = "blocking"
    if src == "llm-foundry-mpt-benchmarks":
        train["attention"] = llm_foundry_attention(row.model, row.short_gpu(), int(r["gpus"]))
    flex_backend = bridge_flex_backend(row)
    if "deepep" in row.model.lower() or "hybridep" in row.model.lower() or flex_backend:
        # DeepEP / HybridEP: Megatron-Core's flex token dispatcher (fused dispatch, no count gather).
        train["moe_token_dispatcher"] = "flex"
        if flex_backend == "hybridep" or "hybridep" in row.model.lower():
            train["moe_flex_backend"] = "hybridep"  # pads the experts' rows for fp8 inside its dispatch
        if flex_backend:
            row.assumptions.append(f"training.moe_token_dispatcher flex: the perf config's moe_flex_dispatcher_backend "
                                   f"{flex_backend} (Megatron-Bridge 25.11, 97ad8cc)")
    graphs, graph_note = cuda_graphs(row)
    train.update(graphs)
    if graph_note:
        row.assumptions.append(graph_note)
    if src == "torchtitan-benchmarks" and "compile" not in r["notes"].lower():
        # Eager PyTorch: RMSNorm, SwiGLU and rotary as separate kernels (compile fuses them).
        train["fused_elementwise"] = False
    if src == "llm-foundry-mpt-benchmarks":
        # Composer runs MPT eagerly: submit_benchmarks.py sets no torch.compile; LayerNorm's backward is two kernels.
        train["fused_elementwise"] = False

    # hardware: preset by absolute path; fewer GPUs than a server -> one smaller server
    gpn = int(r["gpus_per_node"]) if r["gpus_per_node"] else 8
    preset_gpn = 8
    if row.short_gpu() == "GB200":
        # preflight's node is the NVLink domain (the data set's column counts a compute tray's 4 GPUs)
        preset_gpn = 72
        gpn = nvlink_domain(row.gpus, preset_gpn)
    if row.gpus < gpn:
        gpn = row.gpus
    if gpn != preset_gpn:
        overrides.append(f"hardware.node.gpus_per_node={gpn}")
    kind = "rail_optimized"
    if src.startswith("bloom-176b"):
        overrides += ["hardware.node.nics_per_node=4", "hardware.node.nic_bandwidth_gbps=100"]
        kind = "fat_tree"
    topo = {"kind": kind, "nodes": max(1, row.gpus // gpn), "nodes_per_leaf": 32 if kind == "rail_optimized" else 16,
            "leaf_oversubscription": 1.0, "pod_nodes": 0, "pod_oversubscription": 1.0,
            "link_latency_us": 0.1, "switch_latency_us": 0.13, "routing": "ecmp"}
    exp = {"name": row.id, "model": model, "hardware": str(HARDWARE_DIR / hw_file), "topology": topo,
           "parallelism": par, "training": train, "simulation": {"network": "analytical"},
           "output": {"timeline": False}}
    row.experiment = exp
    row.overrides = overrides


def write_experiment(row, directory):
    """Write the row's experiment YAML into `directory`; returns its path."""
    path = Path(directory) / f"{row.id}.yaml"
    sets = "".join(f" --set {o}" for o in row.overrides)
    header = (f"# {row.id}: {row.model} on {row.gpus} x {row.gpu} ({row.source})\n"
              f"# generated by tests/validation/rows.py; the table's figure comes from\n"
              f"#   preflight run {path.name} --set simulation.network=analytical{sets}\n")
    path.write_text(header + to_yaml(row.experiment) + "\n")
    return path


def preflight_command(preflight, row, exp_path, report_json, out_dir, command="run"):
    cmd = [str(preflight), command, str(exp_path)]
    if command == "run":
        cmd += ["--no-timeline", "--quiet", "--report-json", str(report_json), "--out", str(out_dir),
                "--set", "simulation.network=analytical"]
    elif report_json:
        cmd += ["--json", str(report_json)]
    for o in row.overrides:
        cmd += ["--set", o]
    return cmd


# Rows whose `preflight run` (analytical network) took more than SUBSET_MAX_WALL_S of
# wall time in the full table on the 2-core development machine (seconds; full table of
# 2026-12-01 11:22 UTC, a build idling beside it; "> 300" = hit the 300 s row timeout).
# FSDP (ZeRO-3) over many data-parallel ranks is what makes a row slow to simulate.
SUBSET_MAX_WALL_S = 60
SLOW_ROWS = {
    "llm-foundry-mpt-benchmarks-1": "> 300",   # MPT-70B, 512 H100, ZeRO-3
    "llm-foundry-mpt-benchmarks-3": "> 300",   # MPT-13B, 512 H100, ZeRO-3
    "llm-foundry-mpt-benchmarks-5": "269",     # MPT-7B, 512 H100, ZeRO-3
    "llm-foundry-mpt-benchmarks-2": "121",     # MPT-70B, 128 H100, ZeRO-3
    "llm-foundry-mpt-benchmarks-12": "106",    # MPT-70B, 32 A100, ZeRO-3
    "megatron-lm-readme-h100-9": "99",         # GPT 462B, 6144 H100
    "llm-foundry-mpt-benchmarks-11": "98",     # MPT-70B, 64 A100, ZeRO-3
    "megatron-lm-readme-h100-11": "63",        # GPT-3 175B, 4608 H100
    "megatron-moe-modelzoo-qwen3-3": "62",     # Qwen3-235B, Megatron FSDP over 128
}


def subset_rule(rows):
    """The CI subset (README.md, "Subset"): group the ok rows by (source, GPU
    type); leave out SLOW_ROWS (simulation wall time, not accuracy); sort each
    group by (GPU count, model size, file order) and take its first, median
    (index (n-1)//2) and last row. Uses no prediction or error."""
    groups = {}
    for row in rows:
        if row.ok and row.id not in SLOW_ROWS:
            groups.setdefault((row.source, row.short_gpu()), []).append(row)
    picked = []
    for key in sorted(groups, key=lambda k: min(r.line for r in groups[k])):
        g = sorted(groups[key], key=lambda r: (r.gpus, r.size_b or 0.0, r.line))
        for i in sorted({0, (len(g) - 1) // 2, len(g) - 1}):
            picked.append(g[i])
    return picked


def read_subset(path=SUBSET_PATH):
    ids = []
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            ids.append(line)
    return ids


# ---------------------------------------------------------------------------
# Self-test: the conventions against the data set's own cross-checks.
# ---------------------------------------------------------------------------


def self_test(rows=None):
    rows = rows or load_rows()
    by_src = {}
    for row in rows:
        by_src.setdefault(row.source, []).append(row)
    checks = 0

    def close(a, b, rel, what):
        nonlocal checks
        assert abs(a - b) <= rel * abs(b), f"{what}: {a} vs {b} (tolerance {rel * 100:.2f}%)"
        checks += 1

    # 1. Megatron-LM H100: the notes' "Derived iteration time" (2 decimals) and MFU = TFLOP/s / 989.
    for row in by_src["megatron-lm-readme-h100"]:
        notes = row.raw["notes"]
        derived = _note_number(notes, r"Derived iteration time with the r0\.8\.0 formula: ([\d.]+) s")
        if derived is not None:
            assert abs(row.measured_s - derived) <= 0.0051, f"{row.id}: {row.measured_s:.4f} s vs notes {derived} s"
            checks += 1
            mfu = _note_number(notes, r"MFU (\d+)%")
            assert abs(row.value / PEAK_MEGATRON_H100_BF16 * 100 - mfu) <= 0.5, f"{row.id}: MFU {mfu}"
            checks += 1
    # 2. BLOOM: 149.76 TFLOPs at 104.70 s (log 149.77) and 153.68 at 102.03 s (prequel table).
    bloom = by_src["bloom-176b-bigscience"][0]
    tf = flops_per_step(bloom) / (bloom.gpus * 104.70) / 1e12
    assert abs(tf - 149.76) < 0.006, f"BLOOM production: {tf:.3f} TFLOPs, expected 149.76"
    checks += 1
    prequel = [r for r in by_src["bloom-176b-prequel-topology-sweep"] if r.value == 102.03][0]
    tf = flops_per_step(prequel) / (prequel.gpus * 102.03) / 1e12
    assert abs(tf - 153.68) < 0.006, f"BLOOM prequel: {tf:.3f} TFLOPs, expected 153.68"
    checks += 1
    # ... and every BLOOM row's TFLOPs in its notes from its iteration time (h14336 table; the 182B
    # sweep too), and the 73-TFLOPs ramp-up row's step time is that formula / 73.
    for row in by_src["bloom-176b-bigscience"] + by_src["bloom-176b-prequel-topology-sweep"]:
        if row.unit != "iteration_s":
            continue
        logged = _note_number(row.raw["notes"], r"TFLOPs ([\d.]+)")
        tf = flops_per_step(row) / (row.gpus * row.measured_s) / 1e12
        close(tf, logged, 0.002, f"{row.id} TFLOPs")
    # 3. Megatron-LM 2020: TFLOP/s per GPU cells from the iteration times, +-0.1 (+ rounding).
    for row in by_src["megatron-lm-readme-2020"]:
        cell = _note_number(row.raw["notes"], r"TFLOP/s per GPU ([\d.]+)")
        tf = flops_per_step(row) / (row.gpus * row.measured_s) / 1e12
        assert abs(tf - cell) <= 0.15, f"{row.id}: {tf:.2f} vs {cell} TFLOP/s"
        checks += 1
    # 4. NeMo 24.07: TFLOP/s / tokens/s = the full-attention family formula (<0.1% in the data set;
    #    TFLOP/s is rounded to an integer, so 0.2% here).
    for row in by_src["nemo-24.07-perf-summary"]:
        r = row.raw
        L, h, a, g, V, ffn = _dims(row)
        s = int(r["seq_length"])
        per_token = flops_nemo_full(1, s, L, h, ffn, a, g, V, gated=r["activation"] == "swiglu") / s
        tf = _note_number(r["notes"], r"Model TFLOP/s/GPU ([\d.]+)")
        close(per_token * row.value / 1e12, tf, 0.002, f"{row.id} NeMo full-attention FLOPs")
        # ... and the notes' derived step time
        derived = _note_number(r["notes"], r"Derived step time ([\d.]+) s")
        assert abs(row.measured_s - derived) <= 0.0051, f"{row.id}: {row.measured_s} vs {derived}"
        checks += 1
    # 5. Megatron-Bridge 25.11 dense rows: causal-halved formula, <0.2% (0.3% for rounding);
    #    Qwen3 MoE rows: the MoE causal formula gives the implied FLOPs/token (148.1 / 23.0 GFLOP).
    for row in by_src["megatron-bridge-25.11-perf-summary"]:
        r = row.raw
        s = int(r["seq_length"])
        tf = _note_number(r["notes"], r"Model TFLOP/s/GPU ([\d.]+)")
        derived = _note_number(r["notes"], r"Derived step time ([\d.]+) s")
        assert abs(row.measured_s - derived) <= 0.0051, f"{row.id}: {row.measured_s} vs {derived}"
        checks += 1
        if not r["moe_experts"]:
            L, h, a, g, V, ffn = _dims(row)
            per_token = flops_bridge_causal(1, s, L, h, ffn, a, g, V, gated=True) / s
            close(per_token * row.value / 1e12, tf, 0.003, f"{row.id} Bridge causal FLOPs")
        elif row.model.startswith("Qwen3"):
            L, h, a, g, V, ffn = _dims(row)
            per_token = flops_megatron_moe_causal(1, s, L, h, ffn, a, g, V, q=a * 128, topk=int(r["moe_topk"])) / s
            close(per_token * row.value / 1e12, tf, 0.01, f"{row.id} Qwen3 MoE causal FLOPs")
    # 6. Megatron-MoE-ModelZoo: 'Per GPU TF' x GPUs x iteration / tokens = the MoE causal formula (1%),
    #    e.g. 245 TF at 19.7 s -> 147.3 GFLOP/token.
    for row in by_src["megatron-moe-modelzoo-qwen3"]:
        if row.unit != "iteration_s":
            continue
        r = row.raw
        tf = _note_number(r["notes"], r"Per GPU TF ([\d.]+)")
        tokens = int(r["global_batch"]) * int(r["seq_length"])
        implied = tf * 1e12 * row.gpus * row.value / tokens
        close(flops_per_step(row) / tokens, implied, 0.01, f"{row.id} ModelZoo FLOPs/token")
    r0 = by_src["megatron-moe-modelzoo-qwen3"][0]
    assert abs(245e12 * 256 * 19.7 / (2048 * 4096) / 1e9 - 147.3) < 0.05
    # 7. llm-foundry: MFU in the notes = (6N + 12Lhs) x tokens/s / peak, to 0.1 MFU point (0.25%).
    for row in by_src["llm-foundry-mpt-benchmarks"]:
        r = row.raw
        n = _note_number(r["notes"], r"NumParams (\d+)")
        mfu = _note_number(r["notes"], r"MFU ([\d.]+)%")
        peak = LLM_FOUNDRY_PEAK[(row.gpu, "fp8" if r["precision"] == "fp8" else "bf16")]
        got = flops_per_token_llm_foundry(n, int(r["layers"]), int(r["hidden"]), int(r["seq_length"])) * row.value \
            / (peak * 1e12) * 100
        tol = max(0.1, 0.0025 * mfu)   # 70B on 32 A100s closes to 0.22% only
        assert abs(got - mfu) <= tol, f"{row.id}: MFU {got:.2f} vs {mfu}"
        checks += 1
    # 8. tokens/s rows: the notes' "Derived step time" where given (torchtitan has none).
    for row in by_src["llm-foundry-mpt-benchmarks"]:
        derived = _note_number(row.raw["notes"], r"Derived step time ([\d.]+) s")
        assert abs(row.measured_s - derived) <= 0.0051, f"{row.id}: {row.measured_s} vs {derived}"
        checks += 1
    # 9. Ids are unique and stable in form.
    ids = [r.id for r in rows]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z0-9.\-]+-\d+", i) for i in ids)
    return checks


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def _validate_all(preflight, rows):
    bad = 0
    with tempfile.TemporaryDirectory(prefix="pf-validate-") as tmp:
        for row in rows:
            if not row.ok:
                continue
            exp = write_experiment(row, tmp)
            cmd = preflight_command(preflight, row, exp, None, None, command="validate")
            p = subprocess.run(cmd, capture_output=True, text=True)
            verdict = "fits" if p.returncode == 0 else ("OOM" if p.returncode == 3 else f"rc={p.returncode}")
            mem = re.search(r"heaviest stage.*= ([\d.]+) GiB", p.stdout)
            print(f"{row.id:40s} {verdict:6s} {mem.group(1) + ' GiB' if mem else ''}")
            if p.returncode not in (0, 3):
                bad += 1
                print("   " + (p.stderr.strip() or p.stdout.strip()).replace("\n", "\n   "))
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--self-test", action="store_true", help="check the FLOPs conventions against the cross-checks")
    ap.add_argument("--list", action="store_true", help="list rows, status and measured step time")
    ap.add_argument("--validate", metavar="PREFLIGHT", help="run `preflight validate` on every ok row")
    ap.add_argument("--write", metavar="DIR", help="write every ok row's experiment YAML into DIR")
    ap.add_argument("--make-subset", action="store_true", help="print subset.txt from the subset rule")
    args = ap.parse_args(argv)
    rows = load_rows()
    if args.self_test:
        n = self_test(rows)
        print(f"rows.py self-test: {n} checks passed")
    if args.list:
        for row in rows:
            print(f"{row.id:40s} {row.short_gpu():8s} {row.gpus:5d} {row.measured_s:9.3f} s  {row.status}"
                  + (f"  [{'; '.join(row.assumptions)}]" if row.assumptions else ""))
        ok = sum(r.ok for r in rows)
        print(f"{ok} ok, {len(rows) - ok} unsupported of {len(rows)} ({(len(rows) - ok) / len(rows) * 100:.1f}% left out)")
    if args.write:
        os.makedirs(args.write, exist_ok=True)
        for row in rows:
            if row.ok:
                write_experiment(row, args.write)
    if args.make_subset:
        print("# CI subset of public-throughput.csv rows (tests/validation/README.md, \"Subset\").")
        print("# Generated by: /usr/bin/python3 tests/validation/rows.py --make-subset > tests/validation/subset.txt")
        print(f"# Rule: ok rows except rows.SLOW_ROWS (> {SUBSET_MAX_WALL_S} s to simulate), grouped by (source, GPU);")
        print("# per group, sorted by (GPU count, model size, file order): the first, median and last row.")
        for row in subset_rule(rows):
            print(f"{row.id:40s} # {row.model}, {row.gpus} x {row.short_gpu()}")
    if args.validate:
        return 1 if _validate_all(args.validate, rows) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
