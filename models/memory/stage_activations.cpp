#include "models/memory/stage_activations.h"

#include <algorithm>
#include <vector>

#include "models/workload/activation_offload.h"
#include "models/workload/schedule.h"

namespace pf::models::memory {
namespace {

// training.cpu_offload_layers (pp = 1, one micro-batch in flight): the forward
// walk of activation_offload.h. Layer k's tensors are alive from its forward
// on; offloaded group i's are freed at the end of layer w[i]'s forward, once
// its copy is done. The peak is reached just before the last layer's sync
// (L - N + 1 layers' worth with equal layers) or with the head's added after it;
// the offloaded layers themselves sit in host memory.
StageActivations offloaded_stage(const workload::WorkloadPlan& plan, const ActivationOptions& opt) {
  const ModelSpec& model = plan.model();
  const workload::LocalDims& dims = plan.dims();
  const int layers = model.layers, offloaded = plan.training().cpu_offload_layers;
  const std::vector<int> sync = workload::offload_sync_layers(layers, offloaded);
  std::vector<double> bytes(static_cast<std::size_t>(layers));
  for (int k = 0; k < layers; ++k)
    bytes[static_cast<std::size_t>(k)] =
        layer_activation_bytes(model, dims, workload::layer_is_moe(model, k), plan.training().recompute, opt);
  StageActivations out;
  out.chunks_in_flight = 1;
  double held = embedding_activation_bytes(model, dims);
  out.peak_bytes = held;
  std::size_t freed = 0;
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    held += bytes[k];
    out.peak_bytes = std::max(out.peak_bytes, held);
    if (freed < sync.size() && sync[freed] == static_cast<int>(k)) held -= bytes[freed++];
  }
  held += head_activation_bytes(model, dims) +
          model.mtp_layers * mtp_activation_bytes(model, dims, plan.training().recompute, opt);
  out.peak_bytes = std::max(out.peak_bytes, held);
  for (std::size_t g = 0; g < sync.size(); ++g) out.host_bytes += bytes[g];  // the offloaded groups: layers 0..N-1
  return out;
}

}  // namespace

StageActivations stage_activations(const workload::WorkloadPlan& plan, int stage, const ActivationOptions& opt) {
  if (plan.training().cpu_offload_layers > 0) return offloaded_stage(plan, opt);
  const ModelSpec& model = plan.model();
  const workload::LocalDims& dims = plan.dims();
  const TrainingSpec& train = plan.training();
  Recompute rc = train.recompute;
  int chunks = plan.chunks();
  // Activations one micro-batch leaves in each chunk, and the transient extra
  // its backward needs over them: the backward frees its layers last to
  // first, so layer j's rebuilt tensors come beside layers 0..j's only
  // (with recompute_num_layers the recomputed first layers come last, when the
  // kept ones are already freed). Under the uniform method a group of layers
  // keeps one input and its backward rebuilds the whole group at once.
  std::vector<double> held(static_cast<std::size_t>(chunks), 0), working(held.size(), 0), host(held.size(), 0);
  ActivationOptions on_gpu = opt;  // what stays with the modules' inputs kept on the GPU
  on_gpu.offload = {};
  for (int c = 0; c < chunks; ++c) {
    auto ci = static_cast<std::size_t>(c);
    int vstage = plan.split().vstage(stage, c);
    int first = plan.split().first_layer(vstage);
    double layers = 0, transient = 0;  // layers 0..j of the chunk; the most held during a layer's backward
    double rebuilt = 0;                // what the current recompute group's backward rebuilds
    const int group = train.recompute_group(), count = plan.split().layer_count(vstage);
    for (int j = 0; j < count; ++j) {
      const int layer = first + j;
      bool moe = workload::layer_is_moe(model, layer);
      const Recompute lrc = train.layer_recompute(j);  // training.recompute_num_layers
      if (j % group == 0) {  // the layer whose input is checkpointed (every layer unless uniform)
        layers += layer_activation_bytes(model, dims, moe, lrc, opt);
        if (opt.offload.any()) host[ci] += layer_activation_bytes(model, dims, moe, lrc, on_gpu) - layer_activation_bytes(model, dims, moe, lrc, opt);
      }
      rebuilt += recompute_working_bytes(model, dims, moe, lrc, opt);
      if ((j + 1) % group == 0 || j == count - 1) {
        transient = std::max(transient, layers + rebuilt);
        rebuilt = 0;
      }
    }
    held[ci] = layers;
    if (vstage == 0) held[ci] += embedding_activation_bytes(model, dims);
    if (vstage == plan.vstages() - 1) {
      held[ci] += head_activation_bytes(model, dims) + model.mtp_layers * mtp_activation_bytes(model, dims, rc, opt);
    }
    working[ci] = std::max(0.0, transient - layers);
  }
  // Combined 1F1B runs one more warm-up forward: one more micro-batch held.
  workload::StageSchedule schedule(plan.parallelism().pp, stage, plan.microbatches(), chunks,
                                   plan.training().overlap_moe_expert_parallel_comm);
  StageActivations out;
  double now = 0, host_now = 0;
  int in_flight = 0;
  for (int i = 0; i < schedule.steps(); ++i) {
    workload::ScheduleStep s = schedule.step(i);
    auto ci = static_cast<std::size_t>(s.chunk);
    if (s.forward) {
      now += held[ci];
      host_now += host[ci];
      out.chunks_in_flight = std::max(out.chunks_in_flight, ++in_flight);
      out.peak_bytes = std::max(out.peak_bytes, now);
      out.host_bytes = std::max(out.host_bytes, host_now);
    } else {
      out.peak_bytes = std::max(out.peak_bytes, now + working[ci]);
      now -= held[ci];
      host_now -= host[ci];
      --in_flight;
    }
  }
  return out;
}

}  // namespace pf::models::memory
