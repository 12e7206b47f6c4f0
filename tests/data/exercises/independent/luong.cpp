// Exercise 2, a second correct implementation written from lessons/02-luong/README.md alone: the
// score as h̄_s · (W_aᵀ h_t) — the decoder state projected once per sentence — next to the
// `projected` step the exercise also asks for; a log-sum-exp softmax.
#include <cmath>
#include <vector>

#include "exercise.hpp"

namespace exercise {

attn::LuongGeneralStep luong_general_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                               const attn::Matrix& W_a) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    attn::LuongGeneralStep out;
    out.projected = attn::Tensor3::from_shape({B, S, H});
    out.scores = attn::Matrix::from_shape({B, S});
    out.weights = attn::Matrix::from_shape({B, S});
    out.context = attn::Matrix::from_shape({B, H});
    for (std::size_t b = 0; b < B; ++b) {
        std::vector<double> u(H, 0.0);  // u = W_aᵀ h_t, so that h_t · (W_a h̄_s) = u · h̄_s
        for (std::size_t i = 0; i < H; ++i)
            for (std::size_t j = 0; j < H; ++j) u[j] += W_a(i, j) * decoder_output(b, i);
        for (std::size_t s = 0; s < S; ++s) {
            double score = 0.0;
            for (std::size_t j = 0; j < H; ++j) score += u[j] * encoder_outputs(b, s, j);
            out.scores(b, s) = score;
            for (std::size_t i = 0; i < H; ++i) {
                out.projected(b, s, i) = 0.0;
                for (std::size_t j = 0; j < H; ++j) out.projected(b, s, i) += W_a(i, j) * encoder_outputs(b, s, j);
            }
        }
        double top = out.scores(b, 0);
        for (std::size_t s = 0; s < S; ++s) top = std::fmax(top, out.scores(b, s));
        double total = 0.0;
        for (std::size_t s = 0; s < S; ++s) total += std::exp(out.scores(b, s) - top);
        for (std::size_t s = 0; s < S; ++s) out.weights(b, s) = std::exp(out.scores(b, s) - top - std::log(total));
        for (std::size_t h = 0; h < H; ++h) {
            out.context(b, h) = 0.0;
            for (std::size_t s = 0; s < S; ++s) out.context(b, h) += out.weights(b, s) * encoder_outputs(b, s, h);
        }
    }
    return out;
}

}  // namespace exercise
