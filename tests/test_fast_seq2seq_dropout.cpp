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
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "attn/error.hpp"
#include "attn/fast/seq2seq_training.hpp"
#include "attn/fast/threads.hpp"
#include "support/copy_training_fixtures.hpp"
#include "support/fast_guards.hpp"

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
