// Exercise 3, solved: Bahdanau's additive attention written out step by step, as
// lessons/03-bahdanau/README.md computes it. A reference, not a shortcut: it uses no library
// function, and `attn exercise 3 --file lessons/03-bahdanau/exercise/solution.cpp` passes every case.
//
// Shapes: B batch · S source positions · H hidden size. W1 (2H, 2H), b1 (2H), w2 (1, 2H), b2 (1)
// are two nn.Linear layers, weights stored (out, in).
#include <algorithm>
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::BahdanauStep bahdanau_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                      const attn::Matrix& W1, const attn::Vector& b1, const attn::Matrix& w2,
                                      const attn::Vector& b2) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    attn::BahdanauStep step;
    step.concatenated = attn::Tensor3::from_shape({B, S, 2 * H});
    step.preactivation = attn::Tensor3::from_shape({B, S, 2 * H});
    step.hidden = attn::Tensor3::from_shape({B, S, 2 * H});
    step.scores = attn::Matrix::from_shape({B, S});
    step.weights = attn::Matrix::from_shape({B, S});
    step.context = attn::Matrix::from_shape({B, H});

    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t s = 0; s < S; ++s) {
            // Step 2 — h = [h̄_s ; h_t]: the encoder output first, then the decoder state, the order
            // W1 was trained for.
            for (std::size_t h = 0; h < H; ++h) {
                step.concatenated(b, s, h) = encoder_outputs(b, s, h);
                step.concatenated(b, s, H + h) = decoder_output(b, h);
            }
            // Step 3 — the hidden layer, W1 h + b1 then tanh, on this position's concatenation
            // (never on its memory seen as a (2H, S) grid: a reshape is not a transpose).
            for (std::size_t i = 0; i < 2 * H; ++i) {
                double sum = b1(i);
                for (std::size_t j = 0; j < 2 * H; ++j) sum += W1(i, j) * step.concatenated(b, s, j);
                step.preactivation(b, s, i) = sum;
                step.hidden(b, s, i) = std::tanh(sum);
            }
            // Step 4 — the score, one number: w2 · hidden + b2.
            double score = b2(0);
            for (std::size_t i = 0; i < 2 * H; ++i) score += w2(0, i) * step.hidden(b, s, i);
            step.scores(b, s) = score;
        }

        // Steps 5 and 6 — lesson 1's softmax over the source positions (maximum subtracted first)
        // and the weighted mean of the encoder outputs.
        double maximum = step.scores(b, 0);
        for (std::size_t s = 1; s < S; ++s) maximum = std::max(maximum, step.scores(b, s));
        double sum = 0.0;
        for (std::size_t s = 0; s < S; ++s) sum += step.weights(b, s) = std::exp(step.scores(b, s) - maximum);
        for (std::size_t s = 0; s < S; ++s) step.weights(b, s) /= sum;
        for (std::size_t h = 0; h < H; ++h) {
            double mean = 0.0;
            for (std::size_t s = 0; s < S; ++s) mean += step.weights(b, s) * encoder_outputs(b, s, h);
            step.context(b, h) = mean;
        }
    }
    return step;
}

}  // namespace exercise
