// Everything about an experiment's training iteration that all GPUs share,
// computed once: validated sizes, the rank layout, the layer split and the op
// templates. Its size does not depend on the GPU count (a few kilobytes plus
// one entry per virtual pipeline stage); each GPU's program is a cursor over it.
#pragma once

#include <array>
#include <cstdint>

#include "models/spec/experiment_spec.h"
#include "models/workload/layer_split.h"
#include "models/workload/model_dims.h"
#include "models/workload/op_template.h"
#include "models/workload/rank_layout.h"

namespace pf::models::workload {

enum class UnitId : std::uint8_t {
  embedding_fwd, embedding_bwd,
  head_fwd, head_bwd,
  dense_fwd, dense_bwd, dense_recompute,
  moe_fwd, moe_bwd, moe_recompute,
  mtp_fwd, mtp_bwd,
  // The same layers with sliding-window attention (model.sliding_window).
  dense_window_fwd, dense_window_bwd, dense_window_recompute,
  moe_window_fwd, moe_window_bwd, moe_window_recompute,
  count_
};
inline constexpr int kUnitIdCount = static_cast<int>(UnitId::count_);

// Which pass over a transformer layer a unit is.
enum class LayerPass : std::uint8_t { fwd, bwd, recompute };

// Megatron-Core DDP's default gradient bucket in parameters for a data-parallel
// (x context-parallel) group of dp_cp ranks: max(40M, 1M x dp_cp).
std::int64_t megatron_bucket_params(int dp_cp);

class WorkloadPlan {
 public:
  // Throws pf::ConfigError (naming the key) for a split the model cannot take.
  WorkloadPlan(const ModelSpec& model, const ParallelismSpec& par, const TrainingSpec& train);
  explicit WorkloadPlan(const ExperimentSpec& e) : WorkloadPlan(e.model, e.parallelism, e.training) {}

  const ModelSpec& model() const { return model_; }
  const ParallelismSpec& parallelism() const { return par_; }
  const TrainingSpec& training() const { return train_; }
  const RankLayout& layout() const { return layout_; }
  const LayerSplit& split() const { return split_; }
  const LocalDims& dims() const { return dims_; }

  int world_size() const { return layout_.world_size(); }
  int microbatches() const { return microbatches_; }  // per pipeline, per iteration
  int chunks() const { return split_.chunks(); }       // model chunks per pipeline rank
  int vstages() const { return split_.vstages(); }

  // Where gradients of a parameter class are reduced and ZeRO shards live:
  // dense over dp (dp x cp when cp > 1), experts over the expert-DP group.
  GroupKind grad_group(ParamClass cls) const;
  int grad_group_size(ParamClass cls) const { return layout_.group_size(grad_group(cls)); }
  // The LM head owns a weight on its GPU (untied, or tied but on another stage).
  bool separate_head() const { return !model_.tied_embeddings || par_.pp > 1; }
  // Embedding rows a last stage keeps only for multi-token prediction (untied
  // model, pp > 1): a copy of the first stage's table.
  std::int64_t mtp_embedding_copy() const;
  // First and last stage both hold the word embedding (a tied head or multi-token
  // prediction on another stage): they all-reduce its gradient (Megatron's embedding group).
  bool syncs_tied_embedding() const { return par_.pp > 1 && (model_.tied_embeddings || model_.mtp_layers > 0); }

  // training.grad_bucket_mb in bytes (MiB, 2^20), at least 1; auto (0):
  // megatron_bucket_params(dp * cp) parameters of main gradients.
  std::int64_t bucket_bytes() const { return bucket_bytes_; }
  std::int64_t p2p_bytes() const { return p2p_bytes_; }  // one activation (or gradient) between stages
  int param_bytes() const;
  int grad_bytes() const;
  // Whether DP reduces the main gradients by all-reduce (training.grad_reduce_collective).
  bool grads_all_reduced() const;

  // training.cpu_offload_layers: the bytes one offloaded dense / MoE layer's
  // saved tensors take, which each copy to the host and back moves. The
  // memory model counts them (memory::offloaded_layer_bytes); whoever builds
  // the plan for a run sets them before programs are made from it.
  void set_offload_bytes(std::int64_t dense_layer, std::int64_t moe_layer) {
    offload_bytes_ = {dense_layer, moe_layer};
  }
  std::int64_t offload_bytes(bool moe) const { return offload_bytes_[moe ? 1 : 0]; }

  const Unit& unit(UnitId id) const { return units_[static_cast<std::size_t>(id)]; }
  // The unit of transformer layer `layer`'s pass: dense or MoE, full or
  // sliding-window attention.
  UnitId layer_unit(int layer, LayerPass pass) const;
  int max_unit_size() const { return max_unit_size_; }
  // A dense plan-wide index of op `op_index` of `u` (a unit of this plan), and
  // how many such indices there are: keys for per-template memos.
  std::uint32_t template_index(const Unit& u, int op_index) const {
    return static_cast<std::uint32_t>((&u - units_.data()) * max_unit_size_ + op_index);
  }
  std::uint32_t template_count() const { return static_cast<std::uint32_t>(kUnitIdCount * max_unit_size_); }

 private:
  void validate() const;
  void validate_a2a_overlap() const;
  void build_units();

  ModelSpec model_;
  ParallelismSpec par_;
  TrainingSpec train_;
  RankLayout layout_;
  LayerSplit split_;
  LocalDims dims_;
  int microbatches_ = 1;
  std::int64_t bucket_bytes_ = 0;
  std::int64_t p2p_bytes_ = 0;
  std::array<std::int64_t, 2> offload_bytes_{-1, -1};  // -1: not set
  std::array<Unit, kUnitIdCount> units_;
  int max_unit_size_ = 0;
};

}  // namespace pf::models::workload
