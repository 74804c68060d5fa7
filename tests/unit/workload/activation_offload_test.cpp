// Activation offloading in the op stream: Transformer Engine's window map and
// where the copies and the compute stream's waits sit.
#include <gtest/gtest.h>

#include "core/error.h"
#include "models/workload/activation_offload.h"
#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

using testing::Config;

// TE's layer_window_map: (L / N)(i + 1) - 1 plus the remainder spread over
// the first groups; the last sync is always the last layer.
TEST(ActivationOffload, SyncLayersFollowTransformerEnginesWindowMap) {
  std::vector<int> expect(40);
  for (int i = 0; i < 40; ++i) expect[static_cast<std::size_t>(i)] = 2 * i + 1;
  EXPECT_EQ(offload_sync_layers(80, 40), expect);
  EXPECT_EQ(offload_sync_layers(10, 3), (std::vector<int>{3, 6, 9}));
  EXPECT_EQ(offload_sync_layers(5, 2), (std::vector<int>{2, 4}));
  EXPECT_EQ(offload_sync_layers(4, 3), (std::vector<int>{1, 2, 3}));
  EXPECT_THROW(offload_sync_layers(4, 4), SimulationError);
  EXPECT_THROW(offload_sync_layers(4, 0), SimulationError);
}

WorkloadPlan offload_plan(int offloaded) {
  Config c;
  c.layers = 4;
  c.global_batch = 2;
  WorkloadPlan plan = testing::make_plan(c);
  TrainingSpec t = plan.training();
  t.cpu_offload_layers = offloaded;
  WorkloadPlan out(plan.model(), plan.parallelism(), t);
  return out;
}

const Op& by_id(const std::vector<Op>& ops, std::uint32_t id) { return ops[id]; }

bool depends_on(const Op& op, std::uint32_t id) {
  for (int d = 0; d < op.dep_count; ++d)
    if (op.deps[static_cast<std::size_t>(d)] == id) return true;
  return false;
}

// The first op of a layer's forward or backward in micro-batch mb.
const Op& first_of_layer(const std::vector<Op>& ops, int mb, Phase phase, int layer) {
  for (const Op& op : ops)
    if (op.microbatch == mb && op.phase == phase && op.layer == layer && op.stream != Stream::copy) return op;
  throw std::runtime_error("no op of layer " + std::to_string(layer));
}

// Four layers, the first two offloaded: w = {1, 3}. Forward: group 0's copy
// after layer 0, waited for by layer 2; group 1's copy after layer 1 (issued
// at layer 1's sync), waited for by the head. Backward: group 1's reload
// before layer 3's backward, group 0's before layer 1's (which waits for
// group 1's); layer 0's backward waits for group 0's.
TEST(ActivationOffload, CopiesAndWaitsSitWhereTheHandlerPutsThem) {
  WorkloadPlan plan = offload_plan(2);
  EXPECT_THROW(GpuProgram(plan, 0), SimulationError);  // sizes not set
  plan.set_offload_bytes(1000, 2000);
  const std::vector<Op> ops = testing::ops_of(plan, 0);
  ASSERT_EQ(plan.microbatches(), 2);
  for (int mb = 0; mb < 2; ++mb) {
    std::vector<const Op*> d2h, h2d;
    for (const Op& op : ops) {
      if (op.microbatch != mb) continue;
      if (op.kind == OpKind::offload_d2h) d2h.push_back(&op);
      if (op.kind == OpKind::reload_h2d) h2d.push_back(&op);
    }
    ASSERT_EQ(d2h.size(), 2u);
    ASSERT_EQ(h2d.size(), 2u);
    for (const Op* c : {d2h[0], d2h[1], h2d[0], h2d[1]}) {
      EXPECT_EQ(c->stream, Stream::copy);
      EXPECT_EQ(c->bytes, 1000u);
      ASSERT_EQ(c->dep_count, 1);  // the compute issued before it
      EXPECT_EQ(by_id(ops, c->deps[0]).stream, Stream::compute);
    }
    EXPECT_EQ(d2h[0]->layer, 0);
    EXPECT_EQ(by_id(ops, d2h[0]->deps[0]).layer, 0);
    EXPECT_EQ(d2h[1]->layer, 1);
    EXPECT_EQ(by_id(ops, d2h[1]->deps[0]).layer, 1);
    EXPECT_TRUE(depends_on(first_of_layer(ops, mb, Phase::fwd, 2), d2h[0]->id));
    EXPECT_FALSE(depends_on(first_of_layer(ops, mb, Phase::fwd, 1), d2h[0]->id));
    std::uint32_t last_layer_op = 0;  // the head's first op follows layer 3's last
    for (const Op& op : ops)
      if (op.microbatch == mb && op.phase == Phase::fwd && op.layer == 3) last_layer_op = op.id;
    EXPECT_EQ(ops[last_layer_op + 1].layer, -1);
    EXPECT_TRUE(depends_on(ops[last_layer_op + 1], d2h[1]->id));
    EXPECT_FALSE(depends_on(first_of_layer(ops, mb, Phase::fwd, 3), d2h[1]->id));
    // Backward: reloads in reverse group order.
    EXPECT_EQ(h2d[0]->layer, 1);
    EXPECT_EQ(h2d[1]->layer, 0);
    EXPECT_EQ(ops[h2d[0]->id + 1].layer, 3);  // issued just before layer 3's backward
    EXPECT_EQ(ops[h2d[1]->id + 1].layer, 1);  // and just before layer 1's
    EXPECT_TRUE(depends_on(first_of_layer(ops, mb, Phase::bwd, 1), h2d[0]->id));
    EXPECT_TRUE(depends_on(first_of_layer(ops, mb, Phase::bwd, 0), h2d[1]->id));
  }
  // Nothing waits on anything that is never issued: the program completes.
  EXPECT_EQ(testing::dry_run(plan, {ops}), 0u);
}

// Fine-grained offloading of the routed experts' inputs: in each MoE layer's
// forward the fc1 input goes after fc1 and the activation input after the
// activation; in its backward each comes back (after its own offload of the
// same micro-batch) before the op that reads it: the activation's backward
// and fc1's weight gradient.
TEST(ActivationOffload, ExpertInputsGoAfterTheirModuleAndComeBackBeforeTheirBackward) {
  Config c;
  c.moe = true;
  c.dp = 2;
  c.ep = 2;
  c.global_batch = 4;
  WorkloadPlan base = testing::make_plan(c);
  TrainingSpec t = base.training();
  t.offload_modules.modules = OffloadModules::expert_fc1 | OffloadModules::moe_act;
  const WorkloadPlan plan(base.model(), base.parallelism(), t);
  const LocalDims& d = plan.dims();
  const std::vector<Op> ops = testing::ops_of(plan, 0);
  auto first_after = [&](std::size_t from, OpKind kind) {
    for (std::size_t i = from; i < ops.size(); ++i)
      if (ops[i].kind == kind) return i;
    return ops.size();
  };
  int offloads = 0, reloads = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (op.kind == OpKind::offload_d2h) {
      ++offloads;
      ASSERT_EQ(op.dep_count, 1);
      const Op& module = ops[op.deps[0]];
      EXPECT_TRUE(module.kind == OpKind::expert_fc1_fwd || module.kind == OpKind::expert_act_fwd);
      EXPECT_EQ(op.bytes, static_cast<std::uint64_t>(2 * d.expert_rows *
                                                       (module.kind == OpKind::expert_fc1_fwd ? d.hidden
                                                                                              : d.expert_fc1_local)));
    }
    if (op.kind != OpKind::reload_h2d) continue;
    ++reloads;
    // The reload waits for its own tensor's offload: same layer, micro-batch and size.
    bool paired = false;
    for (int k = 0; k < op.dep_count; ++k) {
      const Op& dep = ops[op.deps[static_cast<std::size_t>(k)]];
      if (dep.kind != OpKind::offload_d2h) continue;
      paired = dep.layer == op.layer && dep.microbatch == op.microbatch && dep.bytes == op.bytes;
    }
    EXPECT_TRUE(paired) << "reload " << op.id;
    // ... and the op that reads it waits for the reload.
    const bool act_input = op.bytes == static_cast<std::uint64_t>(2 * d.expert_rows * d.expert_fc1_local);
    const std::size_t reader = first_after(i, act_input ? OpKind::expert_act_bwd : OpKind::expert_fc1_wgrad);
    ASSERT_LT(reader, ops.size());
    EXPECT_TRUE(depends_on(ops[reader], op.id)) << kind_name(ops[reader].kind);
  }
  int moe_layers = 0;  // per micro-batch step of this GPU
  for (int layer = 0; layer < plan.model().layers; ++layer) moe_layers += layer_is_moe(plan.model(), layer) ? 1 : 0;
  moe_layers *= plan.microbatches();
  EXPECT_EQ(offloads, 2 * moe_layers);
  EXPECT_EQ(reloads, 2 * moe_layers);
  EXPECT_EQ(testing::dry_run(plan, testing::all_ops(plan)), 0u);
}

}  // namespace
}  // namespace pf::models::workload
