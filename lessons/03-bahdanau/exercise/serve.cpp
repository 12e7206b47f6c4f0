// Exercise 3, the student's side: runs exercise::bahdanau_attention on each case's inputs.
#include "exercise.hpp"
#include "student_side.hpp"

namespace attn::exercises::student {

void serve(const Call& call, Reply& reply) {
    const Tensor3 encoder_outputs = call.tensor<3>("encoder_outputs");
    const Matrix decoder_output = call.tensor<2>("decoder_output");
    const Matrix W1 = call.tensor<2>("W1"), w2 = call.tensor<2>("w2");
    const Vector b1 = call.tensor<1>("b1"), b2 = call.tensor<1>("b2");
    reply.calling("exercise::bahdanau_attention");
    const BahdanauStep step = exercise::bahdanau_attention(encoder_outputs, decoder_output, W1, b1, w2, b2);
    reply.add("concatenated", step.concatenated);
    reply.add("preactivation", step.preactivation);
    reply.add("hidden", step.hidden);
    reply.add("scores", step.scores);
    reply.add("weights", step.weights);
    reply.add("context", step.context);
}

}  // namespace attn::exercises::student
