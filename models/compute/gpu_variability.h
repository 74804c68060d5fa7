// The slowest GPU of a synchronous job (models/compute/README.md, "GPU-to-GPU
// variability").
//
// GPUs of one SKU do not run at one speed: manufacturing spread and each
// part's power management give every GPU its own sustained rate (Sinha et al.,
// "Not All GPUs Are Created Equal", SC'22: 8 % average performance variation
// across the GPUs of a cluster, up to 22 %). Training synchronises every GPU
// at least once per step (the data-parallel exchange, and every TP and
// pipeline hand-off on the way), so the step runs at the pace of the job's
// slowest GPU. With each GPU's speed drawn from a normal of relative spread
// sigma (hardware.gpu.speed_spread), the expected slowest of N runs its
// kernels 1 + sigma E[max of N standard normals] times longer than the median
// part the cost model describes.
//
// Every GPU is priced at that expected pace: the simulated GPUs stay equal,
// so replica folding stays exact, and a run's step is the expectation over
// which parts the scheduler hands out, not one draw.
#pragma once

namespace pf::models {

// E[max of n independent standard normals]: 0 for n <= 1, 0.564 for 2, 1.424
// for 8, 3.04 for 512 (Gauss quadrature of x n phi(x) Phi(x)^(n-1), exact to
// 1e-9 against the closed forms for n = 2, 3).
double expected_max_standard_normal(int n);

// The time multiplier of every kernel of a job of `gpus` GPUs whose speeds
// spread by `sigma`: 1 + sigma E[max of gpus standard normals].
double slowest_gpu_factor(double sigma, int gpus);

}  // namespace pf::models
