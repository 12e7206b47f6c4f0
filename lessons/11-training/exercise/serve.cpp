// Exercise 11, the student's side: runs exercise::teacher_forcing, smoothed_cross_entropy,
// noam_rate, adam_update or train on each case's inputs. Token ids travel as doubles and become
// ints here; the training cases' batches are quadratic losses built here from their centres and
// curvatures, each backward adding its gradient into the buffer the student's loop hands it.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "exercise.hpp"
#include "student_side.hpp"

namespace attn::exercises::student {

namespace {

exercise::Tokens tokens_of(const Matrix& ids) {
    exercise::Tokens tokens(ids.shape(0), std::vector<int>(ids.shape(1)));
    for (std::size_t b = 0; b < ids.shape(0); ++b)
        for (std::size_t t = 0; t < ids.shape(1); ++t) tokens[b][t] = static_cast<int>(std::lround(ids(b, t)));
    return tokens;
}

// Rows of equal length as a matrix; a ragged answer is sent as the longest row's width, padded with NaN.
Matrix matrix_of(const std::vector<std::vector<double>>& rows) {
    std::size_t width = 0;
    for (const auto& row : rows) width = std::max(width, row.size());
    Matrix out = Matrix::from_shape({rows.size(), width});
    out.fill(NAN);
    for (std::size_t r = 0; r < rows.size(); ++r)
        for (std::size_t c = 0; c < rows[r].size(); ++c) out(r, c) = rows[r][c];
    return out;
}

Matrix matrix_of(const exercise::Tokens& tokens) {
    std::vector<std::vector<double>> rows;
    for (const auto& row : tokens) rows.emplace_back(row.begin(), row.end());
    return matrix_of(rows);
}

Vector vector_of(const std::vector<double>& values) {
    Vector out = Vector::from_shape({values.size()});
    std::copy(values.begin(), values.end(), out.begin());
    return out;
}

std::vector<double> values_of(const Vector& v) { return {v.begin(), v.end()}; }

void serve_teacher_forcing(const Call& call, Reply& reply) {
    const exercise::Tokens tgt = tokens_of(call.tensor<2>("tgt"));
    reply.calling("exercise::teacher_forcing");
    const exercise::TeacherForcing split = exercise::teacher_forcing(tgt);
    reply.add("decoder_input", matrix_of(split.decoder_input));
    reply.add("targets", matrix_of(split.targets));
}

void serve_cross_entropy(const Call& call, Reply& reply) {
    const Matrix logits = call.tensor<2>("logits");
    const Vector ids = call.tensor<1>("targets");
    std::vector<int> targets;
    for (const double id : ids) targets.push_back(static_cast<int>(std::lround(id)));
    const int padding = static_cast<int>(std::lround(call.number("padding")));
    reply.calling("exercise::smoothed_cross_entropy");
    const exercise::SmoothedLoss loss = exercise::smoothed_cross_entropy(logits, targets, padding, call.number("smoothing"));
    reply.add("target_distribution", loss.target_distribution);
    reply.add("loss", DynamicTensor({loss.loss}));
    reply.add("grad_logits", loss.grad_logits);
}

void serve_noam_rate(const Call& call, Reply& reply) {
    const Vector steps = call.tensor<1>("steps");
    const auto d_model = static_cast<std::size_t>(call.number("d_model"));
    const auto warmup = static_cast<std::size_t>(call.number("warmup"));
    reply.calling("exercise::noam_rate");
    Vector rates = Vector::from_shape({steps.size()});
    for (std::size_t i = 0; i < steps.size(); ++i)
        rates(i) = exercise::noam_rate(static_cast<std::size_t>(steps(i)), d_model, call.number("factor"), warmup);
    reply.add("learning_rate", rates);
}

void serve_adam_update(const Call& call, Reply& reply) {
    std::vector<double> parameters = values_of(call.tensor<1>("parameters"));
    exercise::AdamMemory memory;
    memory.steps_taken = static_cast<std::size_t>(call.number("steps_taken"));
    if (memory.steps_taken > 0) {
        memory.m = values_of(call.tensor<1>("m"));
        memory.v = values_of(call.tensor<1>("v"));
    }
    reply.calling("exercise::adam_update");
    exercise::adam_update(parameters, values_of(call.tensor<1>("gradients")), memory, call.number("learning_rate"));
    reply.add("parameters", vector_of(parameters));
    reply.add("first_moment", vector_of(memory.m));
    reply.add("second_moment", vector_of(memory.v));
}

void serve_train(const Call& call, Reply& reply) {
    const Matrix centres = call.tensor<2>("centres"), curvatures = call.tensor<2>("curvatures");
    std::vector<exercise::Backward> batches;
    for (std::size_t k = 0; k < centres.shape(0); ++k) {
        // Batch k's loss ½ Σ_i curvature(k, i) (θ_i − centre(k, i))²: its gradient, added.
        batches.push_back([&centres, &curvatures, k](const std::vector<double>& theta, std::vector<double>& gradients) {
            if (theta.size() != centres.shape(1) || gradients.size() != centres.shape(1))
                throw std::length_error("backward: the parameters and the gradient buffer must have " +
                                        std::to_string(centres.shape(1)) + " values");
            for (std::size_t i = 0; i < theta.size(); ++i) gradients[i] += curvatures(k, i) * (theta[i] - centres(k, i));
        });
    }
    const exercise::Schedule schedule{static_cast<std::size_t>(call.number("d_model")), call.number("factor"),
                                      static_cast<std::size_t>(call.number("warmup"))};
    reply.calling("exercise::train");
    const exercise::TrainingLog log = exercise::train(values_of(call.tensor<1>("parameters")), batches, schedule);
    reply.add("learning_rates", vector_of(log.learning_rates));
    reply.add("gradients_used", matrix_of(log.gradients_used));
    reply.add("parameters_after", matrix_of(log.parameters));
}

}  // namespace

void serve(const Call& call, Reply& reply) {
    if (call.function == "teacher_forcing") return serve_teacher_forcing(call, reply);
    if (call.function == "smoothed_cross_entropy") return serve_cross_entropy(call, reply);
    if (call.function == "noam_rate") return serve_noam_rate(call, reply);
    if (call.function == "adam_update") return serve_adam_update(call, reply);
    if (call.function != "train") throw BadRequest("exercise 11 has no function '" + call.function + "'");
    serve_train(call, reply);
}

}  // namespace attn::exercises::student
