// Exercise 8, the student's side: runs exercise::sinusoidal_positions, or exercise::rotary_angles
// and exercise::rotary_embedding, on each case's inputs.
#include "exercise.hpp"
#include "student_side.hpp"

namespace attn::exercises::student {

void serve(const Call& call, Reply& reply) {
    if (call.function == "sinusoidal_positions") {
        const auto T = static_cast<std::size_t>(call.number("T"));
        const auto d_model = static_cast<std::size_t>(call.number("d_model"));
        reply.calling("exercise::sinusoidal_positions");
        reply.add("positions", exercise::sinusoidal_positions(T, d_model));
        return;
    }
    if (call.function != "rotary_embedding") throw BadRequest("exercise 8 has no function '" + call.function + "'");
    const Tensor4 x = call.tensor<4>("x");
    const Vector sent = call.tensor<1>("positions");
    const std::vector<std::int64_t> positions(sent.begin(), sent.end());  // whole numbers, sent as doubles
    const RopeLayout layout = call.number("pairs") != 0.0 ? RopeLayout::pairs : RopeLayout::halves;
    const double base = call.number("base");
    reply.calling("exercise::rotary_angles");
    reply.add("angles", exercise::rotary_angles(positions, x.shape(3), base));
    reply.calling("exercise::rotary_embedding");
    reply.add("rotated", exercise::rotary_embedding(x, positions, layout, base));
}

}  // namespace attn::exercises::student
