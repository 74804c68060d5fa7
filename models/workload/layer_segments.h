// A transformer layer's op template cut into the pieces Megatron-Core's
// combined 1F1B schedule interleaves with another micro-batch's
// (training.overlap_moe_expert_parallel_comm; Unit::segment_ends), and the
// delayed weight gradients that go with it (training.delay_wgrad_compute).
#pragma once

#include "models/workload/op_template.h"

namespace pf::models::workload {

// Marks a forward layer unit's pieces; `mlp_first` is the first op after the
// attention block. The all-to-all pieces are found by their ops (a dense
// layer has none, and its MLP is one piece).
void mark_forward_segments(Unit& u, int mlp_first);

// Marks a backward layer unit's pieces; `attention_first` is the attention
// block's first op (the MLP or MoE block's backward comes before it).
void mark_backward_segments(Unit& u, int attention_first);

// Megatron-Core's --delay-wgrad-compute (TransformerLayerNode.backward_dw):
// the weight-gradient GEMMs of the experts' piece and of the attention piece
// run after that piece's input-gradient ops, so the dispatch all-to-all and
// the next layer's backward need not wait for them. Moves every weight
// gradient (and whatever waits on it) to the end of its piece, keeping the
// unit's output (Unit::output) the input gradient. Needs the segments marked.
void delay_weight_gradients(Unit& u);

}  // namespace pf::models::workload
