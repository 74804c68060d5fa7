// Activation offloading to host memory (training.cpu_offload_layers):
// Megatron-Core hands the first N transformer layers' saved tensors to
// Transformer Engine's AsyncDoubleBufferGroupOffloadHandler
// (transformer_engine/pytorch/cpu_offload.py), one group per layer.
//
// The handler spreads the N copies over all L layers. Forward: layer 0's
// tensors start copying to the host once its forward is done; at the end of
// layer w[i]'s forward the compute stream waits for group i's copy, frees
// group i's GPU memory and starts group i+1's copy. Backward, in reverse: at
// the start of layer w[j]'s backward the compute stream waits for the reload
// issued before (group j+1's) and group j's reload starts; layer 0's backward
// waits for every reload. So a copy hides behind about L/N layers of compute
// and shows only where it takes longer.
//
// w[i] (TE's layer_window_map) = (L / N)(i + 1) - 1, shifted by the
// remainder L mod N spread over the first groups: strictly increasing, w[0] >= 1,
// w[N-1] = L - 1.
#pragma once

#include <vector>

namespace pf::models::workload {

// w[0..N-1] for L layers of which the first N are offloaded (0 < N < L).
std::vector<int> offload_sync_layers(int layers, int offloaded);

}  // namespace pf::models::workload
