// Tests for attn/shape.hpp and attn/error.hpp.
#include <catch2/catch.hpp>
#include <optional>

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

// ---------------------------------------------------------------------------------------------
// check_shapes: the letter-based checker every function and `attn compute` use.

TEST_CASE("check_shapes binds every letter and returns its size", "[shape][shapes]") {
    const attn::Tensor3 Q = xt::zeros<double>({2, 3, 4}), K = xt::zeros<double>({2, 5, 4}), V = xt::zeros<double>({2, 5, 6});
    const attn::ShapeLetters size =
        attn::check_shapes("f", {{"Q", Q, "B,T,d_k"}, {"K", K, "B,S,d_k"}, {"V", V, "B,S,d_v"}});
    CHECK(size == attn::ShapeLetters{{"B", 2}, {"T", 3}, {"S", 5}, {"d_k", 4}, {"d_v", 6}});
}

TEST_CASE("check_shapes names both tensors, the letter and the shape the second must have", "[shape][shapes][errors]") {
    const attn::Tensor3 Q = xt::zeros<double>({2, 3, 4}), K = xt::zeros<double>({2, 5, 3});
    CHECK_THROWS_AS(attn::check_shapes("f", {{"Q", Q, "B,T,d_k"}, {"K", K, "B,S,d_k"}}), attn::ShapeError);
    CHECK_THROWS_WITH(attn::check_shapes("scaled_dot_product_attention", {{"Q", Q, "B,T,d_k"}, {"K", K, "B,S,d_k"}}),
                      "scaled_dot_product_attention: shapes disagree: Q (2, 3, 4) (B, T, d_k) has d_k = 4 but "
                      "K (2, 5, 3) (B, S, d_k) has d_k = 3; K must be (B, S, d_k) = (2, 5, 4)");
    // A letter not known yet when the mismatch is found: no "must be" (it would be a guess).
    const attn::Matrix w = xt::zeros<double>({3, 7});
    CHECK_THROWS_WITH(attn::check_shapes("g", {{"x", attn::Matrix(xt::zeros<double>({2, 4})), "N,D"}, {"w", w, "D,F"}}),
                      "g: shapes disagree: x (2, 4) (N, D) has D = 4 but w (3, 7) (D, F) has D = 3");
    // Without a function name there is no prefix.
    CHECK_THROWS_WITH(attn::check_shapes("", {{"Q", Q, "B,T,d_k"}, {"K", K, "B,S,d_k"}}),
                      Catch::StartsWith("shapes disagree: Q (2, 3, 4)"));
}

TEST_CASE("check_shapes checks factors, literal sizes, ranks and zero sizes", "[shape][shapes][errors]") {
    const attn::Tensor3 A = xt::zeros<double>({2, 3, 4});
    // 2H: twice H, reported as written.
    CHECK_NOTHROW(attn::check_shapes("f", {{"A", A, "B,S,H"}, {"b1", attn::Vector(xt::zeros<double>({8})), "2H"}}));
    CHECK_THROWS_WITH(attn::check_shapes("f", {{"A", A, "B,S,H"}, {"b1", attn::Vector(xt::zeros<double>({7})), "2H"}}),
                      "f: shapes disagree: A (2, 3, 4) (B, S, H) has H = 4 but b1 (7) (2H) has 2H = 7 (2H must be 8)");
    // The first tensor to use a multiple must hold a multiple.
    CHECK_THROWS_WITH(attn::check_shapes("f", {{"b1", attn::Vector(xt::zeros<double>({7})), "2H"}}),
                      "f: b1 (7) (2H): dimension 2H is 7, which is not a multiple of 2");
    // A number in a legend is a size of its own.
    CHECK_THROWS_WITH(attn::check_shapes("f", {{"w2", attn::Matrix(xt::zeros<double>({2, 6})), "1,2H"}}),
                      "f: w2 (2, 6) (1, 2H): dimension 0 must be 1, it is 2");
    // The rank.
    CHECK_THROWS_WITH(attn::check_shapes("dot", {{"encoder_outputs", attn::Matrix(xt::zeros<double>({2, 4})), "B,S,H"}}),
                      "dot: encoder_outputs has shape (2, 4) (rank 2) but dot needs rank 3: (B, S, H)");
    // Zero sizes: refused unless allowed, and then still bound (a 0 must agree with a 0).
    const attn::Tensor3 empty = xt::zeros<double>({2, 0, 4});
    CHECK_THROWS_WITH(attn::check_shapes("f", {{"A", empty, "B,S,H"}}),
                      "f: A has shape (2, 0, 4): dimension S is 0; every dimension must be at least 1");
    CHECK(attn::check_shapes("f", {{"A", empty, "B,S,H"}}, attn::ZeroSizes::allowed).at("S") == 0);
    CHECK_THROWS_AS(attn::check_shapes("f", {{"x", attn::Matrix(xt::zeros<double>({3, 0})), "N,in"},
                                             {"w", attn::Matrix(xt::zeros<double>({2, 5})), "out,in"}},
                                       attn::ZeroSizes::allowed),
                    attn::ShapeError);
}

TEST_CASE("check_shapes skips an optional argument that is absent and checks one that is given", "[shape][shapes]") {
    const attn::Tensor3 Q = xt::zeros<double>({2, 3, 4});
    std::optional<attn::Matrix> mask;
    CHECK_NOTHROW(attn::check_shapes("f", {{"Q", Q, "B,T,d_k"}, {"attention_mask", mask, "B,T"}}));
    mask = attn::Matrix(xt::zeros<double>({2, 5}));
    CHECK_THROWS_WITH(attn::check_shapes("f", {{"Q", Q, "B,T,d_k"}, {"attention_mask", mask, "B,T"}}),
                      Catch::Contains("attention_mask (2, 5) (B, T) has T = 5; attention_mask must be (B, T) = (2, 3)"));
}

TEST_CASE("legend_string and legend_shape read a legend", "[shape][shapes]") {
    CHECK(attn::legend_string("B,S,H") == "(B, S, H)");
    CHECK(attn::legend_string("2H") == "(2H)");
    CHECK(attn::legend_shape("B,S,2H", {{"B", 4}, {"S", 5}, {"H", 3}}) == std::vector<std::size_t>{4, 5, 6});
    // An unbound letter counts as 1; a size past the limit is capped just above it.
    CHECK(attn::legend_shape("B,h", {{"B", 2}}) == std::vector<std::size_t>{2, 1});
    CHECK(attn::legend_shape("2H", {{"H", attn::max_tensor_values}}) == std::vector<std::size_t>{attn::max_tensor_values + 1});
}

TEST_CASE("unravel_index and index_string write an index as NumPy does", "[shape]") {
    CHECK(attn::unravel_index(5, {2, 3}) == std::vector<std::size_t>{1, 2});
    CHECK(attn::unravel_index(0, {}) == std::vector<std::size_t>{});
    CHECK(attn::index_string(23, {2, 3, 4}) == "[1, 2, 3]");
    CHECK(attn::index_string(std::vector<std::size_t>{0, 4}) == "[0, 4]");
}
