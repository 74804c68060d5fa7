// The kernels eager PyTorch runs for an elementwise op that Megatron-Core or
// torch.compile fuse into one (training.fused_elementwise: false). Each pass
// is one kernel over the op's rows x dim, reading and writing `tensors`
// 16-bit tensors of that size (an fp32 tensor counts 2).
#pragma once

#include <span>

#include "models/workload/op.h"

namespace pf::models::workload {

struct KernelPass {
  double tensors = 0;
  double flops_per_elem = 0;
};

// What decides the decomposition: the norm (torch's LayerNorm is one native
// kernel, a Python RMSNorm is not), the MLP (SwiGLU's silu and product) and
// dropout (its own kernel before the residual add and, in unfused attention,
// after the softmax).
struct EagerTraits {
  bool rmsnorm = false;
  bool gated_mlp = false;
  bool dropout = false;
};

// Empty when the op runs as one kernel either way.
std::span<const KernelPass> eager_passes(OpKind kind, const EagerTraits& traits);

}  // namespace pf::models::workload
