// The float32 read path (attn/npy.hpp, NpyFloat32::keep): float32 files and .npz members keep
// their float32 values, bit for bit, in NpyArray::floats and are never widened into
// NpyArray::values; float64 files and masks are read as always. Expected values: NumPy's
// (numpy.load of the same files).
#include <catch2/catch.hpp>

#include <vector>

#include "attn/npy.hpp"
#include "attn/npy_tensor.hpp"
#include "attn/npz.hpp"

namespace {

const std::string data = ATTN_SOURCE_DIR "/tests/data";

}  // namespace

TEST_CASE("npy float32 - kept as float32, never widened", "[npy][fast]") {
    const attn::NpyArray kept = attn::read_npy(data + "/npy/float32_2x3.npy", attn::NpyAccept::floats, attn::NpyFloat32::keep);
    CHECK(kept.dtype == attn::NpyDtype::float32);
    CHECK(kept.shape == std::vector<std::size_t>{2, 3});
    CHECK(kept.values.empty());
    CHECK(kept.floats == std::vector<float>{0, 1, 2, 3, 4, 5});  // numpy.load: [[0, 1, 2], [3, 4, 5]]
    // The default still widens, and to_tensor reads either form alike.
    const attn::NpyArray widened = attn::read_npy(data + "/npy/float32_2x3.npy");
    CHECK(widened.floats.empty());
    CHECK(widened.values == std::vector<double>{0, 1, 2, 3, 4, 5});
    const bool same_tensor = attn::to_tensor(kept) == attn::to_tensor(widened);
    CHECK(same_tensor);
}

TEST_CASE("npy float32 - float64 files and masks are read as always under keep", "[npy][fast]") {
    const attn::NpyArray doubles = attn::read_npy(data + "/npy/float64_2x2x3.npy", attn::NpyAccept::floats, attn::NpyFloat32::keep);
    CHECK(doubles.floats.empty());
    REQUIRE(doubles.values.size() == 12);
    CHECK(doubles.values[11] == 1.1);  // numpy.load: 0.0, 0.1, …, 1.1, float64
    const attn::NpyArray mask =
        attn::read_npy(data + "/npy/bool_2.npy", attn::NpyAccept::floats_bools_integers, attn::NpyFloat32::keep);
    CHECK(mask.dtype == attn::NpyDtype::boolean);
    CHECK(mask.floats.empty());
    CHECK(mask.values.size() == 2);
}

TEST_CASE("npy float32 - .npz members kept as float32, stored and deflated", "[npz][fast]") {
    for (const char* archive : {"good.npz", "good-compressed.npz"}) {
        INFO(archive);
        const auto members = attn::read_npz(data + "/interop/npz/" + archive, nullptr, attn::NpyFloat32::keep);
        REQUIRE(members.size() == 1);
        CHECK(members[0].first == "x");
        CHECK(members[0].second.values.empty());
        CHECK(members[0].second.floats == std::vector<float>{0, 1, 2, 3, 4, 5});
    }
}
