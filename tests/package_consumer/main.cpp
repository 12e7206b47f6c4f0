// The README's first example through the installed package: two heads of
// lessons/05-multi-head-attention on one sequence, compared with the numbers the header's example
// states (0.6698, 0.3302).
#include <cmath>
#include <cstdio>

#include "attn/multi_head_attention.hpp"

int main() {
    attn::MultiHeadAttentionWeights w;
    w.w_q = w.w_k = w.w_v = xt::eye<double>(4);
    w.b_q = w.b_k = w.b_v = xt::zeros<double>({4});
    w.no_output_projection = true;  // seed 000's block: no W_o
    const attn::Tensor3 x = {{{1, 0, 0, 1}, {0, 1, 1, 0}}};
    const auto r = attn::multi_head_attention(x, x, x, w, 2);
    const double expected = 1.0 / (1.0 + std::exp(-1.0 / std::sqrt(2.0)));  // 0.6698
    const double got = r.weights(0, 0, 0, 0);
    std::printf("weights[0, 0, 0, 0] = %.4f (expected %.4f)\n", got, expected);
    return std::fabs(got - expected) < 1e-12 ? 0 : 1;
}
