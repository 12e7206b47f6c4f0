// Exercise 2, the student's side: runs exercise::luong_general_attention on each case's inputs.
#include "exercise.hpp"
#include "student_side.hpp"

namespace attn::exercises::student {

void serve(const Call& call, Reply& reply) {
    const Tensor3 encoder_outputs = call.tensor<3>("encoder_outputs");
    const Matrix decoder_output = call.tensor<2>("decoder_output");
    const Matrix W_a = call.tensor<2>("W_a");
    reply.calling("exercise::luong_general_attention");
    const LuongGeneralStep step = exercise::luong_general_attention(encoder_outputs, decoder_output, W_a);
    reply.add("projected", step.projected);
    reply.add("scores", step.scores);
    reply.add("weights", step.weights);
    reply.add("context", step.context);
}

}  // namespace attn::exercises::student
