// Combined 1F1B (training.overlap_moe_expert_parallel_comm): Megatron-Core's
// combined_1f1b.py runs each steady-state forward together with the backward
// after it. TransformerModelChunkSchedulePlan.run (model_chunk_schedule_plan.py
// at 0d8e0714, core_dev_r0.15.0) orders one combined step as:
//   the forward's input (receive or embedding); the backward's head (or its
//   gradient's receive); then forward layer i beside backward layer n-1-i,
//   for i = 0, 1, ...; the layers either pass has left, alone; the forward's
//   send or head and loss; the backward's send or embedding.
// and TransformerLayerSchedulePlan.run one layer pair as
//   comm:    combine_bwd           | dispatch_fwd, dispatch_bwd | combine_fwd
//   compute: attn_fwd, post_attn_fwd | mlp_bwd, mlp_dw, mlp_fwd | post_attn_bwd, attn_bwd
// so each pass's all-to-alls run beside the other pass's compute. The pieces
// are the templates' segments (Unit::segment_ends, layer_segments.h), issued
// here in that order:
//   B combine, F attention, F dispatch, B experts, B dispatch, F experts,
//   F combine, B attention, F unpermute and residual.
// Megatron runs the last piece on the communication stream with the combine;
// a kernel here runs on the one compute stream, so it is issued after the
// backward's attention rather than ahead of it, where it would hold the
// compute stream until the combine's all-to-all had finished.
#include "models/workload/gpu_program.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace pf::models::workload {
namespace {

// Where one stretch of the combined order stops, in the terms of the pass
// that issues it (resolved against that pass's units once it is active).
struct Stop {
  enum class Where : std::uint8_t {
    first_layer,   // before the pass's first layer (forward: after its input; backward: after its head)
    layer_piece,   // piece `piece` of the pass's layer of pair `pair` (segment_ends index; -1: the whole layer)
    last_layer,    // after the pass's layers (the ones left over once the pairs are done)
    end,           // after the pass's last unit
  };
  bool forward = true;
  Where where = Where::end;
  int pair = 0;
  int piece = 0;
};

constexpr int kHeadStretches = 2;  // the forward's input, the backward's head
constexpr int kPiecesPerPair = 9;
constexpr int kTailStretches = 4;  // leftover layers of each pass, the forward's end, the backward's end
// One pair's pieces in issue order: which pass, and the segment_ends entry
// each stops at (-1: the end of the layer).
constexpr bool kPieceForward[kPiecesPerPair] = {false, true, true, false, false, true, true, false, true};
constexpr int kPieceEnd[kPiecesPerPair] = {0, 0, 1, 1, 2, 2, 3, -1, -1};

// The stretch at position `pos` of a combined step with `pairs` layer pairs;
// false once the step is done.
bool stop_at(int pos, int pairs, Stop& stop) {
  using W = Stop::Where;
  if (pos == 0) {
    stop = {true, W::first_layer, 0, 0};
  } else if (pos == 1) {
    stop = {false, W::first_layer, 0, 0};
  } else if (pos < kHeadStretches + kPiecesPerPair * pairs) {
    const int k = pos - kHeadStretches;
    const int piece = k % kPiecesPerPair;
    stop = {kPieceForward[piece], W::layer_piece, k / kPiecesPerPair, kPieceEnd[piece]};
  } else {
    // The backward's layers left over, the forward's, the forward's head or
    // send (and MTP modules), the backward's embedding or send.
    static constexpr bool kForward[kTailStretches] = {false, true, true, false};
    static constexpr W kWhere[kTailStretches] = {W::last_layer, W::last_layer, W::end, W::end};
    const int k = pos - kHeadStretches - kPiecesPerPair * pairs;
    if (k >= kTailStretches) return false;
    stop = {kForward[k], kWhere[k], 0, 0};
  }
  return true;
}

}  // namespace

void GpuProgram::swap_pass() {
  std::swap(pass_, parked_);
  forward_active_ = !forward_active_;
}

// The forward (this step) is set up and parked, then the backward (the next
// step) becomes the active pass.
void GpuProgram::begin_combined() {
  begin_step();
  forward_active_ = true;
  swap_pass();
  ++step_index_;
  begin_step();
  combined_ = true;
  combined_pos_ = 0;
}

// Layer pairs of the combined step: as many as the shorter pass has layers.
int GpuProgram::combined_pairs() const { return std::min(pass_.layers, parked_.layers); }

int GpuProgram::combined_positions() const { return kHeadStretches + kPiecesPerPair * combined_pairs() + kTailStretches + 1; }

bool GpuProgram::combined_next(Op& op) {
  const int pairs = combined_pairs();
  for (;;) {
    Stop stop;
    if (!stop_at(combined_pos_, pairs, stop)) {
      // Both passes are done: the backward's step ends (its gradient buckets
      // flush); the forward's needs nothing more.
      if (forward_active_) swap_pass();
      end_step();
      combined_ = false;
      return false;
    }
    if (stop.forward != forward_active_) swap_pass();
    // Unit indices as unit_at numbers them: forward 0 input, then layers;
    // backward its MTP modules, head or receive, then layers.
    const int first_layer_unit = pass_.step.forward ? 1 : pass_.mtp_units + 1;
    int unit = pass_.unit_count, at = 0;
    switch (stop.where) {
      case Stop::Where::first_layer: unit = first_layer_unit; break;
      case Stop::Where::last_layer: unit = first_layer_unit + pass_.layers; break;
      case Stop::Where::end: break;
      case Stop::Where::layer_piece: {
        const int u = first_layer_unit + stop.pair;
        if (stop.piece < 0) {
          unit = u + 1;
        } else {
          unit = u;
          at = template_of(unit_at(u), pass_.step.forward).segment_ends[static_cast<std::size_t>(stop.piece)];
        }
        break;
      }
    }
    switch (advance(op, unit, at)) {
      case Advance::emitted: return true;
      case Advance::moved: break;
      case Advance::reached: ++combined_pos_; break;
    }
  }
}

}  // namespace pf::models::workload
