// Exercise 11 — the training step's pieces: teacher forcing, the smoothed loss, Adam and its
// warm-up schedule, and the loop that puts them together.
//
// Implement the five functions below (lessons/11-training/README.md; exercise.hpp says exactly
// what each returns): teacher_forcing, the decoder's input and the targets from tgt;
// smoothed_cross_entropy, the loss with label smoothing and its gradient; noam_rate, the
// learning rate of a step; adam_update, one Adam update with bias correction; and train, the loop
// that runs each batch's backward and an update. Then run
//
//     ./tutor exercise 11
//
// to check them against the library's loss, Adam and schedule (themselves checked against
// PyTorch). Stuck? A run whose numbers changed and still fail shows the next hint;
// `./tutor exercise 11 --hint` shows one at once, and `./tutor exercise 11 --reset` gives you a
// fresh copy of this file (yours is kept as a backup).
//
// Shapes: B sequences · L symbols · N rows (one per predicted position) · V vocabulary ·
// P parameters · K updates.
// Useful: attn::Matrix::from_shape({N, V}) makes an uninitialised matrix (m.fill(0.0) clears it);
// m(n, c) reads and writes an element; std::exp, std::log, std::sqrt and std::pow are in <cmath>,
// std::max and std::fill in <algorithm>. No function of the library is needed: a call to one is
// refused before your code runs.
#include <algorithm>
#include <cmath>

#include "exercise.hpp"

namespace exercise {

TeacherForcing teacher_forcing(const Tokens& tgt) {
    TeacherForcing split;
    // TODO: for each sequence of tgt, the decoder reads every symbol but the last, and position t
    // is scored on the symbol after the one it reads:
    //   split.decoder_input: sequence[0 … L − 2];  split.targets: sequence[1 … L − 1]
    (void)tgt;
    throw attn::exercises::NotImplementedYet("lesson 11: exercise::teacher_forcing is not implemented yet — "
                                             "edit lessons/11-training/exercise/exercise.cpp");
    return split;
}

SmoothedLoss smoothed_cross_entropy(const attn::Matrix& logits, const std::vector<int>& targets, int padding,
                                    double smoothing) {
    // TODO: counted = the rows whose target is not `padding`. For each counted row n:
    //   log p = the row's log softmax (subtract the row's maximum first: logits may be large)
    //   q[n, c] = 1 − ε on targets[n], 0 on `padding`, ε / (V − 2) elsewhere
    //   loss += Σ_c q · (log q − log p) over the c where q > 0
    //   grad_logits[n, c] = (p[n, c] − q[n, c]) / counted
    // Rows whose target is padding: q and grad_logits all 0. Finally loss /= counted.
    (void)logits;
    (void)targets;
    (void)padding;
    (void)smoothing;
    throw attn::exercises::NotImplementedYet("lesson 11: exercise::smoothed_cross_entropy is not implemented yet — "
                                             "edit lessons/11-training/exercise/exercise.cpp");
}

double noam_rate(std::size_t step, std::size_t d_model, double factor, std::size_t warmup) {
    // TODO: factor · d_model^(−1/2) · min(step^(−1/2), step · warmup^(−3/2)), with step 0 read as 1
    (void)step;
    (void)d_model;
    (void)factor;
    (void)warmup;
    throw attn::exercises::NotImplementedYet("lesson 11: exercise::noam_rate is not implemented yet — "
                                             "edit lessons/11-training/exercise/exercise.cpp");
}

void adam_update(std::vector<double>& parameters, const std::vector<double>& gradients, AdamMemory& memory,
                 double learning_rate) {
    // TODO: size memory.m and memory.v with zeros if they are empty; t = memory.steps_taken + 1;
    // for each i: m ← 0.9 m + 0.1 g;  v ← 0.98 v + 0.02 g²;
    //   θ ← θ − learning_rate · (m / (1 − 0.9ᵗ)) / (√(v / (1 − 0.98ᵗ)) + 1e-9)
    // then count the update in memory.steps_taken.
    (void)parameters;
    (void)gradients;
    (void)memory;
    (void)learning_rate;
    throw attn::exercises::NotImplementedYet("lesson 11: exercise::adam_update is not implemented yet — "
                                             "edit lessons/11-training/exercise/exercise.cpp");
}

TrainingLog train(std::vector<double> parameters, const std::vector<Backward>& batches, const Schedule& schedule) {
    TrainingLog log;
    AdamMemory memory;
    std::vector<double> gradients(parameters.size(), 0.0);  // the gradient buffer (each parameter's .grad)
    // TODO: for k = 1 … batches.size():
    //   batches[k − 1](parameters, gradients) adds that batch's gradient into the buffer;
    //   rate = noam_rate(k − 1, schedule.d_model, schedule.factor, schedule.warmup);
    //   adam_update(parameters, gradients, memory, rate);
    //   record rate, the buffer and the parameters in log.
    (void)batches;
    (void)schedule;
    throw attn::exercises::NotImplementedYet("lesson 11: exercise::train is not implemented yet — "
                                             "edit lessons/11-training/exercise/exercise.cpp");
    return log;
}

}  // namespace exercise
