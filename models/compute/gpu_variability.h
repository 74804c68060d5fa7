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
// Each part's speed also moves within a run: its power and clock control
// hunt between a step's GEMM-, attention- and memory-bound phases (one H200
// running decoder layers back to back: 1.2-1.8 % spread over 0.1-s windows,
// configs/calibration/h200/measured/layer_sustained.csv). GPUs that wait for
// each other within a layer or a micro-batch (the lockstep group: tensor,
// context, expert and pipeline parallel peers, and every data-parallel one
// when the replicas gather the parameters layer by layer) run at the pace of
// whichever is slowest at that moment; data-parallel replicas that meet once
// per step (the gradient reduction) average those swings out. With the
// fluctuation's sigma (hardware.gpu.speed_fluctuation) over the lockstep group
// and the part-to-part sigma over the job, the kernels take
//
//   1 + sqrt( (sigma_part E[max of N])^2 + (sigma_fluct E[max of lockstep])^2 )
//
// times longer: exact when the lockstep group is the whole job (the sum of
// two independent normals is normal with the variances added), the
// part-to-part term alone when no GPU waits for another within a step.
//
// Every GPU is priced at that expected pace: the simulated GPUs stay equal,
// so replica folding stays exact, and a run's step is the expectation over
// which parts the scheduler hands out, not one draw.
#pragma once

#include <cmath>

#include "models/spec/experiment_spec.h"

namespace pf::models {

// E[max of n independent standard normals]: 0 for n <= 1, 0.564 for 2, 1.424
// for 8, 3.04 for 512 (Gauss quadrature of x n phi(x) Phi(x)^(n-1), exact to
// 1e-9 against the closed forms for n = 2, 3).
double expected_max_standard_normal(int n);

// The time multiplier of every kernel of a job of `gpus` GPUs whose parts
// spread by `part_sigma`, and whose speeds fluctuate by `fluctuation_sigma`
// within groups of `lockstep_gpus` that wait for each other (formula above).
double slowest_gpu_factor(double part_sigma, int gpus, double fluctuation_sigma = 0, int lockstep_gpus = 1);

// How many GPUs wait for one another within a layer or a micro-batch: a
// stage's tensor- and context-parallel group joined with its expert-parallel
// group (EP folded out of the data-parallel replicas), times the pipeline's
// stages; the whole job when the data-parallel replicas meet every micro-batch
// (`replicas_in_lockstep`). At most `gpus`.
int lockstep_gpus(const ParallelismSpec& p, int gpus, bool replicas_in_lockstep);

// Whether the data-parallel replicas gather each layer's parameters from one
// another as the forward reaches it: every micro-batch under ZeRO-3, and the
// step's only micro-batch under ZeRO-1 or 2 with overlap_param_gather (the
// gathers prefetched layer by layer into the first forward, and the step
// then ends within the swing's period).
bool replicas_gather_layers(const ExperimentSpec& e);

// Whether the data-parallel replicas all-reduce fp8 amaxes with one another
// every micro-batch: delayed scaling (training.fp8_recipe delayed) reduces the
// amax history when each forward leaves fp8_autocast (Transformer Engine 1.8
// `fp8_autocast_exit` -> `reduce_and_update_fp8_tensors`: an all-reduce MAX
// over `fp8_group` that the compute stream waits for), and Megatron-Core's
// group is the stage's tensor-, data- and context-parallel ranks
// (`get_amax_reduction_group(with_context_parallel=True)`; TE's default group
// is the whole world). Current scaling and MXFP8 reduce no amax across them.
bool replicas_reduce_amax(const ExperimentSpec& e);

// Whether the replicas all-reduce every micro-batch's reported loss, which the
// backward waits for (training.loss_reduce microbatch).
bool replicas_reduce_loss(const ExperimentSpec& e);

// Any of them: the replicas wait for one another within every micro-batch.
bool replicas_in_lockstep(const ExperimentSpec& e);

// An experiment's slowest-GPU factor, term by term: hardware.gpu.speed_spread
// over its GPUs, hardware.gpu.speed_fluctuation over its lockstep group (the
// band's sensitivity moves the two terms apart).
struct SlowestGpu {
  int lockstep_gpus = 1;
  double part = 0;         // sigma_part E[max of N]
  double fluctuation = 0;  // sigma_fluct E[max of lockstep]
  double factor() const { return 1 + std::hypot(part, fluctuation); }  // hypot(a, 0) is exactly a
};
SlowestGpu slowest_gpu(const ExperimentSpec& e);

}  // namespace pf::models
