// Lesson 3 — Bahdanau (additive) attention (lessons/03-bahdanau/README.md).
//
// Computes, for each example of the document (inputs encoder_outputs, decoder_output, W1, b1, w2, b2):
//   concatenated, preactivation, hidden (B, S, 2H), scores, weights (B, S), context (B, H)
//                                          attn::bahdanau_attention
//   encoder_projection (B, S, 2H), decoder_projection (B, 2H), split_preactivation (B, S, 2H),
//   split_scores (B, S)                    attn::bahdanau_split_scores, W1 cut into its two blocks
//   transposed_vs_reshaped_sentence_b (2, 2H, S), for each sentence b
//                                          `h.transpose(1, 2)` [0] above the seed's `h.reshape(B, 2H, -1)`
//                                          [1], one sentence at a time: one tensor, so one screen
//   reshape_weights (B, S)                 the weights the seed's reshape leads to (same W1, b1, w2, b2)
// and, when the example has Luong's W (H, H):
//   compared_weights (B, 3, S)             dot, general (lesson 2) and additive weights, one row each
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "03-bahdanau/exercise/mistakes.hpp"
#include "attn/bahdanau_attention.hpp"
#include "attn/dot_attention.hpp"
#include "attn/luong_attention.hpp"
#include "tutor/lesson/lesson_registration.hpp"

namespace attn::tutor {

namespace {

NamedTensors compute(const std::string& /*example*/, const LessonInputs& inputs) {
    const Tensor3 encoder_outputs = inputs.get("encoder_outputs", 3, "(B, S, H)");
    const Matrix decoder_output = inputs.get("decoder_output", 2, "(B, H)");
    const Matrix W1 = inputs.get("W1", 2, "(2H, 2H)");
    const Vector b1 = inputs.get("b1", 1, "(2H)");
    const Matrix w2 = inputs.get("w2", 2, "(1, 2H)");
    const Vector b2 = inputs.get("b2", 1, "(1)");

    const BahdanauStep step = bahdanau_attention(encoder_outputs, decoder_output, W1, b1, w2, b2);
    NamedTensors out{{"concatenated", step.concatenated}, {"preactivation", step.preactivation},
                     {"hidden", step.hidden},             {"scores", step.scores},
                     {"weights", step.weights},           {"context", step.context}};

    const BahdanauSplitScores split = bahdanau_split_scores(encoder_outputs, decoder_output, W1, b1, w2, b2);
    out["encoder_projection"] = split.encoder_projection;
    out["decoder_projection"] = split.decoder_projection;
    out["split_preactivation"] = split.preactivation;
    out["split_scores"] = split.scores;

    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    Tensor3 reshaped = Tensor3::from_shape({B, 2 * H, S});  // the same numbers in the same order
    std::copy(step.concatenated.begin(), step.concatenated.end(), reshaped.begin());
    const Tensor3 transposed = xt::transpose(step.concatenated, {0, 2, 1});
    for (std::size_t b = 0; b < B; ++b) {
        Tensor3 pair = Tensor3::from_shape({2, 2 * H, S});
        xt::view(pair, 0, xt::all(), xt::all()) = xt::view(transposed, b, xt::all(), xt::all());
        xt::view(pair, 1, xt::all(), xt::all()) = xt::view(reshaped, b, xt::all(), xt::all());
        out["transposed_vs_reshaped_sentence_" + std::to_string(b)] = pair;
    }
    // The seed's first BaAttention multiplies W1 by each "column" of that reshape: the same W1, b1,
    // w2, b2 on the wrong numbers, so only the reshape differs.
    out["reshape_weights"] = mistakes::bahdanau_reshape_not_transpose(step, encoder_outputs, W1, b1, w2, b2).weights;

    if (inputs.has("W")) {
        const Matrix W = inputs.get("W", 2, "(H, H)");
        const Matrix dot_weights = dot_attention(encoder_outputs, decoder_output).weights;
        const Matrix general_weights = luong_general_attention(encoder_outputs, decoder_output, W).weights;
        Tensor3 compared = Tensor3::from_shape({B, 3, S});
        for (std::size_t b = 0; b < B; ++b) {
            for (std::size_t s = 0; s < S; ++s) {
                compared(b, 0, s) = dot_weights(b, s);
                compared(b, 1, s) = general_weights(b, s);
                compared(b, 2, s) = step.weights(b, s);
            }
        }
        out["compared_weights"] = compared;
    }
    return out;
}

}  // namespace

ATTN_LESSON_PROGRAM(compute)

}  // namespace attn::tutor
