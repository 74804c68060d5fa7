// One GPU's training iteration as a lazy op stream (see op.h for the contract
// the ops follow). The program walks the pipeline schedule step by step, and
// each step's pieces (p2p receive, embedding, layers - each backward after its
// recomputation under full recompute -, head, multi-token-prediction modules,
// p2p send) through the plan's op templates, adding the data-parallel and ZeRO
// communication as it goes:
//  - DP gradient buckets: reduces issued as backward finishes a bucket's worth
//    (overlap_grad_reduce) during the last micro-batch of each model chunk, or
//    all after the last backward; ZeRO 0 all-reduces, ZeRO >= 1 reduce-scatters;
//    ZeRO 2 and 3 keep only a gradient shard, so they reduce-scatter after every
//    micro-batch (as DeepSpeed does). Only the optimizer step waits for them.
//  - ZeRO parameter all-gathers: stage 3 before every layer's forward and
//    backward, prefetching the next layer when overlap_param_gather; stages 1-2
//    after the optimizer step, or (overlap_param_gather) at the first forward
//    of each chunk, prefetched one layer ahead - the next iteration's gather
//    overlapping its forward, as Megatron's distributed optimizer does.
//  - activation offloading (training.cpu_offload_layers, pp = 1): copies of
//    the first N layers' saved tensors to the host and back on the copy
//    stream, with the compute stream waiting for them where Transformer
//    Engine's handler does (activation_offload.h; gpu_program_offload.cpp).
//  - combined 1F1B (training.overlap_moe_expert_parallel_comm): a steady-state
//    forward and the backward after it run as one step, their layers paired
//    (forward first to last, backward last to first) and each pair's pieces
//    interleaved as Megatron-Core's TransformerLayerSchedulePlan.run orders
//    them, so one micro-batch's expert all-to-alls run beside the other's
//    compute (gpu_program_combined.cpp).
//  - the end of the iteration: sequence-parallel norm gradients all-reduced
//    over tp, tied embedding gradients over the first/last stage pair, the
//    optimizer step.
// Memory: a few hundred bytes plus one id per op of the largest template.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/workload/grad_buckets.h"
#include "models/workload/op.h"
#include "models/workload/schedule.h"
#include "models/workload/stage_params.h"
#include "models/workload/workload_plan.h"

namespace pf::models::workload {

class GpuProgram {
 public:
  // The plan must outlive the program. Throws pf::SimulationError for a GPU
  // outside the plan.
  GpuProgram(const WorkloadPlan& plan, int gpu);

  // The next op in issue order; false once the iteration is complete.
  bool next(Op& op);

  int gpu() const { return gpu_; }
  const Coords& coords() const { return coords_; }
  std::uint32_t ops_issued() const { return next_id_; }
  // How far through its iteration the program has issued, 0..1: schedule
  // steps done (the current one by its units), the epilogue counted as one
  // more step. For progress lines; ops are issued a bounded distance ahead of
  // their execution, so this tracks the simulation.
  double progress() const;

 private:
  struct StepUnit {
    enum class Kind : std::uint8_t { recv, send, embedding, head, layer, recompute, mtp } kind;
    int layer = -1;
  };
  struct PendingGather {
    ParamClass cls = ParamClass::dense;
    std::int64_t elems = 0;
    int slot = 0;
    int layer = -1;
  };
  enum class Section : std::uint8_t { steps, epilogue, done };
  static constexpr int kGatherQueue = 4;

  // steps
  enum class Advance : std::uint8_t { emitted, moved, reached };
  bool step_next(Op& op);
  // Emits at most one op of the current step, stopping before op `stop_op`
  // of unit `stop_unit` (stop_op 0: once the units before it are done).
  Advance advance(Op& op, int stop_unit, int stop_op);
  void begin_step();
  void end_step();
  bool gathers_params(const ScheduleStep& s) const;
  // combined 1F1B (gpu_program_combined.cpp)
  void begin_combined();
  bool combined_next(Op& op);
  int combined_pairs() const;
  int combined_positions() const;  // stretches in the combined order, for progress()
  void swap_pass();
  StepUnit unit_at(int u) const;
  const Unit& template_of(const StepUnit& su, bool forward) const;
  bool is_param_unit(const StepUnit& su) const;
  void start_unit(const StepUnit& su);
  void emit_template(const OpTemplate& t, Op& op);
  void emit_p2p(const StepUnit& su, Op& op);
  bool next_op(Op& op);  // next() before the pipeline-send waits
  // Marks which compute op must wait for this send (training.pp_send_wait).
  void hold_compute_for_send(std::uint32_t send, bool forward);
  // communication added around the templates
  void queue_gathers(const Unit& u, int slot, int layer);
  bool pop_gather(Op& op);
  bool pop_reduce(Op& op);
  // activation offloading (gpu_program_offload.cpp)
  bool offload_after_forward(int layer, Op& op);
  bool reload_before_backward(int layer, Op& op);
  void emit_copy(OpKind kind, int group, Op& op);
  // end of iteration
  bool epilogue_next(Op& op);
  bool queue_next_epilogue_gathers();
  // helpers
  void begin_op(Op& op, OpKind kind, Phase phase);
  void set_group(Op& op, GroupKind kind);
  static void add_dep(Op& op, std::uint32_t id);

  const WorkloadPlan* plan_;
  int gpu_;
  Coords coords_;
  StageSchedule schedule_;
  StageParams stage_;
  std::array<GroupId, kGroupKindCount> groups_{};
  std::array<std::uint32_t, kGroupKindCount> seq_{};
  int prev_pp_gpu_ = -1, next_pp_gpu_ = -1;
  bool recompute_units_ = false, overlap_grad_ = false, prefetch_ = false;
  int zero_ = 0;

  Section section_ = Section::steps;
  bool in_step_ = false;
  int step_index_ = 0;
  // Where one pass (a schedule step's forward or backward) stands. A plain
  // step has one; a combined 1F1B step two, the other one parked.
  struct PassState {
    ScheduleStep step{};
    int vstage = 0, first_layer = 0, layers = 0, mtp_units = 0;
    // Layers of this step's chunk that re-run their forward as a unit before
    // their backward: its first recomputed_layers (training.recompute_num_layers).
    int recomputed_layers = 0;
    int unit_index = 0, unit_count = 0;
    bool gather_step = false, reduce_step = false;
    const Unit* unit = nullptr;
    int op_index = 0;
    int unit_layer = -1;
    std::vector<std::uint32_t> unit_ids;
    std::uint32_t input_id = kNoOp;
  };
  PassState pass_;
  // How many recomputed layers re-run together from one checkpoint (uniform method).
  int recompute_group_ = 1;
  std::uint32_t next_id_ = 0, last_compute_id_ = kNoOp;

  std::array<PendingGather, kGatherQueue> gathers_{};
  int gather_head_ = 0, gather_count_ = 0;
  std::array<std::array<std::uint32_t, kParamClasses>, 2> param_ids_{};  // [current | prefetched][class]
  bool next_prefetched_ = false;

  // Activation offloading: TE's window map, its group counter, the copy the
  // next unit's first op waits for, and the last copy issued.
  std::vector<int> offload_sync_;
  int offload_count_ = 0;
  std::uint32_t offload_wait_ = kNoOp, last_copy_ = kNoOp;
  // Pipeline sends the compute stream waits for (training.pp_send_wait), per
  // direction [forward | backward]: the send the next compute op waits for,
  // and the last send (deferred: waited once the next one is posted).
  PpSendWait send_wait_mode_ = PpSendWait::blocking;
  std::array<std::uint32_t, 2> send_wait_{kNoOp, kNoOp};
  std::array<std::uint32_t, 2> last_send_{kNoOp, kNoOp};
  // Fine-grained offloading: the forward's offload of each (layer,
  // micro-batch, slot) tensor still to be reloaded; a reload waits for it.
  struct HostCopy {
    std::uint64_t key = 0;
    std::uint32_t id = kNoOp;
  };
  std::vector<HostCopy> offloaded_;
  void pair_host_copy(const OpTemplate& t, Op& op);

  GradBuckets buckets_;
  std::array<std::uint32_t, kParamClasses> last_reduce_{kNoOp, kNoOp};

  // Combined 1F1B: the step's other pass, parked while the active one
  // emits; which one is active; how far the combined order has come.
  PassState parked_;
  bool combined_ = false, forward_active_ = true;
  int combined_pos_ = 0;

  int epilogue_pos_ = 0, epilogue_chunk_ = 0, epilogue_unit_ = 0;
  std::uint32_t sp_reduce_id_ = kNoOp, embedding_reduce_id_ = kNoOp;
};

}  // namespace pf::models::workload
