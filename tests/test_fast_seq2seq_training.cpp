// Tests for attn/fast/seq2seq_training.hpp: the float32 training step of the copy-task model
// against the double path (tutor/train/copy_training.hpp, itself equal to PyTorch's losses to
// 1e-12 in test_copy_training.cpp) from the same initial weights and batches — the losses of the
// fixture's 20 steps, and every parameter's gradient at the first step — at 1 and 2 threads, on
// the copy task's shapes (S = 10, T = 9) and on a batch whose S, T and padding differ.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <vector>
#include <xtensor/xadapt.hpp>
#include <xtensor/xview.hpp>

#include "attn/cross_entropy.hpp"
#include "attn/error.hpp"
#include "attn/fast/seq2seq_training.hpp"
#include "attn/fast/threads.hpp"
#include "attn/seq2seq_parameters.hpp"
#include "attn/seq2seq_transformer_backward.hpp"
#include "support/copy_training_fixtures.hpp"
#include "support/parameter_gradients.hpp"
#include "support/tensor_match.hpp"
#include "tutor/train/copy_evaluation.hpp"

using attn::testing::copy_training_fixture;

namespace {

attn::fast::Seq2SeqTrainingOptions float_options(const attn::tutor::TrainingSettings& settings) {
    attn::fast::Seq2SeqTrainingOptions options;
    options.heads = settings.heads;
    options.warmup = settings.warmup;
    options.lr_factor = settings.lr_factor;
    options.label_smoothing = settings.label_smoothing;
    return options;
}

// The double path's gradients of one batch, every parameter flat in PyTorch's order.
std::vector<double> double_gradients(const attn::Seq2SeqWeights& weights, std::size_t heads, double smoothing,
                                     const attn::IdTensor& src, const attn::IdTensor& decoder_input,
                                     const attn::IdTensor& targets) {
    const attn::Seq2SeqOptions options(heads);
    const auto forward = attn::seq2seq_forward(src, decoder_input, weights, options);
    const std::size_t B = forward.logits.shape(0), T = forward.logits.shape(1);
    attn::CrossEntropyOptions loss_options;
    loss_options.padding_index = 0;
    loss_options.label_smoothing = smoothing;
    const auto loss = attn::cross_entropy(attn::rows_of(forward.logits),
                                          std::vector<std::int64_t>(targets.begin(), targets.end()), loss_options);
    const attn::Tensor3 grad_logits = attn::positions_of(attn::cross_entropy_backward(loss), B, T);
    return attn::flatten_parameters(attn::seq2seq_backward(src, decoder_input, weights, options, forward, grad_logits));
}

// Every parameter's float32 gradient against the double one, each named. Float32 carries about 7
// digits and a gradient sums hundreds of products, so a small value is only as exact as the
// tensor's largest: each value is held to 1e-5 of its tensor's largest gradient (measured, on the
// three cases below: 7.1e-7 at most, decoder.layers.1.norm2.bias).
void check_gradients(const attn::Seq2SeqWeights& weights, const std::vector<double>& expected,
                     const std::vector<double>& got) {
    attn::testing::check_parameter_gradients(weights, expected, got, 1e-5);
}

struct ThreadCount {
    explicit ThreadCount(int threads) : previous(attn::fast::threads()) { attn::fast::set_threads(threads); }
    ~ThreadCount() { attn::fast::set_threads(previous); }
    int previous;
};

}  // namespace

TEST_CASE("fast Seq2SeqTrainer: the fixture's 20 losses equal the double path's (PyTorch's) to 1e-6 relative",
          "[fast][copy_training]") {
    const auto& fixture = copy_training_fixture();
    for (int threads : {1, 2}) {
        const ThreadCount use(threads);
        for (const auto& [name, smoothing] : {std::pair<std::string, double>{"smoothing", 0.1}, {"plain", 0.0}}) {
            auto settings = fixture.settings;
            settings.label_smoothing = smoothing;
            attn::fast::Seq2SeqTrainer trainer(fixture.weights, float_options(settings));
            // PyTorch's losses, which the double path equals to 1e-12 (test_copy_training.cpp). The
            // issue asks 1e-4 relative; measured, float32 stays within 2.9e-8 over the 20 steps, and
            // 1e-4 alone would let real mistakes through (Adam's ε at 1e-8 instead of 1e-9 moves the
            // losses by 5.9e-5), so they are held to 1e-6 as well.
            const auto& losses = fixture.expected.at(name + ".losses");
            const auto& rates = fixture.expected.at(name + ".learning_rates");
            double worst = 0;
            for (std::size_t step = 0; step < fixture.batches.size(); ++step) {
                const auto split = attn::tutor::teacher_forcing(fixture.batches[step].tgt);
                const auto result = trainer.train_step(fixture.batches[step].src, split.decoder_input, split.targets);
                const double relative = std::abs(result.loss - losses(step)) / std::abs(losses(step));
                worst = std::max(worst, relative);
                INFO(threads << " threads, " << name << ", step " << step + 1 << ": expected " << losses(step)
                             << ", got " << result.loss << ", relative difference " << relative);
                CHECK(relative <= 1e-6);
                CHECK(result.learning_rate == Approx(rates(step)).epsilon(1e-15));
            }
            INFO(threads << " threads, " << name << ": worst relative difference " << worst);
            CHECK(trainer.updates() == fixture.batches.size());
        }
    }
}

TEST_CASE("fast Seq2SeqTrainer: every parameter's first-step gradient equals the double path's", "[fast][copy_training]") {
    const auto& fixture = copy_training_fixture();
    const auto split = attn::tutor::teacher_forcing(fixture.batches[0].tgt);
    const std::vector<double> expected = double_gradients(fixture.weights, fixture.settings.heads, 0.1,
                                                          fixture.batches[0].src, split.decoder_input, split.targets);
    for (int threads : {1, 2}) {
        INFO(threads << " threads");
        const ThreadCount use(threads);
        auto settings = fixture.settings;
        settings.label_smoothing = 0.1;
        attn::fast::Seq2SeqTrainer trainer(fixture.weights, float_options(settings));
        trainer.loss_and_gradients(fixture.batches[0].src, split.decoder_input, split.targets);
        check_gradients(fixture.weights, expected, attn::flatten_parameters(trainer.gradients()));
        // Zeroed between calls: the same batch again gives the same gradients, not twice them.
        trainer.loss_and_gradients(fixture.batches[0].src, split.decoder_input, split.targets);
        check_gradients(fixture.weights, expected, attn::flatten_parameters(trainer.gradients()));
    }
}

TEST_CASE("fast Seq2SeqTrainer: S ≠ T, a padded target and another width, against the double path",
          "[fast][copy_training]") {
    // V 7, D 24, 3 heads, F 40, 1 + 1 layers; src (3, 6), decoder input and targets (3, 4), one
    // target the padding symbol (not scored).
    std::mt19937 generator(11);
    const attn::Seq2SeqSizes sizes{7, 24, 1, 1, 40};
    const attn::Seq2SeqWeights weights = attn::tutor::initial_copy_weights(sizes, generator);
    const attn::IdTensor src = {{1, 4, 2, 6, 3, 5}, {1, 2, 2, 3, 6, 6}, {1, 5, 4, 3, 2, 1}};
    const attn::IdTensor decoder_input = {{1, 4, 2, 6}, {1, 2, 2, 3}, {1, 5, 4, 3}};
    const attn::IdTensor targets = {{4, 2, 6, 3}, {2, 2, 3, 0}, {5, 4, 3, 2}};
    const std::vector<double> expected = double_gradients(weights, 3, 0.2, src, decoder_input, targets);
    for (int threads : {1, 2}) {
        INFO(threads << " threads");
        const ThreadCount use(threads);
        attn::fast::Seq2SeqTrainingOptions options;
        options.heads = 3;
        options.label_smoothing = 0.2;
        attn::fast::Seq2SeqTrainer trainer(weights, options);
        trainer.loss_and_gradients(src, decoder_input, targets);
        check_gradients(weights, expected, attn::flatten_parameters(trainer.gradients()));
    }
}

TEST_CASE("fast Seq2SeqTrainer: weights round-trip; greedy decoding equals the double path's", "[fast][copy_training]") {
    const auto& fixture = copy_training_fixture();
    attn::fast::Seq2SeqTrainer trainer(fixture.weights, float_options(fixture.settings));
    const auto back = attn::flatten_parameters(trainer.weights());
    const auto initial = attn::flatten_parameters(fixture.weights);
    CHECK_TENSOR_CLOSE(xt::adapt(initial), xt::adapt(back), 0, 1e-7);  // float32's rounding, no more
    CHECK(trainer.parameter_count() == initial.size());

    // An untrained model decodes noise, the same noise on both paths (no near-tie among these).
    std::mt19937 generator(5);
    const attn::tutor::CopyBatch sequences = attn::tutor::copy_batch(generator, 6, 10, 11);
    const attn::IdTensor decoded = trainer.greedy_decode(sequences.src, 1, 10);
    const attn::Seq2SeqOptions options(fixture.settings.heads);
    for (std::size_t b = 0; b < 6; ++b) {
        const attn::IdTensor one = xt::view(sequences.src, xt::range(b, b + 1), xt::all());
        const std::vector<std::int64_t> expected = attn::tutor::greedy_copy(fixture.weights, options, one);
        std::vector<std::int64_t> got(decoded.begin() + std::ptrdiff_t(b * 10), decoded.begin() + std::ptrdiff_t(b * 10 + 10));
        got.resize(expected.size());  // the double path stops early at a padding symbol
        CHECK(got == expected);
    }
}

TEST_CASE("fast Seq2SeqTrainer: bad ids and options are refused by name", "[fast][copy_training]") {
    const auto& fixture = copy_training_fixture();
    attn::fast::Seq2SeqTrainer trainer(fixture.weights, float_options(fixture.settings));
    const attn::IdTensor ok = {{1, 2, 3}};
    CHECK_THROWS_WITH(trainer.loss_and_gradients(attn::IdTensor{{1, 11, 3}}, ok, ok),
                      Catch::Contains("src[0, 1] = 11") && Catch::Contains("vocabulary 0 … 10"));
    CHECK_THROWS_WITH(trainer.loss_and_gradients(ok, ok, attn::IdTensor{{1, 2, -1}}), Catch::Contains("targets[2] = -1"));
    CHECK_THROWS_WITH(trainer.loss_and_gradients(ok, ok, attn::IdTensor{{0, 0, 0}}), Catch::Contains("padding"));
    CHECK_THROWS_AS(trainer.loss_and_gradients(ok, ok, attn::IdTensor{{1, 2}}), attn::ShapeError);
    attn::fast::Seq2SeqTrainingOptions bad = float_options(fixture.settings);
    bad.heads = 3;  // D = 16
    CHECK_THROWS_WITH(attn::fast::Seq2SeqTrainer(fixture.weights, bad), Catch::Contains("do not divide d_model 16"));
}
