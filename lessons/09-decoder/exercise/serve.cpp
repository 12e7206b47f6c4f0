// Exercise 9, the student's side: runs exercise::cross_attention or exercise::cached_decoding_step
// on each case's inputs.
#include "exercise.hpp"
#include "student_side.hpp"
#include "tutor/compute/named_weights.hpp"

namespace attn::exercises::student {

void serve(const Call& call, Reply& reply) {
    if (call.function == "cross_attention") {
        const Tensor3 tgt = call.tensor<3>("tgt"), memory = call.tensor<3>("memory");
        const MultiHeadAttentionWeights weights = tutor::attention_weights_from(call.all());
        const auto heads = static_cast<std::size_t>(call.number("heads"));
        reply.calling("exercise::cross_attention");
        const exercise::CrossAttentionResult r =
            exercise::cross_attention(tgt, memory, weights, heads, call.tensor<2>("memory_mask"));
        reply.add("cross_weights", r.weights);
        reply.add("cross_output", r.output);
        return;
    }
    if (call.function != "cached_decoding_step") throw BadRequest("exercise 9 has no function '" + call.function + "'");
    reply.calling("exercise::cached_decoding_step");
    const exercise::DecodingStep r = exercise::cached_decoding_step(
        call.tensor<4>("q"), call.tensor<4>("k"), call.tensor<4>("v"), call.tensor<4>("k_cache"), call.tensor<4>("v_cache"));
    reply.add("k_cache", r.k_cache);
    reply.add("v_cache", r.v_cache);
    reply.add("decode_weights", r.weights);
    reply.add("decode_context", r.context);
}

}  // namespace attn::exercises::student
