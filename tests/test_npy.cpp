// Tests for attn/npy.hpp: the reader against files NumPy itself wrote (tests/data/npy, regenerated
// by tools/make_npy_fixtures.py), the writer against NumPy's bytes, and every refusal's message.
//
// Why fixtures from NumPy rather than bytes we build: a reader tested only against our own writer
// would agree with itself and still reject what students actually save with np.save.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "attn/error.hpp"
#include "attn/npy.hpp"
#include "support/temp_dir.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using attn::testing::read_file;
using attn::testing::TempDir;
using attn::testing::write_file;
using Shape = std::vector<std::size_t>;
using Values = std::vector<double>;

namespace {

std::string fixture(const std::string& name) { return ATTN_SOURCE_DIR "/tests/data/npy/" + name; }

// The message of the attn::InputError that `action` throws. Any other exception escapes and fails
// the test, which is the point: a bad file must never surface as std::out_of_range or similar.
template <class Action>
std::string input_error_message(Action&& action) {
    try {
        action();
    } catch (const attn::InputError& error) {
        return error.what();
    }
    return "(no attn::InputError was thrown)";
}

// The names in `folder`, sorted, so that a leftover temporary file shows up in the failure output.
std::vector<std::string> folder_entries(const std::string& folder) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::size_t element_count(const Shape& shape) {
    std::size_t count = 1;
    for (std::size_t size : shape) count *= size;
    return count;
}

// Distinct, non-round values (so that a transposition or a float32 rounding would show).
Values sample_values(std::size_t count) {
    Values values;
    for (std::size_t i = 0; i < count; ++i) values.push_back((static_cast<double>(i) - 3.0) * 0.37 + 1.0 / 3.0);
    return values;
}

Values rounded_to_float32(const Values& values) {
    Values rounded;
    for (double value : values) rounded.push_back(static_cast<double>(static_cast<float>(value)));
    return rounded;
}

// A hand-made .npy file with `header_dict` as its header, for the malformed cases NumPy never
// writes. The header is padded the way NumPy does so that only the intended defect is present.
std::string npy_with_header(const std::string& header_dict, const std::string& data, int major_version = 1) {
    const std::size_t prefix = major_version == 1 ? 10 : 12;
    std::string header = header_dict;
    header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    std::string bytes = "\x93NUMPY";
    bytes += static_cast<char>(major_version);
    bytes += '\0';
    const std::size_t length_bytes = major_version == 1 ? 2 : 4;
    for (std::size_t i = 0; i < length_bytes; ++i) bytes += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    return bytes + header + data;
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
// Reading files NumPy wrote

TEST_CASE("read_npy reads a float32 2x3 file and widens it to double", "[npy]") {
    const attn::NpyArray array = attn::read_npy(fixture("float32_2x3.npy"));
    CHECK(array.shape == Shape{2, 3});
    CHECK(attn::dtype_name(array.dtype) == "float32");
    CHECK(array.values == Values{0.0, 1.0, 2.0, 3.0, 4.0, 5.0});
}

TEST_CASE("read_npy keeps full double precision of a float64 2x2x3 file", "[npy]") {
    const attn::NpyArray array = attn::read_npy(fixture("float64_2x2x3.npy"));
    CHECK(array.shape == Shape{2, 2, 3});
    CHECK(attn::dtype_name(array.dtype) == "float64");
    // NumPy computed arange(12) / 10 in double; IEEE division is correctly rounded, so i / 10.0
    // is the same double bit for bit, and a detour through float would break equality.
    Values expected;
    for (int i = 0; i < 12; ++i) expected.push_back(i / 10.0);
    REQUIRE(array.values.size() == 12);
    CHECK(array.values == expected);
    CHECK(array.values[1] == 0.1);
}

TEST_CASE("read_npy widens float32 values to double exactly", "[npy]") {
    const attn::NpyArray array = attn::read_npy(fixture("float32_1d.npy"));
    CHECK(array.shape == Shape{3});
    CHECK(attn::dtype_name(array.dtype) == "float32");
    // The file holds 0.1f, 0.2f, 0.3f; widened exactly they are not 0.1, 0.2, 0.3.
    REQUIRE(array.values.size() == 3);
    CHECK(array.values == Values{static_cast<double>(0.1f), static_cast<double>(0.2f), static_cast<double>(0.3f)});
    CHECK(array.values[0] != 0.1);
}

TEST_CASE("read_npy reads a 0-d scalar as an empty shape with one value", "[npy]") {
    const attn::NpyArray array = attn::read_npy(fixture("float64_scalar.npy"));
    CHECK(array.shape.empty());
    CHECK(attn::dtype_name(array.dtype) == "float64");
    CHECK(array.values == Values{-1.25});
}

TEST_CASE("read_npy reads an empty 0x3 array", "[npy]") {
    const attn::NpyArray array = attn::read_npy(fixture("float32_empty_0x3.npy"));
    CHECK(array.shape == Shape{0, 3});
    CHECK(attn::dtype_name(array.dtype) == "float32");
    CHECK(array.values.empty());
}

TEST_CASE("read_npy reads format version 2.0 with its 4-byte header length", "[npy]") {
    const std::string bytes = read_file(fixture("float64_version2_2x2.npy"));
    REQUIRE(bytes.size() > 8);
    REQUIRE(static_cast<int>(bytes[6]) == 2);  // the fixture really is version 2.0
    const attn::NpyArray array = attn::read_npy(fixture("float64_version2_2x2.npy"));
    CHECK(array.shape == Shape{2, 2});
    CHECK(attn::dtype_name(array.dtype) == "float64");
    CHECK(array.values == Values{0.5, -2.0, 4.0, 1e-3});
}

// ---------------------------------------------------------------------------------------------
// Refusing files, with the path first and the reason in words

TEST_CASE("read_npy refuses Fortran-order arrays", "[npy]") {
    const std::string path = fixture("float32_fortran_2x3.npy");
    const std::string message = input_error_message([&] { attn::read_npy(path); });
    CHECK_THAT(message, StartsWith(path + ": ") && Contains("Fortran") && Contains("ascontiguousarray"));
}

TEST_CASE("read_npy refuses int64 and names the dtype", "[npy]") {
    const std::string path = fixture("int64_3.npy");
    const std::string message = input_error_message([&] { attn::read_npy(path); });
    CHECK_THAT(message, StartsWith(path + ": ") && Contains("int64") && Contains("float32 or float64"));
}

TEST_CASE("read_npy refuses float16 and names the dtype", "[npy]") {
    const std::string path = fixture("float16_3.npy");
    const std::string message = input_error_message([&] { attn::read_npy(path); });
    CHECK_THAT(message, StartsWith(path + ": ") && Contains("float16") && Contains("not supported"));
}

TEST_CASE("read_npy refuses bool and names the dtype", "[npy]") {
    const std::string path = fixture("bool_2.npy");
    const std::string message = input_error_message([&] { attn::read_npy(path); });
    CHECK_THAT(message, StartsWith(path + ": ") && Contains("bool") && Contains("not supported"));
}

TEST_CASE("read_npy refuses big-endian float32", "[npy]") {
    const std::string path = fixture("float32_big_endian_3.npy");
    const std::string message = input_error_message([&] { attn::read_npy(path); });
    CHECK_THAT(message, StartsWith(path + ": ") && Contains("big-endian") && Contains(">f4"));
}

TEST_CASE("read_npy refuses a truncated file and says how many bytes are missing", "[npy]") {
    const std::string path = fixture("float32_2x3_truncated.npy");
    const std::string message = input_error_message([&] { attn::read_npy(path); });
    CHECK_THAT(message, StartsWith(path + ": ") && Contains("truncated") && Contains("needs 24 bytes") &&
                            Contains("has 20"));
}

TEST_CASE("read_npy refuses a text file that is not npy", "[npy]") {
    const std::string path = fixture("text_not_npy.npy");
    const std::string message = input_error_message([&] { attn::read_npy(path); });
    CHECK_THAT(message, StartsWith(path + ": ") && Contains("not a .npy file") && Contains("numpy.save"));
}

TEST_CASE("read_npy reports a missing file as cannot open", "[npy]") {
    TempDir dir;
    const std::string path = dir.path() + "/no_such_file.npy";
    const std::string message = input_error_message([&] { attn::read_npy(path); });
    CHECK_THAT(message, StartsWith(path + ": ") && Contains("cannot open") && Contains("No such file"));
}

TEST_CASE("read_npy reports an empty file as not a npy file", "[npy]") {
    TempDir dir;
    const std::string path = dir.path() + "/empty.npy";
    write_file(path, "");
    const std::string message = input_error_message([&] { attn::read_npy(path); });
    CHECK_THAT(message, StartsWith(path + ": ") && Contains("not a .npy file"));
}

TEST_CASE("read_npy reports a folder as a folder rather than as a bad file", "[npy]") {
    // Linux lets a folder be opened for reading; only the read fails. The message must say so
    // instead of claiming the "file" has the wrong content.
    TempDir dir;
    const std::string message = input_error_message([&] { attn::read_npy(dir.path()); });
    CHECK_THAT(message, StartsWith(dir.path() + ": ") && Contains("cannot read") && Contains("folder"));
    CHECK_THAT(message, !Contains("not a .npy file"));
}

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

// ---------------------------------------------------------------------------------------------
// Writing files

TEST_CASE("write_npy writes the same bytes as np.save of float32 arange 6 reshaped 2x3", "[npy]") {
    TempDir dir;
    const std::string path = dir.path() + "/context.npy";
    attn::write_npy(path, {2, 3}, Values{0, 1, 2, 3, 4, 5}, attn::NpyDtype::float32);
    const std::string numpy_bytes = read_file(fixture("float32_2x3.npy"));
    REQUIRE(numpy_bytes.size() == 152);  // 128 bytes of header, 24 of data: the fixture is intact
    CHECK(read_file(path) == numpy_bytes);
}

TEST_CASE("write_npy then read_npy gives back the array", "[npy]") {
    TempDir dir;
    const std::string path = dir.path() + "/weights.npy";
    const Values values = sample_values(12);
    attn::write_npy(path, {3, 4}, values, attn::NpyDtype::float64);
    const attn::NpyArray array = attn::read_npy(path);
    CHECK(array.shape == Shape{3, 4});
    CHECK(attn::dtype_name(array.dtype) == "float64");
    CHECK(array.values == values);
}

TEST_CASE("write_npy leaves no temporary file beside the target", "[npy]") {
    TempDir dir;
    attn::write_npy(dir.path() + "/out.npy", {2}, Values{1, 2}, attn::NpyDtype::float32);
    CHECK(folder_entries(dir.path()) == std::vector<std::string>{"out.npy"});
}

TEST_CASE("write_npy replaces an existing file whole", "[npy]") {
    TempDir dir;
    const std::string path = dir.path() + "/out.npy";
    write_file(path, std::string(1000, 'x'));  // longer than the new file: no stale tail may remain
    attn::write_npy(path, {2}, Values{1, 2}, attn::NpyDtype::float32);
    CHECK(read_file(path) == attn::encode_npy({2}, Values{1, 2}, attn::NpyDtype::float32));
    CHECK(folder_entries(dir.path()) == std::vector<std::string>{"out.npy"});
}

TEST_CASE("write_npy into a missing folder throws naming the path and leaves nothing", "[npy]") {
    TempDir dir;
    const std::string path = dir.path() + "/missing/out.npy";
    const std::string message =
        input_error_message([&] { attn::write_npy(path, {2}, Values{1, 2}, attn::NpyDtype::float32); });
    CHECK_THAT(message, StartsWith("cannot write " + path + ": ") && Contains("missing does not exist"));
    CHECK(folder_entries(dir.path()).empty());
}

TEST_CASE("write_npy below a regular file throws naming the path and leaves nothing", "[npy]") {
    // Tests run as root, so a read-only folder would not stop the write; a path through a regular
    // file fails for everyone.
    TempDir dir;
    write_file(dir.path() + "/plain.txt", "not a folder");
    const std::string path = dir.path() + "/plain.txt/out.npy";
    const std::string message =
        input_error_message([&] { attn::write_npy(path, {2}, Values{1, 2}, attn::NpyDtype::float32); });
    CHECK_THAT(message, StartsWith("cannot write " + path + ": ") && Contains("plain.txt is not a folder"));
    CHECK(folder_entries(dir.path()) == std::vector<std::string>{"plain.txt"});
    CHECK(read_file(dir.path() + "/plain.txt") == "not a folder");
}

TEST_CASE("write_npy onto an existing folder throws and writes nothing", "[npy]") {
    // Refused before anything is staged (tests/test_files.cpp covers the writer's other failures).
    TempDir dir;
    const std::string path = dir.path() + "/taken";
    std::filesystem::create_directory(path);
    const std::string message =
        input_error_message([&] { attn::write_npy(path, {2}, Values{1, 2}, attn::NpyDtype::float32); });
    CHECK_THAT(message, StartsWith("cannot write " + path + ": it is a folder"));
    CHECK(folder_entries(dir.path()) == std::vector<std::string>{"taken"});
    CHECK(std::filesystem::is_directory(path));
}

TEST_CASE("write_npy with a wrong value count creates nothing", "[npy]") {
    TempDir dir;
    const std::string path = dir.path() + "/out.npy";
    CHECK_THROWS_AS(attn::write_npy(path, {2, 2}, Values{1, 2, 3}, attn::NpyDtype::float64), std::invalid_argument);
    CHECK(folder_entries(dir.path()).empty());
}

TEST_CASE("dtype_name spells the NumPy names", "[npy]") {
    CHECK(attn::dtype_name(attn::NpyDtype::float32) == "float32");
    CHECK(attn::dtype_name(attn::NpyDtype::float64) == "float64");
}

// ---------------------------------------------------------------------------------------------
// Hostile files (the reliability issue): sizes checked before allocating, only regular files read,
// header text quoted printable.

TEST_CASE("a shape whose product overflows is refused even when an axis is zero", "[npy][errors]") {
    // (0, 1e15, 1e15) holds no value, but xtensor's strides would multiply 1e15 by 1e15.
    const std::string zero_axis = npy_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 999999999999999, 999999999999999), }", "");
    CHECK_THAT(input_error_message([&] { attn::parse_npy(zero_axis, "z.npy"); }),
               StartsWith("z.npy: the shape (0, 999999999999999, 999999999999999) is too large") &&
                   Contains("non-zero sizes multiply to more than 268435456"));
    const std::string huge = npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (65536, 65536), }", "");
    CHECK_THAT(input_error_message([&] { attn::parse_npy(huge, "h.npy"); }), Contains("is too large: more than 268435456 values"));
    // A zero axis with small axes is an ordinary empty tensor.
    const std::string empty = npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", "");
    CHECK(attn::parse_npy(empty, "e.npy").values.empty());
}

TEST_CASE("a header claiming more than 64 KiB or 64 axes is refused", "[npy][errors]") {
    std::string bytes = std::string("\x93NUMPY\x02\x00", 8) + std::string("\xff\xff\xff\x7f", 4);
    CHECK_THAT(input_error_message([&] { attn::parse_npy(bytes, "big.npy"); }),
               StartsWith("big.npy: the .npy header claims 2147483647 bytes"));
    std::string axes = "(";
    for (int i = 0; i < 65; ++i) axes += "1, ";
    axes += ")";
    const std::string deep = npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': " + axes + ", }", std::string(4, '\0'));
    CHECK_THAT(input_error_message([&] { attn::parse_npy(deep, "deep.npy"); }), Contains("more than 64 axes"));
}

TEST_CASE("header text is quoted without its control characters", "[npy][errors]") {
    const std::string bytes = npy_with_header(std::string("{'descr': '<f4\x1b]0;owned\x07\0', 'fortran_order': False, 'shape': (1,), }", 68),
                                              std::string(4, '\0'));
    const std::string message = input_error_message([&] { attn::parse_npy(bytes, "esc\x1b.npy"); });
    CHECK_THAT(message, StartsWith("esc\xEF\xBF\xBD.npy: dtype '<f4\xEF\xBF\xBD]0;owned\xEF\xBF\xBD\xEF\xBF\xBD'"));
    CHECK(message.find('\x1b') == std::string::npos);
    CHECK(message.find('\0') == std::string::npos);
}

TEST_CASE("read_npy reads only regular files and no more than the header announces", "[npy][errors]") {
    TempDir dir;
    CHECK_THAT(input_error_message([] { attn::read_npy("/dev/zero"); }), StartsWith("/dev/zero: cannot read: it is a character device"));
    const std::string fifo = dir.path() + "/pipe.npy";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THAT(input_error_message([&] { attn::read_npy(fifo); }), Contains("pipe.npy: cannot read: it is a FIFO"));
    CHECK_THAT(input_error_message([&] { attn::read_npy(dir.path()); }), Contains("it is a folder"));
    // A valid header followed by a megabyte too much: refused from the file's size, unread.
    const std::string path = dir.path() + "/long.npy";
    write_file(path, attn::encode_npy({2}, Values{1, 2}, attn::NpyDtype::float32) + std::string(1 << 20, 'x'));
    CHECK_THAT(input_error_message([&] { attn::read_npy(path); }), Contains("1048576 bytes more than its shape (2) needs"));
}
