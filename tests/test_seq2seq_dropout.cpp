// Tests for dropout in the copy-task model (attn/seq2seq_transformer.hpp with options.dropout and a
// generator): every parameter's gradient against central finite differences of a loss computed with
// the same masks, the masks in their places, and nothing drawn nor changed when it is off.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>
#include <xtensor/xadapt.hpp>

#include "attn/error.hpp"
#include "attn/seq2seq_parameters.hpp"
#include "attn/seq2seq_transformer.hpp"
#include "attn/seq2seq_transformer_backward.hpp"
#include "support/gradient_check.hpp"
#include "tutor/train/copy_task.hpp"

namespace {

constexpr std::uint32_t mask_seed = 42;

// A model small enough for finite differences on every parameter: V 5, D 4, 2 heads, F 8, one layer
// per stack (about 500 parameters). Every value moved off PyTorch's initial ones (norms at 1, biases
// at 0) so that no gradient is special.
attn::Seq2SeqWeights small_model() {
    std::mt19937 generator(3);
    attn::Seq2SeqWeights weights = attn::tutor::initial_copy_weights({5, 4, 1, 1, 8}, generator);
    std::vector<double> flat = attn::flatten_parameters(weights);
    std::uniform_real_distribution<double> noise(-0.3, 0.3);
    for (double& value : flat) value += noise(generator);
    attn::unflatten_parameters(flat, weights);
    return weights;
}

struct Batch {
    attn::IdTensor src = {{1, 3, 4}, {1, 2, 2}};   // (B 2, S 3)
    attn::IdTensor tgt = {{1, 3, 4, 0}, {1, 2, 2, 3}};  // (B 2, T 4)
};

attn::Seq2SeqOptions training_options(double p) {
    attn::Seq2SeqOptions options(2);
    options.dropout = p;
    return options;
}

// A fixed upstream gradient with values of both signs: the loss is Σ logits ∘ upstream.
attn::Tensor3 upstream_for(const attn::Tensor3& logits) {
    attn::Tensor3 upstream = attn::Tensor3::from_shape(logits.shape());
    for (std::size_t i = 0; i < upstream.size(); ++i) upstream.data()[i] = std::sin(1.0 + 0.7 * double(i));
    return upstream;
}

// The forward with the masks of seed mask_seed: a fresh generator each time, so every call draws
// the same masks (how many values are drawn does not depend on the weights).
attn::Seq2SeqStep forward_with_masks(const attn::Seq2SeqWeights& weights, double p) {
    const Batch batch;
    std::mt19937 generator(mask_seed);
    return attn::seq2seq_forward(batch.src, batch.tgt, weights, training_options(p), &generator);
}

template <class Mask>
std::size_t drawn(const Mask& mask) {
    return mask.kept.size();
}

// How many values the model's masks hold: each one is one draw of the generator.
std::size_t total_drawn(const attn::Seq2SeqStep& step) {
    std::size_t total = drawn(step.src_dropout) + drawn(step.tgt_dropout);
    for (const auto& layer : step.transformer.encoder_layers) {
        total += drawn(layer.attention.weights_dropout) + drawn(layer.attention_dropout) +
                 drawn(layer.ffn_hidden_dropout) + drawn(layer.ffn_dropout);
    }
    for (const auto& layer : step.transformer.decoder_layers) {
        total += drawn(layer.self_attention.weights_dropout) + drawn(layer.self_attention_dropout) +
                 drawn(layer.cross_attention.weights_dropout) + drawn(layer.cross_attention_dropout) +
                 drawn(layer.ffn_hidden_dropout) + drawn(layer.ffn_dropout);
    }
    return total;
}

}  // namespace

TEST_CASE("seq2seq dropout: every parameter's gradient equals central differences with the same masks",
          "[copy_training][dropout]") {
    attn::Seq2SeqWeights weights = small_model();
    const Batch batch;
    const double p = 0.3;
    const attn::Seq2SeqStep step = forward_with_masks(weights, p);
    const attn::Tensor3 upstream = upstream_for(step.logits);
    const attn::Seq2SeqWeights grad =
        attn::seq2seq_backward(batch.src, batch.tgt, weights, training_options(p), step, upstream);

    std::vector<double> flat = attn::flatten_parameters(weights);
    attn::Seq2SeqWeights perturbed = weights;
    const auto loss = [&] {
        attn::unflatten_parameters(flat, perturbed);
        return attn::testing::weighted_sum(forward_with_masks(perturbed, p).logits, upstream);
    };
    const attn::DynamicTensor numerical = attn::testing::central_differences(flat.data(), {flat.size()}, loss);
    const std::vector<double> analytic = attn::flatten_parameters(grad);
    const auto slots = attn::seq2seq_parameter_slots(weights);
    REQUIRE(slots.size() == 2 + 12 + 2 + 18 + 2 + 2);  // embeddings, encoder layer, its norm, decoder layer, norm, generator
    for (const auto& slot : slots) {
        std::size_t count = 1;
        for (std::size_t size : slot.shape) count *= size;
        const attn::DynamicTensor expected = xt::adapt(numerical.data() + slot.offset, count, xt::no_ownership(), slot.shape);
        const attn::DynamicTensor got = xt::adapt(analytic.data() + slot.offset, count, xt::no_ownership(), slot.shape);
        const auto comparison = attn::testing::compare_with_differences(slot.name, expected, got);
        INFO(comparison.report);
        CHECK(comparison.passed);
    }
}

TEST_CASE("seq2seq dropout: the masks are where nn.Transformer drops and each value is one draw",
          "[copy_training][dropout]") {
    const attn::Seq2SeqWeights weights = small_model();
    const Batch batch;
    std::mt19937 generator(mask_seed);
    const attn::Seq2SeqStep step =
        attn::seq2seq_forward(batch.src, batch.tgt, weights, training_options(0.5), &generator);

    // Every dropout drew a mask of its tensor's shape, and nothing else drew: the generator is exactly
    // as far on as the masks' values (B·S·D + B·T·D + the layers' (B, h, ·, ·), (B, T, D), (B·T, F)).
    const std::size_t B = 2, S = 3, T = 4, D = 4, h = 2, F = 8;
    const std::size_t encoder = B * h * S * S + B * S * D + B * S * F + B * S * D;
    const std::size_t decoder = B * h * T * T + B * T * D + B * h * T * S + B * T * D + B * T * F + B * T * D;
    CHECK(total_drawn(step) == B * S * D + B * T * D + encoder + decoder);
    std::mt19937 expected_state(mask_seed);
    expected_state.discard(B * S * D + B * T * D + encoder + decoder);
    CHECK(generator == expected_state);

    // The embeddings: the encoder reads src_embedding[src] · √D + PE with the mask applied.
    const attn::Tensor3 undropped = attn::embed_with_positions(weights.src_embedding, batch.src, "src");
    const auto& mask = step.src_dropout;
    REQUIRE(mask.kept.shape() == undropped.shape());
    CHECK(mask.scale == 2.0);
    for (std::size_t i = 0; i < undropped.size(); ++i) {
        CHECK(step.src_embedded.data()[i] == mask.kept.data()[i] * 2.0 * undropped.data()[i]);
    }

    // The attention weights: the step keeps them undropped (each row sums to 1, what a heat map shows),
    // and the context is the dropped weights times the values: Σ_s kept · 2 · P[t, s] · v[s].
    const auto& attention = step.transformer.decoder_layers[0].cross_attention;
    REQUIRE(attention.weights_dropout.kept.shape() == attention.weights.shape());
    std::size_t dropped = 0;
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t j = 0; j < h; ++j) {
            for (std::size_t t = 0; t < T; ++t) {
                double row_sum = 0.0;
                for (std::size_t s = 0; s < S; ++s) {
                    row_sum += attention.weights(b, j, t, s);
                    dropped += attention.weights_dropout.kept(b, j, t, s) == 0.0;
                }
                CHECK(row_sum == Approx(1.0).epsilon(1e-14));
                for (std::size_t i = 0; i < D / h; ++i) {
                    double context = 0.0;
                    for (std::size_t s = 0; s < S; ++s) {
                        context += attention.weights_dropout.kept(b, j, t, s) * 2.0 * attention.weights(b, j, t, s) *
                                   attention.v_heads(b, j, s, i);
                    }
                    CHECK(attention.context_heads(b, j, t, i) == Approx(context).margin(1e-14));
                }
            }
        }
    }
    CHECK(dropped > 0);
    CHECK(dropped < B * h * T * S);
}

TEST_CASE("seq2seq dropout: p = 0 or no generator draws nothing and changes no bit", "[copy_training][dropout]") {
    const attn::Seq2SeqWeights weights = small_model();
    const Batch batch;
    const attn::Seq2SeqStep plain = attn::seq2seq_forward(batch.src, batch.tgt, weights, training_options(0.0));
    std::mt19937 generator(mask_seed);
    const std::mt19937 fresh(mask_seed);
    const attn::Seq2SeqStep zero = attn::seq2seq_forward(batch.src, batch.tgt, weights, training_options(0.0), &generator);
    CHECK(generator == fresh);
    CHECK(total_drawn(zero) == 0);
    CHECK((zero.logits == plain.logits));
    // Evaluation: p set but no generator, as greedy decoding and the accuracy run.
    const attn::Seq2SeqStep evaluation = attn::seq2seq_forward(batch.src, batch.tgt, weights, training_options(0.4));
    CHECK(total_drawn(evaluation) == 0);
    CHECK((evaluation.logits == plain.logits));
    const attn::Tensor3 upstream = upstream_for(plain.logits);
    CHECK(attn::flatten_parameters(attn::seq2seq_backward(batch.src, batch.tgt, weights, training_options(0.0), zero,
                                                          upstream)) ==
          attn::flatten_parameters(attn::seq2seq_backward(batch.src, batch.tgt, weights, training_options(0.0), plain,
                                                          upstream)));
    // Dropout changes the logits when it is on.
    CHECK((forward_with_masks(weights, 0.4).logits != plain.logits));

    CHECK_THROWS_AS(attn::seq2seq_forward(batch.src, batch.tgt, weights, training_options(1.5), &generator),
                    attn::InputError);
    CHECK_THROWS_WITH(attn::seq2seq_forward(batch.src, batch.tgt, weights, training_options(-0.1)),
                      Catch::Contains("options.dropout") && Catch::Contains("-0.1"));
}
