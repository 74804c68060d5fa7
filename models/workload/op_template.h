// Op templates: the fixed op sequence of one model piece (a transformer
// layer's forward, its backward, the embedding, the LM head and loss), built
// once per plan and instantiated by every GpuProgram for each (layer,
// micro-batch). Dependencies are written relative to the unit, so a template
// holds no GPU- or micro-batch-specific data.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/workload/op.h"

namespace pf::models::workload {

enum class DepKind : std::uint8_t {
  none,
  unit,          // an earlier op of the same unit instance
  input,         // the op that produced this unit's input (previous unit's output)
  param,         // the parameter all-gather(s) this unit waits for (ZeRO)
};

struct DepRef {
  DepKind kind = DepKind::none;
  std::uint16_t index = 0;  // for DepKind::unit
  static DepRef op(int i) { return {DepKind::unit, static_cast<std::uint16_t>(i)}; }
  static DepRef input() { return {DepKind::input, 0}; }
  static DepRef param() { return {DepKind::param, 0}; }
};

enum class ParamClass : std::uint8_t { dense = 0, expert = 1 };
inline constexpr int kParamClasses = 2;

inline constexpr int kMaxTemplateDeps = 3;

struct OpTemplate {
  OpKind kind = OpKind::norm_fwd;
  Phase phase = Phase::fwd;
  bool recompute = false;
  double flops = 0;
  std::uint64_t bytes = 0;
  OpShape shape;
  GroupKind group = GroupKind::none;
  std::array<DepRef, kMaxTemplateDeps> deps{};
  // Weight-gradient elements this op finishes (wgrad GEMMs, norm and
  // embedding backward): what fills the data-parallel gradient buckets.
  std::int64_t grad_elems = 0;
  ParamClass grad_class = ParamClass::dense;
  std::uint16_t launches = 1;  // host issues (Op::launches)
  std::uint16_t inner_launches = 0;  // compiled launches inside the op's call (Op::inner_launches)
  bool graphed = false;        // replayed from a CUDA graph (Op::graphed)
  bool copy_engine = false;    // a collective on the copy engines (Op::copy_engine)
  // Host copies of a module's input (training.offload_modules): which tensor
  // of the layer, so a backward's reload can wait for the forward's offload
  // of the same micro-batch; -1 for every other op.
  std::int8_t host_slot = -1;
};

struct Unit {
  std::vector<OpTemplate> ops;  // the last op is the unit's output
  // Parameters the unit reads, per ParamClass (what ZeRO must gather first).
  std::array<std::int64_t, kParamClasses> param_elems{};
  // false for a recomputation unit: the next unit's input is not its output.
  bool passes_input = true;
  // A transformer layer's pieces as Megatron-Core's combined 1F1B schedules
  // them (TransformerLayerSchedulePlan; gpu_program_combined.cpp): the op
  // index each piece ends at, in op order. Forward: attention, pre-MLP norm
  // and router | dispatch all-to-all | experts | combine all-to-all |
  // unpermute and residual (to the end). Backward: residual, unpermute and
  // combine all-to-all | experts | dispatch all-to-all | router and attention
  // (ends[3] = the end). A dense layer's all-to-all pieces are empty.
  std::array<std::uint16_t, 4> segment_ends{};
  // The op whose result the next unit takes; -1: the last op.
  int output = -1;
  int output_index() const { return output >= 0 ? output : static_cast<int>(ops.size()) - 1; }
};

}  // namespace pf::models::workload
