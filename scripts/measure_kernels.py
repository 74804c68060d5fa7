#!/usr/bin/env python3
"""Time, on the local NVIDIA GPU, the kernels preflight prices, and write them as CSV tables.

Needs PyTorch with CUDA (it runs where the GPU is, not in preflight's build). The GEMM and
attention shapes are those of the training runs in a validation CSV (the columns of
tests/validation/public-throughput.csv): each run's per-layer GEMMs (QKV, attention
projection, MLP up/down, LM head; forward, dgrad and wgrad in the layouts nn.Linear runs them)
and its attention (per-GPU heads, flash and cuDNN backends of scaled_dot_product_attention,
forward and forward+backward, causal and not). Beside them: the GPU's copy bandwidth and
large-GEMM rate, a sustained-GEMM run with SM clock and power, memory-bound training kernels
(norms, activations, dropout-add, cross-entropy, fused Adam), the host's cost to issue a
kernel (eager PyTorch and CUDA-graph replay) and, for MoE layers (section moe_host), the host's
cost of per-expert GEMMs whose row counts change every call and of a layer stack run with split
sizes fixed (tokendrop) against split sizes copied to the host every layer (dropless).

    python3 scripts/measure_kernels.py --out DIR [--shapes tests/validation/public-throughput.csv]
                                       [--budget-s 300] [--sections ...] [--max-jobs N] [--layer-repeat-s S]

DIR/gemm_bf16.csv and DIR/attention_bf16.csv are calibration tables in preflight's format
(models/compute/CALIBRATION.md: `preflight calibrate --data DIR/gemm_bf16.csv`, or a hardware
file's gpu.calibration naming DIR); DIR/measured/ holds every raw figure, with the SM clock and
power nvidia-smi logged during each section (a rate means little without its clock).
configs/calibration/h200 is this script's output on an H200.

Timing: CUDA events around each repetition, median over the repetitions, inputs rotated over
enough copies to overflow the L2 cache, the host kept ahead of the GPU by a sleep kernel queued
first (so no repetition waits on its launch). Random normal inputs, never zeros.
Everything is written as it is measured, so a run cut short keeps what it got.
"""
import argparse
import csv
import json
import math
import os
import platform
import random
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

DT = torch.bfloat16
L2_BYTES = 64 << 20


def log(*a):
    print(*a, flush=True)


class Budget:
    def __init__(self, total_s):
        self.start = time.time()
        self.total = total_s

    def left(self):
        return self.total - (time.time() - self.start)


def sleep_ahead(seconds):
    # Queue a GPU sleep so the host enqueues the timed launches before the GPU reaches them.
    torch.cuda._sleep(int(max(seconds, 1e-5) * 2.0e9))


def bench(fn, target_s=0.03, min_reps=5, max_reps=100, warm=2):
    """Median GPU time of fn() in ms, with events around each call."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    torch.cuda.synchronize()
    est = max(s.elapsed_time(e) / 1e3, 2e-6)
    n = int(min(max_reps, max(min_reps, target_s / est)))
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
    sleep_ahead(n * 25e-6)
    for a, b in ev:
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    t = sorted(a.elapsed_time(b) for a, b in ev)
    return t[len(t) // 2], n


def seconds_per_call(fn, iters, warm):
    """Wall time of one call of fn(), host and GPU together: `warm` calls, then `iters` timed."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / iters


def copies_for(nbytes):
    return max(1, min(6, math.ceil(3 * L2_BYTES / max(nbytes, 1))))


class Writer:
    def __init__(self, path, header):
        self.f = open(path, "w", newline="")
        self.w = csv.writer(self.f, lineterminator="\n")
        self.w.writerow(header)
        self.f.flush()

    def row(self, *r):
        self.w.writerow(r)
        self.f.flush()


def num(x, default=1):
    try:
        v = int(float(x))
        return v if v > 0 else default
    except (TypeError, ValueError):
        return default


def validation_shapes(path):
    gemms, attn = set(), set()
    with open(path) as f:
        for r in csv.DictReader(f):
            h, ffn, a = num(r["hidden"]), num(r["ffn_hidden"]), num(r["heads"])
            kv = num(r["kv_heads"], a)
            vocab, tp, cp = num(r["vocab"], 0), num(r["tp"]), num(r["cp"])
            mbs, seq = num(r["micro_batch"]), num(r["seq_length"])
            gated = r["activation"].strip().lower() in ("swiglu", "geglu")
            moe = r["moe_experts"].strip() not in ("", "0", "1")
            hd, m = h // a, mbs * seq // cp
            layers = [("qkv", (a + 2 * kv) * hd // tp, h), ("proj", h, a * hd // tp)]
            if vocab:
                layers.append(("lm_head", vocab // tp, h))
            if not moe:
                layers += [("fc1", ffn * (2 if gated else 1) // tp, h), ("fc2", h, ffn // tp)]
            for name, n, k in layers:
                if n > 0 and k > 0:
                    gemms.add((m, n, k))
            attn.add((mbs, seq // cp, max(1, a // tp), max(1, kv // tp), hd))
    return sorted(gemms), sorted(attn)


def env_info(out):
    info = {"torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(), "gpu": torch.cuda.get_device_name(),
            "sm_count": torch.cuda.get_device_properties(0).multi_processor_count,
            "python": platform.python_version()}
    try:
        info["cpu"] = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except Exception:
        info["cpu"] = "?"
    try:
        info["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,power.limit,clocks.max.sm,clocks.max.mem",
             "--format=csv"], capture_output=True, text=True, timeout=20).stdout
    except Exception as e:
        info["nvidia_smi"] = str(e)
    json.dump(info, open(os.path.join(out, "env.json"), "w"), indent=1)
    log(json.dumps(info))


def ceilings(out):
    w = Writer(os.path.join(out, "ceilings.csv"), ["what", "value", "unit"])
    n = 1 << 30  # 2 GiB of bf16 each way
    a = torch.randn(n, device="cuda", dtype=DT)
    b = torch.empty_like(a)
    ms, _ = bench(lambda: b.copy_(a), target_s=0.2)
    w.row("d2d_copy_read_plus_write", 4 * n / ms / 1e6, "GB/s")
    log(f"copy {4 * n / ms / 1e6:.0f} GB/s")
    del a, b
    for sz in (4096, 8192, 16384):
        x = torch.randn(sz, sz, device="cuda", dtype=DT)
        y = torch.randn(sz, sz, device="cuda", dtype=DT)
        ms, _ = bench(lambda: x @ y, target_s=0.2)
        w.row(f"gemm_{sz}_cubed", 2 * sz ** 3 / ms / 1e9, "TFLOP/s")
        log(f"gemm {sz}^3 {2 * sz ** 3 / ms / 1e9:.0f} TFLOP/s")


def sustained(out, seconds):
    """One large GEMM back to back: the rate and clocks a training step's GEMMs see after warm-up."""
    w = Writer(os.path.join(out, "sustained_gemm.csv"), ["t_s", "tflops"])
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,"
                            "clocks_event_reasons.active", "--format=csv", "-lms", "500",
                            "-f", os.path.join(out, "sustained_smi.csv")])
    m = n = k = 8192
    x = torch.randn(m, k, device="cuda", dtype=DT)
    y = torch.randn(k, n, device="cuda", dtype=DT)
    z = torch.empty(m, n, device="cuda", dtype=DT)
    t0 = time.time()
    try:
        while time.time() - t0 < seconds:
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(100):
                torch.matmul(x, y, out=z)
            e.record()
            e.synchronize()
            w.row(f"{time.time() - t0:.2f}", f"{100 * 2 * m * n * k / s.elapsed_time(e) / 1e9:.1f}")
    finally:
        smi.terminate()
    log("sustained done")


def gemm_jobs(shapes, seed):
    """Each (M, N, K) in the three layouts training runs, as (pass, output rows, output cols,
    reduction): forward Y = X W^T (M, N, K), dgrad dX = dY W (M, K, N), wgrad dW = dY^T X
    (N, K, M). Shuffled, so a run cut short by its budget keeps an unbiased subset."""
    jobs = []
    for (m, n, k) in shapes:
        jobs += [("fwd", m, n, k), ("dgrad", m, k, n), ("wgrad", n, k, m)]
    random.Random(seed).shuffle(jobs)
    return jobs


def rotating(make_a, make_b, op, nbytes):
    """op(a, b) over enough copies of its operands to overflow the L2 cache, one copy per call."""
    c = copies_for(nbytes)
    xs = [make_a() for _ in range(c)]
    ws = [make_b() for _ in range(c)]
    it = [0]

    def fn():
        i = it[0] = (it[0] + 1) % c
        return op(xs[i], ws[i])
    return fn


def time_gemms(label, raw_path, table_path, jobs, make_fn, budget, deadline_s):
    """Times make_fn(pass, m, n, k) for each job (None = a shape the kernel does not take) into a
    raw file with the pass and a `preflight calibrate` table (models/compute/CALIBRATION.md)."""
    w = Writer(raw_path, ["pass", "M", "N", "K", "t_measured_ms", "reps"])
    table = Writer(table_path, ["M", "N", "K", "t_measured_ms"])
    done = 0
    for p, m, n, k in jobs:
        if budget.left() < deadline_s:
            break
        fn = None
        try:
            fn = make_fn(p, m, n, k)
            if fn is None:
                continue
            ms, reps = bench(fn)
            w.row(p, m, n, k, f"{ms:.5f}", reps)
            table.row(m, n, k, f"{ms:.5f}")
            done += 1
        except torch.cuda.OutOfMemoryError:
            w.row(p, m, n, k, "-1", 0)
        finally:
            fn = None
    torch.cuda.empty_cache()
    log(f"{label}: {done} of {len(jobs)}")


def gemms(out, table_dir, shapes, budget, deadline_s):
    """bf16 GEMMs in the layouts nn.Linear runs them (cuBLAS through torch)."""
    def rnd(*dims):
        return lambda: torch.randn(*dims, device="cuda", dtype=DT)

    def make(p, m, n, k):
        if p == "fwd":      # X[m,k] W[n,k]^T
            return rotating(rnd(m, k), rnd(n, k), F.linear, (m * k + n * k) * 2)
        if p == "dgrad":    # dY[m,k] W[k,n]: output m x n (the layer's K), reduction k (the layer's N)
            return rotating(rnd(m, k), rnd(k, n), torch.matmul, (m * k + k * n) * 2)
        return rotating(rnd(k, m), rnd(k, n), lambda a, b: a.t() @ b, (k * m + k * n) * 2)  # wgrad
    time_gemms("gemm passes", os.path.join(out, "gemm_passes_bf16.csv"), os.path.join(table_dir, "gemm_bf16.csv"),
               gemm_jobs(shapes, 1), make, budget, deadline_s)


def gemms_fp8(out, table_dir, shapes, budget, deadline_s):
    """The same GEMMs in fp8 (e4m3 operands, per-tensor scales, bf16 out) through torch._scaled_mm,
    in the TN layout every fp8 GEMM runs in on Hopper (Transformer Engine casts and transposes
    the operands first; those casts are separate kernels, not timed here)."""
    one = torch.ones((), device="cuda")

    def rnd8(*dims):
        return lambda: torch.randn(*dims, device="cuda").to(torch.float8_e4m3fn)

    def make(p, m, n, k):
        if m % 16 or n % 16 or k % 16:  # _scaled_mm needs 16-aligned dimensions
            return None
        return rotating(rnd8(m, k), rnd8(n, k),
                        lambda x, w: torch._scaled_mm(x, w.t(), scale_a=one, scale_b=one, out_dtype=DT), m * k + n * k)
    time_gemms("fp8 gemm passes", os.path.join(out, "gemm_passes_fp8.csv"), os.path.join(table_dir, "gemm_fp8.csv"),
               gemm_jobs(shapes, 5), make, budget, deadline_s)


def attention(out, table_dir, shapes, budget, deadline_s):
    """Also writes cuDNN's non-causal forward rows as a `preflight calibrate` attention table
    (table_dir/attention_bf16.csv; the kernel Transformer Engine runs on Hopper and later:
    `gpu.calibration_attention: flash`)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    w = Writer(os.path.join(out, "attention_runs_bf16.csv"),
               ["backend", "causal", "bs", "seq", "nh", "nkv", "hd", "fwd_ms", "fwd_bwd_ms"])
    table = Writer(os.path.join(table_dir, "attention_bf16.csv"), ["bs", "seq", "nh", "nkv", "hd", "t_measured_ms"])
    backends = [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)]
    jobs = [(b, c, s) for s in shapes for b in backends for c in (True, False)]
    random.Random(2).shuffle(jobs)
    done = 0
    for (bname, backend), causal, (bs, seq, nh, nkv, hd) in jobs:
        if budget.left() < deadline_s:
            break
        fwd = fb = -1.0
        try:
            q = torch.randn(bs, nh, seq, hd, device="cuda", dtype=DT, requires_grad=True)
            k = torch.randn(bs, nkv, seq, hd, device="cuda", dtype=DT, requires_grad=True)
            v = torch.randn(bs, nkv, seq, hd, device="cuda", dtype=DT, requires_grad=True)
            g = torch.randn(bs, nh, seq, hd, device="cuda", dtype=DT)
            gqa = nkv != nh
            with sdpa_kernel([backend]):
                def f():
                    with torch.no_grad():
                        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)

                def fbw():
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
                    o.backward(g)
                    q.grad = k.grad = v.grad = None
                fwd, _ = bench(f, target_s=0.02, min_reps=3)
                fb, _ = bench(fbw, target_s=0.03, min_reps=3)
            done += 1
        except Exception as e:  # a backend that does not take the shape
            log(f"attention {bname} {bs},{seq},{nh},{nkv},{hd} causal={causal}: {type(e).__name__}")
        finally:
            q = k = v = g = None
        w.row(bname, int(causal), bs, seq, nh, nkv, hd, f"{fwd:.5f}", f"{fb:.5f}")
        if bname == "cudnn" and not causal and fwd > 0:
            table.row(bs, seq, nh, nkv, hd, f"{fwd:.5f}")
    torch.cuda.empty_cache()
    log(f"attention: {done} of {len(jobs)}")


def memory_bound(out, budget, deadline_s):
    """Training's memory-bound kernels; bytes = the fewest each must move (inputs read once, outputs
    written once), so bytes / time against the copy ceiling is each kernel's bandwidth fraction."""
    w = Writer(os.path.join(out, "memory_bound.csv"), ["op", "tokens", "dim", "bytes", "t_measured_ms"])
    for tokens, dim in ((4096, 4096), (8192, 4096), (8192, 8192), (16384, 8192), (8192, 16384)):
        if budget.left() < deadline_s:
            break
        n = tokens * dim
        x = torch.randn(tokens, dim, device="cuda", dtype=DT, requires_grad=True)
        r = torch.randn(tokens, dim, device="cuda", dtype=DT)
        gw = torch.randn(dim, device="cuda", dtype=DT, requires_grad=True)
        gb = torch.randn(dim, device="cuda", dtype=DT, requires_grad=True)
        gy = torch.randn(tokens, dim, device="cuda", dtype=DT)

        def fwd_bwd(f):
            def run():
                y = f()
                y.backward(gy)
                x.grad = gw.grad = gb.grad = None
            return run
        with torch.no_grad():
            cases = [("rmsnorm_fwd", lambda: F.rms_norm(x, (dim,), gw), 4 * n),
                     ("layernorm_fwd", lambda: F.layer_norm(x, (dim,), gw, gb), 4 * n),
                     ("gelu_tanh_fwd", lambda: F.gelu(x, approximate="tanh"), 4 * n),
                     ("silu_mul_fwd", lambda: F.silu(x) * r, 6 * n),
                     ("dropout_add_fwd", lambda: F.dropout(x, 0.1, True) + r, 6 * n),
                     ("add", lambda: x + r, 6 * n),
                     ("cast_bf16_to_fp32", lambda: x.float(), 6 * n)]
            for name, f, nbytes in cases:
                ms, _ = bench(f, target_s=0.02)
                w.row(name, tokens, dim, nbytes, f"{ms:.5f}")
        for name, f, nbytes in (("rmsnorm_fwd_bwd", lambda: F.rms_norm(x, (dim,), gw), 10 * n),
                                ("layernorm_fwd_bwd", lambda: F.layer_norm(x, (dim,), gw, gb), 10 * n),
                                ("gelu_tanh_fwd_bwd", lambda: F.gelu(x, approximate="tanh"), 10 * n)):
            ms, _ = bench(fwd_bwd(f), target_s=0.02)
            w.row(name, tokens, dim, nbytes, f"{ms:.5f}")
        x = r = gw = gb = gy = None
    for tokens, vocab in ((4096, 32000), (8192, 32000), (4096, 131072), (8192, 50304), (4096, 256000), (8192, 16032)):
        if budget.left() < deadline_s:
            break
        logits = torch.randn(tokens, vocab, device="cuda", dtype=DT, requires_grad=True)
        tgt = torch.randint(0, vocab, (tokens,), device="cuda")

        def ce():
            loss = F.cross_entropy(logits.float(), tgt)
            loss.backward()
            logits.grad = None
        ms, _ = bench(ce, target_s=0.02)
        w.row("cross_entropy_fp32_fwd_bwd", tokens, vocab, 4 * tokens * vocab, f"{ms:.5f}")
        logits = None
    for params in (25_000_000, 100_000_000, 400_000_000):
        if budget.left() < deadline_s:
            break
        p = torch.nn.Parameter(torch.randn(params, device="cuda", dtype=torch.float32))
        p.grad = torch.randn_like(p)
        opt = torch.optim.AdamW([p], lr=1e-4, fused=True)
        opt.step()
        ms, _ = bench(opt.step, target_s=0.05)
        # fp32 param, grad, exp_avg, exp_avg_sq read; param, exp_avg, exp_avg_sq written
        w.row("adamw_fused_fp32", params, 1, 28 * params, f"{ms:.5f}")
        p = opt = None
    torch.cuda.empty_cache()
    log("memory-bound done")


def fused(out, budget, deadline_s):
    """Memory-bound training kernels fused by torch.compile (one Triton kernel per pass, as
    Megatron's fused and Transformer Engine's kernels are one kernel per pass): RMSNorm, SwiGLU,
    bias-dropout-add, and a plain add for the bandwidth a single pass reaches. bytes = the fewest
    each pass must move (fwd: inputs read once, output written once; bwd likewise)."""
    w = Writer(os.path.join(out, "fused_memory_bound.csv"), ["op", "tokens", "dim", "bytes", "t_measured_ms"])

    def rmsnorm(x, g):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * g

    def swiglu(a, b):
        return F.silu(a) * b

    def bias_dropout_add(x, bias, r):
        return F.dropout(x + bias, 0.1, True) + r

    ops = {name: torch.compile(fn, dynamic=False) for name, fn in
           (("rmsnorm", rmsnorm), ("swiglu", swiglu), ("bias_dropout_add", bias_dropout_add))}
    for tokens, dim in ((8192, 8192), (16384, 8192)):
        if budget.left() < deadline_s:
            break
        n = tokens * dim
        x = torch.randn(tokens, dim, device="cuda", dtype=DT, requires_grad=True)
        b = torch.randn(tokens, dim, device="cuda", dtype=DT, requires_grad=True)
        r = torch.randn(tokens, dim, device="cuda", dtype=DT)
        g = torch.randn(dim, device="cuda", dtype=DT, requires_grad=True)
        gy = torch.randn(tokens, dim, device="cuda", dtype=DT)
        cases = (("rmsnorm", lambda: ops["rmsnorm"](x, g), 4 * n, 10 * n),
                 ("swiglu", lambda: ops["swiglu"](x, b), 6 * n, 16 * n),
                 ("bias_dropout_add", lambda: ops["bias_dropout_add"](x, g, r), 6 * n, 10 * n))
        for name, f, fwd_bytes, fb_bytes in cases:
            with torch.no_grad():
                ms, _ = bench(f, target_s=0.02, warm=3)
            w.row(f"{name}_fwd", tokens, dim, fwd_bytes, f"{ms:.5f}")

            def fwd_bwd():
                f().backward(gy)
                x.grad = b.grad = g.grad = None
            ms, _ = bench(fwd_bwd, target_s=0.02, warm=3)
            w.row(f"{name}_fwd_bwd", tokens, dim, fb_bytes, f"{ms:.5f}")
        with torch.no_grad():
            ms, _ = bench(lambda: x + r, target_s=0.02)
        w.row("add", tokens, dim, 6 * n, f"{ms:.5f}")
        x = b = r = g = gy = None
    torch.cuda.empty_cache()
    log("fused done")


def host(out, budget, deadline_s):
    """What the host costs per kernel: wall time of back-to-back tiny ops (the GPU finishes each
    in a few microseconds, so the host's issue rate sets the pace), eager and graph-replayed."""
    w = Writer(os.path.join(out, "host.csv"), ["what", "kernels_per_iter", "us_per_kernel", "note"])
    a = torch.randn(256, device="cuda")
    b = torch.randn(256, device="cuda")
    c = torch.empty(256, device="cuda")

    def wall(fn, iters):
        return seconds_per_call(fn, iters, warm=50) * 1e6
    w.row("eager_add_out", 1, f"{wall(lambda: torch.add(a, b, out=c), 20000):.3f}", "torch.add(out=) on 256 floats")
    xs = torch.randn(64, 256, device="cuda", dtype=DT)
    ws = torch.randn(256, 256, device="cuda", dtype=DT)
    w.row("eager_linear", 1, f"{wall(lambda: F.linear(xs, ws), 10000):.3f}", "F.linear 64x256x256 bf16")
    # A small MLP's training step under autograd: the per-kernel host cost as training issues kernels.
    model = torch.nn.Sequential(*[m for _ in range(8) for m in (torch.nn.Linear(256, 256), torch.nn.GELU())]).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    inp = torch.randn(64, 256, device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        model(inp).square().mean().backward()
        opt.step()
    for _ in range(5):
        step()
    torch.cuda.synchronize()
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    kernels = sum(1 for ev in prof.events() if ev.device_type == torch.autograd.DeviceType.CUDA)
    per_step = wall(step, 300)
    w.row("eager_mlp_train_step", kernels, f"{per_step / max(kernels, 1):.3f}",
          f"8x(Linear 256 + GELU), fwd+bwd+fused AdamW, {per_step:.1f} us/step")
    # The same step replayed from a CUDA graph.
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            model(inp).square().mean().backward()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    sg = torch.randn(64, 256, device="cuda")
    with torch.cuda.graph(g):
        out_g = model(sg).square().mean()
        out_g.backward()
    per_replay = wall(g.replay, 500)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        g.replay()
        torch.cuda.synchronize()
    gk = sum(1 for ev in prof.events() if ev.device_type == torch.autograd.DeviceType.CUDA)
    w.row("graph_mlp_fwd_bwd_replay", gk, f"{per_replay / max(gk, 1):.3f}",
          f"fwd+bwd graph replay, {per_replay:.1f} us/replay (kernel count from profiler; 0 = not seen)")
    log("host done")


def layer(out, budget, deadline_s, repeat_s=0.0):
    """A Llama-style decoder layer (RMSNorm, QKV, SDPA cuDNN, proj, SwiGLU MLP) forward+backward in
    eager PyTorch: wall time against the sum of its kernels by class (profiler)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.profiler import ProfilerActivity, profile
    w = Writer(os.path.join(out, "layer.csv"), ["config", "wall_ms", "kernel_class", "kernel_ms", "kernels"])
    # (hidden, heads, kv heads, MLP width per GPU, seq): one GPU's share of the layer at the TP named
    for name, (hin, nh, nkv, ffn, seq) in (("llama2-7b_tp1_s4096", (4096, 32, 32, 11008, 4096)),
                                           ("llama3-8b_tp1_s8192", (4096, 32, 8, 14336, 8192)),
                                           ("llama3-70b_tp8_s8192", (8192, 8, 1, 3584, 8192))):
        if budget.left() < deadline_s:
            break
        hd, mbs = 128, 1
        wq = torch.randn((nh + 2 * nkv) * hd, hin, device="cuda", dtype=DT) * 0.02
        wo = torch.randn(hin, nh * hd, device="cuda", dtype=DT) * 0.02
        w1 = torch.randn(2 * ffn, hin, device="cuda", dtype=DT) * 0.02
        w2 = torch.randn(hin, ffn, device="cuda", dtype=DT) * 0.02
        nw = torch.ones(hin, device="cuda", dtype=DT)
        for t in (wq, wo, w1, w2, nw):
            t.requires_grad_(True)
        x = torch.randn(mbs * seq, hin, device="cuda", dtype=DT, requires_grad=True)

        def run():
            y = F.rms_norm(x, (hin,), nw)
            qkv = F.linear(y, wq).view(mbs, seq, nh + 2 * nkv, hd).transpose(1, 2)
            q, k, v = qkv.split([nh, nkv, nkv], dim=1)
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION]):
                o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=nkv != nh)
            o = o.transpose(1, 2).reshape(mbs * seq, nh * hd)
            x2 = x + F.linear(o, wo)
            y2 = F.rms_norm(x2, (hin,), nw)
            a, b = F.linear(y2, w1).chunk(2, dim=-1)
            z = x2 + F.linear(F.silu(a) * b, w2)
            z.backward(torch.ones_like(z))
            for t in (x, wq, wo, w1, w2, nw):
                t.grad = None
        for _ in range(3):
            run()
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(10):
            run()
        torch.cuda.synchronize()
        wall_ms = (time.perf_counter() - t) / 10 * 1e3
        if repeat_s > 0:  # the layer back to back: the clock a training mix holds (see smi_layer.csv)
            ws = Writer(os.path.join(out, f"layer_sustained_{name}.csv"), ["t_s", "iter_ms"])
            t0 = time.time()
            while time.time() - t0 < repeat_s:
                s0, e0 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s0.record()
                for _ in range(10):
                    run()
                e0.record()
                e0.synchronize()
                ws.row(f"{time.time() - t0:.3f}", f"{s0.elapsed_time(e0) / 10:.4f}")
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            run()
            torch.cuda.synchronize()
        classes = {}
        for ev in prof.events():
            if ev.device_type != torch.autograd.DeviceType.CUDA:
                continue
            n = ev.name.lower()
            cls = ("gemm" if any(s in n for s in ("gemm", "cutlass", "sm90_xmma", "nvjet", "cublas"))
                   else "attention" if any(s in n for s in ("flash", "fmha", "cudnn", "attn", "sdpa"))
                   else "other")
            ms, cnt = classes.get(cls, (0.0, 0))
            classes[cls] = (ms + ev.time_range.elapsed_us() / 1e3, cnt + 1)
        for cls, (ms, cnt) in sorted(classes.items()):
            w.row(name, f"{wall_ms:.4f}", cls, f"{ms:.4f}", cnt)
        names = sorted({ev.name for ev in prof.events() if ev.device_type == torch.autograd.DeviceType.CUDA})
        with open(os.path.join(out, f"layer_kernels_{name}.txt"), "w") as f:
            f.write("\n".join(names))
        log(f"layer {name}: wall {wall_ms:.3f} ms, {classes}")
        wq = wo = w1 = w2 = nw = x = None
    torch.cuda.empty_cache()


# One expert-parallel rank's share of a MoE layer, balanced routing: (tokens routed per rank, top-k,
# local experts, hidden, expert FFN width). Qwen3-30B-A3B and Qwen3-235B-A22B at EP 8, micro-batch 1,
# sequence 4096; GPT-OSS 120B at EP 8, micro-batch 1, sequence 4096 (Megatron-Bridge 25.11's plans).
MOE_SHAPES = (("qwen3-30b-a3b_ep8", (4096, 8, 16, 2048, 768)),
              ("qwen3-235b-a22b_ep8", (4096, 8, 16, 4096, 1536)),
              ("gpt-oss-120b_ep8", (4096, 4, 16, 2880, 2880)))


def split_draws(rows, experts, draws, seed):
    """`draws` lists of per-expert row counts summing to `rows`: multinomial, as a force-balanced
    (random-logit) router spreads them; a new list every call, as dropless training sees."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(draws):
        pick = torch.randint(0, experts, (rows,), generator=g)
        out.append(torch.bincount(pick, minlength=experts).tolist())
    return out


def expert_gemm_issue(w, name, shape, budget, deadline_s):
    """Host time to issue one local expert's GEMM, split sizes fixed (tokendrop: every expert at its
    capacity) against split sizes that change every call (dropless): with the GPU kept busy ahead,
    only the host is timed. A cuBLAS heuristic cached per shape shows as a gap between the two."""
    tokens, topk, experts, hid, ffn = shape
    rows = tokens * topk
    x = torch.randn(rows + experts * 64, hid, device="cuda", dtype=DT)
    w1 = [torch.randn(2 * ffn, hid, device="cuda", dtype=DT) * 0.02 for _ in range(experts)]
    reps = max(1, 480 // experts)  # launches stay under the queue depth, so the host never blocks
    for mode, splits in (("fixed", [[rows // experts] * experts] * reps),
                         ("varying", split_draws(rows, experts, reps, seed=11))):
        for m in splits[0]:
            F.linear(x[:m], w1[0])
        torch.cuda.synchronize()
        sleep_ahead(0.5)
        t = time.perf_counter()
        for counts in splits:
            start = 0
            for e, m in enumerate(counts):
                F.linear(x[start:start + m], w1[e])
                start += m
        host_us = (time.perf_counter() - t) / (reps * experts) * 1e6
        torch.cuda.synchronize()
        w.row(name, "expert_fc1_issue", mode, f"{host_us:.3f}", "us_per_gemm",
              f"{reps} x {experts} F.linear [{rows}/{experts} rows x {hid}] x [{hid} x {2 * ffn}], GPU busy ahead")
        if budget.left() < deadline_s:
            return


def moe_block(x, wr, w1, w2, topk, splits_of):
    """Router, permutation by expert, per-expert SwiGLU MLP, weighted unpermutation (autograd).
    `splits_of(counts)` returns the host split sizes: a D2H copy (dropless) or constants."""
    experts = len(w1)
    probs, choice = torch.topk(torch.softmax(F.linear(x, wr).float(), dim=-1), topk, dim=-1)
    choice = choice.flatten() % experts
    order = torch.argsort(choice, stable=True)
    token = order // topk
    counts = torch.bincount(choice, minlength=experts)
    splits = splits_of(counts)
    xs = x.index_select(0, token)
    ys = []
    for e, chunk in enumerate(torch.split(xs, splits)):
        a, b = F.linear(chunk, w1[e]).chunk(2, dim=-1)
        ys.append(F.linear(F.silu(a) * b, w2[e]))
    y = torch.cat(ys) * probs.flatten()[order].unsqueeze(1).to(x.dtype)
    return x + torch.zeros_like(x).index_add(0, token, y)


def moe_layer_modes(w, name, shape, budget, deadline_s, layers=4, iters=5):
    """The layer stack forward+backward with static split sizes (tokendrop: no host sync) and with
    the counts copied to the host every layer (dropless): wall time per layer and the GPU's own
    kernel time per layer (profiler); their difference is what the host adds."""
    from torch.profiler import ProfilerActivity, profile
    tokens, topk, experts, hid, ffn = shape
    wr = torch.randn(experts * 8, hid, device="cuda", dtype=DT) * 0.02
    ws = [(torch.randn(2 * ffn, hid, device="cuda", dtype=DT) * 0.02,
           torch.randn(hid, ffn, device="cuda", dtype=DT) * 0.02) for _ in range(layers * experts)]
    params = [wr] + [t for pair in ws for t in pair]
    for t in params:
        t.requires_grad_(True)
    x0 = torch.randn(tokens, hid, device="cuda", dtype=DT, requires_grad=True)
    static = [tokens * topk // experts] * experts
    static[-1] += tokens * topk - sum(static)
    modes = (("static_splits", lambda counts: static),
             ("dropless_d2h", lambda counts: counts.tolist()))
    for mode, splits_of in modes:
        def run():
            x = x0
            for l in range(layers):
                w1 = [ws[l * experts + e][0] for e in range(experts)]
                w2 = [ws[l * experts + e][1] for e in range(experts)]
                x = moe_block(x, wr, w1, w2, topk, splits_of)
            x.float().square().mean().backward()
            for t in params + [x0]:
                t.grad = None
        wall_ms = seconds_per_call(run, iters, warm=2) / layers * 1e3
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            run()
            torch.cuda.synchronize()
        kern = [ev for ev in prof.events() if ev.device_type == torch.autograd.DeviceType.CUDA]
        gpu_ms = sum(ev.time_range.elapsed_us() for ev in kern) / 1e3 / layers
        w.row(name, "layer_fwd_bwd_wall", mode, f"{wall_ms:.4f}", "ms_per_layer",
              f"{layers} layers x {iters} iterations, {experts} local experts, top-{topk}")
        w.row(name, "layer_fwd_bwd_kernels", mode, f"{gpu_ms:.4f}", "ms_per_layer",
              f"{len(kern) / layers:.0f} kernels per layer (profiler)")
        log(f"moe {name} {mode}: wall {wall_ms:.3f} ms/layer, kernels {gpu_ms:.3f} ms/layer")
        if budget.left() < deadline_s:
            break
    ws = params = x0 = None
    torch.cuda.empty_cache()


def moe_host(out, budget, deadline_s):
    """What a dropless MoE layer costs beside its kernels, on this host and GPU (issue 12: the
    dropless all-to-all rows of Megatron-Bridge 25.11 ran 1.26-1.99x their plans' tokendrop
    runs). No expert parallelism here (one GPU): its dispatch is left out, the host's share kept."""
    w = Writer(os.path.join(out, "moe_host.csv"), ["shape", "what", "mode", "value", "unit", "note"])
    for name, shape in MOE_SHAPES:
        if budget.left() < deadline_s:
            break
        expert_gemm_issue(w, name, shape, budget, deadline_s)
        moe_layer_modes(w, name, shape, budget, deadline_s)
    log("moe_host done")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", default="tests/validation/public-throughput.csv")
    ap.add_argument("--budget-s", type=float, default=300)
    ap.add_argument("--sustained-s", type=float, default=20)
    ap.add_argument("--layer-repeat-s", type=float, default=0,
                    help="also run each layer back to back this long, logging its time (clock under a training mix)")
    ap.add_argument("--sections",
                    default="ceilings,host,sustained,gemm,gemm_fp8,memory_bound,fused,layer,attention,moe_host",
                    help="comma-separated subset to run, in the fixed order")
    ap.add_argument("--max-jobs", type=int, default=0, help="at most this many GEMM and attention jobs (0 = all)")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("measure_kernels.py: no CUDA GPU visible to PyTorch")
    # Calibration tables at the top of --out (a hardware file's gpu.calibration can name the folder),
    # every raw measurement in --out/measured.
    raw = os.path.join(args.out, "measured")
    os.makedirs(raw, exist_ok=True)
    budget = Budget(args.budget_s)
    gem, att = validation_shapes(args.shapes)
    log(f"{len(gem)} GEMM shapes x 3 passes, {len(att)} attention shapes from {args.shapes}")
    torch.manual_seed(0)
    env_info(raw)
    # Each section stops when less than its reserve is left, so the later ones still run.
    sections = [("ceilings", lambda: ceilings(raw)),
                ("host", lambda: host(raw, budget, 0)),
                ("sustained", lambda: sustained(raw, args.sustained_s)),
                ("gemm", lambda: gemms(raw, args.out, gem, budget, 0.55 * args.budget_s)),
                ("gemm_fp8", lambda: gemms_fp8(raw, args.out, gem, budget, 0.5 * args.budget_s)),
                ("memory_bound", lambda: memory_bound(raw, budget, 0.45 * args.budget_s)),
                ("fused", lambda: fused(raw, budget, 0.42 * args.budget_s)),
                ("layer", lambda: layer(raw, budget, 0.4 * args.budget_s, args.layer_repeat_s)),
                ("attention", lambda: attention(raw, args.out, att, budget, 0.03 * args.budget_s)),
                ("moe_host", lambda: moe_host(raw, budget, 0.0))]
    wanted = set(args.sections.split(","))
    if args.max_jobs:
        gem[:] = random.Random(3).sample(gem, min(len(gem), max(1, args.max_jobs // 3)))
        att[:] = random.Random(4).sample(att, min(len(att), max(1, args.max_jobs // 4)))
    for name, fn in sections:
        if name not in wanted:
            continue
        t = time.time()
        # The SM clock and power while the section runs: a measured rate means little without its clock.
        smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,"
                                "clocks_event_reasons.active", "--format=csv,noheader", "-lms", "100",
                                "-f", os.path.join(raw, f"smi_{name}.csv")])
        try:
            fn()
        except Exception as e:
            log(f"section {name} failed: {type(e).__name__}: {e}")
        finally:
            smi.terminate()
        log(f"[{name}] {time.time() - t:.1f} s, {budget.left():.0f} s left")


if __name__ == "__main__":
    main()
