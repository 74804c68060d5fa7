// What communication each kind of parallelism adds, and how it overlaps.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/error.h"
#include "models/workload/stage_params.h"
#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

using testing::Config;
using testing::is_grad_reduce;

int count(const std::vector<Op>& ops, OpKind kind, Phase phase, int layer, int microbatch) {
  return static_cast<int>(std::count_if(ops.begin(), ops.end(), [&](const Op& o) {
    return o.kind == kind && o.phase == phase && o.layer == layer && o.microbatch == microbatch && !o.recompute;
  }));
}

TEST(ProgramComm, TensorParallelAllReduceOrSequenceParallelReduceScatterAllGather) {
  Config c;
  c.tp = 4;
  std::vector<Op> plain = testing::ops_of(testing::make_plan(c), 1);
  EXPECT_EQ(count(plain, OpKind::tp_all_reduce, Phase::fwd, 2, 3), 2);
  EXPECT_EQ(count(plain, OpKind::tp_all_reduce, Phase::bwd, 2, 3), 2);
  EXPECT_EQ(count(plain, OpKind::tp_all_gather, Phase::fwd, 2, 3), 0);
  c.sp = true;
  std::vector<Op> sp = testing::ops_of(testing::make_plan(c), 1);
  EXPECT_EQ(count(sp, OpKind::tp_all_reduce, Phase::fwd, 2, 3), 0);
  EXPECT_EQ(count(sp, OpKind::tp_all_gather, Phase::fwd, 2, 3), 2);
  EXPECT_EQ(count(sp, OpKind::tp_reduce_scatter, Phase::fwd, 2, 3), 2);
  // Backward: gather the output gradient and re-gather the saved input of each
  // column-parallel GEMM, reduce-scatter the input gradient.
  EXPECT_EQ(count(sp, OpKind::tp_all_gather, Phase::bwd, 2, 3), 4);
  EXPECT_EQ(count(sp, OpKind::tp_reduce_scatter, Phase::bwd, 2, 3), 2);
  // Same bytes either way: the full [s, b, h] activation in 16 bits.
  for (const Op& op : sp) {
    if (op.layer == 2 && op.kind == OpKind::tp_all_gather) {
      EXPECT_EQ(op.bytes, 128u * 256 * 2);
    }
  }
}

// Under fp8 the frameworks cast each sequence-parallel shard and gather it in
// one byte per element (Transformer Engine and torchao alike: the norm output
// before QKV and fc1, the output gradient before the projection's and fc2's
// input gradients, the re-gathers for the weight gradients); the
// reduce-scatters carry 16-bit GEMM outputs.
TEST(ProgramComm, Fp8SequenceParallelGathersMoveOneBytePerElement) {
  for (const bool fp8 : {false, true}) {
    Config c;
    c.tp = 4;
    c.sp = true;
    c.fp8 = fp8;
    const std::vector<Op> ops = testing::ops_of(testing::make_plan(c), 1);
    int gathers = 0, scatters = 0;
    for (const Op& op : ops) {
      if (op.layer != 2 || op.microbatch != 3) continue;
      if (op.kind == OpKind::tp_all_gather) {
        EXPECT_EQ(op.bytes, 128u * 256 * (fp8 ? 1 : 2)) << (op.phase == Phase::fwd ? "forward" : "backward");
        ++gathers;
      }
      if (op.kind == OpKind::tp_reduce_scatter) {
        EXPECT_EQ(op.bytes, 128u * 256 * 2);
        ++scatters;
      }
    }
    EXPECT_EQ(gathers, 6) << fp8;
    EXPECT_EQ(scatters, 4) << fp8;
  }
}

// Whether op `later` waits for op `earlier`, directly or through other ops.
bool waits_for(const std::vector<Op>& ops, std::uint32_t later, std::uint32_t earlier) {
  if (later == earlier) return true;
  if (later < earlier) return false;
  const Op& o = ops[later];
  for (int d = 0; d < o.dep_count; ++d) {
    if (waits_for(ops, o.deps[static_cast<std::size_t>(d)], earlier)) return true;
  }
  return false;
}

// In forward, the compute op after a tensor-parallel collective waits for it.
TEST(ProgramComm, TensorParallelCollectivesAreOnTheCriticalPath) {
  for (bool sp : {false, true}) {
    Config c;
    c.tp = 2;
    c.sp = sp;
    std::vector<Op> ops = testing::ops_of(testing::make_plan(c), 0);
    int checked = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].group.kind() != GroupKind::tp || ops[i].phase != Phase::fwd) continue;
      auto next = std::find_if(ops.begin() + static_cast<long>(i) + 1, ops.end(),
                               [](const Op& o) { return o.stream == Stream::compute; });
      ASSERT_NE(next, ops.end());
      EXPECT_TRUE(waits_for(ops, next->id, ops[i].id)) << kind_name(ops[i].kind) << " -> " << kind_name(next->kind);
      ++checked;
    }
    EXPECT_GT(checked, 0);
  }
}

// training.tp_comm_overlap: each all-gather runs beside the GEMM that reads it
// (the GEMM waits only for the local shard; the next compute op waits for
// both), and each forward reduce-scatter in Transformer Engine's pipeline of
// four chunks: three quarters of its bytes beside the GEMM that feeds it (it
// waits for the GEMM's input, not its output), the last chunk's quarter after
// the GEMM and after them; the next compute op waits for that one. Off, or
// without sequence parallelism, nothing changes; either way the programs run
// to completion.
TEST(ProgramComm, TensorParallelOverlapRunsCollectivesBesideTheirGemms) {
  auto plan_with = [](bool sp, bool overlap) {
    Config c;
    c.tp = 2;
    c.sp = sp;
    c.dp = 2;
    WorkloadPlan base = testing::make_plan(c);
    TrainingSpec t = base.training();
    t.tp_comm_overlap = overlap;
    return WorkloadPlan(base.model(), base.parallelism(), t);
  };
  const std::vector<Op> ops = testing::ops_of(plan_with(true, true), 0);
  const WorkloadPlan shape = plan_with(true, true);
  const std::uint64_t hidden_bytes = static_cast<std::uint64_t>(shape.training().micro_batch_size) *
                                     static_cast<std::uint64_t>(shape.training().seq_length) *
                                     static_cast<std::uint64_t>(shape.model().hidden_size) * 2;
  int gathers = 0, scatters = 0;
  std::uint32_t overlapped = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& o = ops[i];
    if (o.group.kind() != GroupKind::tp || o.phase != Phase::fwd || o.microbatch != 0 || o.layer != 0) continue;
    const auto after = ops.begin() + static_cast<long>(i) + 1;
    auto gemm = std::find_if(after, ops.end(), [](const Op& x) { return op_class(x.kind) == OpClass::gemm; });
    ASSERT_NE(gemm, ops.end());
    if (o.kind == OpKind::tp_all_gather) {
      EXPECT_FALSE(waits_for(ops, gemm->id, o.id)) << kind_name(gemm->kind) << " starts on the local shard";
      auto consumer = std::find_if(gemm + 1, ops.end(), [&](const Op& x) { return waits_for(ops, x.id, gemm->id); });
      ASSERT_NE(consumer, ops.end());
      EXPECT_TRUE(waits_for(ops, consumer->id, o.id)) << kind_name(consumer->kind) << " needs the whole gather";
      ++gathers;
    }
    if (o.kind == OpKind::tp_reduce_scatter) {
      const Op& producer = ops[o.deps[0]];
      const bool tail = op_class(producer.kind) == OpClass::gemm;
      if (!tail) {
        EXPECT_EQ(o.bytes, hidden_bytes - hidden_bytes / 4) << "the first chunks start with their GEMM";
        overlapped = o.id;
      } else {
        EXPECT_EQ(o.bytes, hidden_bytes / 4) << "the last chunk follows " << kind_name(producer.kind);
        EXPECT_TRUE(waits_for(ops, o.id, overlapped)) << "and the chunks before it";
        auto next = std::find_if(after, ops.end(), [](const Op& x) { return x.stream == Stream::compute; });
        ASSERT_NE(next, ops.end());
        EXPECT_TRUE(waits_for(ops, next->id, o.id)) << kind_name(next->kind) << " waits for the last chunk";
      }
      ++scatters;
    }
  }
  EXPECT_EQ(gathers, 2);
  EXPECT_EQ(scatters, 4);  // two reduce-scatters a layer, two pieces each
  for (bool sp : {false, true}) {
    for (bool overlap : {false, true}) {
      const WorkloadPlan plan = plan_with(sp, overlap);
      EXPECT_EQ(testing::dry_run(plan, testing::all_ops(plan)), 0u) << sp << overlap;
    }
  }
  // Without sequence parallelism there is nothing to overlap: the same ops and dependencies.
  const std::vector<Op> off = testing::ops_of(plan_with(false, false), 0), on = testing::ops_of(plan_with(false, true), 0);
  ASSERT_EQ(off.size(), on.size());
  for (std::size_t i = 0; i < off.size(); ++i) {
    EXPECT_EQ(off[i].dep_count, on[i].dep_count);
    EXPECT_EQ(off[i].deps, on[i].deps);
  }
}

// training.tp_comm_overlap runs each GEMM that reads a gathered tensor (QKV
// and fc1 forward, the projection's and fc2's input gradients) as Transformer
// Engine's ring exchange does: tp chunks of tokens / tp rows, three at a time
// on its GEMM streams, i.e. groups of 3, 3 and 2 batched chunks at TP 8, with
// the whole GEMM's FLOPs; the gathers they read move on the copy engines.
// Every other GEMM and collective is as without overlap.
TEST(ProgramComm, RingExchangeRunsGatheredGemmsShardByShard) {
  auto ops_with = [](bool overlap) {
    Config c;
    c.tp = 8;
    c.sp = true;
    const WorkloadPlan base = testing::make_plan(c);
    TrainingSpec t = base.training();
    t.tp_comm_overlap = overlap;
    return testing::ops_of(WorkloadPlan(base.model(), base.parallelism(), t), 0);
  };
  auto of_layer0 = [](const std::vector<Op>& ops, OpKind kind) {
    std::vector<Op> out;
    for (const Op& o : ops) {
      if (o.kind == kind && o.layer == 0 && o.microbatch == 0 && !o.recompute) out.push_back(o);
    }
    return out;
  };
  const std::vector<Op> off = ops_with(false), on = ops_with(true);
  for (const OpKind kind : {OpKind::qkv_fwd, OpKind::mlp_fc1_fwd, OpKind::attn_proj_dgrad, OpKind::mlp_fc2_dgrad}) {
    const std::vector<Op> whole = of_layer0(off, kind), chunks = of_layer0(on, kind);
    ASSERT_EQ(whole.size(), 1u) << kind_name(kind);
    ASSERT_EQ(chunks.size(), 3u) << kind_name(kind);
    double flops = 0;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      const GemmShape& g = chunks[i].shape.gemm;
      EXPECT_EQ(g.batch, i < 2 ? 3 : 2) << kind_name(kind);
      EXPECT_EQ(g.M * 8, whole[0].shape.gemm.M) << kind_name(kind);
      EXPECT_EQ(g.N, whole[0].shape.gemm.N);
      EXPECT_EQ(g.K, whole[0].shape.gemm.K);
      if (i > 0) {
        EXPECT_TRUE(waits_for(on, chunks[i].id, chunks[i - 1].id)) << "groups follow each other";
      }
      flops += chunks[i].flops;
    }
    EXPECT_DOUBLE_EQ(flops, whole[0].flops) << kind_name(kind);
  }
  for (const OpKind kind : {OpKind::attn_proj_fwd, OpKind::mlp_fc2_fwd, OpKind::qkv_dgrad, OpKind::mlp_fc1_dgrad,
                            OpKind::qkv_wgrad, OpKind::mlp_fc2_wgrad}) {
    const std::vector<Op> a = of_layer0(off, kind), b = of_layer0(on, kind);
    ASSERT_EQ(a.size(), b.size()) << kind_name(kind);
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].shape.gemm, b[i].shape.gemm) << kind_name(kind);
  }
  // Under fp8 each chunked GEMM is still preceded by one quantisation, not one per group.
  Config fp8;
  fp8.tp = 8;
  fp8.sp = true;
  fp8.fp8 = true;
  const WorkloadPlan fp8_base = testing::make_plan(fp8);
  TrainingSpec fp8_training = fp8_base.training();
  fp8_training.tp_comm_overlap = true;
  const std::vector<Op> fp8_on = testing::ops_of(WorkloadPlan(fp8_base.model(), fp8_base.parallelism(), fp8_training), 0);
  fp8_training.tp_comm_overlap = false;
  const std::vector<Op> fp8_off = testing::ops_of(WorkloadPlan(fp8_base.model(), fp8_base.parallelism(), fp8_training), 0);
  EXPECT_EQ(of_layer0(fp8_on, OpKind::fp8_quantize).size(), of_layer0(fp8_off, OpKind::fp8_quantize).size());
  EXPECT_EQ(of_layer0(fp8_on, OpKind::qkv_fwd).size(), 3u);
  // The gathers each chunked GEMM streams in: both forward ones and the two
  // of the output gradient in backward; not the backward re-gathers of the
  // saved inputs nor any reduce-scatter.
  for (const auto& [ops, expected_fwd, expected_bwd] : {std::tuple{&off, 0, 0}, std::tuple{&on, 2, 2}}) {
    int fwd = 0, bwd = 0;
    for (const Op& o : *ops) {
      if (o.layer != 0 || o.microbatch != 0 || !o.copy_engine) continue;
      EXPECT_EQ(o.kind, OpKind::tp_all_gather);
      (o.phase == Phase::fwd ? fwd : bwd) += 1;
    }
    EXPECT_EQ(fwd, expected_fwd);
    EXPECT_EQ(bwd, expected_bwd);
  }
}

// Buckets are reduced while backward runs, each after the op that finished
// its gradients; nothing but later reduces and the optimizer waits for them.
TEST(ProgramComm, GradientBucketsOverlapBackward) {
  Config c;
  c.dp = 4;
  c.zero = 0;
  std::vector<Op> ops = testing::ops_of(testing::make_plan(c), 2);
  std::set<std::uint32_t> reduces;
  std::uint32_t last_backward = 0;
  for (const Op& o : ops) {
    if (is_grad_reduce(o)) {
      EXPECT_EQ(o.kind, OpKind::dp_grad_all_reduce);
      EXPECT_EQ(o.group.kind(), GroupKind::dp);
      const Op& producer = ops[o.deps[0]];
      EXPECT_TRUE(producer.kind == OpKind::mlp_fc1_wgrad || producer.kind == OpKind::mlp_fc2_wgrad ||
                  producer.kind == OpKind::qkv_wgrad || producer.kind == OpKind::attn_proj_wgrad ||
                  producer.kind == OpKind::norm_bwd || producer.kind == OpKind::embedding_bwd ||
                  producer.kind == OpKind::lm_head_wgrad)
          << kind_name(producer.kind);
      EXPECT_EQ(o.microbatch, 3) << "only the last micro-batch (16 / dp 4 - 1) reduces";
      reduces.insert(o.id);
    }
    if (o.phase == Phase::bwd && o.stream == Stream::compute) last_backward = o.id;
    for (int d = 0; d < o.dep_count; ++d) {
      if (reduces.count(o.deps[static_cast<std::size_t>(d)])) {
        EXPECT_TRUE(is_grad_reduce(o) || o.phase == Phase::opt) << kind_name(o.kind);
      }
    }
  }
  ASSERT_GT(reduces.size(), 2u);
  EXPECT_LT(*reduces.begin(), last_backward) << "the first bucket goes out before backward ends";

  c.overlap_grad = false;
  std::vector<Op> late = testing::ops_of(testing::make_plan(c), 2);
  for (const Op& o : late) {
    if (is_grad_reduce(o)) {
      EXPECT_EQ(o.phase, Phase::opt);
    }
  }
}

// training.grad_bucket_mb auto: Megatron-Core's max(40M, 1M x dp x cp)
// parameters per bucket at the main-gradient precision; a number is MiB.
TEST(ProgramComm, AutoBucketFollowsMegatronCoreDefault) {
  EXPECT_EQ(megatron_bucket_params(8), 40'000'000);
  EXPECT_EQ(megatron_bucket_params(40), 40'000'000);
  EXPECT_EQ(megatron_bucket_params(64), 64'000'000);
  Config c;
  c.dp = 4;
  c.cp = 2;
  WorkloadPlan given = testing::make_plan(c);
  EXPECT_EQ(given.bucket_bytes(), 1 << 18);  // small_training's 0.25 MiB
  TrainingSpec t = given.training();
  t.grad_bucket_mb = 0;
  const WorkloadPlan bf16(given.model(), given.parallelism(), t);
  EXPECT_EQ(bf16.bucket_bytes(), 40'000'000LL * 4);  // fp32 main gradients
  t.dtype = Dtype::fp16;
  const WorkloadPlan fp16(given.model(), given.parallelism(), t);
  EXPECT_EQ(fp16.bucket_bytes(), 40'000'000LL * 2);
  ParallelismSpec wide = given.parallelism();
  wide.dp = 64;
  wide.cp = 2;
  t.dtype = Dtype::bf16;
  t.global_batch_size = 64;
  const WorkloadPlan big(given.model(), wide, t);
  EXPECT_EQ(big.bucket_bytes(), 128'000'000LL * 4);
}

std::int64_t reduced_bytes(const std::vector<Op>& ops, GroupKind group) {
  std::int64_t sum = 0;
  for (const Op& o : ops) {
    if (is_grad_reduce(o) && o.group.kind() == group) sum += static_cast<std::int64_t>(o.bytes);
  }
  return sum;
}

// Every gradient is reduced exactly once per iteration (ZeRO 0/1) or once per
// micro-batch (ZeRO 2/3), dense ones over dp x cp, expert ones over expert-DP.
TEST(ProgramComm, BucketsCarryEveryGradient) {
  for (int zero : {0, 1, 2, 3}) {
    for (bool overlap : {true, false}) {
      Config c;
      c.moe = true, c.dp = 4, c.ep = 2, c.pp = 2, c.zero = zero, c.overlap_grad = overlap;
      WorkloadPlan plan = testing::make_plan(c);
      for (int gpu : {0, 7}) {
        std::vector<Op> ops = testing::ops_of(plan, gpu);
        StageParams sp = stage_params(plan, plan.layout().coords(gpu).pp);
        std::int64_t times = zero >= 2 ? plan.microbatches() : 1;
        EXPECT_EQ(reduced_bytes(ops, GroupKind::dp), sp.dense * plan.grad_bytes() * times) << c.name();
        EXPECT_EQ(reduced_bytes(ops, GroupKind::edp), sp.expert * plan.grad_bytes() * times) << c.name();
      }
    }
  }
}

std::int64_t gathered_bytes(const std::vector<Op>& ops);

// Megatron's default for bf16 training: main gradients in fp32, so the DP
// reduce-scatter carries 4 bytes per parameter, twice what bf16 reduction
// (--grad-reduce-in-bf16) carries; the parameter all-gather stays 16-bit.
TEST(ProgramComm, Fp32MainGradientsDoubleTheDataParallelReduction) {
  Config c;
  c.dp = 4, c.zero = 1;
  const WorkloadPlan fp32 = testing::make_plan(c);
  c.grad_reduce = GradReduceDtype::bf16;
  const WorkloadPlan bf16 = testing::make_plan(c);
  EXPECT_EQ(fp32.training().dtype, Dtype::bf16);
  EXPECT_EQ(fp32.grad_bytes(), 4);
  const std::int64_t wide = reduced_bytes(testing::ops_of(fp32, 0), GroupKind::dp);
  const std::int64_t narrow = reduced_bytes(testing::ops_of(bf16, 0), GroupKind::dp);
  EXPECT_GT(narrow, 0);
  EXPECT_EQ(wide, 2 * narrow);
  EXPECT_EQ(reduced_bytes(testing::ops_of(fp32, 0), GroupKind::dp), stage_params(fp32, 0).dense * 4);
  EXPECT_EQ(gathered_bytes(testing::ops_of(fp32, 0)), gathered_bytes(testing::ops_of(bf16, 0)));
  // fp16 training keeps 16-bit gradients unless asked (Megatron leaves
  // accumulate_allreduce_grads_in_fp32 off for fp16).
  TrainingSpec t = fp32.training();
  t.dtype = Dtype::fp16;
  t.grad_reduce_dtype = GradReduceDtype::automatic;
  EXPECT_EQ(WorkloadPlan(fp32.model(), fp32.parallelism(), t).grad_bytes(), 2);
}

std::int64_t gathered_bytes(const std::vector<Op>& ops) {
  std::int64_t sum = 0;
  for (const Op& o : ops) {
    if (o.kind == OpKind::dp_param_all_gather) sum += static_cast<std::int64_t>(o.bytes);
  }
  return sum;
}

std::int64_t bytes_of(const std::vector<Op>& ops, OpKind kind) {
  std::int64_t sum = 0;
  for (const Op& o : ops) {
    if (o.kind == kind) sum += static_cast<std::int64_t>(o.bytes);
  }
  return sum;
}

// DeepSpeed's BF16_Optimizer shards the optimizer (ZeRO 1) yet all-reduces
// the whole gradient: the same buckets, over the same groups, after the same
// producers, reduced by all-reduce; the parameter gathers stay as they were.
TEST(ProgramComm, ShardedOptimizerCanReduceByAllReduce) {
  for (int zero : {1, 2}) {
    Config c;
    c.dp = 4, c.pp = 2, c.zero = zero, c.moe = true, c.ep = 2;
    const WorkloadPlan scatter = testing::make_plan(c);
    c.grad_collective = GradReduceCollective::all_reduce;
    const WorkloadPlan all = testing::make_plan(c);
    EXPECT_FALSE(scatter.grads_all_reduced());
    EXPECT_TRUE(all.grads_all_reduced());
    for (int gpu : {0, 5}) {
      const std::vector<Op> a = testing::ops_of(scatter, gpu), b = testing::ops_of(all, gpu);
      ASSERT_EQ(a.size(), b.size()) << zero;
      EXPECT_GT(bytes_of(a, OpKind::dp_grad_reduce_scatter), 0);
      EXPECT_EQ(bytes_of(b, OpKind::dp_grad_reduce_scatter), 0);
      EXPECT_EQ(bytes_of(b, OpKind::dp_grad_all_reduce), bytes_of(a, OpKind::dp_grad_reduce_scatter));
      EXPECT_EQ(gathered_bytes(b), gathered_bytes(a));
      for (std::size_t i = 0; i < a.size(); ++i) {
        const bool rs = a[i].kind == OpKind::dp_grad_reduce_scatter;
        EXPECT_EQ(b[i].kind, rs ? OpKind::dp_grad_all_reduce : a[i].kind) << i;
        EXPECT_EQ(b[i].bytes, a[i].bytes) << i;
        EXPECT_EQ(b[i].group, a[i].group) << i;
        EXPECT_EQ(b[i].deps, a[i].deps) << i;
      }
    }
  }
  // ZeRO 0 has no shard to scatter into; ZeRO 3 shards the gradients themselves.
  Config c;
  c.dp = 2, c.zero = 0, c.grad_collective = GradReduceCollective::reduce_scatter;
  EXPECT_THROW(testing::make_plan(c), pf::ConfigError);
  c.zero = 3, c.grad_collective = GradReduceCollective::all_reduce;
  EXPECT_THROW(testing::make_plan(c), pf::ConfigError);
}

// ZeRO 1/2 gather the updated parameters once per iteration; ZeRO 3 before
// every forward and backward of every micro-batch.
TEST(ProgramComm, ZeroParameterGathers) {
  for (bool overlap : {true, false}) {
    Config c;
    c.dp = 2, c.pp = 2, c.zero = 1, c.overlap_param = overlap;
    WorkloadPlan plan = testing::make_plan(c);
    std::vector<Op> ops = testing::ops_of(plan, 1);
    std::int64_t stage = stage_params(plan, 0).dense * plan.param_bytes();
    EXPECT_EQ(gathered_bytes(ops), stage);
    for (const Op& o : ops) {
      if (o.kind == OpKind::dp_param_all_gather) {
        EXPECT_EQ(o.phase, overlap ? Phase::fwd : Phase::opt);
      }
    }
    c.zero = 0;
    EXPECT_EQ(gathered_bytes(testing::ops_of(testing::make_plan(c), 1)), 0);
    c.zero = 3;
    EXPECT_EQ(gathered_bytes(testing::ops_of(testing::make_plan(c), 1)), 2 * stage * plan.microbatches());
  }
}

// Every parameter of the stage, experts and MTP module included, is gathered
// once per iteration under ZeRO 1: dense ones over dp, experts over expert-DP.
TEST(ProgramComm, ZeroGathersCoverEveryParameter) {
  for (bool overlap : {true, false}) {
    Config c;
    c.deepseek = true, c.pp = 2, c.dp = 4, c.ep = 2, c.zero = 1, c.overlap_param = overlap;
    WorkloadPlan plan = testing::make_plan(c);
    for (int gpu : {0, 4}) {
      std::vector<Op> ops = testing::ops_of(plan, gpu);
      StageParams sp = stage_params(plan, plan.layout().coords(gpu).pp);
      std::int64_t dense = 0, expert = 0;
      for (const Op& o : ops) {
        if (o.kind != OpKind::dp_param_all_gather) continue;
        (o.group.kind() == GroupKind::edp ? expert : dense) += static_cast<std::int64_t>(o.bytes);
      }
      EXPECT_EQ(dense, sp.dense * plan.param_bytes()) << "gpu " << gpu;
      EXPECT_EQ(expert, sp.expert * plan.param_bytes()) << "gpu " << gpu;
    }
  }
}

// ZeRO 3 with prefetch issues layer l+1's gather before layer l computes;
// without, only after layer l has finished.
TEST(ProgramComm, Zero3PrefetchesTheNextLayer) {
  for (bool prefetch : {true, false}) {
    Config c;
    c.dp = 2, c.zero = 3, c.overlap_param = prefetch;
    std::vector<Op> ops = testing::ops_of(testing::make_plan(c), 0);
    std::map<int, std::uint32_t> gather_of, first_compute_of, last_compute_of;
    for (const Op& o : ops) {
      if (o.microbatch != 0 || o.phase != Phase::fwd || o.layer < 0) continue;
      if (o.kind == OpKind::dp_param_all_gather) gather_of.emplace(o.layer, o.id);
      if (o.stream == Stream::compute) {
        first_compute_of.emplace(o.layer, o.id);
        last_compute_of[o.layer] = o.id;
      }
    }
    for (int l = 0; l + 1 < 4; ++l) {
      if (prefetch) {
        EXPECT_LT(gather_of[l + 1], first_compute_of[l]);
      } else {
        EXPECT_GT(gather_of[l + 1], last_compute_of[l]);
      }
      const Op& first = ops[first_compute_of[l + 1]];
      EXPECT_TRUE(std::find(first.deps.begin(), first.deps.begin() + first.dep_count, gather_of[l + 1]) !=
                  first.deps.begin() + first.dep_count);
    }
  }
}

TEST(ProgramComm, ContextParallelRingExchangesKeyValueBlocks) {
  Config c;
  c.cp = 4;
  std::vector<Op> ops = testing::ops_of(testing::make_plan(c), 3);
  EXPECT_EQ(count(ops, OpKind::cp_kv_exchange, Phase::fwd, 1, 0), 3);
  EXPECT_EQ(count(ops, OpKind::attention_fwd, Phase::fwd, 1, 0), 4);
  EXPECT_EQ(count(ops, OpKind::cp_kv_exchange, Phase::bwd, 1, 0), 3);
  // Attention block j waits for exchange j-1, and exchange j for exchange j-1.
  std::vector<const Op*> ring;
  for (const Op& o : ops) {
    if (o.layer == 1 && o.microbatch == 0 && o.phase == Phase::fwd &&
        (o.kind == OpKind::cp_kv_exchange || o.kind == OpKind::attention_fwd)) {
      ring.push_back(&o);
    }
  }
  ASSERT_EQ(ring.size(), 7u);
  for (std::size_t j = 1; j < 3; ++j) {
    const Op* exchange = ring[2 * j];
    EXPECT_EQ(exchange->kind, OpKind::cp_kv_exchange);
    EXPECT_EQ(exchange->deps[0], ring[2 * j - 2]->id);
    EXPECT_EQ(ring[2 * j + 1]->deps[0], ring[2 * j - 2]->id);
  }
  EXPECT_EQ(ring[0]->group.kind(), GroupKind::cp);
  EXPECT_EQ(ring[1]->shape.attention.seq, 32);
}

TEST(ProgramComm, ExpertsDispatchAndCombineOverTheExpertGroup) {
  Config c;
  c.moe = true, c.dp = 4, c.ep = 4;
  std::vector<Op> ops = testing::ops_of(testing::make_plan(c), 2);
  EXPECT_EQ(count(ops, OpKind::ep_dispatch, Phase::fwd, 0, 1), 0);  // first layer is dense
  EXPECT_EQ(count(ops, OpKind::ep_dispatch, Phase::fwd, 1, 1), 1);
  EXPECT_EQ(count(ops, OpKind::ep_combine, Phase::fwd, 1, 1), 1);
  EXPECT_EQ(count(ops, OpKind::ep_dispatch, Phase::bwd, 1, 1), 1);
  EXPECT_EQ(count(ops, OpKind::ep_combine, Phase::bwd, 1, 1), 1);
  for (const Op& o : ops) {
    if (o.kind == OpKind::ep_dispatch) {
      EXPECT_EQ(o.group.kind(), GroupKind::ep);
      EXPECT_EQ(o.bytes, 128u * 2 * 256 * 2);  // tokens x top_k x hidden x 2 bytes
    }
    if (o.kind == OpKind::expert_fc1_fwd) {
      EXPECT_EQ(o.shape.gemm.N, 2 * 512);  // SwiGLU gate + up of the local expert
    }
  }
}

TEST(ProgramComm, FullRecomputeReplaysEachLayerForwardInBackward) {
  Config c;
  c.tp = 2, c.recompute = Recompute::full;
  std::vector<Op> ops = testing::ops_of(testing::make_plan(c), 0);
  int fwd_gemms = 0, replayed = 0, replayed_tp = 0;
  for (const Op& o : ops) {
    if (o.kind == OpKind::qkv_fwd && !o.recompute) ++fwd_gemms;
    if (o.kind == OpKind::qkv_fwd && o.recompute) {
      ++replayed;
      EXPECT_EQ(o.phase, Phase::bwd);
    }
    if (o.recompute && o.kind == OpKind::tp_all_reduce) ++replayed_tp;
    EXPECT_FALSE(o.recompute && o.kind == OpKind::lm_head_fwd);
  }
  EXPECT_EQ(replayed, fwd_gemms);
  EXPECT_EQ(replayed_tp, 2 * fwd_gemms);
}

// recompute_modules: each listed module's forward op re-runs once per layer
// in the backward, flagged as recomputation; without core_attn the attention
// forward does not.
TEST(ProgramComm, RecomputeModulesReRunTheirForwardInBackward) {
  using R = pf::models::RecomputeModules;
  Config c;
  c.deepseek = true;
  c.recompute = Recompute::selective;
  c.recompute_modules = R::layernorm | R::moe_act | R::mla_up_proj;
  const std::vector<Op> ops = testing::ops_of(testing::make_plan(c), 0);
  int layers = 0, norms = 0, acts = 0, moe_acts = 0, up_gemms = 0, attention = 0;
  for (const Op& o : ops) {
    if (o.kind == OpKind::attention_fwd && !o.recompute) ++layers;
    if (o.kind == OpKind::expert_act_fwd && !o.recompute) ++moe_acts;
    if (!o.recompute) continue;
    EXPECT_EQ(o.phase, Phase::bwd);
    if (o.kind == OpKind::norm_fwd) ++norms;
    if (o.kind == OpKind::expert_act_fwd) ++acts;
    if (o.kind == OpKind::qkv_fwd) ++up_gemms;
    if (o.kind == OpKind::attention_fwd) ++attention;
  }
  ASSERT_GT(layers, 0);
  ASSERT_GT(moe_acts, 0);
  EXPECT_EQ(norms, 2 * layers);    // the input and pre-MLP norms of every layer
  EXPECT_EQ(acts, moe_acts);       // each MoE layer's activation
  EXPECT_EQ(up_gemms, 2 * layers); // MLA's query and key/value up-projections
  EXPECT_EQ(attention, 0);         // core_attn not listed
}

// Submodule checkpoints: the dense MLP and the MoE layer (router, dispatch,
// experts, combine, shared experts) re-run before their backward, with the
// dispatch's all-to-all; shared_experts alone re-runs only their MLP.
TEST(ProgramComm, SubmoduleCheckpointsReRunTheWholeModule) {
  using R = pf::models::RecomputeModules;
  Config c;
  c.deepseek = true;
  c.ep = 2, c.dp = 2;
  c.recompute = Recompute::selective;
  c.recompute_modules = R::mlp | R::moe;
  auto count = [](const std::vector<Op>& ops, OpKind kind, bool recompute) {
    int n = 0;
    for (const Op& o : ops) n += o.kind == kind && o.recompute == recompute;
    return n;
  };
  std::vector<Op> ops = testing::ops_of(testing::make_plan(c), 0);
  EXPECT_EQ(count(ops, OpKind::mlp_fc1_fwd, true), count(ops, OpKind::mlp_fc1_fwd, false));
  EXPECT_EQ(count(ops, OpKind::expert_fc1_fwd, true), count(ops, OpKind::expert_fc1_fwd, false));
  EXPECT_EQ(count(ops, OpKind::router_fwd, true), count(ops, OpKind::router_fwd, false));
  int forward_dispatches = 0;  // the backward's dispatch of gradients is an ep_dispatch too
  for (const Op& o : ops) forward_dispatches += o.kind == OpKind::ep_dispatch && o.phase == Phase::fwd;
  EXPECT_GT(forward_dispatches, 0);
  EXPECT_EQ(count(ops, OpKind::ep_dispatch, true), forward_dispatches);
  EXPECT_EQ(count(ops, OpKind::attention_fwd, true), 0);

  // moe_act beside moe: the re-run layer rebuilds the activation once.
  c.recompute_modules = R::moe | R::moe_act;
  ops = testing::ops_of(testing::make_plan(c), 0);
  EXPECT_EQ(count(ops, OpKind::expert_act_fwd, true), count(ops, OpKind::expert_act_fwd, false));

  c.recompute_modules = R::shared_experts;
  ops = testing::ops_of(testing::make_plan(c), 0);
  EXPECT_EQ(count(ops, OpKind::expert_fc1_fwd, true), 0);
  EXPECT_EQ(count(ops, OpKind::router_fwd, true), 0);
  EXPECT_GT(count(ops, OpKind::mlp_fc1_fwd, true), 0);  // the shared experts' fc1
  EXPECT_EQ(count(ops, OpKind::mlp_fc1_fwd, true), count(ops, OpKind::expert_fc1_fwd, false));
}

TEST(ProgramComm, UnevenPipelineSplit) {
  Config c;
  c.layers = 6, c.pp = 4;
  WorkloadPlan plan = testing::make_plan(c);
  std::vector<int> layers_on_stage;
  for (int s = 0; s < 4; ++s) {
    std::set<int> layers;
    for (const Op& o : testing::ops_of(plan, s)) {
      if (o.layer >= 0) layers.insert(o.layer);
    }
    layers_on_stage.push_back(static_cast<int>(layers.size()));
  }
  EXPECT_EQ(layers_on_stage, (std::vector<int>{1, 2, 2, 1}));
}

}  // namespace
}  // namespace pf::models::workload
