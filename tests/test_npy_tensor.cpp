// Tests for attn/npy_tensor.hpp: files NumPy wrote read as tensors of their shape, and tensors
// written back as the bytes np.save writes.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "attn/error.hpp"
#include "attn/npy_tensor.hpp"
#include "support/tensor_match.hpp"

namespace {

std::string fixture(const std::string& name) { return ATTN_SOURCE_DIR "/tests/data/npy/" + name; }

std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("read_npy_tensor gives a tensor of the file's shape and values", "[npy]") {
    const attn::DynamicTensor a = attn::read_npy_tensor(fixture("float32_2x3.npy"));  // np.arange(6).reshape(2, 3)
    CHECK_TENSOR_CLOSE(attn::DynamicTensor({{0, 1, 2}, {3, 4, 5}}), a, 0.0, 0.0);
    const attn::DynamicTensor b = attn::read_npy_tensor(fixture("float64_2x2x3.npy"));  // arange(12) / 10
    REQUIRE(b.shape() == std::vector<std::size_t>{2, 2, 3});
    CHECK(b(1, 0, 2) == 0.8);
    const attn::DynamicTensor scalar = attn::read_npy_tensor(fixture("float64_scalar.npy"));
    CHECK(scalar.dimension() == 0);
    CHECK(scalar() == -1.25);
    CHECK(attn::read_npy_tensor(fixture("float32_empty_0x3.npy")).shape() == std::vector<std::size_t>{0, 3});
}

TEST_CASE("to_tensor keeps the values in C order", "[npy]") {
    attn::NpyArray array;
    array.shape = {2, 1, 2};
    array.values = {1.5, -2.5, 3.5, 4.5};
    const attn::DynamicTensor t = attn::to_tensor(array);
    CHECK(t(0, 0, 1) == -2.5);
    CHECK(t(1, 0, 0) == 3.5);
}

TEST_CASE("encode_npy of a tensor writes the bytes np.save writes", "[npy]") {
    const attn::DynamicTensor a = {{0, 1, 2}, {3, 4, 5}};
    CHECK(attn::encode_npy(a, attn::NpyDtype::float32) == file_bytes(fixture("float32_2x3.npy")));
    // Round trip through the bytes.
    const attn::DynamicTensor back = attn::to_tensor(attn::parse_npy(attn::encode_npy(a, attn::NpyDtype::float64), "a"));
    CHECK_TENSOR_CLOSE(a, back, 0.0, 0.0);
}

TEST_CASE("read_npy_tensor names the file it refuses", "[npy][errors]") {
    CHECK_THROWS_AS(attn::read_npy_tensor(fixture("no_such_file.npy")), attn::InputError);
    CHECK_THROWS_WITH(attn::read_npy_tensor(fixture("no_such_file.npy")), Catch::Contains("no_such_file.npy"));
}
