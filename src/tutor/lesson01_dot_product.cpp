// Lesson 1 — dot-product attention (lessons/01-dot-product/README.md).
//
// Computes, for each example of the document:
//   scores (B, S), weights (B, S), context (B, H)      with attn::dot_attention
// and, for an example with a batch of one, what the seed notebook's `.squeeze()` code returns:
//   seed_weights (1, S)   softmax taken over the batch axis of size 1: every weight is 1
//   seed_context (H)      the plain sum of the encoder outputs, with the batch axis squeezed away
#include "attn/dot_attention.hpp"
#include "tutor/lessons.hpp"

namespace attn::tutor {

namespace {

// The seed's DotAttention with B = 1: bmm gives scores (1, S, 1); `.squeeze()` drops *both* size-1
// axes, leaving (S,); softmax(dim=1) then fails, and the fallback softmaxes (1, S) over dim 0 —
// an axis of size one — so every weight becomes exp(x - x) / 1 = 1. The context bmm then adds the
// encoder outputs instead of averaging them, and the final `.squeeze()` drops the batch axis.
void add_squeeze_trap(const Tensor3& encoder_outputs, NamedTensors& out) {
    const std::size_t S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    DynamicTensor weights = xt::ones<double>({std::size_t(1), S});
    DynamicTensor context = xt::zeros<double>({H});
    for (std::size_t s = 0; s < S; ++s) {
        for (std::size_t h = 0; h < H; ++h) context(h) += weights(0, s) * encoder_outputs(0, s, h);
    }
    out["seed_weights"] = weights;
    out["seed_context"] = context;
}

}  // namespace

NamedTensors lesson01_dot_product(const std::string& /*example*/, const LessonInputs& inputs) {
    const Tensor3 encoder_outputs = inputs.get("encoder_outputs", 3, "(B, S, H)");
    const Matrix decoder_output = inputs.get("decoder_output", 2, "(B, H)");
    const AttentionStep step = dot_attention(encoder_outputs, decoder_output);
    NamedTensors out{{"scores", step.scores}, {"weights", step.weights}, {"context", step.context}};
    if (encoder_outputs.shape(0) == 1) add_squeeze_trap(encoder_outputs, out);
    return out;
}

}  // namespace attn::tutor
