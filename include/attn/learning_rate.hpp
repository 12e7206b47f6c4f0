// attn/learning_rate.hpp — the Transformer's warm-up learning rate, "noam" (lesson 11: training).
//
// Why a warm-up: in the first steps Adam's second moment v rests on a handful of gradients, and
// a large step then can throw the model far away. The rate therefore grows linearly for `warmup`
// steps, then decays as 1/√step (Attention Is All You Need, section 5.3; the Annotated
// Transformer's rate()):
//
//   rate(step) = factor · d_model^(−1/2) · min(step^(−1/2), step · warmup^(−3/2))
//
// The two branches meet at step = warmup, where the rate peaks at factor / √(d_model · warmup).
// step = 0 counts as 1, as in the Annotated Transformer ("we have to default the step to 1 for
// LambdaLR function to avoid zero raising to negative power").
//
// How PyTorch feeds it (checked with PyTorch 1.13): the Annotated Transformer wraps rate() in
// LambdaLR(optimizer, lr_lambda=lambda step: rate(step, …)), which sets the optimiser's lr to
// base_lr · lr_lambda(n), n = the number of scheduler.step() calls so far, starting with n = 0 in
// LambdaLR's constructor. The training loop calls optimizer.step() and then scheduler.step(), so
// update k (k = 1, 2, 3, …) uses
//
//   lr_k = base_lr · noam_learning_rate(k − 1, d_model, factor, warmup)
//
// and because 0 counts as 1, updates 1 and 2 both use rate(1). base_lr is Adam's lr: 0.5 in the
// Annotated Transformer's copy task, with factor 1 and warmup 400 (its larger model: lr 1, factor
// 1, warmup 3000). A trainer that wants PyTorch's sequence passes k − 1, not k.
//
//   attn::noam_learning_rate(0, 512, 1.0, 400);     // = rate(1) = 512^(−1/2) · 400^(−3/2) ≈ 5.524e-06
//   attn::noam_learning_rate(400, 512, 1.0, 400);   // the peak, 1/√(512 · 400) ≈ 2.210e-03
#pragma once

#include <cstddef>

namespace attn {

/// factor · d_model^(−1/2) · min(step^(−1/2), step · warmup^(−3/2)), step 0 counted as 1. Throws
/// InputError when d_model or warmup is 0 or factor is not a finite number > 0.
double noam_learning_rate(std::size_t step, std::size_t d_model, double factor, std::size_t warmup);

}  // namespace attn
