#!/usr/bin/python3
"""ctest `accuracy_mpt_triton_sweep` (LABELS accuracy): the presets' Triton
FlashAttention rate against llm-foundry's measured sequence sweeps.

MPT (llm-foundry, FSDP FULL_SHARD, attn_impl triton) measured on one 8-GPU
server from 512 to 32,768 or 65,536 tokens per sequence; none of the runs is
a validation row (configs/calibration/README.md says where each comes from):

  configs/calibration/h100-sxm/mpt_sweep.csv  H100: commit beb8dee's
      scripts/train/benchmarking/h100old.md, 22 amp_bf16 settings (median of
      three runs) and 8 amp_fp8 runs (held out from the fit)
  configs/calibration/a100-sxm/mpt_sweep.csv  A100 80GB: the README's A100
      table (commit 8c8dd48), 48 settings, its 11 validation rows left out

Attention goes from a few percent of the step at 512 tokens to most of it at
32k-65k, so each sweep pins its GPU's Triton rate
(hardware.gpu.efficiency.attention_flash_triton, models/compute/README.md,
"Kernel variants") while the rest of the step is shared with every other row.

Each run becomes an experiment as rows.py builds llm-foundry's rows (MPT:
layernorm, GeLU, tied embeddings, ffn 4h; zero_stage 3; activation
checkpointing -> recompute full; eager elementwise kernels; training.attention
flash_triton). Per sweep the test asserts every run at >= LONG tokens within
MAX_LONG_ERROR (attention's share), every run within MAX_ERROR, and the mean
signed and absolute errors within MAX_BIAS and MAX_MEAN_ABS; MPT-30B is
reported only (REPORTED_ONLY says why). Rates derived from Dao's A100
Triton/FlashAttention-2 ratio (0.30 on A100, 0.136 on Hopper) miss the
longest runs by +21 to +29 % (A100) and +44 to +55 % (H100).

  /usr/bin/python3 tests/validation/mpt_triton_sweep_check.py --preflight build/io/cli/preflight
"""

import csv
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
import check_result

REPO = Path(__file__).resolve().parents[2]
SWEEPS = [("H100", REPO / "configs" / "calibration" / "h100-sxm" / "mpt_sweep.csv",
           REPO / "configs" / "hardware" / "h100-sxm-80gb.yaml"),
          ("A100", REPO / "configs" / "calibration" / "a100-sxm" / "mpt_sweep.csv",
           REPO / "configs" / "hardware" / "a100-sxm-80gb.yaml")]
LONG = 8192            # tokens: attention a third of the step or more
MAX_LONG_ERROR = 12.0  # percent, any asserted run at >= LONG tokens (worst: H100 -4.4 %, A100 +10.4 %)
MAX_ERROR = 25.0       # percent, any asserted run (worst: A100 MPT-760M at 512 tokens -22.1 %, 0.79x the
                       # TFLOP/s of its own 2k run, where MPT-350M and -1B lose nothing)
MAX_MEAN_ABS = 6.0     # percent, per sweep (H100 3.7 %, A100 3.9 %)
MAX_BIAS = 5.0         # percent, mean signed per sweep (H100 -2.5 %, A100 -0.4 %)
# MPT-30B is printed, not asserted: on both GPUs its 8k run takes ~1.4x its 4k run's time per token (the
# model: 1.07-1.12x), which no attention rate reproduces; on H100 it is also ~13 % too fast at every
# length, 512 tokens as much as 4k (not attention: FULL_SHARD of 30B parameters over 8 GPUs, re-gathered
# for every micro-batch and its recompute, weighs more beside H100's faster compute).
REPORTED_ONLY = {"30b"}


def fp8_recipe(r):
    # llm-foundry's amp_fp8 is Transformer Engine's default recipe, delayed scaling (as rows.py maps it).
    return '\n  fp8_recipe: "delayed"' if r["precision"] == "fp8" else ""


def experiment(r, hardware):
    """The run as an experiment: servers of 8 GPUs on a rail-optimised fabric (one server: a switch)."""
    h = int(r["hidden"])
    nodes = max(1, int(r["gpus"]) // 8)
    topology = ('  kind: "single_switch"\n  nodes: 1' if nodes == 1 else
                f'  kind: "rail_optimized"\n  nodes: {nodes}')
    return f"""name: "mpt-{r['model']}-{r['seq_length']}"
model:
  name: "MPT-{r['model']}"
  layers: {r['layers']}
  hidden_size: {h}
  ffn_hidden_size: {4 * h}
  num_attention_heads: {r['heads']}
  num_kv_heads: {r['heads']}
  vocab_size: {r['vocab']}
  activation: "gelu"
  norm: "layernorm"
  tied_embeddings: true
hardware: "{hardware}"
topology:
{topology}
parallelism:
  tp: 1
  pp: 1
  zero_stage: 3
training:
  global_batch_size: {int(r['micro_batch']) * int(r['grad_accum']) * int(r['gpus'])}
  micro_batch_size: {r['micro_batch']}
  seq_length: {r['seq_length']}
  recompute: "{'full' if r['activation_checkpointing'] == 'true' else 'none'}"
  dtype: "{r['precision']}"{fp8_recipe(r)}
  attention: "flash_triton"
  fused_elementwise: false
simulation:
  network: "analytical"
output:
  timeline: false
"""


def step_seconds(preflight, yaml_text, gpus_per_node, workdir):
    path = Path(workdir) / "experiment.yaml"
    path.write_text(yaml_text)
    out = subprocess.run([preflight, "run", str(path), "--quiet", "--set", f"hardware.node.gpus_per_node={gpus_per_node}"],
                         capture_output=True, text=True, timeout=600)
    m = re.search(r"step time\s+([\d.]+) ms", out.stdout)
    if out.returncode not in (0, 3) or not m:  # 3: out of memory, the step is still reported
        raise RuntimeError(f"preflight failed ({out.returncode}): {out.stderr.strip()[:500]}")
    return float(m.group(1)) / 1000.0


def check_sweep(name, data, hardware, preflight, work):
    """Runs one sweep; returns its failures."""
    errors, failures = [], []
    with data.open() as f:
        for r in csv.DictReader(f):
            gpus, seq = int(r["gpus"]), int(r["seq_length"])
            tokens = int(r["micro_batch"]) * int(r["grad_accum"]) * gpus * seq
            measured = tokens / gpus / float(r["tokens_per_s_per_gpu"])
            predicted = step_seconds(preflight, experiment(r, hardware), min(gpus, 8), work)
            err = 100.0 * (predicted - measured) / measured
            reported_only = r["model"] in REPORTED_ONLY
            print(f"{name} MPT-{r['model']:>4} {r['precision']:>4} {seq:>6} tokens: measured {measured:8.3f} s, "
                  f"predicted {predicted:8.3f} s ({err:+.1f} %){' (reported only)' if reported_only else ''}")
            if reported_only:
                continue
            errors.append(err)
            bound = MAX_LONG_ERROR if seq >= LONG else MAX_ERROR
            if abs(err) > bound:
                failures.append(f"{name} MPT-{r['model']} {r['precision']} at {seq} tokens: {err:+.1f} % "
                                f"(bound {bound:g} %)")
    bias, mean_abs = statistics.mean(errors), statistics.mean(abs(e) for e in errors)
    print(f"{name}: {len(errors)} asserted runs, mean |error| {mean_abs:.1f} %, mean signed {bias:+.1f} %, "
          f"worst {max(errors, key=abs):+.1f} %")
    if abs(bias) > MAX_BIAS:
        failures.append(f"{name}: mean signed error {bias:+.1f} % (bound {MAX_BIAS:g} %)")
    if mean_abs > MAX_MEAN_ABS:
        failures.append(f"{name}: mean |error| {mean_abs:.1f} % (bound {MAX_MEAN_ABS:g} %)")
    return failures


def main(argv=None):
    args = check_result.parse_args(__doc__, argv)
    failures = []
    with tempfile.TemporaryDirectory() as work:
        for name, data, hardware in SWEEPS:
            failures += check_sweep(name, data, hardware, args.preflight, work)
    return check_result.finish(failures)


if __name__ == "__main__":
    sys.exit(main())
