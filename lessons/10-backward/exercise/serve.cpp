// Exercise 10, the student's side: runs exercise::softmax_backward_rows or
// exercise::attention_backward on each case's inputs.
#include "exercise.hpp"
#include "student_side.hpp"

namespace attn::exercises::student {

void serve(const Call& call, Reply& reply) {
    if (call.function == "softmax_backward_rows") {
        const Matrix weights = call.tensor<2>("weights"), grad_weights = call.tensor<2>("grad_weights");
        reply.calling("exercise::softmax_backward_rows");
        reply.add("softmax_grad", exercise::softmax_backward_rows(weights, grad_weights));
        return;
    }
    if (call.function != "attention_backward") throw BadRequest("exercise 10 has no function '" + call.function + "'");
    std::optional<Tensor3> mask;
    if (call.has("mask")) mask = call.tensor<3>("mask");
    const Tensor3 query = call.tensor<3>("query"), key = call.tensor<3>("key"), value = call.tensor<3>("value");
    const Tensor3 grad_output = call.tensor<3>("grad_output");
    reply.calling("exercise::attention_backward");
    const exercise::AttentionGradients g = exercise::attention_backward(query, key, value, mask, grad_output);
    reply.add("weights", g.weights);
    reply.add("grad_weights", g.grad_weights);
    reply.add("grad_scores", g.grad_scores);
    reply.add("grad_query", g.grad_query);
    reply.add("grad_key", g.grad_key);
    reply.add("grad_value", g.grad_value);
}

}  // namespace attn::exercises::student
