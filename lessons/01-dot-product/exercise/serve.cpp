// Exercise 1, the student's side: runs exercise::dot_attention on each case's inputs.
#include "exercise.hpp"
#include "student_side.hpp"

namespace attn::exercises::student {

void serve(const Call& call, Reply& reply) {
    const Tensor3 encoder_outputs = call.tensor<3>("encoder_outputs");
    const Matrix decoder_output = call.tensor<2>("decoder_output");
    reply.calling("exercise::dot_attention");
    const AttentionStep step = exercise::dot_attention(encoder_outputs, decoder_output);
    reply.add("scores", step.scores);
    reply.add("weights", step.weights);
    reply.add("context", step.context);
}

}  // namespace attn::exercises::student
