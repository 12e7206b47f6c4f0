// Exercise 5, solved with the library — built when ATTN_EXERCISE_SOLUTIONS=ON to prove the
// exercise can be passed.
#include "exercise.hpp"

namespace exercise {

attn::Tensor4 split_heads(const attn::Tensor3& x, std::size_t heads) { return attn::split_heads(x, heads); }

attn::Tensor3 merge_heads(const attn::Tensor4& x) { return attn::merge_heads(x); }

attn::MultiHeadAttentionResult multi_head_attention(const attn::Tensor3& query, const attn::Tensor3& key,
                                                    const attn::Tensor3& value,
                                                    const attn::MultiHeadAttentionWeights& weights, std::size_t heads,
                                                    const std::optional<attn::Matrix>& attention_mask) {
    attn::AttentionOptions options;
    options.attention_mask = attention_mask;
    return attn::multi_head_attention(query, key, value, weights, heads, options);
}

}  // namespace exercise
