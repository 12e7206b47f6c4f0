// Exercise 1, a second correct implementation written from lessons/01-dot-product/README.md alone:
// the softmax through log-sum-exp, the sums accumulated feature by feature (h outermost).
#include <cmath>
#include <vector>

#include "exercise.hpp"

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output) {
#ifdef PLANTED_BEFORE_ANSWER
    PLANTED_BEFORE_ANSWER();  // a hostile file's misdeeds, before the right answer
#endif
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    attn::AttentionStep out;
    out.scores = attn::Matrix::from_shape({B, S});
    out.weights = attn::Matrix::from_shape({B, S});
    out.context = attn::Matrix::from_shape({B, H});
    for (std::size_t b = 0; b < B; ++b) {
        std::vector<double> score(S, 0.0);
        for (std::size_t h = 0; h < H; ++h)
            for (std::size_t s = 0; s < S; ++s) score[s] += decoder_output(b, h) * encoder_outputs(b, s, h);
        double top = score[0];
        for (double x : score) top = x > top ? x : top;
#ifdef PLANTED_SHARED_MAXIMUM
        top = planted_batch_maximum(encoder_outputs, decoder_output);
#endif
        double total = 0.0;
        for (double x : score) total += std::exp(x - top);
        [[maybe_unused]] const double log_normaliser = top + std::log(total);  // unused when a mistake is planted
#ifdef PLANTED_WEIGHTS_ALL_ONE
        const double planted_all_one = 1.0;
#endif
        for (std::size_t s = 0; s < S; ++s) {
            out.scores(b, s) = score[s];
#if defined(PLANTED_WEIGHTS_ALL_ONE)
            out.weights(b, s) = planted_all_one;  // lesson 1's squeeze trap: a softmax over an axis of size one
#elif defined(PLANTED_UNSHIFTED_SOFTMAX)
            out.weights(b, s) = std::exp(score[s]) / [&] { double sum = 0; for (double x : score) sum += std::exp(x); return sum; }();
#else
            out.weights(b, s) = std::exp(score[s] - log_normaliser);
#endif
        }
        for (std::size_t h = 0; h < H; ++h) out.context(b, h) = 0.0;
        for (std::size_t s = 0; s < S; ++s)
            for (std::size_t h = 0; h < H; ++h) out.context(b, h) += out.weights(b, s) * encoder_outputs(b, s, h);
    }
    return out;
}

}  // namespace exercise
