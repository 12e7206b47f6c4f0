// Tests for tutor/tensor_format: the tutor must print a tensor exactly as PyTorch 1.13 does.
//
// The bulk of the evidence is tests/data/tensor_format_cases.txt, written by
// tools/make_format_cases.py from PyTorch itself: each record holds a float32 tensor and the text
// `str(tensor)` gave. A few literal cases at the top show the behaviour to a reader.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/tensor.hpp"
#include "tutor/lesson/tensor_format.hpp"

using attn::DynamicTensor;
using attn::tutor::format_like_pytorch;

namespace {

// One record of tensor_format_cases.txt.
struct FormatCase {
    std::string name;
    std::vector<std::size_t> shape;
    std::vector<double> values;
    std::string expected_text;  // lines joined with '\n', no trailing newline
};

bool starts_with(const std::string& text, const std::string& prefix) { return text.compare(0, prefix.size(), prefix) == 0; }

// The words after the keyword on a "shape ..." or "values ..." line.
std::vector<std::string> words_after_keyword(const std::string& line) {
    std::istringstream words(line);
    std::string word;
    words >> word;  // the keyword itself
    std::vector<std::string> rest;
    while (words >> word) rest.push_back(word);
    return rest;
}

double parse_value(const std::string& word) {
    // strtod reads the repr() text back to the very same double, and understands nan, inf, -inf.
    char* end = nullptr;
    const double value = std::strtod(word.c_str(), &end);
    if (end == word.c_str() || *end != '\0') throw std::runtime_error("bad value '" + word + "'");
    return value;
}

std::vector<FormatCase> read_format_cases(const std::string& path) {
    std::ifstream input(path);
    if (!input) throw std::runtime_error("cannot open " + path);
    std::vector<FormatCase> cases;
    std::string line;
    while (std::getline(input, line)) {
        if (line.empty() || line[0] == '#') continue;
        if (!starts_with(line, "case ")) throw std::runtime_error("expected 'case NAME', got '" + line + "'");
        FormatCase format_case;
        format_case.name = line.substr(5);
        while (std::getline(input, line) && !starts_with(line, "text ")) {
            if (line == "shape" || starts_with(line, "shape ")) {
                for (const auto& word : words_after_keyword(line)) format_case.shape.push_back(std::stoul(word));
            } else if (starts_with(line, "values ")) {
                for (const auto& word : words_after_keyword(line)) format_case.values.push_back(parse_value(word));
            } else {
                throw std::runtime_error("unexpected line in case " + format_case.name + ": '" + line + "'");
            }
        }
        const int text_lines = std::stoi(line.substr(5));
        for (int i = 0; i < text_lines; ++i) {
            if (!std::getline(input, line)) throw std::runtime_error("case " + format_case.name + " ends early");
            format_case.expected_text += (i ? "\n" : "") + line;
        }
        if (!std::getline(input, line) || line != "end") throw std::runtime_error("case " + format_case.name + " lacks 'end'");
        cases.push_back(format_case);
    }
    return cases;
}

const std::vector<FormatCase>& recorded_cases() {
    static const std::vector<FormatCase> cases = read_format_cases(ATTN_SOURCE_DIR "/tests/data/tensor_format_cases.txt");
    return cases;
}

DynamicTensor tensor_of(const FormatCase& format_case) {
    // An empty shape gives a 0-d tensor holding one element, as in PyTorch.
    DynamicTensor tensor = DynamicTensor::from_shape(format_case.shape);
    REQUIRE(tensor.size() == format_case.values.size());
    std::copy(format_case.values.begin(), format_case.values.end(), tensor.begin());
    return tensor;
}

}  // namespace

TEST_CASE("format_like_pytorch prints 4 decimals aligned in columns", "[tensor_format]") {
    const attn::Matrix matrix = {{1.99909, 2, 3}, {4, 5, 6}};
    CHECK(format_like_pytorch(matrix) ==
          "tensor([[1.9991, 2.0000, 3.0000],\n"
          "        [4.0000, 5.0000, 6.0000]])");
}

TEST_CASE("format_like_pytorch prints whole numbers as 50. in integer mode", "[tensor_format]") {
    const attn::Matrix matrix = {{50, 57}, {19, 19}};
    CHECK(format_like_pytorch(matrix) ==
          "tensor([[50., 57.],\n"
          "        [19., 19.]])");
}

TEST_CASE("format_like_pytorch switches to scientific notation past a 1000x spread", "[tensor_format]") {
    const attn::Vector vector = {0.5, 500.5};
    CHECK(format_like_pytorch(vector) == "tensor([5.0000e-01, 5.0050e+02])");
}

TEST_CASE("format_like_pytorch rounds double inputs to float32 first", "[tensor_format]") {
    // The double 1.00005 is just above the halfway point and would print 1.0001; the float32
    // nearest to it is just below, and PyTorch prints tensor([1.0000]).
    const attn::Vector vector = {1.00005};
    CHECK(format_like_pytorch(vector) == "tensor([1.0000])");
}

TEST_CASE("format_like_pytorch prints a 0-d tensor without brackets", "[tensor_format]") {
    const DynamicTensor scalar = 3.14159;
    REQUIRE(scalar.dimension() == 0);
    CHECK(format_like_pytorch(scalar) == "tensor(3.1416)");
}

TEST_CASE("format_like_pytorch names the size of an empty matrix", "[tensor_format]") {
    CHECK(format_like_pytorch(DynamicTensor::from_shape({0})) == "tensor([])");
    CHECK(format_like_pytorch(DynamicTensor::from_shape({0, 3})) == "tensor([], size=(0, 3))");
}

TEST_CASE("format_tensor_body indents continuation rows by the given column", "[tensor_format]") {
    const attn::Matrix matrix = {{1, 2}, {3, 4}};
    CHECK(attn::tutor::format_tensor_body(matrix, 0) == "[[1., 2.],\n [3., 4.]]");
    CHECK(attn::tutor::format_tensor_body(matrix, 4) == "[[1., 2.],\n     [3., 4.]]");
}

TEST_CASE("tensor format cases file exists and holds at least 30 cases", "[tensor_format]") {
    // Guards the test below against passing vacuously on a missing or truncated file.
    const auto& cases = recorded_cases();
    CHECK(cases.size() >= 30);
    for (const auto& format_case : cases) {
        INFO("case " << format_case.name);
        CHECK_FALSE(format_case.expected_text.empty());
    }
}

TEST_CASE("format_like_pytorch matches PyTorch 1.13 on every recorded case", "[tensor_format]") {
    for (const auto& format_case : recorded_cases()) {
        const std::string got = format_like_pytorch(tensor_of(format_case));
        INFO("case " << format_case.name << "\nexpected:\n" << format_case.expected_text << "\ngot:\n" << got);
        CHECK(got == format_case.expected_text);
    }
}

TEST_CASE("an integer dtype prints as PyTorch prints int64: whole numbers right-aligned to the widest", "[tensor_format]") {
    // Expected strings: print(torch.tensor(...)) in PyTorch 1.13.
    attn::tutor::PrintOptions integers;
    integers.integer_dtype = true;
    DynamicTensor sizes = DynamicTensor::from_shape({5});
    const double size_values[] = {1, 4, 512, 8, 2048};
    std::copy(std::begin(size_values), std::end(size_values), sizes.begin());
    CHECK(format_like_pytorch(sizes, integers) == "tensor([   1,    4,  512,    8, 2048])");
    DynamicTensor weights = DynamicTensor::from_shape({4, 4});
    const double weight_values[] = {1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 1, -1};
    std::copy(std::begin(weight_values), std::end(weight_values), weights.begin());
    CHECK(format_like_pytorch(weights, integers) ==
          "tensor([[ 1,  0,  0,  1],\n"
          "        [ 0,  1,  1,  0],\n"
          "        [ 1,  1,  0,  0],\n"
          "        [ 0,  0,  1, -1]])");
    // torch.arange(25) * 1000: ten to a line at linewidth 80.
    DynamicTensor thousands = DynamicTensor::from_shape({25});
    for (std::size_t i = 0; i < 25; ++i) thousands(i) = 1000.0 * static_cast<double>(i);
    CHECK(format_like_pytorch(thousands, integers) ==
          "tensor([    0,  1000,  2000,  3000,  4000,  5000,  6000,  7000,  8000,  9000,\n"
          "        10000, 11000, 12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000,\n"
          "        20000, 21000, 22000, 23000, 24000])");
    // The same values as float32 keep PyTorch's float print.
    CHECK(format_like_pytorch(sizes) == "tensor([1.0000e+00, 4.0000e+00, 5.1200e+02, 8.0000e+00, 2.0480e+03])");
}
