// Exercise 2, solved: Luong's general score written out step by step, as lessons/02-luong/README.md
// computes it. A reference, not a shortcut: it uses no library function, and
// `attn exercise 2 --file lessons/02-luong/exercise/solution.cpp` passes every case (CI checks it).
//
// Shapes: B batch · S source positions · H hidden size. W_a (H, H) is stored as nn.Linear stores
// its weight, (out, in): row i of W_a makes output feature i.
#include <algorithm>
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::LuongGeneralStep luong_general_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                               const attn::Matrix& W_a) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    attn::LuongGeneralStep step;
    step.projected = attn::Tensor3::from_shape({B, S, H});
    step.scores = attn::Matrix::from_shape({B, S});
    step.weights = attn::Matrix::from_shape({B, S});
    step.context = attn::Matrix::from_shape({B, H});

    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t s = 0; s < S; ++s) {
            // Step 2 — projected = W_a h̄_s: output feature i is row i of W_a against h̄_s.
            for (std::size_t i = 0; i < H; ++i) {
                double sum = 0.0;
                for (std::size_t j = 0; j < H; ++j) sum += W_a(i, j) * encoder_outputs(b, s, j);
                step.projected(b, s, i) = sum;
            }
            // Step 3 — the score is lesson 1's dot product, with the projected encoder output:
            // score(b, s) = h_t · (W_a h̄_s).
            double score = 0.0;
            for (std::size_t i = 0; i < H; ++i) score += decoder_output(b, i) * step.projected(b, s, i);
            step.scores(b, s) = score;
        }

        // Step 4 — lesson 1's softmax over the source positions, the row's maximum subtracted first
        // so that e^x stays finite.
        double maximum = step.scores(b, 0);
        for (std::size_t s = 1; s < S; ++s) maximum = std::max(maximum, step.scores(b, s));
        double sum = 0.0;
        for (std::size_t s = 0; s < S; ++s) sum += step.weights(b, s) = std::exp(step.scores(b, s) - maximum);
        for (std::size_t s = 0; s < S; ++s) step.weights(b, s) /= sum;

        // Step 5 — the context averages the *original* encoder outputs: W_a only decides how the
        // positions are scored.
        for (std::size_t h = 0; h < H; ++h) {
            double mean = 0.0;
            for (std::size_t s = 0; s < S; ++s) mean += step.weights(b, s) * encoder_outputs(b, s, h);
            step.context(b, h) = mean;
        }
    }
    return step;
}

}  // namespace exercise
