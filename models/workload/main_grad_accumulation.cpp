#include "models/workload/main_grad_accumulation.h"

#include <algorithm>
#include <array>


namespace pf::models::workload {

double main_grad_accumulation_bytes(MainGradAccumulation mode, int main_grad_bytes) {
  if (main_grad_bytes <= 2) return 0;  // 16-bit main gradients: autograd sums them in place
  switch (mode) {
    case MainGradAccumulation::fused: return 0;
    case MainGradAccumulation::add: return 2 + 4 + 4;               // read grad and main grad, write main grad
    case MainGradAccumulation::cast_add: return (2 + 4) + (4 + 4 + 4);  // cast to fp32, then add
  }
  return 0;
}

int main_grad_accumulation_kernels(MainGradAccumulation mode) {
  return mode == MainGradAccumulation::cast_add ? 2 : 1;
}

void append_main_grad_accumulation(Unit& unit, double bytes_per_param, int kernels_per_tensor) {
  if (bytes_per_param <= 0 || unit.ops.empty()) return;
  std::array<std::int64_t, kParamClasses> params{};
  std::array<std::int64_t, kParamClasses> tensors{};
  for (OpTemplate& t : unit.ops) {
    if (t.grad_elems <= 0) continue;
    const auto c = static_cast<std::size_t>(t.grad_class);
    params[c] += t.grad_elems;
    ++tensors[c];
    t.grad_elems = 0;  // the buckets wait for the accumulation instead
  }
  const Phase phase = unit.ops.back().phase;
  for (std::size_t c = 0; c < params.size(); ++c) {
    if (params[c] == 0) continue;
    OpTemplate t;
    t.kind = OpKind::main_grad_accumulate;
    t.phase = phase;
    t.shape.rows = {params[c], 1, true};  // priced from its bytes, as an eager pass
    t.flops = static_cast<double>(params[c]);
    t.bytes = static_cast<std::uint64_t>(bytes_per_param * static_cast<double>(params[c]));
    t.grad_elems = params[c];
    t.grad_class = static_cast<ParamClass>(c);
    const std::int64_t launches = std::min<std::int64_t>(0xffff, tensors[c] * kernels_per_tensor);
    t.launches = static_cast<std::uint16_t>(launches);
    t.deps[0] = DepRef::op(static_cast<int>(unit.ops.size()) - 1);
    unit.ops.push_back(t);
  }
}

}  // namespace pf::models::workload
