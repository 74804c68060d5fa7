// Where an op sits in a calibration table's feature space, and how far a
// query is from anything the table could have measured.
//
// Shape coordinates, all log2 so that equal distances mean equal ratios:
//   gemm       log2 M, log2 N, log2 K, w·log2(alignment bytes)
//   attention  log2(bs·nh), log2 seq_q, log2 seq_kv, log2(nh/nkv), log2 hd
//   rmsnorm    log2 rows, log2 dim
// The GEMM alignment is that of the leading dimensions N and K in bytes,
// capped at 16: cuBLAS picks kernels by operand alignment, and on the GH200
// table odd, 2–4-byte and 16-byte-aligned shapes run at about 135, 210 and
// 570 TFLOP/s at equal size, so neighbours must share it. w = 2 by default.
//
// Variant coordinates. A table measured one variant (forward, non-causal,
// RMSNorm, its own dtype). A query of another variant is mapped onto the
// measured one with the same shape, and its distance gains
//   kind:  max(1, |log2(anchor_query / anchor_variant)|) when causal, backward
//          or LayerNorm differ: at least one doubling, more when the work
//          ratio is larger (attention backward: log2 2.5);
//   dtype: |log2| of the anchor ratio between the two dtypes (0 for bf16 on an
//          fp16 table when the hardware file gives both the same peak).
// `anchor` is Roofline::ideal_seconds, the efficiency-free roofline.
#pragma once

#include "models/compute/calibration_table.h"
#include "models/compute/compute_op.h"
#include "models/compute/kd_tree.h"
#include "models/compute/roofline.h"

namespace pf::models {

int feature_dims(KernelTableKind kind);

// The table kind that can price an op class; false for classes no table
// measures (gemm_backward is priced as its two GEMMs, so it maps to none).
bool table_kind_for(OpClass cls, KernelTableKind* kind);

KdTree::Point shape_features(KernelTableKind kind, const ComputeOp& op, double alignment_weight);

// The op of the table's measured variant with the same shape, in `dtype`.
ComputeOp measured_variant(KernelTableKind kind, const ComputeOp& op, Dtype dtype);

// The variant part of the distance (see above), combined in quadrature.
double variant_distance(KernelTableKind kind, const ComputeOp& op, Dtype table_dtype, const Roofline& roofline);

}  // namespace pf::models
