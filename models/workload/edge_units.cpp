// The ends of the model: vocab-parallel embedding, and final norm, vocab-
// parallel LM head and cross-entropy loss (Megatron's VocabParallelEmbedding,
// vocab_parallel_cross_entropy: all-reduces of the max logit, the target logit
// and the sum of exponentials over tp).
#include "models/workload/layer_units.h"
#include "models/workload/param_count.h"

namespace pf::models::workload {

namespace {

// Partial hidden states from each vocab shard are summed over tp (reduce-
// scattered over the sequence under sequence parallelism).
int tp_sum(UnitBuilder& b, const RecipeContext& c, int from) {
  if (!c.tp()) return from;
  OpKind k = c.d.sp ? OpKind::tp_reduce_scatter : OpKind::tp_all_reduce;
  return b.collective(k, GroupKind::tp, c.act_bytes_tokens(), {DepRef::op(from)});
}

// HBM traffic of the loss over the tokens x vocab_local logits, in 16-bit
// tensor equivalents (the `tensors` of UnitBuilder::rows). Megatron-Core's
// vocab_parallel_cross_entropy (tensor_parallel/cross_entropy.py) works in
// fp32: logits.float() (read 2, write 4 bytes), the max (read 4), subtract it
// in place (read 4, write 4), exp (read 4, write 4), the sum (read 4), divide
// in place to keep the softmax for backward (read 4, write 4): 38 bytes per
// logit, 19 tensors. Backward scales the saved softmax by the loss gradient in
// place (read 4, write 4) and casts it to 16 bits for the LM head's GEMMs
// (read 4, write 2): 14 bytes, 7 tensors. --cross-entropy-loss-fusion
// (megatron/core/fusions/fused_cross_entropy.py) runs the same steps as
// three jit-fused regions forward, each keeping its fp32 result: cast and max
// (read 2, write 4), subtract, exp and sum (read 4, write 4), divide (read 4,
// write 4): 22 bytes, 11 tensors; backward the scale and the cast in one
// (read 4, write 2): 6 bytes, 3 tensors.
double loss_fwd_tensors(const RecipeContext& c) { return c.fused_cross_entropy ? 11.0 : 19.0; }
// Backward passes over the logits (Transformer Engine's: one in-place scale,
// te_loss_fwd below) and their FLOPs per logit.
double loss_bwd_tensors(const RecipeContext& c) {
  if (c.te_cross_entropy) return 2.0;
  return c.fused_cross_entropy ? 3.0 : 7.0;
}
double loss_bwd_flops(const RecipeContext& c) { return c.te_cross_entropy ? 1.0 : 3.0; }

// --cross-entropy-fusion-impl te: Transformer Engine's Triton cross entropy
// (TE 2.9 pytorch/triton/cross_entropy.py) reads the 16-bit logits twice and
// never makes an fp32 copy. online_softmax_kernel reads them for each row's
// max, sum of exponentials and target logit (2 bytes per logit); with TP one
// all-gather of those three fp32 figures per token and rank replaces the three
// all-reduces; cross_entropy_kernel reads the logits again and writes the
// gradient over them in place (2 + 2 bytes). Backward, element_mul_kernel
// scales that gradient by the loss gradient in place (2 + 2 bytes).
int te_loss_fwd(UnitBuilder& b, const RecipeContext& c, int logits) {
  const LocalDims& d = c.d;
  int stats = b.rows(OpKind::loss_fwd, d.tokens, d.vocab_local, 1, 3, {DepRef::op(logits)});
  if (c.tp()) stats = b.collective(OpKind::tp_all_gather, GroupKind::tp, d.tp * d.tokens * 3 * 4, {DepRef::op(stats)});
  return b.rows(OpKind::loss_fwd, d.tokens, d.vocab_local, 2, 4, {DepRef::op(stats)});
}

}  // namespace

Unit embedding_forward_unit(const RecipeContext& c) {
  UnitBuilder b(Phase::fwd, false, c.kernels);
  int lookup = b.rows(OpKind::embedding_fwd, c.d.tokens, c.d.hidden, 2, 1, {});
  tp_sum(b, c, lookup);
  Unit u = b.take();
  u.param_elems[0] = embedding_params(c.model, c.d);
  wait_for_params(u);
  return u;
}

Unit embedding_backward_unit(const RecipeContext& c) {
  UnitBuilder b(Phase::bwd, false, c.kernels);
  DepRef grad = DepRef::input();
  if (c.d.sp) grad = DepRef::op(b.collective(OpKind::tp_all_gather, GroupKind::tp, c.act_bytes_tokens(), {grad}));
  // Scatter-add of the token gradients into this GPU's rows of the table.
  b.rows(OpKind::embedding_bwd, c.d.tokens, c.d.hidden, 3, 1, {grad}, embedding_params(c.model, c.d));
  Unit u = b.take();
  u.param_elems[0] = embedding_params(c.model, c.d);
  wait_for_params(u);
  return u;
}

int head_block_fwd(UnitBuilder& b, const RecipeContext& c, DepRef in) {
  const LocalDims& d = c.d;
  int norm = b.rows(OpKind::norm_fwd, d.tokens_sp, d.hidden, 2, 5, {in});
  int src = norm;
  if (d.sp) src = b.collective(OpKind::tp_all_gather, GroupKind::tp, c.act_bytes_tokens(), {DepRef::op(norm)});
  int logits = b.gemm(OpKind::lm_head_fwd, d.tokens, d.vocab_local, d.hidden, {DepRef::op(src)});
  if (c.te_cross_entropy) return te_loss_fwd(b, c, logits);
  if (!c.tp()) return b.rows(OpKind::loss_fwd, d.tokens, d.vocab_local, loss_fwd_tensors(c), 5, {DepRef::op(logits)});
  // Local max / exp / sums over the vocab shard, three small fp32 all-reduces, then the loss.
  int local = b.rows(OpKind::loss_fwd, d.tokens, d.vocab_local, loss_fwd_tensors(c), 5, {DepRef::op(logits)});
  int ar = local;
  for (int i = 0; i < 3; ++i) ar = b.collective(OpKind::tp_all_reduce, GroupKind::tp, d.tokens * 4, {DepRef::op(ar)});
  return b.rows(OpKind::loss_fwd, d.tokens, 1, 4, 4, {DepRef::op(ar)});
}

int head_block_bwd(UnitBuilder& b, const RecipeContext& c, std::int64_t head_grad_elems) {
  const LocalDims& d = c.d;
  // Softmax minus one-hot over the logits shard: the loss gradient needs no input op.
  int dlogits = b.rows(OpKind::loss_bwd, d.tokens, d.vocab_local, loss_bwd_tensors(c), loss_bwd_flops(c), {});
  int dx = b.gemm(OpKind::lm_head_dgrad, d.tokens, d.hidden, d.vocab_local, {DepRef::op(dlogits)});
  int out = dx;
  if (c.tp()) {
    OpKind k = d.sp ? OpKind::tp_reduce_scatter : OpKind::tp_all_reduce;
    out = b.collective(k, GroupKind::tp, c.act_bytes_tokens(), {DepRef::op(dx)});
  }
  b.gemm(OpKind::lm_head_wgrad, d.hidden, d.vocab_local, d.tokens, {DepRef::op(dlogits)}, head_grad_elems);
  return b.rows(OpKind::norm_bwd, d.tokens_sp, d.hidden, 3, 8, {DepRef::op(out)}, final_norm_params(c.model, d));
}

Unit head_forward_unit(const RecipeContext& c, std::int64_t head_elems, std::int64_t copy_elems) {
  UnitBuilder b(Phase::fwd, false, c.kernels);
  head_block_fwd(b, c, DepRef::input());
  Unit u = b.take();
  u.param_elems[0] = final_norm_params(c.model, c.d) + head_elems + copy_elems;
  wait_for_params(u);
  return u;
}

// head_elems: the head's weight on this GPU, whose gradient its wgrad finishes
// (a head tied to the embedding on the same GPU adds to the embedding's, counted
// there); copy_elems: a last-stage embedding copy kept for multi-token
// prediction, accounted with the head: its gradient is complete once the head's
// backward (which runs after the MTP modules') is.
Unit head_backward_unit(const RecipeContext& c, std::int64_t head_elems, std::int64_t copy_elems) {
  UnitBuilder b(Phase::bwd, false, c.kernels);
  head_block_bwd(b, c, head_elems + copy_elems);
  Unit u = b.take();
  u.param_elems[0] = final_norm_params(c.model, c.d) + head_elems + copy_elems;
  wait_for_params(u);
  return u;
}

}  // namespace pf::models::workload
