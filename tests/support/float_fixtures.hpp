// tests/support/float_fixtures.hpp — reading the float32 .npy files of the fast path's PyTorch
// fixtures (tests/data/fast_attention, tests/data/fast_decode, the float32 cases of
// tests/data/compute) as float32 tensors, without a detour through double.
//
//   auto w_q = attn::testing::load<2>(folder / "in" / "w_q.npy");
//   auto b_q = attn::testing::load_if_present<1>(folder / "in" / "b_q.npy");   // absent: no bias
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>

#include "attn/npy.hpp"
#include "attn/fast/tensor.hpp"

namespace attn::testing {

// A float32 fixture file as a float32 tensor; false when the file holds float64 (a case for the
// lesson path only).
template <std::size_t N>
bool load_float(const std::filesystem::path& path, xt::xtensor<float, N>& tensor) {
    const attn::NpyArray array = attn::read_npy(path.string());
    if (array.dtype != attn::NpyDtype::float32) return false;
    INFO(path.string());
    REQUIRE(array.shape.size() == N);
    std::array<std::size_t, N> shape;
    std::copy(array.shape.begin(), array.shape.end(), shape.begin());
    tensor = xt::xtensor<float, N>::from_shape(shape);
    std::copy(array.values.begin(), array.values.end(), tensor.begin());
    return true;
}

template <std::size_t N>
xt::xtensor<float, N> load(const std::filesystem::path& path) {
    xt::xtensor<float, N> tensor;
    REQUIRE(load_float(path, tensor));
    return tensor;
}

template <std::size_t N>
std::optional<xt::xtensor<float, N>> load_if_present(const std::filesystem::path& path) {
    if (!std::filesystem::exists(path)) return std::nullopt;
    return load<N>(path);
}

}  // namespace attn::testing
