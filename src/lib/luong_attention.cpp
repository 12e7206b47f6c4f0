// Luong attention (lessons/02-luong/README.md): the general score h_t · W_a h̄_s and the concat
// score v_a · tanh(W_a [h_t ; h̄_s]), then lessons/01-dot-product's softmax and weighted sum.
// Shapes: encoder_outputs (B, S, H), decoder_output (B, H).
#include "attn/luong_attention.hpp"

#include <xtensor/xmath.hpp>

#include "attn/dot_attention.hpp"
#include "attn/linear.hpp"
#include "attn/matmul.hpp"
#include "attn/shape.hpp"
#include "concatenation.hpp"

namespace attn {

LuongGeneralStep luong_general_attention(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                         const Matrix& W_a) {
    check_shapes("luong_general_attention", {{"encoder_outputs", encoder_outputs, "B,S,H"},
                                             {"decoder_output", decoder_output, "B,H"}, {"W_a", W_a, "H,H"}});
    LuongGeneralStep step;
    // W_a h̄_s for every (b, s) at once: one (B·S, H) × (H, H)ᵀ product. Projecting the query
    // instead (h_t W_a, then a dot with h̄_s) gives the same scores with fewer operations when S is
    // large; the keys' side is kept because it is the intermediate the lesson prints.
    step.projected = linear(encoder_outputs, W_a, "W_a");
    AttentionStep attended = attend_with_scores(matvec(step.projected, decoder_output), encoder_outputs);  // h_t · W_a h̄_s
    step.scores = std::move(attended.scores);
    step.weights = std::move(attended.weights);
    step.context = std::move(attended.context);
    return step;
}

LuongConcatStep luong_concat_attention(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                       const Matrix& W_a, const Matrix& v_a) {
    check_shapes("luong_concat_attention", {{"encoder_outputs", encoder_outputs, "B,S,H"},
                                            {"decoder_output", decoder_output, "B,H"}, {"W_a", W_a, "A,2H"}, {"v_a", v_a, "1,A"}});
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1);

    LuongConcatStep step;
    // h_t first, then h̄_s, as in the paper.
    step.concatenated = detail::concatenate_with_decoder_state(encoder_outputs, decoder_output, detail::DecoderState::first);
    step.hidden = xt::tanh(linear(step.concatenated, W_a, "W_a"));
    const Tensor3 scores = linear(step.hidden, v_a, "v_a");  // (B, S, 1)
    Matrix flat = Matrix::from_shape({B, S});
    std::copy(scores.begin(), scores.end(), flat.begin());
    AttentionStep attended = attend_with_scores(std::move(flat), encoder_outputs);
    step.scores = std::move(attended.scores);
    step.weights = std::move(attended.weights);
    step.context = std::move(attended.context);
    return step;
}

}  // namespace attn
