// Exercise 1, solved: dot-product attention written out step by step, as
// lessons/01-dot-product/README.md computes it by hand. It is a reference, not a shortcut: it uses
// no library function, and `attn exercise 1 --file lessons/01-dot-product/exercise/solution.cpp` passes
// every case (CI checks it). Read it after your own attempt.
//
// Shapes: B batch · S source positions · H hidden size.
#include <algorithm>
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    attn::AttentionStep step;
    step.scores = attn::Matrix::from_shape({B, S});
    step.weights = attn::Matrix::from_shape({B, S});
    step.context = attn::Matrix::from_shape({B, H});

    // Each sentence of the batch is attended on its own.
    for (std::size_t b = 0; b < B; ++b) {
        // Step 2 — scores: how well each encoder output h̄_s matches the decoder state h_t,
        // score(b, s) = Σ_h h̄_s[h] · h_t[h].
        for (std::size_t s = 0; s < S; ++s) {
            double dot = 0.0;
            for (std::size_t h = 0; h < H; ++h) dot += encoder_outputs(b, s, h) * decoder_output(b, h);
            step.scores(b, s) = dot;
        }

        // Step 3 — weights: the softmax of the row of scores, over the S source positions.
        // Subtracting the row's maximum first changes nothing (e^(x−m) / Σ e^(x−m) = e^x / Σ e^x)
        // but keeps e^x finite when scores are in the hundreds.
        double maximum = step.scores(b, 0);
        for (std::size_t s = 1; s < S; ++s) maximum = std::max(maximum, step.scores(b, s));
        double sum = 0.0;
        for (std::size_t s = 0; s < S; ++s) {
            step.weights(b, s) = std::exp(step.scores(b, s) - maximum);
            sum += step.weights(b, s);
        }
        for (std::size_t s = 0; s < S; ++s) step.weights(b, s) /= sum;  // sum ≥ 1: the maximum gave e^0

        // Step 4 — context: the weighted mean of the encoder outputs, context(b, h) = Σ_s w_s · h̄_s[h].
        for (std::size_t h = 0; h < H; ++h) {
            double mean = 0.0;
            for (std::size_t s = 0; s < S; ++s) mean += step.weights(b, s) * encoder_outputs(b, s, h);
            step.context(b, h) = mean;
        }
    }
    return step;
}

}  // namespace exercise
