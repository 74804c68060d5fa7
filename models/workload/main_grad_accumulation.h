// The kernels that add a micro-batch's weight gradients into the fp32 main
// gradients when the weight-gradient GEMMs do not (training.main_grad_accumulation;
// models/compute/README.md, "Main-gradient accumulation").
//
// Mixed-precision training keeps fp32 main gradients and sums every
// micro-batch's 16-bit weight gradients into them. Megatron-Core and
// Transformer Engine fuse the sum into the weight-gradient GEMM (its fp32
// output accumulates in place: no kernel of its own). Without the fusion the
// sum is a memory-bound pass over every parameter per micro-batch:
//  - add: Megatron's grad hook, param.main_grad.add_(param.grad) - one kernel
//    per parameter tensor, 2 + 4 bytes read and 4 written per parameter;
//  - cast_add: DeepSpeed's BF16_Optimizer.update_hp_grads after each
//    micro-batch's backward (deepspeed/runtime/bf16_optimizer.py, called by the
//    pipeline engine's _exec_backward_pass): hp_grad.add_(lp_grad.to(float32)),
//    a cast (2 read, 4 written) and an add (8 read, 4 written) per tensor.
#pragma once

#include "models/spec/training_spec.h"
#include "models/workload/op_template.h"

namespace pf::models::workload {

// HBM bytes per parameter of one micro-batch's accumulation; 0 when none runs
// (fused, or main gradients no wider than the weight gradients).
double main_grad_accumulation_bytes(MainGradAccumulation mode, int main_grad_bytes);
// Kernels per parameter tensor.
int main_grad_accumulation_kernels(MainGradAccumulation mode);

// Appends to a backward unit one main_grad_accumulate op per parameter class
// whose gradients the unit finishes: it reads what the unit's weight-gradient
// ops wrote, so it follows the unit's last op, and it takes their grad_elems
// (the data-parallel buckets fill from the accumulated main gradients). One
// kernel set per gradient-producing op, taken as one parameter tensor each.
void append_main_grad_accumulation(Unit& unit, double bytes_per_param, int kernels_per_tensor);

}  // namespace pf::models::workload
