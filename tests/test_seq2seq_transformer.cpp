// Tests for attn/seq2seq_transformer.hpp, seq2seq_transformer_backward.hpp and seq2seq_parameters.hpp:
// the copy-task model's logits and every parameter's gradient against PyTorch's (nn.Transformer
// with two nn.Embedding and an nn.Linear, tests/data/copy_training), its parameters' names and
// order, and the errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <xtensor/xadapt.hpp>

#include "attn/cross_entropy.hpp"
#include "attn/error.hpp"
#include "attn/seq2seq_parameters.hpp"
#include "attn/seq2seq_transformer.hpp"
#include "attn/seq2seq_transformer_backward.hpp"
#include "support/copy_training_fixtures.hpp"
#include "support/tensor_match.hpp"

using attn::testing::copy_training_fixture;

namespace {

attn::Seq2SeqOptions fixture_options() { return attn::Seq2SeqOptions(copy_training_fixture().settings.heads); }

}  // namespace

TEST_CASE("seq2seq_forward: the first batch's logits equal PyTorch's from the same weights", "[copy_training]") {
    const auto& fixture = copy_training_fixture();
    const auto split = attn::tutor::teacher_forcing(fixture.batches[0].tgt);
    const auto step = attn::seq2seq_forward(fixture.batches[0].src, split.decoder_input, fixture.weights, fixture_options());
    REQUIRE(step.logits.shape(0) == 8);
    REQUIRE(step.logits.shape(1) == 9);
    REQUIRE(step.logits.shape(2) == 11);
    // float64 in both: the two differ by the order of additions only.
    CHECK_TENSOR_CLOSE(fixture.expected.at("logits"), step.logits, 1e-10, 1e-10);
}

TEST_CASE("seq2seq_backward: every parameter's gradient of the smoothed loss equals PyTorch's autograd",
          "[copy_training]") {
    const auto& fixture = copy_training_fixture();
    const auto split = attn::tutor::teacher_forcing(fixture.batches[0].tgt);
    const auto& src = fixture.batches[0].src;
    const auto step = attn::seq2seq_forward(src, split.decoder_input, fixture.weights, fixture_options());
    attn::CrossEntropyOptions loss_options;
    loss_options.padding_index = 0;
    loss_options.label_smoothing = 0.1;
    const std::vector<std::int64_t> targets(split.targets.begin(), split.targets.end());
    const auto loss = attn::cross_entropy(attn::rows_of(step.logits), targets, loss_options);
    CHECK(loss.loss == Approx(fixture.expected.at("smoothing.losses")(0)).epsilon(1e-12));
    const auto grad_logits = attn::positions_of(attn::cross_entropy_backward(loss), 8, 9);

    const auto gradients =
        attn::seq2seq_backward(src, split.decoder_input, fixture.weights, fixture_options(), step, grad_logits);
    const std::vector<double> flat = attn::flatten_parameters(gradients);
    const auto slots = attn::seq2seq_parameter_slots(gradients);
    REQUIRE(slots.size() == fixture.initial.size());
    for (const auto& slot : slots) {
        INFO(slot.name);
        const attn::DynamicTensor& expected = fixture.expected.at("grad." + slot.name);
        const attn::DynamicTensor got = xt::adapt(flat.data() + slot.offset, expected.size(), xt::no_ownership(), slot.shape);
        CHECK_TENSOR_CLOSE(expected, got, 1e-10, 1e-8);
    }
}

TEST_CASE("seq2seq_parameter_slots: PyTorch's names, shapes and order; flatten and unflatten invert each other",
          "[copy_training]") {
    const auto& fixture = copy_training_fixture();
    const auto slots = attn::seq2seq_parameter_slots(fixture.weights);
    REQUIRE(slots.size() == fixture.initial.size());  // 68 for 2 + 2 layers
    std::size_t offset = 0;
    for (std::size_t i = 0; i < slots.size(); ++i) {
        INFO(slots[i].name);
        CHECK(slots[i].name == fixture.initial[i].first);  // numpy.savez keeps named_parameters' order
        CHECK(slots[i].shape == fixture.initial[i].second.shape);
        CHECK(slots[i].offset == offset);
        offset += fixture.initial[i].second.values.size();
    }
    std::vector<double> flat = attn::flatten_parameters(fixture.weights);
    CHECK(flat.size() == offset);
    // Each value moved by its own position: every value must land back where it came from.
    for (std::size_t i = 0; i < flat.size(); ++i) flat[i] += double(i);
    attn::Seq2SeqWeights moved = fixture.weights;
    attn::unflatten_parameters(flat, moved);
    CHECK(attn::flatten_parameters(moved) == flat);
    const auto& in_proj = slots[0];  // encoder.layers.0.self_attn.in_proj_weight, (3D, D): rows q, k, v
    const std::size_t D = fixture.sizes.d_model;
    CHECK(moved.transformer.encoder_layers[0].attention.w_k(0, 1) ==
          fixture.weights.transformer.encoder_layers[0].attention.w_k(0, 1) + double(in_proj.offset + D * D + 1));
    CHECK(moved.generator_bias(2) == fixture.weights.generator_bias(2) + double(flat.size() - 11 + 2));

    flat.pop_back();
    CHECK_THROWS_WITH(attn::unflatten_parameters(flat, moved),
                      Catch::Contains("holds " + std::to_string(offset - 1) + " values") &&
                          Catch::Contains("has " + std::to_string(offset) + " parameters"));
}

TEST_CASE("seq2seq_forward and seq2seq_backward: wrong shapes and ids are named", "[copy_training]") {
    const auto& fixture = copy_training_fixture();
    const auto& src = fixture.batches[0].src;  // (8, 10)
    attn::IdTensor short_batch = xt::ones<std::int64_t>({std::size_t(3), std::size_t(4)});
    CHECK_THROWS_AS(attn::seq2seq_forward(src, short_batch, fixture.weights, fixture_options()), attn::ShapeError);
    CHECK_THROWS_WITH(attn::seq2seq_forward(src, short_batch, fixture.weights, fixture_options()),
                      Catch::Contains("tgt") && Catch::Contains("(3, 4)"));
    attn::IdTensor bad_id = src;
    bad_id(2, 5) = 11;
    CHECK_THROWS_WITH(attn::seq2seq_forward(src, bad_id, fixture.weights, fixture_options()),
                      Catch::Contains("tgt") && Catch::Contains("ids[2, 5] = 11"));
    CHECK_THROWS_WITH(attn::seq2seq_forward(bad_id, src, fixture.weights, fixture_options()),
                      Catch::Contains("src") && Catch::Contains("ids[2, 5] = 11"));
    CHECK_THROWS_WITH(attn::seq2seq_forward(src, src, fixture.weights, attn::Seq2SeqOptions()),
                      Catch::Contains("heads"));

    const auto step = attn::seq2seq_forward(src, src, fixture.weights, fixture_options());
    const attn::Tensor3 wrong = xt::zeros<double>({std::size_t(8), std::size_t(10), std::size_t(10)});
    CHECK_THROWS_AS(attn::seq2seq_backward(src, src, fixture.weights, fixture_options(), step, wrong), attn::ShapeError);
    CHECK_THROWS_WITH(attn::seq2seq_backward(src, src, fixture.weights, fixture_options(), step, wrong),
                      Catch::Contains("grad_logits") && Catch::Contains("(8, 10, 10)"));

    attn::Seq2SeqWeights narrow = fixture.weights;
    narrow.generator_bias = xt::zeros<double>({std::size_t(10)});
    CHECK_THROWS_WITH(attn::seq2seq_forward(src, src, narrow, fixture_options()), Catch::Contains("generator_bias"));
    CHECK_THROWS_AS(attn::zero_seq2seq_weights({11, 16, 2, 0, 32}), attn::InputError);
}
