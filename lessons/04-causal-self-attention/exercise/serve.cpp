// Exercise 4, the student's side: runs exercise::scaled_dot_product_attention on each case's inputs.
#include "exercise.hpp"
#include "student_side.hpp"

namespace attn::exercises::student {

void serve(const Call& call, Reply& reply) {
    const Tensor3 Q = call.tensor<3>("Q"), K = call.tensor<3>("K"), V = call.tensor<3>("V");
    const bool causal = call.number("causal") != 0.0;
    reply.calling("exercise::scaled_dot_product_attention");
    const ScaledDotProductAttentionResult result = exercise::scaled_dot_product_attention(Q, K, V, causal);
    reply.add("scores", result.scores);
    reply.add("masked_scores", result.masked_scores);
    reply.add("weights", result.weights);
    reply.add("output", result.output);
}

}  // namespace attn::exercises::student
