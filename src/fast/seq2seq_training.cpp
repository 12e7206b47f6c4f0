// attn::fast::Seq2SeqTrainer (attn/fast/seq2seq_training.hpp): the flat buffers, the step and
// greedy decoding on the float32 model of seq2seq_model.hpp.
#include "attn/fast/seq2seq_training.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "adam_update.hpp"
#include "attn/error.hpp"
#include "attn/learning_rate.hpp"
#include "attn/seq2seq_parameters.hpp"
#include "attn/shape.hpp"
#include "label_smoothing_loss.hpp"
#include "seq2seq_model.hpp"

namespace attn::fast {

struct Seq2SeqTrainer::State {
    Seq2SeqTrainingOptions options;
    Seq2SeqSizes sizes;
    detail::ModelLayout layout;
    std::vector<float> parameters, gradients, first_moment, second_moment;
    std::size_t updates = 0;
    detail::ModelWork work;
};

namespace {

std::vector<float> to_float(const std::vector<double>& values) { return {values.begin(), values.end()}; }

Seq2SeqWeights to_weights(const std::vector<float>& flat, const Seq2SeqSizes& sizes) {
    Seq2SeqWeights weights = zero_seq2seq_weights(sizes);
    unflatten_parameters(std::vector<double>(flat.begin(), flat.end()), weights);
    return weights;
}

void check_options(const Seq2SeqTrainingOptions& o, const Seq2SeqSizes& sizes) {
    if (o.heads == 0 || sizes.d_model % o.heads != 0) {
        throw InputError("seq2seq training: " + std::to_string(o.heads) + " heads do not divide d_model " +
                         std::to_string(sizes.d_model));
    }
    if (!(o.label_smoothing >= 0 && o.label_smoothing < 1)) {
        throw InputError("seq2seq training: label smoothing " + std::to_string(o.label_smoothing) + " is outside [0, 1)");
    }
    if (!(o.dropout >= 0 && o.dropout <= 1)) {
        throw InputError("seq2seq training: dropout " + std::to_string(o.dropout) + " is outside [0, 1]");
    }
    if (o.padding_index < 0 || o.padding_index >= static_cast<std::int64_t>(sizes.vocabulary)) {
        throw InputError("seq2seq training: the padding index " + std::to_string(o.padding_index) +
                         " is outside the vocabulary 0 … " + std::to_string(sizes.vocabulary - 1));
    }
}

}  // namespace

Seq2SeqTrainer::Seq2SeqTrainer(const Seq2SeqWeights& initial, const Seq2SeqTrainingOptions& options)
    : state_(std::make_unique<State>()) {
    state_->options = options;
    state_->sizes = seq2seq_sizes(initial);
    check_options(options, state_->sizes);
    state_->layout = detail::model_layout(initial, options.heads);
    state_->parameters = to_float(flatten_parameters(initial));
    state_->gradients.assign(state_->parameters.size(), 0.0f);
    state_->first_moment.assign(state_->parameters.size(), 0.0f);
    state_->second_moment.assign(state_->parameters.size(), 0.0f);
}

Seq2SeqTrainer::~Seq2SeqTrainer() = default;
Seq2SeqTrainer::Seq2SeqTrainer(Seq2SeqTrainer&&) noexcept = default;
Seq2SeqTrainer& Seq2SeqTrainer::operator=(Seq2SeqTrainer&&) noexcept = default;

double Seq2SeqTrainer::loss_and_gradients(const IdTensor& src, const IdTensor& decoder_input, const IdTensor& targets,
                                          std::mt19937* dropout_generator) {
    check_shapes("seq2seq training",
                 {{"src", src, "B,S"}, {"decoder_input", decoder_input, "B,T"}, {"targets", targets, "B,T"}});
    State& s = *state_;
    if (dropout_generator != nullptr) {
        detail::draw_dropout(s.layout, src.shape(0), src.shape(1), decoder_input.shape(1), s.options.dropout,
                             *dropout_generator, s.work.dropout);
    } else {
        s.work.dropout.active = false;
    }
    const float eps = static_cast<float>(s.options.layer_norm_eps);
    const std::shared_ptr<detail::WorkerPool> pool = detail::shared_pool();
    detail::load_attention_parameters(s.parameters, s.layout, s.work);
    detail::encoder_forward(s.parameters, s.layout, src, eps, s.work, *pool);
    detail::decoder_forward(s.parameters, s.layout, decoder_input, eps, s.work, *pool);
    const std::size_t rows = targets.size();
    s.work.grad_logits.resize(rows * s.layout.V);
    const double loss =
        detail::label_smoothing_loss(s.work.logits.data(), targets.data(), rows, s.layout.V, s.options.padding_index,
                                     s.options.label_smoothing, s.work.grad_logits.data());
    detail::model_backward(s.parameters, s.layout, src, decoder_input, s.work, s.gradients, *pool);
    return loss;
}

Seq2SeqStepResult Seq2SeqTrainer::train_step(const IdTensor& src, const IdTensor& decoder_input,
                                             const IdTensor& targets, std::mt19937* dropout_generator) {
    State& s = *state_;
    Seq2SeqStepResult result;
    result.loss = loss_and_gradients(src, decoder_input, targets, dropout_generator);
    // LambdaLR: update k uses rate(k − 1) (attn/learning_rate.hpp).
    result.learning_rate = noam_learning_rate(s.updates, s.layout.D, s.options.lr_factor, s.options.warmup);
    detail::AdamScalars adam;
    adam.learning_rate = result.learning_rate;
    adam.beta1 = s.options.beta1;
    adam.beta2 = s.options.beta2;
    adam.eps = s.options.adam_eps;
    adam.step = s.updates + 1;
    detail::adam_update(s.parameters.data(), s.gradients.data(), s.first_moment.data(), s.second_moment.data(),
                        s.parameters.size(), adam, *detail::shared_pool());
    ++s.updates;
    return result;
}

IdTensor Seq2SeqTrainer::greedy_decode(const IdTensor& src, std::int64_t start, std::size_t length) {
    State& s = *state_;
    const std::size_t V = s.layout.V;
    if (start < 0 || start >= static_cast<std::int64_t>(V) || length == 0 || src.size() == 0) {
        throw InputError("greedy_decode: start symbol " + std::to_string(start) + ", length " + std::to_string(length) +
                         ", src " + shape_string(src.shape()) + ": the start must be in the vocabulary 0 … " +
                         std::to_string(V - 1) + " and the sizes at least 1");
    }
    const float eps = static_cast<float>(s.options.layer_norm_eps);
    const std::shared_ptr<detail::WorkerPool> pool = detail::shared_pool();
    s.work.dropout.active = false;  // evaluation: nothing is dropped
    detail::load_attention_parameters(s.parameters, s.layout, s.work);
    detail::encoder_forward(s.parameters, s.layout, src, eps, s.work, *pool);
    const std::size_t B = src.shape(0);
    IdTensor decoded = IdTensor::from_shape({B, length});
    std::fill(decoded.begin(), decoded.end(), start);
    for (std::size_t t = 1; t < length; ++t) {
        IdTensor prefix = IdTensor::from_shape({B, t});
        for (std::size_t b = 0; b < B; ++b) {
            for (std::size_t i = 0; i < t; ++i) prefix(b, i) = decoded(b, i);
        }
        detail::decoder_forward(s.parameters, s.layout, prefix, eps, s.work, *pool);
        for (std::size_t b = 0; b < B; ++b) {
            const float* last = s.work.logits.data() + (b * t + t - 1) * V;
            decoded(b, t) = static_cast<std::int64_t>(std::max_element(last, last + V) - last);
        }
    }
    return decoded;
}

Seq2SeqWeights Seq2SeqTrainer::weights() const { return to_weights(state_->parameters, state_->sizes); }
Seq2SeqWeights Seq2SeqTrainer::gradients() const { return to_weights(state_->gradients, state_->sizes); }
std::size_t Seq2SeqTrainer::parameter_count() const { return state_->parameters.size(); }
std::size_t Seq2SeqTrainer::updates() const { return state_->updates; }

}  // namespace attn::fast
