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

}  // namespace
}  // namespace pf::models::workload
