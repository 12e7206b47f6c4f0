#include "support/copy_training_fixtures.hpp"

#include "attn/npy_tensor.hpp"
#include "support/fixtures.hpp"

namespace attn::testing {
namespace {

const std::string folder = ATTN_SOURCE_DIR "/tests/data/copy_training/";

NpyAccept any_numbers(const std::string&) { return NpyAccept::floats_bools_integers; }

std::map<std::string, DynamicTensor> tensors_of(const std::vector<NpzMember>& members) {
    std::map<std::string, DynamicTensor> tensors;
    for (const auto& [name, array] : members) tensors[name] = to_tensor(array);
    return tensors;
}

std::vector<tutor::CopyBatch> batches_of(const std::map<std::string, DynamicTensor>& tensors) {
    const DynamicTensor& src = tensors.at("src");
    const DynamicTensor& tgt = tensors.at("tgt");
    std::vector<tutor::CopyBatch> batches;
    const std::size_t B = src.shape(1), L = src.shape(2);
    for (std::size_t step = 0; step < src.shape(0); ++step) {
        tutor::CopyBatch batch{IdTensor::from_shape({B, L}), IdTensor::from_shape({B, L})};
        for (std::size_t b = 0; b < B; ++b) {
            for (std::size_t l = 0; l < L; ++l) {
                batch.src(b, l) = static_cast<std::int64_t>(src(step, b, l));
                batch.tgt(b, l) = static_cast<std::int64_t>(tgt(step, b, l));
            }
        }
        batches.push_back(batch);
    }
    return batches;
}

CopyTrainingFixture read_fixture() {
    CopyTrainingFixture fixture;
    fixture.config = read_key_values(folder + "config.txt");
    const auto size = [&](const std::string& key) { return std::size_t(std::stoul(fixture.config.at(key))); };
    fixture.sizes = {size("vocabulary"), size("d_model"), size("layers"), size("layers"), size("d_ff")};
    fixture.settings.heads = size("heads");
    fixture.settings.warmup = size("warmup");
    fixture.settings.lr_factor = std::stod(fixture.config.at("lr_factor"));
    fixture.initial = read_npz(folder + "initial.npz");
    fixture.weights = tutor::weights_from_state_dict(fixture.initial, fixture.sizes, "initial.npz");
    fixture.batches = batches_of(tensors_of(read_npz(folder + "batches.npz", any_numbers)));
    fixture.expected = tensors_of(read_npz(folder + "expected.npz", any_numbers));
    return fixture;
}

}  // namespace

const CopyTrainingFixture& copy_training_fixture() {
    static const CopyTrainingFixture fixture = read_fixture();
    return fixture;
}

}  // namespace attn::testing
