// Tests for attn/npy.hpp's bytes in memory: parse_npy on malformed headers NumPy never writes,
// and encode_npy's round trips, header layout and NumPy's exact bytes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/npy.hpp"
#include "support/npy_bytes.hpp"
#include "support/temp_dir.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using attn::testing::input_error_message;
using attn::testing::npy_with_header;
using attn::testing::read_file;
using attn::testing::sample_values;
using Shape = std::vector<std::size_t>;
using Values = std::vector<double>;

namespace {

std::string fixture(const std::string& name) { return ATTN_SOURCE_DIR "/tests/data/npy/" + name; }

std::size_t element_count(const Shape& shape) {
    std::size_t count = 1;
    for (std::size_t size : shape) count *= size;
    return count;
}

Values rounded_to_float32(const Values& values) {
    Values rounded;
    for (double value : values) rounded.push_back(static_cast<double>(static_cast<float>(value)));
    return rounded;
}

std::string float32_bytes(const std::vector<float>& values) {
    std::string bytes(values.size() * 4, '\0');
    std::memcpy(&bytes[0], values.data(), bytes.size());
    return bytes;
}

// The header length stored in a version 1.0 file.
std::size_t header_length_v1(const std::string& bytes) {
    return static_cast<unsigned char>(bytes[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Malformed headers NumPy never writes, built by hand

TEST_CASE("parse_npy names the source in every error", "[npy]") {
    const std::string name = "in/decoder_output.npy";
    const std::string good_data = float32_bytes({1, 2, 3, 4, 5, 6});
    const auto message_for = [&](const std::string& bytes) {
        return input_error_message([&] { attn::parse_npy(bytes, name); });
    };

    SECTION("no bytes at all") {
        CHECK_THAT(message_for(""), StartsWith(name + ": ") && Contains("not a .npy file"));
    }
    SECTION("the magic string alone") {
        CHECK_THAT(message_for("\x93NUMPY"), StartsWith(name + ": ") && Contains("truncated"));
    }
    SECTION("a header length that runs past the end of the file") {
        const std::string whole = npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", "");
        CHECK_THAT(message_for(whole.substr(0, 40)), StartsWith(name + ": ") && Contains("truncated") &&
                                                         Contains("header"));
    }
    SECTION("a version 2.0 file cut inside its 4-byte header length") {
        CHECK_THAT(message_for(std::string("\x93NUMPY\x02\x00\x10\x00", 10)),
                   StartsWith(name + ": ") && Contains("truncated"));
    }
    SECTION("an unknown format version") {
        std::string bytes = npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", good_data);
        bytes[6] = '\x04';
        CHECK_THAT(message_for(bytes), StartsWith(name + ": ") && Contains("unsupported .npy format version 4"));
    }
    SECTION("more data than the shape needs") {
        const std::string bytes =
            npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", good_data + "xxxx");
        CHECK_THAT(message_for(bytes), StartsWith(name + ": ") && Contains("4 bytes more") && Contains("(2, 3)"));
    }
    SECTION("no shape entry") {
        const std::string bytes = npy_with_header("{'descr': '<f4', 'fortran_order': False, }", good_data);
        CHECK_THAT(message_for(bytes), StartsWith(name + ": ") && Contains("no 'shape' entry"));
    }
    SECTION("no descr entry") {
        const std::string bytes = npy_with_header("{'fortran_order': False, 'shape': (2, 3), }", good_data);
        CHECK_THAT(message_for(bytes), StartsWith(name + ": ") && Contains("no 'descr' entry"));
    }
    SECTION("a negative dimension") {
        const std::string bytes =
            npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", good_data);
        CHECK_THAT(message_for(bytes), StartsWith(name + ": ") && Contains("bad dimension '-3'"));
    }
    SECTION("a shape that is not a tuple") {
        const std::string bytes = npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': 6, }", good_data);
        CHECK_THAT(message_for(bytes), StartsWith(name + ": ") && Contains("not a tuple"));
    }
    SECTION("a fortran_order that is not a boolean") {
        const std::string bytes =
            npy_with_header("{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }", good_data);
        CHECK_THAT(message_for(bytes), StartsWith(name + ": ") && Contains("neither True nor False"));
    }
    SECTION("a shape whose element count overflows") {
        const std::string bytes = npy_with_header(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000000, 100000000000000), }", "");
        CHECK_THAT(message_for(bytes), StartsWith(name + ": ") && Contains("too large"));
    }
    SECTION("an unknown dtype is quoted as written") {
        const std::string bytes =
            npy_with_header("{'descr': '<U5', 'fortran_order': False, 'shape': (2, 3), }", good_data);
        CHECK_THAT(message_for(bytes), StartsWith(name + ": ") && Contains("dtype '<U5' is not supported"));
    }
}

TEST_CASE("parse_npy accepts header spellings other writers use", "[npy]") {
    const std::string data = float32_bytes({1.5f, -2.5f});
    SECTION("double quotes and no spaces") {
        const attn::NpyArray array =
            attn::parse_npy(npy_with_header("{\"descr\":\"<f4\",\"fortran_order\":False,\"shape\":(2,)}", data), "x");
        CHECK(array.shape == Shape{2});
        CHECK(array.values == Values{1.5, -2.5});
    }
    SECTION("native byte order and keys in another order") {
        const attn::NpyArray array =
            attn::parse_npy(npy_with_header("{'shape': (1, 2), 'fortran_order': False, 'descr': '=f4', }", data), "x");
        CHECK(array.shape == Shape{1, 2});
        CHECK(array.values == Values{1.5, -2.5});
    }
    SECTION("Python 2 long integers in the shape") {
        const attn::NpyArray array =
            attn::parse_npy(npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 1L), }", data),
                            "x");
        CHECK(array.shape == Shape{2, 1});
        CHECK(array.values == Values{1.5, -2.5});
    }
    SECTION("format version 3.0") {
        const attn::NpyArray array =
            attn::parse_npy(npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data, 3), "x");
        CHECK(array.shape == Shape{2});
        CHECK(array.values == Values{1.5, -2.5});
    }
}

// ---------------------------------------------------------------------------------------------
// Encoding: round trips, the header layout, and NumPy's exact bytes

TEST_CASE("encode_npy then parse_npy round-trips float64 exactly for many shapes", "[npy]") {
    const std::vector<Shape> shapes = {{}, {1}, {5}, {0}, {0, 3}, {3, 0}, {2, 3}, {2, 2, 3}, {1, 1, 1, 1}, {2, 0, 4}};
    for (const Shape& shape : shapes) {
        const Values values = sample_values(element_count(shape));
        const std::string bytes = attn::encode_npy(shape, values, attn::NpyDtype::float64);
        const attn::NpyArray array = attn::parse_npy(bytes, "round trip");
        INFO("shape has " << shape.size() << " dimensions and " << values.size() << " values");
        CHECK(array.shape == shape);
        CHECK(attn::dtype_name(array.dtype) == "float64");
        CHECK(array.values == values);
    }
}

TEST_CASE("encode_npy then parse_npy round-trips float32 rounded to float", "[npy]") {
    const std::vector<Shape> shapes = {{}, {1}, {5}, {0}, {0, 3}, {2, 3}, {2, 2, 3}, {4, 1}};
    for (const Shape& shape : shapes) {
        const Values values = sample_values(element_count(shape));
        const std::string bytes = attn::encode_npy(shape, values, attn::NpyDtype::float32);
        const attn::NpyArray array = attn::parse_npy(bytes, "round trip");
        INFO("shape has " << shape.size() << " dimensions and " << values.size() << " values");
        CHECK(array.shape == shape);
        CHECK(attn::dtype_name(array.dtype) == "float32");
        CHECK(array.values == rounded_to_float32(values));
    }
    // The rounding is real: 1/3 does not survive float32.
    const attn::NpyArray third = attn::parse_npy(attn::encode_npy({}, {1.0 / 3.0}, attn::NpyDtype::float32), "third");
    REQUIRE(third.values.size() == 1);
    CHECK(third.values[0] != 1.0 / 3.0);
    CHECK(third.values[0] == static_cast<double>(1.0f / 3.0f));
}

TEST_CASE("encode_npy keeps special values", "[npy]") {
    const double infinity = std::numeric_limits<double>::infinity();
    const double smallest_subnormal = std::numeric_limits<double>::denorm_min();
    const Values values = {std::nan(""), infinity, -infinity, -0.0, smallest_subnormal, 1e300};

    const attn::NpyArray wide = attn::parse_npy(attn::encode_npy({6}, values, attn::NpyDtype::float64), "float64");
    REQUIRE(wide.values.size() == 6);
    CHECK(std::isnan(wide.values[0]));
    CHECK(wide.values[1] == infinity);
    CHECK(wide.values[2] == -infinity);
    CHECK(wide.values[3] == 0.0);
    CHECK(std::signbit(wide.values[3]));
    CHECK(wide.values[4] == smallest_subnormal);
    CHECK(wide.values[5] == 1e300);

    // float32 cannot hold the last two: they round to 0 and to infinity, as NumPy's astype does.
    const attn::NpyArray narrow = attn::parse_npy(attn::encode_npy({6}, values, attn::NpyDtype::float32), "float32");
    REQUIRE(narrow.values.size() == 6);
    CHECK(std::isnan(narrow.values[0]));
    CHECK(narrow.values[1] == infinity);
    CHECK(narrow.values[2] == -infinity);
    CHECK(std::signbit(narrow.values[3]));
    CHECK(narrow.values[4] == 0.0);
    CHECK(narrow.values[5] == infinity);
}

TEST_CASE("encode_npy refuses a value count that does not match the shape", "[npy]") {
    // A programming error, not bad input: std::invalid_argument, not attn::InputError.
    CHECK_THROWS_AS(attn::encode_npy({2, 3}, Values(5, 0.0), attn::NpyDtype::float32), std::invalid_argument);
    CHECK_THROWS_WITH(attn::encode_npy({2, 3}, Values(5, 0.0), attn::NpyDtype::float32),
                      Contains("(2, 3) holds 6 values, got 5"));
    CHECK_THROWS_AS(attn::encode_npy({}, Values{}, attn::NpyDtype::float64), std::invalid_argument);
}

TEST_CASE("encode_npy writes a version 1.0 header that ends on a 64-byte boundary", "[npy]") {
    // Eleven tens and ones: "{'descr': '<f4', 'fortran_order': False, 'shape': (...), }" plus the
    // 10-byte prefix and the newline come to exactly 128 bytes, so no padding at all is needed —
    // the case where a "64 - remainder" formula would add a useless 64 spaces or misalign.
    Shape exactly_aligned(21, 1);
    exactly_aligned[0] = 10;
    const std::vector<Shape> shapes = {{},     {3},   {2, 3},     {0, 3},         {123456789, 0},
                                       {1, 2, 3, 4, 5, 6, 7, 8}, exactly_aligned};
    bool saw_unpadded_header = false;
    for (const attn::NpyDtype dtype : {attn::NpyDtype::float32, attn::NpyDtype::float64}) {
        for (const Shape& shape : shapes) {
            const std::size_t count = element_count(shape);
            const std::string bytes = attn::encode_npy(shape, sample_values(count), dtype);
            INFO(attn::dtype_name(dtype) << " with " << shape.size() << " dimensions");
            REQUIRE(bytes.size() >= 10);
            CHECK(bytes.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
            const std::size_t data_start = 10 + header_length_v1(bytes);
            CHECK(data_start % 64 == 0);
            CHECK(bytes[data_start - 1] == '\n');
            CHECK(bytes.size() == data_start + count * (dtype == attn::NpyDtype::float32 ? 4 : 8));
            const std::string header = bytes.substr(10, data_start - 10);
            CHECK_THAT(header, StartsWith(std::string("{'descr': '") +
                                          (dtype == attn::NpyDtype::float32 ? "<f4" : "<f8") +
                                          "', 'fortran_order': False, 'shape': ("));
            if (header.find("}\n") != std::string::npos) saw_unpadded_header = true;
        }
    }
    CHECK(saw_unpadded_header);
}

TEST_CASE("encode_npy writes tuple syntax Python reads", "[npy]") {
    // A 1-D shape needs the trailing comma: "(3)" is an int in Python, not a tuple.
    const std::string one_d = attn::encode_npy({3}, Values{1, 2, 3}, attn::NpyDtype::float64);
    CHECK_THAT(one_d, Contains("'shape': (3,), }"));
    const std::string scalar = attn::encode_npy({}, Values{1}, attn::NpyDtype::float64);
    CHECK_THAT(scalar, Contains("'shape': (), }"));
    const std::string three_d = attn::encode_npy({2, 2, 3}, Values(12, 0.0), attn::NpyDtype::float64);
    CHECK_THAT(three_d, Contains("'shape': (2, 2, 3), }"));
}

TEST_CASE("encode_npy produces the bytes np.save produces", "[npy]") {
    // Byte identity with files NumPy wrote proves NumPy can read ours: same header, same padding,
    // same data layout. (The fixtures' values are repeated here as literals.)
    Values tenths;
    for (int i = 0; i < 12; ++i) tenths.push_back(i / 10.0);

    CHECK(attn::encode_npy({2, 3}, Values{0, 1, 2, 3, 4, 5}, attn::NpyDtype::float32) ==
          read_file(fixture("float32_2x3.npy")));
    CHECK(attn::encode_npy({2, 2, 3}, tenths, attn::NpyDtype::float64) == read_file(fixture("float64_2x2x3.npy")));
    // np.array([0.1, 0.2, 0.3], dtype=float32) rounds each double to the nearest float, as we do.
    CHECK(attn::encode_npy({3}, Values{0.1, 0.2, 0.3}, attn::NpyDtype::float32) ==
          read_file(fixture("float32_1d.npy")));
    CHECK(attn::encode_npy({}, Values{-1.25}, attn::NpyDtype::float64) == read_file(fixture("float64_scalar.npy")));
    CHECK(attn::encode_npy({0, 3}, Values{}, attn::NpyDtype::float32) == read_file(fixture("float32_empty_0x3.npy")));
}
