// Exercise 5, the student's side: runs exercise::split_heads and exercise::merge_heads
// ("split_and_merge") or exercise::multi_head_attention on each case's inputs.
#include "exercise.hpp"
#include "student_side.hpp"
#include "tutor/compute/named_weights.hpp"

namespace attn::exercises::student {

void serve(const Call& call, Reply& reply) {
    const std::size_t heads = static_cast<std::size_t>(call.number("heads"));
    if (call.function == "split_and_merge") {
        const Tensor3 x = call.tensor<3>("x");
        const Tensor4 y = call.tensor<4>("y");
        reply.calling("exercise::split_heads");
        reply.add("split_heads", exercise::split_heads(x, heads));
        reply.calling("exercise::merge_heads");
        reply.add("merge_heads", exercise::merge_heads(y));
        return;
    }
    if (call.function != "multi_head_attention") throw BadRequest("exercise 5 has no function '" + call.function + "'");
    const Tensor3 query = call.tensor<3>("query"), key = call.tensor<3>("key"), value = call.tensor<3>("value");
    const MultiHeadAttentionWeights weights = tutor::attention_weights_from(call.all(), !call.has("w_o"));
    std::optional<Matrix> attention_mask;
    if (call.has("attention_mask")) attention_mask = call.tensor<2>("attention_mask");
    reply.calling("exercise::multi_head_attention");
    const MultiHeadAttentionResult r = exercise::multi_head_attention(query, key, value, weights, heads, attention_mask);
    reply.add("q", r.q);
    reply.add("k", r.k);
    reply.add("v", r.v);
    reply.add("q_heads", r.q_heads);
    reply.add("k_heads", r.k_heads);
    reply.add("v_heads", r.v_heads);
    reply.add("scores", r.scores);
    reply.add("weights", r.weights);
    reply.add("context_heads", r.context_heads);
    reply.add("context", r.context);
    reply.add("output", r.output);
}

}  // namespace attn::exercises::student
