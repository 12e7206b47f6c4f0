// Dropout on the float32 training path (attn/fast/seq2seq_training.hpp) against the double path's
// (attn/dropout.hpp in attn::seq2seq_forward, itself checked against central differences with the
// same masks in test_seq2seq_dropout.cpp): both draw their masks from std::mt19937(seed) in the
// same order, so from the fixture's initial weights and batches the two paths must give the same
// losses step after step — the test that the masks, where they are applied and their backward
// agree. A mask drawn in another order or applied in one more or one fewer place changes the loss
// of the first step by far more than the tolerance.
//
// Tolerance: 1e-6 relative on each loss over 8 steps. Without dropout the two paths agree to 2.9e-8
// over 20 steps (test_fast_seq2seq_training.cpp); with it, measured at most 2.0e-8 (p = 0.1) and
// 3.4e-8 (p = 0.5), at 1 and 2 threads alike.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "attn/cross_entropy.hpp"
#include "attn/error.hpp"
#include "attn/fast/seq2seq_training.hpp"
#include "attn/fast/threads.hpp"
#include "attn/seq2seq_parameters.hpp"
#include "attn/seq2seq_transformer_backward.hpp"
#include "support/copy_training_fixtures.hpp"
#include "support/fast_guards.hpp"
#include "support/parameter_gradients.hpp"

using attn::testing::copy_training_fixture;

namespace {

// The losses of `steps` training steps from the fixture's weights and batches on one path.
std::vector<double> losses(bool float32, double p, std::size_t steps) {
    const auto& fixture = copy_training_fixture();
    attn::tutor::TrainingSettings settings = fixture.settings;
    settings.dropout = p;
    settings.dropout_seed = 7;
    settings.float32 = float32;
    attn::tutor::CopyTrainer trainer(fixture.weights, settings);
    std::vector<double> out;
    for (std::size_t step = 0; step < steps; ++step) {
        out.push_back(attn::tutor::train_step(trainer, fixture.batches[step % fixture.batches.size()]).loss);
    }
    return out;
}

}  // namespace

TEST_CASE("float32 training with dropout gives the double path's losses from the same weights, batches and seed",
          "[fast][dropout][train]") {
    attn::testing::ThreadsGuard threads;
    const std::size_t steps = 8;
    const std::vector<double> undropped = losses(false, 0.0, steps);
    for (const double p : {0.1, 0.5}) {
        const std::vector<double> expected = losses(false, p, steps);
        for (const int thread_count : {1, 2}) {
            attn::fast::set_threads(thread_count);
            const std::vector<double> got = losses(true, p, steps);
            double worst = 0;
            for (std::size_t i = 0; i < steps; ++i) worst = std::max(worst, std::abs(got[i] - expected[i]) / expected[i]);
            INFO("p " << p << " threads " << thread_count << ": worst relative difference " << worst);
            for (std::size_t i = 0; i < steps; ++i) {
                INFO("step " << i + 1 << ": expected (double) " << expected[i] << ", got (float32) " << got[i]);
                CHECK(std::abs(got[i] - expected[i]) <= 1e-6 * expected[i]);
            }
        }
        // The dropout did drop: the first loss is not the undropped one.
        CHECK(std::abs(expected[0] - undropped[0]) > 1e-3 * undropped[0]);
    }
}

TEST_CASE("float32 training: p = 1 drops everything as the double path does, and no generator means no dropout",
          "[fast][dropout][train]") {
    const std::vector<double> expected = losses(false, 1.0, 2), got = losses(true, 1.0, 2);
    for (std::size_t i = 0; i < 2; ++i) {
        INFO("step " << i + 1 << ": expected (double) " << expected[i] << ", got (float32) " << got[i]);
        CHECK(std::abs(got[i] - expected[i]) <= 1e-6 * expected[i]);
    }
    // Options with dropout but a step given no generator: the undropped step, bit for bit.
    const auto& fixture = copy_training_fixture();
    attn::fast::Seq2SeqTrainingOptions options;
    options.heads = fixture.settings.heads;
    attn::fast::Seq2SeqTrainer plain(fixture.weights, options);
    options.dropout = 0.5;
    attn::fast::Seq2SeqTrainer unused(fixture.weights, options);
    const auto& batch = fixture.batches.front();
    const auto split = attn::tutor::teacher_forcing(batch.tgt);
    CHECK(unused.loss_and_gradients(batch.src, split.decoder_input, split.targets) ==
          plain.loss_and_gradients(batch.src, split.decoder_input, split.targets));
    // p outside [0, 1] is refused.
    for (const double bad : {-0.1, 1.5, std::nan("")}) {
        options.dropout = bad;
        CHECK_THROWS_WITH(attn::fast::Seq2SeqTrainer(fixture.weights, options), Catch::Contains("is outside [0, 1]"));
    }
}

namespace {

// The double path's gradients of one batch with dropout p, its masks from std::mt19937(seed),
// every parameter flat in PyTorch's order.
std::vector<double> double_gradients(double p, std::uint32_t seed, double smoothing, const attn::IdTensor& src,
                                     const attn::tutor::TeacherForcing& split) {
    const auto& fixture = copy_training_fixture();
    attn::Seq2SeqOptions options(fixture.settings.heads);
    options.dropout = p;
    std::mt19937 generator(seed);
    const auto forward = attn::seq2seq_forward(src, split.decoder_input, fixture.weights, options, &generator);
    const std::size_t B = forward.logits.shape(0), T = forward.logits.shape(1);
    attn::CrossEntropyOptions loss_options;
    loss_options.padding_index = 0;
    loss_options.label_smoothing = smoothing;
    const auto loss = attn::cross_entropy(
        attn::rows_of(forward.logits), std::vector<std::int64_t>(split.targets.begin(), split.targets.end()), loss_options);
    const attn::Tensor3 grad_logits = attn::positions_of(attn::cross_entropy_backward(loss), B, T);
    return attn::flatten_parameters(
        attn::seq2seq_backward(src, split.decoder_input, fixture.weights, options, forward, grad_logits));
}

// Each value held to 1e-5 of its tensor's largest gradient, as without dropout
// (test_fast_seq2seq_training.cpp): the same float32 sums, some terms scaled by 1/(1 − p) ≤ 2.
// Measured: 7.2e-8 at most (absolute) over p = 0.1, 0.5 and 1 at 1 and 2 threads.
void check_gradients(const std::vector<double>& expected, const std::vector<double>& got) {
    attn::testing::check_parameter_gradients(copy_training_fixture().weights, expected, got, 1e-5);
}

attn::fast::Seq2SeqTrainingOptions trainer_options(double p, double smoothing) {
    attn::fast::Seq2SeqTrainingOptions options;
    options.heads = copy_training_fixture().settings.heads;
    options.label_smoothing = smoothing;
    options.dropout = p;
    return options;
}

}  // namespace

TEST_CASE("float32 training with dropout: every parameter's gradient is the double path's with the same masks",
          "[fast][dropout][train]") {
    // The losses above agree; this holds every gradient too, so a mask applied to the wrong
    // tensor in the backward alone (the forward's loss unchanged) is caught.
    attn::testing::ThreadsGuard threads;
    const auto& batch = copy_training_fixture().batches.front();
    const auto split = attn::tutor::teacher_forcing(batch.tgt);
    for (const double p : {0.1, 0.5, 1.0}) {
        const std::vector<double> expected = double_gradients(p, 9, 0.1, batch.src, split);
        for (const int thread_count : {1, 2}) {
            INFO("p " << p << ", " << thread_count << " threads");
            attn::fast::set_threads(thread_count);
            attn::fast::Seq2SeqTrainer trainer(copy_training_fixture().weights, trainer_options(p, 0.1));
            std::mt19937 generator(9);
            trainer.loss_and_gradients(batch.src, split.decoder_input, split.targets, &generator);
            check_gradients(expected, attn::flatten_parameters(trainer.gradients()));
        }
    }
}

TEST_CASE("float32 training with dropout: p = 0 draws nothing and a p that keeps every value changes no bit",
          "[fast][dropout][train]") {
    const auto& fixture = copy_training_fixture();
    attn::fast::Seq2SeqTrainer plain(fixture.weights, trainer_options(0.0, 0.1));
    attn::fast::Seq2SeqTrainer zero(fixture.weights, trainer_options(0.0, 0.1));
    // p so small that every value is kept, at a factor 1/(1 − p) that rounds to 1.0f: the masks are
    // drawn and applied at every place, and must change no bit.
    attn::fast::Seq2SeqTrainer tiny(fixture.weights, trainer_options(1e-12, 0.1));
    std::mt19937 zero_generator(3), tiny_generator(3);
    for (std::size_t step = 0; step < 3; ++step) {
        const auto& batch = fixture.batches[step];
        const auto split = attn::tutor::teacher_forcing(batch.tgt);
        const double expected = plain.train_step(batch.src, split.decoder_input, split.targets).loss;
        INFO("step " << step + 1 << ": expected " << expected);
        CHECK(zero.train_step(batch.src, split.decoder_input, split.targets, &zero_generator).loss == expected);
        CHECK(tiny.train_step(batch.src, split.decoder_input, split.targets, &tiny_generator).loss == expected);
    }
    CHECK(zero_generator == std::mt19937(3));  // p = 0 drew nothing
    CHECK(tiny_generator != std::mt19937(3));  // the tiny p did draw
    const auto expected = attn::flatten_parameters(plain.gradients());
    CHECK(attn::flatten_parameters(zero.gradients()) == expected);
    CHECK(attn::flatten_parameters(tiny.gradients()) == expected);
    CHECK(attn::flatten_parameters(tiny.weights()) == attn::flatten_parameters(plain.weights()));
}
