// fp8 training's quantisation kernels (training.fp8_recipe): one fp8_quantize
// op in front of every forward and input-gradient GEMM of the linear layers,
// over exactly that GEMM's A operand, with the recipe's bytes per element; none
// in bf16 training, none in front of weight-gradient GEMMs or the LM head.
#include <gtest/gtest.h>

#include <map>

#include "models/workload/precision.h"
#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

using testing::Config;
using testing::make_plan;
using testing::ops_of;

WorkloadPlan plan_with(Dtype dtype, Fp8Recipe recipe, Recompute recompute, int tp, bool moe) {
  Config c;
  c.tp = tp;
  c.sp = tp > 1;
  c.recompute = recompute;
  c.moe = moe;
  c.dp = moe ? 2 : 1;
  c.ep = moe ? 2 : 1;
  WorkloadPlan base = make_plan(c);
  TrainingSpec t = base.training();
  t.dtype = dtype;
  t.fp8_recipe = recipe;
  return WorkloadPlan(base.model(), base.parallelism(), t);
}

// For each GEMM, the quantize op that its dependency list names (if any).
struct Pairing {
  int quantized = 0, unquantized = 0, orphan_quantize = 0;
  bool shapes_match = true;
  double quantize_bytes = 0, quantized_elems = 0;
};

Pairing pair_up(const std::vector<Op>& ops) {
  std::map<std::uint32_t, const Op*> by_id;
  for (const Op& op : ops) by_id[op.id] = &op;
  Pairing p;
  std::map<std::uint32_t, int> consumers;
  for (const Op& op : ops) {
    if (op_class(op.kind) != OpClass::gemm) continue;
    const Op* q = nullptr;
    for (int i = 0; i < op.dep_count; ++i) {
      const Op* d = by_id[op.deps[static_cast<std::size_t>(i)]];
      if (d != nullptr && d->kind == OpKind::fp8_quantize) q = d;
    }
    if (q == nullptr) {
      ++p.unquantized;
      if (quantizes_input(op.kind)) p.shapes_match = false;  // an fp8 fwd/dgrad GEMM without its cast
      continue;
    }
    ++p.quantized;
    ++consumers[q->id];
    const std::int64_t a_rows = op.shape.gemm.batch * op.shape.gemm.M;  // grouped expert GEMMs: all groups' rows
    if (!quantizes_input(op.kind) || q->shape.rows.rows != a_rows || q->shape.rows.dim != op.shape.gemm.K) {
      p.shapes_match = false;
    }
    p.quantize_bytes += static_cast<double>(q->bytes);
    p.quantized_elems += static_cast<double>(a_rows) * static_cast<double>(op.shape.gemm.K);
  }
  for (const Op& op : ops) {
    if (op.kind == OpKind::fp8_quantize && consumers[op.id] != 1) ++p.orphan_quantize;
  }
  return p;
}

TEST(Fp8Quantize, OneCastPerForwardAndInputGradientLinearGemm) {
  for (bool moe : {false, true}) {
    for (int tp : {1, 2}) {
      for (Recompute rc : {Recompute::none, Recompute::full}) {
        SCOPED_TRACE(std::string(moe ? "moe" : "dense") + " tp" + std::to_string(tp) + " rc" +
                     std::to_string(static_cast<int>(rc)));
        const std::vector<Op> ops = ops_of(plan_with(Dtype::fp8, Fp8Recipe::delayed, rc, tp, moe), 0);
        const Pairing p = pair_up(ops);
        EXPECT_GT(p.quantized, 0);
        EXPECT_TRUE(p.shapes_match);
        EXPECT_EQ(p.orphan_quantize, 0);
        // 2 bytes read + fp8 copy + fp8 transpose, per element of the A operand.
        EXPECT_NEAR(p.quantize_bytes, 4.0 * p.quantized_elems, 1e-9 * p.quantize_bytes);
        int expected = 0;
        for (const Op& op : ops) expected += quantizes_input(op.kind) ? 1 : 0;
        EXPECT_EQ(p.quantized, expected);
      }
    }
  }
}

TEST(Fp8Quantize, Bf16TrainingHasNoCasts) {
  for (const Op& op : ops_of(plan_with(Dtype::bf16, Fp8Recipe::delayed, Recompute::none, 2, true), 0)) {
    EXPECT_NE(op.kind, OpKind::fp8_quantize);
  }
}

TEST(Fp8Quantize, RecipesScaleTheCastBytes) {
  auto cast_bytes = [](Fp8Recipe r) {
    double total = 0;
    for (const Op& op : ops_of(plan_with(Dtype::fp8, r, Recompute::none, 1, false), 0)) {
      if (op.kind == OpKind::fp8_quantize) total += static_cast<double>(op.bytes);
    }
    return total;
  };
  const double delayed = cast_bytes(Fp8Recipe::delayed);
  EXPECT_NEAR(cast_bytes(Fp8Recipe::tensorwise) / delayed, 6.0 / 4.0, 1e-6);  // the separate amax pass
  EXPECT_NEAR(cast_bytes(Fp8Recipe::mxfp8) / delayed, fp8_quantize_bytes(Fp8Recipe::mxfp8) / 4.0, 1e-6);
  EXPECT_GT(cast_bytes(Fp8Recipe::blockwise), delayed);
}

// Weight-gradient GEMMs read the transposed fp8 copies; the LM head and
// attention stay 16-bit: none of them is preceded by a cast.
TEST(Fp8Quantize, NoCastBeforeWeightGradientsOrTheHead) {
  const std::vector<Op> ops = ops_of(plan_with(Dtype::fp8, Fp8Recipe::delayed, Recompute::none, 1, false), 0);
  EXPECT_FALSE(quantizes_input(OpKind::mlp_fc1_wgrad));
  EXPECT_FALSE(quantizes_input(OpKind::lm_head_fwd));
  EXPECT_FALSE(quantizes_input(OpKind::router_fwd));
  EXPECT_TRUE(quantizes_input(OpKind::mlp_fc2_dgrad));
  std::map<std::uint32_t, OpKind> kind_of;
  for (const Op& op : ops) kind_of[op.id] = op.kind;
  for (const Op& op : ops) {
    if (op.kind == OpKind::fp8_quantize || quantizes_input(op.kind)) continue;
    for (int i = 0; i < op.dep_count; ++i) {
      EXPECT_NE(kind_of[op.deps[static_cast<std::size_t>(i)]], OpKind::fp8_quantize) << kind_name(op.kind);
    }
  }
}

}  // namespace
}  // namespace pf::models::workload
