// attn/feed_forward.hpp — the position-wise feed-forward network of a Transformer layer.
//
// Why: after attention has mixed information *between* positions, each position is transformed
// on its own by the same two-layer network, FFN(x) = activation(x W1ᵀ + b1) W2ᵀ + b2, widening
// D to F (d_ff, typically 4·D) and back. "Position-wise" means exactly that: row t of the output
// depends on row t of the input only. In training, nn.TransformerEncoderLayer drops out the
// hidden layer after the activation (attn/dropout.hpp); off, the default, it is the identity.
//
// Shapes: N rows · D model width · F inner width
//   x (N, D) · linear1_weight (F, D) · linear1_bias (F) · linear2_weight (D, F) · linear2_bias (D)
//
//   attn::Matrix x = {{1, -1}};
//   auto step = attn::feed_forward(x, W1, b1, W2, b2, attn::Activation::relu);
//   step.hidden;   // (N, F) after the activation
#pragma once

#include <string>

#include "attn/dropout.hpp"
#include "attn/tensor.hpp"

namespace attn {

/// gelu is the exact erf GELU (PyTorch's "gelu"); gelu_tanh its tanh approximation
/// (F.gelu(x, approximate="tanh"), nn.GELU(approximate="tanh")).
enum class Activation { relu, gelu, gelu_tanh };

/// "relu" / "gelu" / "gelu-tanh" → Activation; InputError listing them otherwise.
Activation parse_activation(const std::string& name);

/// max(0, x), element-wise.
Matrix relu(const Matrix& x);

/// The exact GELU, x · Φ(x) = x/2 · (1 + erf(x/√2)) — PyTorch's default, not the tanh approximation.
Matrix gelu(const Matrix& x);

/// PyTorch's tanh approximation of GELU, exactly its formula:
/// 0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 · x³))).
Matrix gelu_tanh(const Matrix& x);

/// relu, gelu or gelu_tanh of x, element-wise.
Matrix activate(const Matrix& x, Activation activation);

struct FeedForwardStep {
    Matrix hidden_preactivation;  // (N, F) x W1ᵀ + b1
    Matrix hidden;                // (N, F) after the activation
    DropoutMask<Matrix> hidden_dropout;  // (N, F) training's mask on hidden; identity when the dropout is off
    Matrix output;                // (N, D) dropout(hidden) W2ᵀ + b2
};

/// dropout(activation(x W1ᵀ + b1)) W2ᵀ + b2, the dropout off unless given. Throws ShapeError
/// naming the weight whose shape does not fit.
FeedForwardStep feed_forward(const Matrix& x, const Matrix& linear1_weight, const Vector& linear1_bias,
                             const Matrix& linear2_weight, const Vector& linear2_bias, Activation activation,
                             const Dropout& dropout = {});

}  // namespace attn
