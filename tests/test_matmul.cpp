// Tests for attn/matmul.hpp: every product against a plain loop over the same random inputs,
// small ones by hand, the shapes named when they disagree, and sizes of 0.
#include <catch2/catch.hpp>
#include <random>

#include "attn/error.hpp"
#include "attn/matmul.hpp"
#include "support/tensor_match.hpp"

namespace {

template <class Tensor>
Tensor random(const typename Tensor::shape_type& shape, unsigned seed) {
    std::mt19937 generator(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    Tensor t = Tensor::from_shape(shape);
    for (double& value : t) value = normal(generator);
    return t;
}

// c[i] (m, n) = a[i] (m, k) · b[i] (k, n), or · b[i]ᵀ with b[i] (n, k): `count` matrices back to
// back in memory, by the definition.
std::vector<double> by_loops(const double* a, const double* b, std::size_t count, std::size_t m, std::size_t k,
                             std::size_t n, bool transposed) {
    std::vector<double> c(count * m * n, 0.0);
    for (std::size_t i = 0; i < count; ++i)
        for (std::size_t r = 0; r < m; ++r)
            for (std::size_t col = 0; col < n; ++col)
                for (std::size_t x = 0; x < k; ++x) {
                    const double right = transposed ? b[i * n * k + col * k + x] : b[i * k * n + x * n + col];
                    c[i * m * n + r * n + col] += a[i * m * k + r * k + x] * right;
                }
    return c;
}

template <class Tensor>
void check_same(const std::vector<double>& expected, const Tensor& got) {
    REQUIRE(got.size() == expected.size());
    double worst = 0.0;
    for (std::size_t i = 0; i < expected.size(); ++i) worst = std::max(worst, std::fabs(expected[i] - got.data()[i]));
    INFO("max |difference| " << worst);
    CHECK(worst <= 1e-12);
}

}  // namespace

TEST_CASE("matmul and matmul_transposed multiply 2-D matrices", "[matmul]") {
    const attn::Matrix a = {{1, 2, 3}, {4, 5, 6}};         // (2, 3)
    const attn::Matrix b = {{1, 0}, {0, 1}, {1, 1}};       // (3, 2)
    CHECK_TENSOR_CLOSE(attn::Matrix({{4, 5}, {10, 11}}), attn::matmul(a, b), 0.0, 0.0);
    const attn::Matrix bt = {{1, 0, 1}, {0, 1, 1}};        // (2, 3): bᵀ
    CHECK_TENSOR_CLOSE(attn::Matrix({{4, 5}, {10, 11}}), attn::matmul_transposed(a, bt), 0.0, 0.0);
}

TEST_CASE("batched matmul multiplies batch item b with batch item b, and head j with head j", "[matmul]") {
    const auto a3 = random<attn::Tensor3>({3, 4, 5}, 1), b3 = random<attn::Tensor3>({3, 5, 2}, 2),
               bt3 = random<attn::Tensor3>({3, 2, 5}, 3);
    check_same(by_loops(a3.data(), b3.data(), 3, 4, 5, 2, false), attn::matmul(a3, b3));
    check_same(by_loops(a3.data(), bt3.data(), 3, 4, 5, 2, true), attn::matmul_transposed(a3, bt3));
    const auto a4 = random<attn::Tensor4>({2, 3, 4, 5}, 4), b4 = random<attn::Tensor4>({2, 3, 5, 6}, 5),
               bt4 = random<attn::Tensor4>({2, 3, 6, 5}, 6);
    check_same(by_loops(a4.data(), b4.data(), 6, 4, 5, 6, false), attn::matmul(a4, b4));
    check_same(by_loops(a4.data(), bt4.data(), 6, 4, 5, 6, true), attn::matmul_transposed(a4, bt4));
    CHECK(attn::matmul_transposed(a4, bt4).shape() == std::array<std::size_t, 4>{2, 3, 4, 6});
}

TEST_CASE("a 3-D tensor times one matrix applies it to every row, as nn.Linear does", "[matmul]") {
    const auto x = random<attn::Tensor3>({2, 3, 4}, 7);
    const auto w = random<attn::Matrix>({4, 5}, 8), wt = random<attn::Matrix>({5, 4}, 9);
    check_same(by_loops(x.data(), w.data(), 1, 6, 4, 5, false), attn::matmul(x, w));
    check_same(by_loops(x.data(), wt.data(), 1, 6, 4, 5, true), attn::matmul_transposed(x, wt));
}

TEST_CASE("matvec and vecmat are lesson 1's scores and context", "[matmul][lesson01]") {
    // lessons/01-dot-product's worked example: scores h̄_s · h_t = 50, 57 and 19, 19.
    const attn::Tensor3 encoder_outputs = {{{1, 2, 3}, {2, 2, 3}}, {{4, 5, 6}, {4, 5, 6}}};
    const attn::Matrix decoder_output = {{7, 8, 9}, {2, 1, 1}};
    CHECK_TENSOR_CLOSE(attn::Matrix({{50, 57}, {19, 19}}), attn::matvec(encoder_outputs, decoder_output), 0.0, 0.0);
    // context = Σ_s weight_s h̄_s.
    const attn::Matrix weights = {{0.25, 0.75}, {0.5, 0.5}};
    CHECK_TENSOR_CLOSE(attn::Matrix({{1.75, 2, 3}, {4, 5, 6}}), attn::vecmat(weights, encoder_outputs), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Vector({14, 13}), attn::matvec(attn::Matrix({{1, 2}, {2, 1}}), attn::Vector({4, 5})), 0.0, 0.0);
}

TEST_CASE("matmul names both operands and their shapes when the inner sizes differ", "[matmul][errors]") {
    CHECK_THROWS_AS(attn::matmul(attn::Matrix(xt::zeros<double>({2, 3})), attn::Matrix(xt::zeros<double>({4, 5}))),
                    attn::ShapeError);
    CHECK_THROWS_WITH(attn::matmul(attn::Matrix(xt::zeros<double>({2, 3})), attn::Matrix(xt::zeros<double>({4, 5}))),
                      "matmul: shapes disagree: a (2, 3) (m, k) has k = 3 but b (4, 5) (k, n) has k = 4");
    CHECK_THROWS_WITH(attn::matmul_transposed(attn::Tensor3(xt::zeros<double>({2, 3, 4})),
                                              attn::Tensor3(xt::zeros<double>({3, 5, 4}))),
                      Catch::Contains("a (2, 3, 4) (B, m, k) has B = 2 but b (3, 5, 4) (B, n, k) has B = 3"));
    CHECK_THROWS_WITH(attn::vecmat(attn::Matrix(xt::zeros<double>({2, 3})), attn::Tensor3(xt::zeros<double>({2, 4, 5}))),
                      Catch::Contains("vecmat: shapes disagree: x (2, 3) (B, m) has m = 3 but a (2, 4, 5) (B, m, k) has m = 4"));
}

TEST_CASE("sizes of 0 give an empty product, or zeros when only the inner size is 0", "[matmul]") {
    const attn::Matrix no_inner = attn::matmul(attn::Matrix(xt::zeros<double>({2, 0})), attn::Matrix(xt::zeros<double>({0, 3})));
    CHECK_TENSOR_CLOSE(attn::Matrix(xt::zeros<double>({2, 3})), no_inner, 0.0, 0.0);
    CHECK(attn::matmul(attn::Tensor3(xt::zeros<double>({0, 2, 3})), attn::Tensor3(xt::zeros<double>({0, 3, 4}))).size() == 0);
    CHECK_TENSOR_CLOSE(attn::Matrix(xt::zeros<double>({2, 3})),
                       attn::vecmat(attn::Matrix(xt::zeros<double>({2, 0})), attn::Tensor3(xt::zeros<double>({2, 0, 3}))), 0.0, 0.0);
}
