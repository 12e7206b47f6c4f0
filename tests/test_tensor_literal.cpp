// Tests for tutor/document/tensor_literal.hpp: both written forms, the precision each number carries, and
// a clear file:line:column message for every malformed literal.
#include <catch2/catch.hpp>
#include <cmath>

#include "support/tensor_match.hpp"
#include "tutor/document/tensor_literal.hpp"

using attn::tutor::parse_tensor_literal;

TEST_CASE("a bare nested list parses with its shape and exact values", "[tensor_literal]") {
    const auto literal = parse_tensor_literal("[[[1, 2, 3], [2, 2, 3]],\n [[4, 5, 6], [4, 5, 6]]]", "doc.md", 10);
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{1, 2, 3}, {2, 2, 3}}, {{4, 5, 6}, {4, 5, 6}}}), literal.tensor, 0.0, 0.0);
    CHECK(literal.resolution == std::vector<double>(12, 0.0));
}

TEST_CASE("PyTorch's print parses, and each number keeps the precision it was written with", "[tensor_literal]") {
    const auto literal = parse_tensor_literal("tensor([[9.1105e-04, 9.9909e-01],\n        [5.0000e-01, 50.]])", "d", 1);
    CHECK_TENSOR_CLOSE(attn::Matrix({{9.1105e-04, 9.9909e-01}, {0.5, 50.0}}), literal.tensor, 0.0, 0.0);
    REQUIRE(literal.resolution.size() == 4);
    CHECK(literal.resolution[0] == Approx(5e-9).epsilon(1e-9));
    CHECK(literal.resolution[1] == Approx(5e-6).epsilon(1e-9));  // 9.9909e-01: the last digit is 1e-5
    CHECK(literal.resolution[3] == 0.0);  // "50." is PyTorch's integer mode: exact
    const auto fixed = parse_tensor_literal("tensor([1.9991, -2.0000])", "d", 1);
    CHECK(fixed.resolution[0] == Approx(5e-5).epsilon(1e-9));
    CHECK(fixed.tensor(1) == -2.0);
}

TEST_CASE("infinities and a dtype suffix are accepted", "[tensor_literal]") {
    const auto literal = parse_tensor_literal("tensor([inf, -inf, 1.5], dtype=torch.float64)", "d", 1);
    CHECK(std::isinf(literal.tensor(0)));
    CHECK(literal.tensor(1) < 0);
    CHECK(literal.tensor(2) == 1.5);
}

TEST_CASE("malformed literals name the file line and column", "[tensor_literal][errors]") {
    using attn::tutor::LessonFormatError;
    CHECK_THROWS_AS(parse_tensor_literal("[1, 2", "lesson.md", 5), LessonFormatError);
    CHECK_THROWS_WITH(parse_tensor_literal("[[1, 2],\n [3]]", "lesson.md", 5),
                      Catch::StartsWith("lesson.md:6:") && Catch::Contains("same length"));
    CHECK_THROWS_WITH(parse_tensor_literal("[1, x]", "lesson.md", 7), Catch::StartsWith("lesson.md:7:5:") &&
                                                                      Catch::Contains("expected a number"));
    CHECK_THROWS_WITH(parse_tensor_literal("[[1, 2], 3]", "l.md", 1), Catch::Contains("ragged"));
    CHECK_THROWS_WITH(parse_tensor_literal("[1, ..., 3]", "l.md", 1), Catch::Contains("summarized"));
    CHECK_THROWS_WITH(parse_tensor_literal("tensor([1, 2]", "l.md", 1), Catch::Contains("')'"));
    CHECK_THROWS_WITH(parse_tensor_literal("[]", "l.md", 1), Catch::Contains("empty"));
    CHECK_THROWS_WITH(parse_tensor_literal("[1] [2]", "l.md", 1), Catch::Contains("after the tensor"));
    CHECK_THROWS_WITH(parse_tensor_literal("[1e]", "l.md", 1), Catch::Contains("exponent"));
    CHECK_THROWS_WITH(parse_tensor_literal("", "l.md", 3), Catch::StartsWith("l.md:3:") && Catch::Contains("'['"));
}

// Hostile literals (issue: never a crash, a hang or undefined behaviour from a document).
TEST_CASE("lists nested too deep are a clear error, not a stack overflow", "[tensor_literal][errors]") {
    const std::string deep = std::string(30000, '[') + "1" + std::string(30000, ']');
    CHECK_THROWS_WITH(parse_tensor_literal(deep, "deep.md", 4),
                      Catch::StartsWith("deep.md:4:") && Catch::Contains("nested more than 64 deep"));
    const std::string ok = std::string(64, '[') + "1" + std::string(64, ']');
    CHECK(parse_tensor_literal(ok, "d.md", 1).tensor.dimension() == 64);
}

TEST_CASE("exponents of any length saturate instead of overflowing", "[tensor_literal][errors]") {
    // Signed overflow in the exponent arithmetic (found by UBSan): now 0 and an error.
    const auto tiny = parse_tensor_literal("[1.5e-99999999999999999999]", "l.md", 1);
    CHECK(tiny.tensor(0) == 0.0);
    CHECK(tiny.resolution[0] == 0.0);
    CHECK_THROWS_WITH(parse_tensor_literal("[1.5e99999999999999999999]", "l.md", 2),
                      Catch::StartsWith("l.md:2:") && Catch::Contains("beyond the range of a float64"));
}

TEST_CASE("nan and numbers beyond float64 are refused with file line and column", "[tensor_literal][errors]") {
    CHECK_THROWS_WITH(parse_tensor_literal("[1, nan]", "l.md", 3), Catch::StartsWith("l.md:3:5:") && Catch::Contains("nan cannot be checked"));
    CHECK_THROWS_WITH(parse_tensor_literal("[1e400]", "l.md", 3), Catch::Contains("1e400 is beyond the range of a float64"));
    CHECK_THROWS_WITH(parse_tensor_literal("[-1e400]", "l.md", 3), Catch::Contains("-1e400 is beyond"));
}

TEST_CASE("text quoted in a literal's error is printable", "[tensor_literal][errors]") {
    // Found by the tensor_literal fuzzer: a control byte in the dtype suffix was quoted raw.
    CHECK_THROWS_WITH(parse_tensor_literal("tensor([6.],\b [ 7.,  7.]])\n", "l.md", 1),
                      Catch::Contains("found '\xEF\xBF\xBD [ 7.,  7.]]'"));
    CHECK_THROWS_WITH(parse_tensor_literal("[1, \x1b[31m]", "l.md", 1), Catch::Contains("found '\xEF\xBF\xBD'"));
    CHECK_THROWS_WITH(parse_tensor_literal("[1, \xC3\xA9]", "l.md", 1), Catch::Contains("found '\xC3\xA9'"));  // é whole
}
