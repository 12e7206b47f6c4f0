// Exercise 4, solved with the library — built when ATTN_EXERCISE_SOLUTIONS=ON to prove the
// exercise can be passed.
#include "exercise.hpp"

namespace exercise {

attn::ScaledDotProductAttentionResult scaled_dot_product_attention(const attn::Tensor3& Q, const attn::Tensor3& K,
                                                                   const attn::Tensor3& V, bool causal) {
    attn::AttentionOptions options;
    options.causal = causal;
    return attn::scaled_dot_product_attention(Q, K, V, options);
}

}  // namespace exercise
