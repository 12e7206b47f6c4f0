// Exercise 7, the student's side: runs exercise::online_softmax_attention on each case's inputs
// and lays its trace out as the tables the checker compares (trace_steps.hpp).
#include "exercise.hpp"
#include "student_side.hpp"
#include "trace_steps.hpp"

namespace attn::exercises::student {

void serve(const Call& call, Reply& reply) {
    const Tensor3 Q = call.tensor<3>("Q"), K = call.tensor<3>("K"), V = call.tensor<3>("V");
    const auto query_tile = static_cast<std::size_t>(call.number("query_tile"));
    const auto key_tile = static_cast<std::size_t>(call.number("key_tile"));
    const bool causal = call.number("causal") != 0.0;
    reply.calling("exercise::online_softmax_attention");
    const OnlineSoftmaxResult result = exercise::online_softmax_attention(Q, K, V, query_tile, key_tile, causal);
    const TraceSteps steps = trace_steps(result, {Q.shape(0), Q.shape(1), K.shape(1), V.shape(2), query_tile, key_tile});
    const std::vector<DynamicTensor> values = step_values(steps);
    for (std::size_t k = 0; k < values.size(); ++k) reply.add(trace_step_names()[k], values[k]);
}

}  // namespace attn::exercises::student
