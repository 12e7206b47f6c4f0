// Tests for attn/shape.hpp and attn/error.hpp.
#include <catch2/catch.hpp>

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "attn/tensor.hpp"

TEST_CASE("shape_string writes shapes as Python tuples without the trailing comma", "[shape]") {
    CHECK(attn::shape_string(std::vector<std::size_t>{2, 2, 3}) == "(2, 2, 3)");
    CHECK(attn::shape_string(std::vector<std::size_t>{5}) == "(5)");
    CHECK(attn::shape_string(std::vector<std::size_t>{}) == "()");
    attn::Matrix m = xt::zeros<double>({4, 7});
    CHECK(attn::shape_string(m.shape()) == "(4, 7)");
}

TEST_CASE("a ShapeError is an InputError so the CLI reports both the same way", "[shape]") {
    try {
        throw attn::ShapeError("x has shape (2, 3)");
    } catch (const attn::InputError& e) {
        CHECK(std::string(e.what()) == "x has shape (2, 3)");
    }
}

TEST_CASE("require_nonempty names the function the argument and its shape", "[shape]") {
    CHECK_NOTHROW(attn::require_nonempty("f", "x", std::vector<std::size_t>{2, 3}));
    const attn::Tensor3 empty = xt::zeros<double>({2, 0, 3});
    CHECK_THROWS_AS(attn::require_nonempty("f", "x", empty.shape()), attn::ShapeError);
    CHECK_THROWS_WITH(attn::require_nonempty("dot_attention", "encoder_outputs", empty.shape()),
                      "dot_attention: encoder_outputs has shape (2, 0, 3); every dimension must be at least 1");
}
