// Tests for tutor/train/copy_task.hpp and copy_training.hpp: the seeded recipe draws PyTorch's
// initial weights and batches (tools/make_copy_training_fixtures.py), teacher forcing by hand, and
// the check that the first 20 training steps' losses equal PyTorch's from the same weights
// and batches — with label smoothing and without.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <numeric>
#include <sstream>
#include <xtensor/xadapt.hpp>

#include "attn/error.hpp"
#include "attn/seq2seq_parameters.hpp"
#include "support/copy_training_fixtures.hpp"
#include "support/tensor_match.hpp"
#include "tutor/train/copy_evaluation.hpp"

using attn::testing::copy_training_fixture;

TEST_CASE("initial_copy_weights and copy_batch: the seed draws PyTorch's initial weights and batches",
          "[copy_training]") {
    const auto& fixture = copy_training_fixture();
    std::mt19937 generator(std::stoul(fixture.config.at("seed")));
    const auto weights = attn::tutor::initial_copy_weights(fixture.sizes, generator);
    const auto drawn = attn::flatten_parameters(weights);
    const auto expected = attn::flatten_parameters(fixture.weights);
    REQUIRE(drawn.size() == expected.size());
    for (const auto& slot : attn::seq2seq_parameter_slots(weights)) {
        INFO(slot.name);
        const std::size_t count =
            std::accumulate(slot.shape.begin(), slot.shape.end(), std::size_t(1), std::multiplies<>());
        const auto begin = slot.offset, end = slot.offset + count;
        // The same arithmetic on the same 32-bit draws: equal to the last bit or nearly.
        CHECK_TENSOR_CLOSE(xt::adapt(std::vector<double>(expected.begin() + begin, expected.begin() + end)),
                           xt::adapt(std::vector<double>(drawn.begin() + begin, drawn.begin() + end)), 1e-15, 0);
    }
    for (std::size_t step = 0; step < fixture.batches.size(); ++step) {
        INFO("batch " << step);
        const auto batch = attn::tutor::copy_batch(generator, 8, 10, fixture.sizes.vocabulary);
        CHECK(batch.src == fixture.batches[step].src);
        CHECK(batch.tgt == fixture.batches[step].tgt);
    }
}

TEST_CASE("copy_batch: symbols 1 … V − 1, the first one 1, src equal to tgt; bad sizes refused", "[copy_training]") {
    std::mt19937 generator(7);
    const auto batch = attn::tutor::copy_batch(generator, 50, 12, 5);
    CHECK(batch.src == batch.tgt);
    for (std::size_t b = 0; b < 50; ++b) CHECK(batch.tgt(b, 0) == 1);
    CHECK(*std::min_element(batch.tgt.begin(), batch.tgt.end()) == 1);
    CHECK(*std::max_element(batch.tgt.begin(), batch.tgt.end()) == 4);  // 600 draws: every symbol appears
    CHECK_THROWS_WITH(attn::tutor::copy_batch(generator, 0, 10, 11), Catch::Contains("batch 0"));
    CHECK_THROWS_WITH(attn::tutor::copy_batch(generator, 8, 10, 2), Catch::Contains("vocabulary 2"));
}

TEST_CASE("teacher_forcing: the decoder reads tgt[:, :-1] and is scored on tgt[:, 1:]", "[copy_training]") {
    const attn::IdTensor tgt = {{1, 7, 3, 9}, {1, 2, 2, 5}};
    const auto split = attn::tutor::teacher_forcing(tgt);
    CHECK(split.decoder_input == attn::IdTensor{{1, 7, 3}, {1, 2, 2}});
    CHECK(split.targets == attn::IdTensor{{7, 3, 9}, {2, 2, 5}});
    CHECK_THROWS_AS(attn::tutor::teacher_forcing(attn::IdTensor{{1}}), attn::InputError);
}

TEST_CASE("train_step: the first 20 losses equal PyTorch's from the same weights and batches", "[copy_training]") {
    // The tolerance is 1e-4 relative. Both sides compute in float64 and differ only in the
    // order of additions: measured, the 40 losses agree to 8.4e-16 at most. 1e-4 alone would let
    // real mistakes through — Adam's ε at 1e-8 instead of 1e-9 moves the losses by 5.9e-5 — so
    // the losses are held to 1e-12 as well, what float64 gives with room to spare.
    const auto& fixture = copy_training_fixture();
    for (const auto& [name, smoothing] : {std::pair<std::string, double>{"smoothing", 0.1}, {"plain", 0.0}}) {
        auto settings = fixture.settings;
        settings.label_smoothing = smoothing;
        attn::tutor::CopyTrainer trainer(fixture.weights, settings);
        const auto& losses = fixture.expected.at(name + ".losses");
        const auto& rates = fixture.expected.at(name + ".learning_rates");
        REQUIRE(losses.size() == fixture.batches.size());
        for (std::size_t step = 0; step < fixture.batches.size(); ++step) {
            const auto result = attn::tutor::train_step(trainer, fixture.batches[step]);
            const double relative = std::abs(result.loss - losses(step)) / std::abs(losses(step));
            std::ostringstream report;
            report.precision(17);
            report << name << " step " << step + 1 << ": expected loss " << losses(step) << ", got " << result.loss
                   << ", relative difference " << relative << "; learning rate expected " << rates(step) << ", got "
                   << result.learning_rate;
            INFO(report.str());
            CHECK(relative <= 1e-4);
            CHECK(relative <= 1e-12);
            CHECK(result.learning_rate == Approx(rates(step)).epsilon(1e-14));
        }
        CHECK(trainer.adam.step == 20);
    }
}

TEST_CASE("weights_from_state_dict: a missing, misshapen or unknown tensor is named", "[copy_training]") {
    const auto& fixture = copy_training_fixture();
    auto members = fixture.initial;
    members.erase(members.begin() + 5);  // encoder.layers.0.linear1.bias
    CHECK_THROWS_WITH(attn::tutor::weights_from_state_dict(members, fixture.sizes, "model.npz"),
                      Catch::Contains("model.npz") && Catch::Contains("encoder.layers.0.linear1.bias (32) is missing"));
    members = fixture.initial;
    members.back().second.shape = {1, 11};  // generator.bias
    CHECK_THROWS_WITH(attn::tutor::weights_from_state_dict(members, fixture.sizes, "model.npz"),
                      Catch::Contains("generator.bias has shape (1, 11); the model's is (11)"));
    members = fixture.initial;
    members.push_back({"decoder.layers.2.norm1.weight", members.back().second});
    CHECK_THROWS_WITH(attn::tutor::weights_from_state_dict(members, fixture.sizes, "model.npz"),
                      Catch::Contains("decoder.layers.2.norm1.weight is not a parameter of the model"));
}

TEST_CASE("greedy_copy: the model trained 20 steps decodes the first batch as PyTorch's greedy_decode",
          "[copy_training]") {
    const auto& fixture = copy_training_fixture();
    auto settings = fixture.settings;
    settings.label_smoothing = 0.1;
    attn::tutor::CopyTrainer trainer(fixture.weights, settings);
    for (const auto& batch : fixture.batches) attn::tutor::train_step(trainer, batch);
    const auto& expected = fixture.expected.at("smoothing.greedy");  // (B, L), each row from the start symbol 1
    const auto& src = fixture.batches[0].src;
    for (std::size_t b = 0; b < src.shape(0); ++b) {
        attn::IdTensor row = attn::IdTensor::from_shape({1, src.shape(1)});
        for (std::size_t l = 0; l < src.shape(1); ++l) row(0, l) = src(b, l);
        const auto decoded = attn::tutor::greedy_copy(trainer.weights, trainer.options, row);
        std::vector<std::int64_t> want;
        for (std::size_t l = 0; l < expected.shape(1); ++l) want.push_back(std::int64_t(expected(b, l)));
        INFO("sequence " << b);
        CHECK(decoded == want);
    }
    CHECK_THROWS_AS(attn::tutor::greedy_copy(trainer.weights, trainer.options, attn::IdTensor{{1}}), attn::InputError);
}
