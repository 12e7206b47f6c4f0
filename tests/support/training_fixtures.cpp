#include "support/training_fixtures.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "attn/npy.hpp"
#include "support/fixtures.hpp"

namespace attn::testing {

namespace {

NpyArray read_integers(const std::filesystem::path& path, std::size_t rank) {
    const NpyArray array = read_npy(path.string(), NpyAccept::floats_bools_integers);
    INFO(path.filename().string());
    REQUIRE(array.dtype == NpyDtype::integer);
    REQUIRE(array.shape.size() == rank);
    return array;
}

std::int64_t to_id(double id) { return static_cast<std::int64_t>(id); }

}  // namespace

std::vector<std::filesystem::path> training_cases(const std::string& module) {
    auto cases = fixture_cases(ATTN_SOURCE_DIR "/tests/data/training", module);
    REQUIRE(!cases.empty());
    return cases;
}

IdTensor load_ids(const std::filesystem::path& path) {
    const NpyArray array = read_integers(path, 2);
    IdTensor ids = IdTensor::from_shape({array.shape[0], array.shape[1]});
    std::transform(array.values.begin(), array.values.end(), ids.begin(), to_id);
    return ids;
}

std::vector<std::int64_t> load_id_vector(const std::filesystem::path& path) {
    const NpyArray array = read_integers(path, 1);
    std::vector<std::int64_t> ids(array.values.size());
    std::transform(array.values.begin(), array.values.end(), ids.begin(), to_id);
    return ids;
}

std::optional<std::int64_t> optional_index(const std::string& text) {
    if (text == "none") return std::nullopt;
    return std::stoll(text);
}

}  // namespace attn::testing
