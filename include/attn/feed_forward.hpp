// attn/feed_forward.hpp — the position-wise feed-forward network of a Transformer layer.
//
// Why: after attention has mixed information *between* positions, each position is transformed
// on its own by the same two-layer network, FFN(x) = activation(x W1ᵀ + b1) W2ᵀ + b2, widening
// D to F (d_ff, typically 4·D) and back. "Position-wise" means exactly that: row t of the output
// depends on row t of the input only.
//
// Shapes: N rows · D model width · F inner width
//   x (N, D) · linear1_weight (F, D) · linear1_bias (F) · linear2_weight (D, F) · linear2_bias (D)
//
//   attn::Matrix x = {{1, -1}};
//   auto step = attn::feed_forward(x, W1, b1, W2, b2, attn::Activation::relu);
//   step.hidden;   // (N, F) after the activation
#pragma once

#include <string>

#include "attn/tensor.hpp"

namespace attn {

enum class Activation { relu, gelu };

/// "relu" / "gelu" → Activation; InputError listing both otherwise.
Activation parse_activation(const std::string& name);

/// max(0, x), element-wise.
Matrix relu(const Matrix& x);

/// The exact GELU, x · Φ(x) = x/2 · (1 + erf(x/√2)) — PyTorch's default, not the tanh approximation.
Matrix gelu(const Matrix& x);

struct FeedForwardStep {
    Matrix hidden_preactivation;  // (N, F) x W1ᵀ + b1
    Matrix hidden;                // (N, F) after the activation
    Matrix output;                // (N, D) hidden W2ᵀ + b2
};

/// activation(x W1ᵀ + b1) W2ᵀ + b2. Throws ShapeError naming the weight whose shape does not fit.
FeedForwardStep feed_forward(const Matrix& x, const Matrix& linear1_weight, const Vector& linear1_bias,
                             const Matrix& linear2_weight, const Vector& linear2_bias, Activation activation);

}  // namespace attn
