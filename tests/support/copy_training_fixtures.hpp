// tests/support/copy_training_fixtures.hpp — the copy task trained by PyTorch, tests/data/copy_training
// (tools/make_copy_training_fixtures.py): its sizes, initial weights, batches and expected values.
//
//   const auto fixture = attn::testing::copy_training_fixture();
//   fixture.weights;            // the initial weights, from initial.npz
//   fixture.batches[0].tgt;     // (B, L)
//   fixture.expected.at("smoothing.losses");
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attn/seq2seq_transformer.hpp"
#include "tutor/train/copy_task.hpp"
#include "tutor/train/copy_training.hpp"

namespace attn::testing {

struct CopyTrainingFixture {
    std::map<std::string, std::string> config;        // config.txt
    Seq2SeqSizes sizes;
    tutor::TrainingSettings settings;                 // heads, warmup, lr_factor (ε per case)
    std::vector<NpzMember> initial;                   // initial.npz, in the archive's order
    Seq2SeqWeights weights;                           // the same, as the model's weights
    std::vector<tutor::CopyBatch> batches;            // batches.npz, one per step
    std::map<std::string, DynamicTensor> expected;    // expected.npz
};

/// Read once, shared by every test that asks.
const CopyTrainingFixture& copy_training_fixture();

}  // namespace attn::testing
