// Kernel-by-kernel bytes of eager PyTorch's elementwise code, as torchtitan's
// and Hugging Face's Llama write it (torchtitan/models/norms.py RMSNorm:
// x.float(), pow(2).mean(-1), rsqrt(+eps), x * rstd, .type_as(x), * weight;
// SwiGLU: F.silu(w1(x)) * w3(x); rotary: view_as_complex(x.float()) * freqs,
// view_as_real, type_as) and as autograd differentiates it. Tensor passes in
// 16-bit units of the op's rows x dim: a bf16 read is 1, an fp32 write 2;
// per-row tensors (mean, rstd) are negligible bytes but still a kernel.
#include "models/workload/eager_kernels.h"

#include <array>

namespace pf::models::workload {
namespace {

// RMSNorm forward: cast 1r+2w, pow 2r+2w, mean 2r, add eps, rsqrt, x*rstd
// 2r+2w, type_as 2r+1w, *weight 1r+1w: 18 passes in 8 kernels (fused: 2).
constexpr std::array<KernelPass, 8> kRmsNormFwd{{{3, 0}, {4, 1}, {2, 1}, {0, 0}, {0, 0}, {4, 1}, {3, 0}, {2, 1}}};
// Its backward: grad*weight, grad*y and the row sum for dweight, the cast
// back to fp32, rstd's two products and row sum, rsqrt/add (per row), the
// mean's expand, pow's 2x*g, the sum of the two x gradients, the cast to
// bf16: 38 passes in 13 kernels (fused: 3).
constexpr std::array<KernelPass, 13> kRmsNormBwd{{{2, 1}, {3, 1}, {1, 1}, {3, 0}, {4, 1}, {6, 1}, {2, 1},
                                                  {0, 0}, {0, 0}, {2, 1}, {6, 2}, {6, 1}, {3, 0}}};
// LayerNorm backward: the native dx kernel, then the gamma/beta reduction
// kernel reading dy and x again (forward is one native kernel, as fused).
constexpr std::array<KernelPass, 2> kLayerNormBwd{{{3, 8}, {2, 2}}};
// SwiGLU over the ffn width: silu(gate) 1r+1w, product 2r+1w (fused: 3); its
// backward: g*up, g*silu(gate), silu' (9 passes; fused: 5).
constexpr std::array<KernelPass, 2> kSwigluFwd{{{2, 4}, {3, 1}}};
constexpr std::array<KernelPass, 3> kSwigluBwd{{{3, 1}, {3, 1}, {3, 6}}};
// Dropout before the residual add (1-byte mask) and its backward beside the
// residual gradients' sum (fused bias-dropout-add: 3).
constexpr std::array<KernelPass, 2> kDropoutResidual{{{2.5, 1}, {3, 1}}};
// Rotary through complex numbers: cast to fp32, complex product, cast back
// (per Q and K; counted once over their combined width). Fused: 2.
constexpr std::array<KernelPass, 3> kRotary{{{3, 0}, {4, 3}, {3, 0}}};

// Unfused attention's elementwise work on the s x s scores as eager PyTorch
// runs it (Megatron-LM before FusedScaleMaskSoftmax and its jit fusions,
// e.g. megatron/model/transformer.py at 5281919, 2020): the causal mask's
// in-place masked_fill_ (1r+1w), the softmax (1r+1w) and the dropout (1r+1w
// and a 1-byte mask) as three kernels; backward the dropout's (gradient and
// mask in, 1w), the softmax's (P and dP in, dS out) and the masked_fill's
// on the gradient (1r+1w). Fused (FusedScaleMaskSoftmax, then dropout):
// 3.5 passes each way.
constexpr std::array<KernelPass, 3> kSoftmaxDropoutFwd{{{2, 1}, {2, 5}, {2.5, 1}}};
constexpr std::array<KernelPass, 3> kSoftmaxDropoutBwd{{{2.5, 1}, {3, 4}, {2, 0}}};
constexpr std::array<KernelPass, 2> kSoftmaxFwd{{{2, 1}, {2, 5}}};
constexpr std::array<KernelPass, 2> kSoftmaxBwd{{{3, 4}, {2, 0}}};

}  // namespace

std::span<const KernelPass> eager_passes(OpKind kind, const EagerTraits& t) {
  switch (kind) {
    case OpKind::norm_fwd: return t.rmsnorm ? std::span<const KernelPass>(kRmsNormFwd) : std::span<const KernelPass>();
    case OpKind::norm_bwd: return t.rmsnorm ? std::span<const KernelPass>(kRmsNormBwd) : std::span<const KernelPass>(kLayerNormBwd);
    case OpKind::mlp_act_fwd:
    case OpKind::expert_act_fwd: return t.gated_mlp ? std::span<const KernelPass>(kSwigluFwd) : std::span<const KernelPass>();
    case OpKind::mlp_act_bwd:
    case OpKind::expert_act_bwd: return t.gated_mlp ? std::span<const KernelPass>(kSwigluBwd) : std::span<const KernelPass>();
    case OpKind::residual_fwd:
    case OpKind::residual_bwd: return t.dropout ? std::span<const KernelPass>(kDropoutResidual) : std::span<const KernelPass>();
    case OpKind::attn_softmax_fwd:
      return t.dropout ? std::span<const KernelPass>(kSoftmaxDropoutFwd) : std::span<const KernelPass>(kSoftmaxFwd);
    case OpKind::attn_softmax_bwd:
      return t.dropout ? std::span<const KernelPass>(kSoftmaxDropoutBwd) : std::span<const KernelPass>(kSoftmaxBwd);
    case OpKind::rope_fwd:
    case OpKind::rope_bwd: return kRotary;
    default: return {};
  }
}

}  // namespace pf::models::workload
