// Exercise 5 — multi-head attention.
//
// Implement the three functions below for a whole batch: split_heads (step 3 of
// lessons/05-multi-head-attention/README.md), merge_heads (step 6), and multi_head_attention
// (steps 2 to 7: projections, heads, scores, weights, context, output projection) with the padding
// mask of step 9. Then run
//
//     ./tutor exercise 5
//
// to check them against the lesson's worked example and padded batch and against the library on
// random inputs. Stuck? A run whose numbers changed and still fail shows the next hint;
// `./tutor exercise 5 --hint` shows one at once, and `./tutor exercise 5 --reset` gives you a fresh
// copy of this file (yours is kept as a backup).
//
// Shapes: B batch · T queries · S keys · D model width · h heads · d_k = D / h per head.
// Useful: attn::linear(x, W, b) (attn/linear.hpp) computes x Wᵀ + b over the last axis of a
// (B, T, D) tensor, with W stored (out, in) as here; attn::softmax_last_axis(t) (attn/softmax.hpp)
// takes the softmax over the last axis of a (B, h, T, S) tensor and gives a row that is all −∞
// weights of zero. attn::Tensor4::from_shape({B, h, T, d_k}) makes an uninitialised tensor;
// x(b, j, t, i) reads an element; std::sqrt is in <cmath>, std::numeric_limits<double>::infinity()
// in <limits>. From the library, use only attn::linear, attn::softmax_last_axis and its types: a
// call to attn::split_heads, attn::multi_head_attention or any other of its functions is refused
// before your code runs.
#include <cmath>
#include <limits>

#include "attn/linear.hpp"
#include "attn/softmax.hpp"
#include "exercise.hpp"

namespace exercise {

attn::Tensor4 split_heads(const attn::Tensor3& x, std::size_t heads) {
    const std::size_t B = x.shape(0), T = x.shape(1), D = x.shape(2), d_k = D / heads;
    attn::Tensor4 out = attn::Tensor4::from_shape({B, heads, T, d_k});  // TODO: out(b, j, t, i) = x(b, t, j·d_k + i)
    throw attn::exercises::NotImplementedYet("lesson 5: exercise::split_heads is not implemented yet — "
                                             "edit lessons/05-multi-head-attention/exercise/exercise.cpp");
    return out;
}

attn::Tensor3 merge_heads(const attn::Tensor4& x) {
    const std::size_t B = x.shape(0), heads = x.shape(1), T = x.shape(2), d_k = x.shape(3);
    attn::Tensor3 out = attn::Tensor3::from_shape({B, T, heads * d_k});  // TODO: out(b, t, j·d_k + i) = x(b, j, t, i)
    throw attn::exercises::NotImplementedYet("lesson 5: exercise::merge_heads is not implemented yet — "
                                             "edit lessons/05-multi-head-attention/exercise/exercise.cpp");
    return out;
}

attn::MultiHeadAttentionResult multi_head_attention(const attn::Tensor3& query, const attn::Tensor3& key,
                                                    const attn::Tensor3& value,
                                                    const attn::MultiHeadAttentionWeights& weights, std::size_t heads,
                                                    const std::optional<attn::Matrix>& attention_mask) {
    const std::size_t B = query.shape(0), T = query.shape(1), S = key.shape(1), D = query.shape(2), d_k = D / heads;
    attn::MultiHeadAttentionResult r;
    r.q = attn::Tensor3::from_shape({B, T, D});                  // TODO: query W_qᵀ + b_q; k and v likewise from key and value
    r.k = attn::Tensor3::from_shape({B, S, D});
    r.v = attn::Tensor3::from_shape({B, S, D});
    r.q_heads = attn::Tensor4::from_shape({B, heads, T, d_k});   // TODO: split_heads of q, k and v
    r.k_heads = attn::Tensor4::from_shape({B, heads, S, d_k});
    r.v_heads = attn::Tensor4::from_shape({B, heads, S, d_k});
    r.scores = attn::Tensor4::from_shape({B, heads, T, S});      // TODO: Σ_i q_heads(b, j, t, i) · k_heads(b, j, s, i), over √d_k
    r.weights = attn::Tensor4::from_shape({B, heads, T, S});     // TODO: −∞ where attention_mask(b, s) == 0, then softmax over s
    r.context_heads = attn::Tensor4::from_shape({B, heads, T, d_k});  // TODO: Σ_s weights(b, j, t, s) · v_heads(b, j, s, i)
    r.context = attn::Tensor3::from_shape({B, T, D});            // TODO: merge_heads(context_heads)
    r.output = attn::Tensor3::from_shape({B, T, D});             // TODO: context W_oᵀ + b_o if weights.w_o, else the context
    (void)value;
    (void)weights;
    (void)attention_mask;
    throw attn::exercises::NotImplementedYet("lesson 5: exercise::multi_head_attention is not implemented yet — "
                                             "edit lessons/05-multi-head-attention/exercise/exercise.cpp");
    return r;
}

}  // namespace exercise
