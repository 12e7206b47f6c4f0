// Lesson 2 — Luong attention (lessons/02-luong/README.md).
//
// Computes, for each example of the document (inputs encoder_outputs, decoder_output, W):
//   projected (B, S, H), scores, weights (B, S), context (B, H)   attn::luong_general_attention
//   seed_parameter_scores (B, S)     the seed's first LuAttention: (encoder_outputs @ W) · h_t
//   scores_with_W_transposed (B, S)  the library's general score with Wᵀ: the same numbers
// and, when the example has the inputs they need:
//   bias (H)        → bias_term (B) = h_t · bias, scores_with_bias, weights_with_bias (B, S)
//   concat_W (H, 2H), concat_v (1, H)
//                   → concatenated (B, S, 2H), concat_hidden (B, S, H), concat_scores, concat_weights,
//                     compared_weights (B, 3, S): dot, general and concat weights, one row each

#include "02-luong/exercise/mistakes.hpp"
#include "attn/dot_attention.hpp"
#include "attn/linear.hpp"
#include "attn/luong_attention.hpp"
#include "attn/matmul.hpp"
#include "tutor/lesson/lesson_registration.hpp"

namespace attn::tutor {

namespace {

// The seed's first version: ew = torch.matmul(encoded_outputs, W), then a dot with h_t. matmul
// multiplies each h̄_s as a row vector by W (no transpose): h̄_sᵀ W h_t.
Matrix seed_parameter_scores(const Tensor3& encoder_outputs, const Matrix& decoder_output, const Matrix& W) {
    const Tensor3 ew = matmul(encoder_outputs, W);  // torch.matmul(encoded_outputs, W): h̄_s as a row times W
    return dot_attention(ew, decoder_output).scores;  // only its scores: ew · h_t
}

Tensor3 stack_rows(const std::vector<const Matrix*>& weights) {
    const std::size_t B = weights[0]->shape(0), S = weights[0]->shape(1);
    Tensor3 stacked = Tensor3::from_shape({B, weights.size(), S});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t k = 0; k < weights.size(); ++k)
            for (std::size_t s = 0; s < S; ++s) stacked(b, k, s) = (*weights[k])(b, s);
    return stacked;
}

NamedTensors compute(const std::string& /*example*/, const LessonInputs& inputs) {
    const Tensor3 encoder_outputs = inputs.get("encoder_outputs", 3, "(B, S, H)");
    const Matrix decoder_output = inputs.get("decoder_output", 2, "(B, H)");
    const Matrix W = inputs.get("W", 2, "(H, H)");

    const LuongGeneralStep general = luong_general_attention(encoder_outputs, decoder_output, W);
    NamedTensors out{{"projected", general.projected},
                     {"scores", general.scores},
                     {"weights", general.weights},
                     {"context", general.context}};

    out["seed_parameter_scores"] = seed_parameter_scores(encoder_outputs, decoder_output, W);
    out["scores_with_W_transposed"] = mistakes::luong_weight_transposed(encoder_outputs, decoder_output, W).scores;

    if (inputs.has("bias")) {
        // nn.Linear(H, H, bias=True): h_t · (W h̄_s + c) = h_t · W h̄_s + h_t · c.
        const Vector bias = inputs.get("bias", 1, "(H)");
        const Tensor3 projected_with_bias = linear(encoder_outputs, W, bias, "W");
        const Matrix scores_with_bias = dot_attention(projected_with_bias, decoder_output).scores;
        // The extra term h_t · c: one number per sentence, the same for every source position.
        out["bias_term"] = matvec(decoder_output, bias);
        out["scores_with_bias"] = scores_with_bias;
        out["weights_with_bias"] = attend_with_scores(scores_with_bias, encoder_outputs).weights;
    }

    if (inputs.has("concat_W") || inputs.has("concat_v")) {
        const Matrix concat_W = inputs.get("concat_W", 2, "(H, 2H)");
        const Matrix concat_v = inputs.get("concat_v", 2, "(1, H)");
        const LuongConcatStep concat = luong_concat_attention(encoder_outputs, decoder_output, concat_W, concat_v);
        out["concatenated"] = concat.concatenated;
        out["concat_hidden"] = concat.hidden;
        out["concat_scores"] = concat.scores;
        out["concat_weights"] = concat.weights;
        const Matrix dot_weights = dot_attention(encoder_outputs, decoder_output).weights;
        out["compared_weights"] = stack_rows({&dot_weights, &general.weights, &concat.weights});
    }
    return out;
}

}  // namespace

ATTN_LESSON_PROGRAM(compute)

}  // namespace attn::tutor
