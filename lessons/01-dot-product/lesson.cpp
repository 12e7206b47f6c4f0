// Lesson 1 — dot-product attention (lessons/01-dot-product/README.md).
//
// Computes, for each example of the document:
//   scores (B, S), weights (B, S), context (B, H)      with attn::dot_attention
// and, for an example with a batch of one, what the seed notebook's `.squeeze()` code returns:
//   seed_weights (1, S)   softmax taken over the batch axis of size 1: every weight is 1
//   seed_context (H)      the plain sum of the encoder outputs, with the batch axis squeezed away
#include "01-dot-product/exercise/mistakes.hpp"
#include <xtensor/xview.hpp>

#include "attn/dot_attention.hpp"
#include "tutor/lesson/lesson_registration.hpp"

namespace attn::tutor {

namespace {

NamedTensors compute(const std::string& /*example*/, const LessonInputs& inputs) {
    const Tensor3 encoder_outputs = inputs.get("encoder_outputs", 3, "(B, S, H)");
    const Matrix decoder_output = inputs.get("decoder_output", 2, "(B, H)");
    const AttentionStep step = dot_attention(encoder_outputs, decoder_output);
    NamedTensors out{{"scores", step.scores}, {"weights", step.weights}, {"context", step.context}};
    if (encoder_outputs.shape(0) == 1) {
        // The seed's DotAttention with B = 1: bmm gives scores (1, S, 1); `.squeeze()` drops *both*
        // size-1 axes, and the softmax then runs over an axis of size one: every weight is 1, the
        // context the plain sum of the encoder outputs, and the last `.squeeze()` drops the batch axis.
        const AttentionStep trap = mistakes::weights_all_one(step, encoder_outputs);
        out["seed_weights"] = trap.weights;
        out["seed_context"] = DynamicTensor(xt::view(trap.context, 0, xt::all()));
    }
    return out;
}

}  // namespace

ATTN_LESSON_PROGRAM(compute)

}  // namespace attn::tutor
