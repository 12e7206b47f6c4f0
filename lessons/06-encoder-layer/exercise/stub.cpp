// Exercise 6 — the Transformer encoder layer.
//
// Implement the two functions below: layer_norm, PyTorch's nn.LayerNorm (steps 1 and 2 of
// lessons/06-encoder-layer/README.md), and transformer_encoder_layer, one layer of a Transformer
// encoder, post-norm and pre-norm (steps 3 to 8). Then run
//
//     ./tutor exercise 6
//
// to check them against the lesson's worked examples and against the library on random inputs.
// Stuck? A run whose numbers changed and still fail shows the next hint; `./tutor exercise 6 --hint`
// shows one at once, and `./tutor exercise 6 --reset` gives you a fresh copy of this file (yours is
// kept as a backup).
//
// The point of this exercise is the layer norm and the order of norms and residual connections:
// call the library's attn::multi_head_attention (lesson 5, attn/multi_head_attention.hpp) and
// attn::feed_forward (attn/feed_forward.hpp) for the two sub-layers, and your own layer_norm for
// the norms. as_rows and as_tensor below reshape between (B, T, D) and the (B·T, D) rows that
// layer_norm and feed_forward take. From the library, use only the two sub-layers (and what
// they are made of: attn::linear, attn::softmax_last_axis, attn::split_heads, attn::merge_heads,
// attn::relu, attn::gelu) and its types: a call to attn::layer_norm, attn::annotated_layer_norm,
// attn::transformer_encoder_layer or any other of its functions is refused before your code runs.
//
// Shapes: B batch · T positions · D model width · h heads (options.heads) · F feed-forward width.
// Useful: attn::Vector::from_shape({N}) and attn::Matrix::from_shape({N, D}) make uninitialised
// tensors; x(n, d) reads an element; std::sqrt is in <cmath>; a + b adds two tensors of one shape.
#include <algorithm>
#include <cmath>

#include "exercise.hpp"

namespace {

// (B, T, D) → (B·T, D): each position a row, the same numbers in the same order.
[[maybe_unused]] attn::Matrix as_rows(const attn::Tensor3& x) {
    attn::Matrix rows = attn::Matrix::from_shape({x.shape(0) * x.shape(1), x.shape(2)});
    std::copy(x.begin(), x.end(), rows.begin());
    return rows;
}

// (B·T, width) → (B, T, width).
[[maybe_unused]] attn::Tensor3 as_tensor(const attn::Matrix& rows, std::size_t B, std::size_t T) {
    attn::Tensor3 x = attn::Tensor3::from_shape({B, T, rows.shape(1)});
    std::copy(rows.begin(), rows.end(), x.begin());
    return x;
}

}  // namespace

namespace exercise {

attn::LayerNormStep layer_norm(const attn::Matrix& x, const attn::Vector& weight, const attn::Vector& bias, double eps) {
    const std::size_t N = x.shape(0), D = x.shape(1);
    attn::LayerNormStep step;
    step.mean = attn::Vector::from_shape({N});           // TODO: the mean of each row
    step.variance = attn::Vector::from_shape({N});       // TODO: the mean of the squared deviations from it (÷ D)
    step.normalized = attn::Matrix::from_shape({N, D});  // TODO: (x − mean) / √(variance + eps)
    step.output = attn::Matrix::from_shape({N, D});      // TODO: normalized · weight(d) + bias(d), feature by feature
    (void)weight;
    (void)bias;
    (void)eps;
    throw attn::exercises::NotImplementedYet("lesson 6: exercise::layer_norm is not implemented yet — "
                                             "edit lessons/06-encoder-layer/exercise/exercise.cpp");
    return step;
}

attn::EncoderLayerStep transformer_encoder_layer(const attn::Tensor3& x, const attn::EncoderLayerWeights& weights,
                                                 const attn::EncoderLayerOptions& options) {
    attn::EncoderLayerStep step;
    // TODO, in this order (norm1(y): your layer_norm of as_rows(y) with weights.norm1_weight,
    // weights.norm1_bias and options.eps, back to (B, T, D); norm2 likewise):
    //   step.attention_input     x (post-norm), or norm1(x) (pre-norm: options.norm_first)
    //   step.attention           attn::multi_head_attention on attention_input as query, key and value,
    //                            weights.attention, options.heads, options.attention_mask
    //   step.attention_residual  x + the attention sub-layer's output
    //   step.after_attention     norm1(attention_residual) (post-norm), or attention_residual (pre-norm)
    //   step.ffn_input           after_attention (post-norm), or norm2(after_attention) (pre-norm)
    //   step.ffn_hidden, step.ffn_output   attn::feed_forward on as_rows(ffn_input), options.activation
    //   step.ffn_residual        after_attention + ffn_output
    //   step.output              norm2(ffn_residual) (post-norm), or ffn_residual (pre-norm)
    (void)x;
    (void)weights;
    (void)options;
    throw attn::exercises::NotImplementedYet("lesson 6: exercise::transformer_encoder_layer is not implemented yet — "
                                             "edit lessons/06-encoder-layer/exercise/exercise.cpp");
    return step;
}

}  // namespace exercise
